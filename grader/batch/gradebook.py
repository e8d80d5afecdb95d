"""The class's gradebook: one row per submission, always, even a broken one."""
import csv
import json
import os
import statistics

STATUSES = ("graded", "compile_error", "rejected", "timeout", "crashed", "invalid_submission")
COLUMNS = ("submission", "student_id", "status", "score", "max_score", "correctness", "speedup", "target",
           "message")


def row(submission, student_id, status, score=0.0, max_score=0.0, correctness="", speedup="", message="",
        target=""):
    assert status in STATUSES, status
    return {"submission": submission, "student_id": student_id, "status": status, "score": round(score, 2),
            "max_score": round(max_score, 2), "correctness": correctness, "speedup": speedup, "target": target,
            "message": " ".join(message.split())[:500]}


def row_from_report(submission, student_id, report):
    """A gradebook row from the grader's --json report of one submission."""
    parts = report.get("parts", [])
    statuses = [p["correctness"]["status"] for p in parts]
    correct = sum(s == "passed" for s in statuses)
    status = "graded"
    if "timed_out" in statuses:
        status = "timeout"
    elif "crashed" in statuses or any(p["correctness"].get("faults", 0) for p in parts):
        status = "crashed"  # the kernel faulted or was stopped with a diagnosis, not just wrong
    timed = [p for p in parts if p["timing"]["status"] == "measured"]
    speedups = [f"{p['id']}:{p['timing']['speedup']:.2f}x" for p in timed]
    target = f"{timed[-1]['timing']['target']:.2f}x" if timed else ""
    return row(submission, student_id, status, report.get("score", 0.0), report.get("max_score", 0.0),
               f"{correct}/{len(parts)} parts", " ".join(speedups), report.get("summary", ""), target)


def write(out_dir, rows):
    """gradebook.csv and gradebook.json, through temporary files and renames."""
    rows = sorted(rows, key=lambda r: r["submission"])
    # A submission that never reached the grader has no maximum of its own: it is worth
    # what the graded ones are worth.
    known = max((r["max_score"] for r in rows), default=0.0)
    rows = [dict(r, max_score=r["max_score"] or known) for r in rows]
    tmp = os.path.join(out_dir, ".gradebook.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, os.path.join(out_dir, "gradebook.csv"))
    tmp = os.path.join(out_dir, ".gradebook.json.tmp")
    with open(tmp, "w") as f:
        json.dump(rows, f, indent=2)
        f.write("\n")
    os.replace(tmp, os.path.join(out_dir, "gradebook.json"))


def headline_speedup(r):
    """The last part's speedup (the lab's headline technique), or None."""
    if not r["speedup"]:
        return None
    return float(r["speedup"].split()[-1].split(":")[1].rstrip("x"))


def summary(rows):
    """Counts by status, the score distribution and the median speedup, as text."""
    lines = [f"{len(rows)} submission(s)"]
    for s in STATUSES:
        n = sum(r["status"] == s for r in rows)
        if n:
            lines.append(f"  {s:<19} {n}")
    scores = [r["score"] for r in rows]
    if scores:
        top = max(r["max_score"] for r in rows) or 100.0
        lines.append(f"scores: min {min(scores):.1f}, median {statistics.median(scores):.1f}, "
                     f"max {max(scores):.1f} (of {top:.0f})")
        buckets = [0] * 5
        for s in scores:
            buckets[min(4, int(5 * s / top))] += 1
        for i, n in enumerate(buckets):
            lo, hi = i * top / 5, (i + 1) * top / 5
            lines.append(f"  {lo:5.0f}-{hi:<5.0f} {'#' * n} {n}")
    speedups = [x for x in (headline_speedup(r) for r in rows) if x is not None]
    if speedups:
        lines.append(f"median speedup vs naive (last part): {statistics.median(speedups):.2f}x over "
                     f"{len(speedups)} timed submission(s)")
    return "\n".join(lines)


def gradescope_results(r):
    """Gradescope's results.json for a submission the grader never saw (bad archive,
    compile error): score 0 and the reason."""
    return {"score": 0.0, "output": f"{r['status']}: {r['message']}", "visibility": "visible",
            "stdout_visibility": "visible", "tests": []}
