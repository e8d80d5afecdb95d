"""Where a batch's time goes, for scripts/batch_throughput.py: how busy the machine's cores
were while it ran (/proc/stat), and the wall and CPU seconds of the child processes the
graders and the guard started, by program (the COURSE_PROCESS_LOG lines that
grader/process/worker_process.cpp appends for each finished child).

A child's CPU seconds hold those of the processes it waited for: an emulated worker's hold
its kernel executor's, which it waits for at the end of its job (worker/executor.hpp);
what a child started and did not wait for is counted in neither, but is in the cores'
busy time."""
import collections
import json
import os

PROCESS_LOG_VARIABLE = "COURSE_PROCESS_LOG"


def cpu_times():
    """(busy, total) clock ticks of every core together since boot; None without /proc."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    total = sum(fields[:8])  # guest and guest_nice (fields 9 and 10) are already in user and nice
    return total - idle, total


def busy_cores(before, after):
    """The average number of busy cores between two cpu_times() readings."""
    if before is None or after is None or after[1] == before[1]:
        return None
    return round((after[0] - before[0]) / (after[1] - before[1]) * (os.cpu_count() or 1), 2)


def process_summary(path, most=12):
    """[{program, runs, seconds, cpu_seconds}] from a process log, most CPU first."""
    totals = collections.defaultdict(lambda: [0, 0.0, 0.0])
    try:
        with open(path) as f:
            for line in f:
                try:
                    rec = json.loads(line)
                    seconds, cpu = float(rec.get("seconds", 0)), float(rec.get("cpu_seconds", 0))
                except (ValueError, TypeError, AttributeError):  # not a record this module wrote
                    continue
                t = totals[str(rec.get("program", "?"))]
                t[0] += 1
                t[1] += seconds
                t[2] += cpu
    except OSError:
        return []
    rows = [{"program": p, "runs": n, "seconds": round(s, 1), "cpu_seconds": round(c, 1)}
            for p, (n, s, c) in totals.items()]
    return sorted(rows, key=lambda r: -r["cpu_seconds"])[:most]


def summary_table(runs):
    """Per K: busy cores and the programs' CPU seconds, as text lines."""
    lines = []
    for r in runs:
        load = r.get("load") or {}
        if not load:
            continue
        lines.append(f"K={r['graders_per_gpu']}: {load.get('busy_cores')} of {load.get('cores')} cores busy on "
                     f"average; child processes by CPU seconds (runs, wall s, CPU s):")
        for p in load.get("processes", []):
            lines.append(f"  {p['program']:<28} {p['runs']:>5} {p['seconds']:>9.1f} {p['cpu_seconds']:>9.1f}")
    return "\n".join(lines)
