#!/usr/bin/env python3
"""A throwaway single-node Slurm cluster for tests (stdlib only, needs root).

    with SlurmCluster() as cluster:
        subprocess.run(["sbatch", ...], env=cluster.env)

start() writes everything (munge key, slurm.conf, state, spool, logs, pid
files) into one fresh temp folder, starts munged, slurmctld and slurmd in the
foreground as children of this process, and waits until the node is idle.
stop() cancels every job, ends the daemons it started (by pid, never by name),
ends any slurmstepd left over from this cluster and removes the folder.

When the cluster cannot run here (not root, a program missing, a daemon that
does not come up), SlurmSkip is raised with a one-line reason, so a ctest can
print it and exit 77 (SKIPPED).

CLI:  slurm_cluster.py check   -> prints "ok" (exit 0) or the reason (exit 77)

The batch.slurm test (test_slurm.py) is what exercises it: a job array graded on it, a
task cancelled, a task failing.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

from grader.batch.tests import slurm_local
from grader.batch.tests.slurm_processes import children_of, free_port, mem_total_mb, pids_using

SKIP_EXIT_CODE = 77
PROGRAMS = ("munged", "munge", "unmunge", "slurmctld", "slurmd",
            "sbatch", "squeue", "sinfo", "scontrol", "scancel", "sacct")
# Job states after which Slurm does nothing more with a job.
FINAL_STATES = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
                "PREEMPTED", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE",
                "SPECIAL_EXIT", "REVOKED"}


class SlurmSkip(Exception):
    """The cluster cannot run on this machine; str(self) says why."""


def skip_reason():
    """None when a cluster may be started here, else a one-line reason."""
    if os.name != "posix" or not hasattr(os, "geteuid"):
        return "Slurm test cluster needs a POSIX system"
    if os.geteuid() != 0:
        return "Slurm test cluster needs root (slurmd must start jobs as the submitting user)"
    missing = [p for p in PROGRAMS if shutil.which(p, path=slurm_local.search_path()) is None]
    if missing:
        return ("Slurm test cluster: not installed: " + ", ".join(missing)
                + " (apt-get install slurm-wlm munge, or unpack the packages: python3 -m grader.batch.tests.slurm_local)")
    return None


class SlurmCluster:
    """One slurmctld + one slurmd + one munged on this host, all in a temp folder."""

    partition = "debug"

    def __init__(self, cpus=None, start_timeout=30.0, keep_state=False,
                 task_plugin="task/affinity", gpus=()):
        self.cpus = cpus or len(os.sched_getaffinity(0))
        # "task/affinity" pins each task to the CPUs it was given (sched_setaffinity,
        # no cgroups needed); "task/none" leaves every task on all CPUs.
        self.task_plugin = task_plugin
        # Device files (slurm_local.gpu_devices()) handed out as gres/gpu.
        self.gpus = list(gpus)
        self.start_timeout = start_timeout
        self.keep_state = keep_state
        self.host = socket.gethostname().split(".")[0]
        self.state_dir = None
        self.conf_path = None
        self.env = None
        self._procs = {}          # name -> Popen
        self.timings = {}         # step -> seconds

    # ---------------------------------------------------------------- setup
    def _path(self, *parts):
        return os.path.join(self.state_dir, *parts)

    def _write_munge_key(self):
        key = self._path("munge", "munge.key")
        # 1024 random bytes, as mungekey/dd would write them.
        subprocess.run(["dd", "if=/dev/urandom", f"of={key}", "bs=1024", "count=1",
                        "status=none"], check=True)
        # munged runs as root here, so root owns the key; munged refuses a key
        # readable by group/other, and refuses one owned by another user.
        os.chown(key, 0, 0)
        os.chmod(key, 0o400)
        return key

    def _write_conf(self):
        mem_mb = mem_total_mb()
        real_mem = max(256, mem_mb - max(512, mem_mb // 10))
        p = self._path
        gres, gres_lines = slurm_local.gres(self.host, self.gpus)
        # Both files beside slurm.conf, where the daemons look for them.
        for name, text in (("gres.conf", gres_lines), ("cgroup.conf", slurm_local.cgroup_conf_lines())):
            if text:
                with open(p(name), "w") as f:
                    f.write("\n".join(text) + "\n")
        lines = [
            "ClusterName=gradertest",
            *slurm_local.conf_lines(),
            "GresTypes=gpu",
            f"SlurmctldHost={self.host}(127.0.0.1)",
            f"SlurmctldPort={self.ctld_port}",
            f"SlurmdPort={self.slurmd_port}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={p('munge', 'munge.socket')}",
            f"StateSaveLocation={p('ctld')}",
            f"SlurmdSpoolDir={p('spool')}",
            f"SlurmctldPidFile={p('run', 'slurmctld.pid')}",
            f"SlurmdPidFile={p('run', 'slurmd.pid')}",
            f"SlurmctldLogFile={p('log', 'slurmctld.log')}",
            f"SlurmdLogFile={p('log', 'slurmd.log')}",
            "SlurmctldDebug=info",
            "SlurmdDebug=info",
            # No cgroups: containers rarely allow them.
            "ProctrackType=proctrack/linuxproc",
            f"TaskPlugin={self.task_plugin}",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU",
            "SchedulerType=sched/backfill",
            "MaxArraySize=100000",
            "MaxJobCount=200000",
            # Finished jobs stay visible to squeue/scontrol this long (s).
            "MinJobAge=3600",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            # One line per finished job (array task) with its state and exit code.
            "JobCompType=jobcomp/filetxt",
            f"JobCompLoc={p('log', 'jobcomp.txt')}",
            "ReturnToService=2",
            "InactiveLimit=0",
            "KillWait=2",
            "OverTimeLimit=0",
            "MailProg=/bin/true",
            f"NodeName={self.host} NodeAddr=127.0.0.1 NodeHostname={self.host} "
            f"CPUs={self.cpus} RealMemory={real_mem}{gres} State=UNKNOWN",
            f"PartitionName={self.partition} Nodes={self.host} Default=YES "
            "MaxTime=INFINITE State=UP OverSubscribe=NO",
        ]
        self.conf_path = p("slurm.conf")
        with open(self.conf_path, "w") as f:
            f.write("\n".join(lines) + "\n")

    def _make_env(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SBATCH_", "SQUEUE_", "SACCT_", "SINFO_", "SRUN_", "SALLOC_"))}
        env["SLURM_CONF"] = self.conf_path
        env["PATH"] = slurm_local.search_path()
        return slurm_local.environment(env)

    # ---------------------------------------------------------------- daemons
    def _spawn(self, name, argv):
        log = open(self._path("log", name + ".stderr"), "wb")
        try:
            proc = subprocess.Popen(argv, env=self.env, stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        finally:
            log.close()
        self._procs[name] = proc
        return proc

    def _wait_for(self, what, ready):
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            for name, proc in self._procs.items():
                if proc.poll() is not None:
                    raise SlurmSkip(f"cannot start Slurm test cluster: {name} exited "
                                    f"with {proc.returncode} while waiting for {what}; "
                                    + self._log_tail(name))
            if ready():
                return
            time.sleep(0.1)
        raise SlurmSkip(f"cannot start Slurm test cluster: timed out waiting for {what}; "
                        + self._log_tail(what.split()[0]))

    def _log_tail(self, name):
        tails = []
        for fname in (name + ".stderr", name + ".log"):
            try:
                with open(self._path("log", fname), errors="replace") as f:
                    text = f.read().strip().splitlines()
            except OSError:
                continue
            if text:
                tails.append(f"{fname}: " + " | ".join(text[-3:]))
        return "; ".join(tails) or "no log"

    def _quiet(self, *argv, timeout=10):
        try:
            return subprocess.run(argv, env=self.env, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(argv, 124, "", "timeout")

    def _munge_ok(self):
        sock = self._path("munge", "munge.socket")
        if not os.path.exists(sock):
            return False
        enc = self._quiet("munge", "-n", f"--socket={sock}")
        if enc.returncode != 0:
            return False
        dec = subprocess.run(["unmunge", f"--socket={sock}"], input=enc.stdout, env=self.env,
                             capture_output=True, text=True, timeout=10)
        return dec.returncode == 0

    def _ctld_up(self):
        r = self._quiet("scontrol", "ping")
        return r.returncode == 0 and "is UP" in r.stdout

    def _node_idle(self):
        r = self._quiet("sinfo", "-h", "-N", "-n", self.host, "-o", "%T")
        return r.returncode == 0 and r.stdout.strip() == "idle"

    def start(self):
        reason = skip_reason()
        if reason:
            raise SlurmSkip(reason)
        t0 = time.monotonic()
        self.state_dir = tempfile.mkdtemp(prefix="slurm-test-")
        try:
            # munged wants every folder above its socket searchable by all
            # ("execute permissions for all required"); mkdtemp makes 0700.
            os.chmod(self.state_dir, 0o755)
            for sub in ("munge", "ctld", "spool", "run", "log"):
                os.mkdir(self._path(sub), 0o755)
            self.ctld_port, self.slurmd_port = free_port(), free_port()
            key = self._write_munge_key()
            self._write_conf()
            self.env = self._make_env()

            t = time.monotonic()
            self._spawn("munged", [
                "munged", "--foreground", "--force",
                f"--socket={self._path('munge', 'munge.socket')}",
                f"--key-file={key}",
                f"--pid-file={self._path('run', 'munged.pid')}",
                f"--log-file={self._path('log', 'munged.log')}",
                f"--seed-file={self._path('munge', 'munged.seed')}",
            ])
            self._wait_for("munged socket", self._munge_ok)
            self.timings["munged"] = time.monotonic() - t

            t = time.monotonic()
            self._spawn("slurmctld", ["slurmctld", "-D", "-i", "-f", self.conf_path])
            self._wait_for("slurmctld ping", self._ctld_up)
            self.timings["slurmctld"] = time.monotonic() - t

            t = time.monotonic()
            self._spawn("slurmd", ["slurmd", "-D", "-f", self.conf_path])
            self._wait_for("slurmd node idle", self._node_idle)
            self.timings["slurmd"] = time.monotonic() - t
        except BaseException:
            self.stop()
            raise
        self.timings["start"] = time.monotonic() - t0
        return self

    def stop(self):
        if self.state_dir is None:
            return
        t0 = time.monotonic()
        if "slurmctld" in self._procs and self._procs["slurmctld"].poll() is None:
            self._quiet("scancel", "--full", "--user=root")
            self._quiet("scancel", "--full", "--user=" + str(os.getuid()))
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                r = self._quiet("squeue", "-h", "-t", "RUNNING,COMPLETING,PENDING,SUSPENDED",
                                "-o", "%i")
                if r.returncode != 0 or not r.stdout.strip():
                    break
                time.sleep(0.2)
        # slurmd first (it ends job steps), then the controller, then munge.
        for name in ("slurmd", "slurmctld", "munged"):
            proc = self._procs.get(name)
            if proc is None or proc.poll() is not None:
                continue
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        # slurmstepd daemonizes away from slurmd; whatever still holds a
        # socket in our spool folder (and its children) belongs to us.
        leftovers = children_of(pids_using(self.state_dir)) - {os.getpid()}
        for pid in leftovers:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._procs.clear()
        if not self.keep_state:
            shutil.rmtree(self.state_dir, ignore_errors=True)
        self.state_dir = None
        self.timings["stop"] = time.monotonic() - t0

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    # ---------------------------------------------------------------- helpers
    def run(self, *argv, check=True, timeout=60):
        """Run a Slurm client command against this cluster; returns CompletedProcess."""
        return subprocess.run(argv, env=self.env, capture_output=True, text=True,
                              check=check, timeout=timeout)

    def job_states(self, job_id):
        """{'<job>' or '<job>_<task>': (state, reason, exit_code)} from squeue.

        Needs no accounting: finished jobs stay in slurmctld for MinJobAge.
        Array tasks not yet started appear grouped as '<job>_[2-5%3]'.
        """
        out = self.run("squeue", "-h", "--states=all", "-j", str(job_id),
                       "-o", "%i|%T|%r").stdout
        states = {}
        for line in out.splitlines():
            jid, state, reason = line.split("|", 2)
            states[jid] = (state, reason)
        return states

    def wait_final(self, job_ids, timeout=300):
        """Poll squeue until every job/array task in job_ids reached a final state."""
        deadline = time.monotonic() + timeout
        while True:
            states = {}
            for j in job_ids:
                states.update(self.job_states(j))
            if states and all(s in FINAL_STATES for s, _ in states.values()):
                return states
            if time.monotonic() > deadline:
                raise TimeoutError(f"jobs not finished: {states}")
            time.sleep(0.5)

    def jobcomp_records(self):
        """Records of the jobcomp/filetxt log: list of {key: value} dicts."""
        records = []
        try:
            with open(self._path("log", "jobcomp.txt")) as f:
                for line in f:
                    rec = {}
                    for word in line.split():
                        if "=" in word:
                            k, v = word.split("=", 1)
                            rec[k] = v
                    records.append(rec)
        except FileNotFoundError:
            pass
        return records


def run_unittests(cluster, about=""):
    """Starts `cluster`, runs the calling program's unittest cases with its Slurm commands
    (and any unpacked packages' libraries) in this process's environment, and stops it.
    Returns the exit status: 0, 1, or SKIP_EXIT_CODE with the reason when it cannot start."""
    try:
        cluster.start()
    except SlurmSkip as e:
        print(f"SKIPPED: {e}")
        return SKIP_EXIT_CODE
    try:
        print(f"Slurm cluster up in {cluster.timings['start']:.1f} s {about}")
        os.environ.update({k: cluster.env[k] for k in ("SLURM_CONF", "PATH", "LD_LIBRARY_PATH") if k in cluster.env})
        result = unittest.main(argv=[sys.argv[0], "-v"], exit=False).result
        return 0 if result.wasSuccessful() else 1
    finally:
        cluster.stop()


# -------------------------------------------------------------------- CLI
def main(argv):
    """`check`: prints "ok" (exit 0) or why a cluster cannot run here (exit 77)."""
    if argv[1:] not in ([], ["check"]):
        print("usage: slurm_cluster.py [check]", file=sys.stderr)
        return 2
    reason = skip_reason()
    print(reason or "ok")
    return SKIP_EXIT_CODE if reason else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
