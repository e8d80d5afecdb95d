"""What Slurm says became of each task of a job array, and the gradebook status that
says so for a submission its task never graded.

Slurm's own account is asked in order: `sacct` (the accounting database: it remembers
every job, but only where accounting is set up), then `scontrol show job` (the
controller: every cluster has it, but it forgets a finished job after MinJobAge,
300 s by default). When neither remembers the task, the status says so.
"""
import re
import subprocess

from grader import names

# Slurm's job state -> the gradebook's status of a submission its task did not grade.
STATUS_OF_STATE = {
    "TIMEOUT": names.SLURM_TIMEOUT, "DEADLINE": names.SLURM_TIMEOUT,
    "CANCELLED": names.SLURM_CANCELLED,
    "NODE_FAIL": names.SLURM_NODE_FAIL, "BOOT_FAIL": names.SLURM_NODE_FAIL,
    "PREEMPTED": names.SLURM_PREEMPTED,
    "OUT_OF_MEMORY": names.SLURM_OUT_OF_MEMORY,
}
# States in which a task has not ended yet.
ACTIVE = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED",
          "RESIZING", "SUSPENDED", "STAGE_OUT", "SIGNALING", "STOPPED", "RESV_DEL_HOLD"}


def expand_tasks(spec):
    """Array task ids of '3', '2-5', '1,4-6' or '[2-5%2]' (a throttle after %) as ints."""
    spec = spec.strip("[]").split("%")[0]
    ids = []
    for part in spec.split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        step = 1
        if ":" in hi:
            hi, step = hi.split(":")
        ids += list(range(int(lo), int(hi or lo) + 1, int(step)))
    return ids


def parse_sacct(text, array_id):
    """{task: STATE} from `sacct -n -P -X -o JobID,State` lines like '12_3|CANCELLED by 0'."""
    states = {}
    for line in text.splitlines():
        job, _, state = line.partition("|")
        m = re.match(rf"^{re.escape(str(array_id))}_(\S+)$", job.strip())
        if not m or not state:
            continue
        for t in expand_tasks(m.group(1)):
            states[t] = state.split()[0].upper()
    return states


def parse_scontrol(text, array_id):
    """{task: STATE} from `scontrol show job -o` records (one per line)."""
    states = {}
    for line in text.splitlines():
        fields = dict(w.split("=", 1) for w in line.split() if "=" in w)
        if fields.get("ArrayJobId") != str(array_id) or "ArrayTaskId" not in fields:
            continue
        for t in expand_tasks(fields["ArrayTaskId"]):
            states[t] = fields.get("JobState", "UNKNOWN").upper()
    return states


def _ask(argv, env):
    try:
        p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout.decode("utf-8", "replace") if p.returncode == 0 else None


def task_states(array_id, env=None):
    """({task: STATE}, which command said so); ({}, None) when Slurm has no record."""
    out = _ask(["sacct", "-n", "-P", "-X", "-j", str(array_id), "-o", "JobID,State"], env)
    states = parse_sacct(out, array_id) if out else {}
    if states:
        return states, "sacct"
    out = _ask(["scontrol", "show", "job", "-o", str(array_id)], env)
    states = parse_scontrol(out, array_id) if out else {}
    if states:
        return states, "scontrol"
    return {}, None


def status_for(state, source, task_label):
    """(gradebook status, message) of a submission that array task task_label (e.g.
    '1234_5') ended without grading, its task's Slurm state as source reported it."""
    rerun = "run the same command again to grade it"
    if state is None:
        return names.SLURM_UNKNOWN, f"unknown: Slurm has no record of array task {task_label}; {rerun}"
    if state in ACTIVE:
        return names.SLURM_UNKNOWN, f"array task {task_label} is still {state} ({source}); merge again when it ends"
    status = STATUS_OF_STATE.get(state, names.SLURM_FAILED)
    return status, f"array task {task_label} ended {state} ({source}) before grading it; {rerun}"
