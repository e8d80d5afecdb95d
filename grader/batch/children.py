"""The processes a batch starts (builds, graders), so that one interrupt stops every one of
them and nothing it left half done is taken for a result.

A Ctrl-C at the terminal reaches the batch and its children (one process group); a
SIGINT or SIGTERM to the batch's pid alone reaches only the batch. Either way the batch's
handler calls stop(): from then on `stopping` is set, every running child gets SIGTERM
(the grader kills its own workers on it, grader/process/worker_process.cpp) and SIGKILL
after a grace period, and no new child starts. run() raises Stopped for a child that
ended once the batch was stopping, or that a stop signal ended just before the batch's
handler ran: its caller records nothing, and the same command again grades it.
"""
import os
import signal
import subprocess
import threading

GRACE_S = 3.0
# A child ended by one of these was interrupted, unless its own time limit ended it.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL)
STOP_CODES = {-s for s in STOP_SIGNALS} | {128 + s for s in STOP_SIGNALS}
# How long a child's stop-signal death waits for the batch's own handler to say it is stopping.
HANDLER_WAIT_S = 5.0

stopping = threading.Event()
_lock = threading.RLock()  # stop() runs in a signal handler, maybe on a thread that holds it
_running = set()


class Stopped(Exception):
    """The batch is stopping: the child was not started, or was ended before it finished."""


def _descendants(pid):
    """The processes under `pid` (Linux's /proc children lists), deepest last."""
    found, queue = [], [pid]
    while queue:
        p = queue.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tasks:
            try:
                with open(f"/proc/{p}/task/{t}/children") as f:
                    kids = [int(k) for k in f.read().split()]
            except (OSError, ValueError):
                continue
            found += kids
            queue += kids
    return found


def _signal(proc, sig):
    try:
        proc.send_signal(sig)
    except (ProcessLookupError, OSError):
        pass


def _kill_tree(proc, seen=()):
    """SIGKILL to the child and everything under it (a linker under the compiler driver
    holds the output pipe open as long as it lives), and to `seen`: what was under it
    before a SIGTERM, which may have left those orphaned."""
    for pid in set(_descendants(proc.pid)) | set(seen):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    _signal(proc, signal.SIGKILL)


def _end(proc):
    """SIGTERM, then SIGKILL to the whole tree after GRACE_S; returns the output still unread."""
    tree = _descendants(proc.pid)
    _signal(proc, signal.SIGTERM)
    try:
        out, _ = proc.communicate(timeout=GRACE_S)
    except subprocess.TimeoutExpired:
        _kill_tree(proc, tree)
        try:
            out, _ = proc.communicate(timeout=GRACE_S)
        except subprocess.TimeoutExpired:
            out = b""  # an orphan we cannot see keeps the pipe: leave it, the child is dead
    return out


def run(args, timeout, cwd=None, env=None):
    """(output bytes, exit code); subprocess.TimeoutExpired (with .output) after `timeout`
    seconds, the child ended; Stopped when the batch is stopping."""
    with _lock:
        if stopping.is_set():
            raise Stopped()
        proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        _running.add(proc)
    try:
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            out = _end(proc)
            if not stopping.is_set():
                raise subprocess.TimeoutExpired(args, timeout, output=out)
    finally:
        with _lock:
            _running.discard(proc)
    if stopping.is_set() or (proc.returncode in STOP_CODES and stopping.wait(HANDLER_WAIT_S)):
        raise Stopped()
    return out, proc.returncode


def stop():
    """Ends every running child: SIGTERM now, SIGKILL to those still there after GRACE_S.
    Returns how many were running. Safe in a signal handler (the wait is a thread's)."""
    stopping.set()
    with _lock:
        procs = list(_running)
    trees = {p: _descendants(p.pid) for p in procs}
    for p in procs:
        _signal(p, signal.SIGTERM)

    def finish():
        for p in procs:
            try:
                p.wait(GRACE_S)
            except subprocess.TimeoutExpired:
                pass
            _kill_tree(p, trees[p])  # the grader ended its workers; what else it left goes too

    threading.Thread(target=finish, daemon=True).start()
    return len(procs)


def kill_all():
    """SIGKILL to every running child and everything under it, at once (a second Ctrl-C)."""
    stopping.set()
    with _lock:
        procs = list(_running)
    for p in procs:
        _kill_tree(p)
