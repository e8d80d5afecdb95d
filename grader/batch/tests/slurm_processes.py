"""What the test Slurm cluster (slurm_cluster.py) reads of this machine's processes and
resources, from /proc: a free port, the memory, a process tree, the processes holding a
folder open (so that stop() ends exactly what the cluster started)."""
import os
import socket


def free_port():
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mem_total_mb():
    """The machine's memory in MiB, for slurm.conf's RealMemory."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    return 1024


def children_of(pids):
    """pids plus all their descendants, read from /proc."""
    parent = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name sits in parentheses and may contain spaces.
        fields = stat[stat.rfind(")") + 2:].split()
        parent[int(entry)] = int(fields[1])
    found = set(pids)
    grew = True
    while grew:
        grew = False
        for pid, ppid in parent.items():
            if ppid in found and pid not in found:
                found.add(pid)
                grew = True
    return found


def pids_using(folder):
    """Processes holding an open file or socket inside folder."""
    folder = os.path.realpath(folder) + os.sep
    users = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        fd_dir = f"/proc/{entry}/fd"
        try:
            targets = [os.readlink(os.path.join(fd_dir, fd)) for fd in os.listdir(fd_dir)]
        except OSError:
            continue
        if any(t.startswith(folder) for t in targets):
            users.add(int(entry))
    return users
