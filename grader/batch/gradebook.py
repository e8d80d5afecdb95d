"""The class's gradebook: one row per submission, always, even a broken one.

A row's verdict is the grader's, read from its --json report (report.json, the only file
of the grader's that batch reads); batch adds only what it alone can know: the archive was
unusable, the build failed or ran too long, the grader itself never answered. Numbers stay
numbers: a speedup is a float in gradebook.json and one numeric CSV column per part.
"""
import csv
import json
import os
import statistics

from grader import names
from grader.batch import class_review

# The CSV's columns; SPEEDUP_COLUMNS of the lab's parts go where SPEEDUPS stands.
SPEEDUPS = "speedups"
COLUMNS = ("submission", "student_id", "full_name", "email", "lms_id", "status", "score", "max_score", "final_score",
           "correctness", SPEEDUPS, "target", "reason", "message", "same_file_as", "copy_of_reference",
           "submitted_at", "late_days", "late_penalty_pct", "other_entries", "sha256", "policy_sha256", "backend",
           "graded_at")
# Bumped when what a row means changes: a rerun grades older rows again (grade_batch.py).
# 2: one row per student (the newest entry), the review columns.
ROW_FORMAT = 2
# What batch knows of every row beyond the grade (grade_one.py fills them in): the graded
# file's hash, the policy's ("default" for the built-in one), the backend and the time.
PROVENANCE = ("sha256", "policy_sha256", "backend", "graded_at")


def one_line(text, limit):
    return " ".join(text.split())[:limit]


def row(submission, student_id, status, score=0.0, max_score=0.0, correctness="", speedups=None, target=None,
        message="", reason=""):
    """speedups: {part id: speedup over naive, or None when the part was not timed}.
    reason: why the submission lost points, in a few words ("A: hang"); the status's own
    words when there is no report to say more."""
    assert status in names.STATUSES + names.SLURM_STATUSES, status
    words = {names.COMPILE_ERROR: "does not compile", names.REJECTED: "refused by the guard",
             names.TIMEOUT: "build or grading ran too long", names.INVALID_SUBMISSION: "no usable kernels.cu",
             names.CRASHED: "the grading crashed"}
    r = {"submission": submission, "student_id": student_id, "status": status, "score": round(score, 2),
         "max_score": round(max_score, 2), "correctness": correctness, "speedups": dict(speedups or {}),
         "target": target, "reason": one_line(reason or words.get(status, ""), 200), "message": one_line(message, 500)}
    r.update({k: "" for k in PROVENANCE})
    r["row_format"] = ROW_FORMAT
    return r


def part_reason(p):
    """Why one part of a report lost points, or "" when it did not."""
    c = p["correctness"]
    if c["status"] == "timed_out":
        return f"{p['id']}: hang"
    if c["status"] == names.CRASHED:
        return f"{p['id']}: crashed"
    if c["status"] != "passed":
        first = c.get("failures") or [{}]
        detail = first[0].get("detail", "")
        if first[0].get("guard_hit"):
            return f"{p['id']}: out-of-bounds write (past its output)"
        if first[0].get("fault"):
            kind = ("out-of-bounds " + ("write" if "write" in detail else "read") if "out-of-bounds" in detail
                    else "fault")
            return f"{p['id']}: {kind}"
        return f"{p['id']}: wrong result" + (f" ({first[0].get('input', '')} input, {first[0].get('size', '')})"
                                             if first[0].get("size") else "")
    failed = [ch["name"] for ch in p.get("checks", []) if ch.get("status") == "failed"]
    if failed:
        return f"{p['id']}: {', '.join(failed)} failed"
    t = p.get("timing", {})
    if t.get("status") == "measured" and t.get("credit", 1.0) < 1.0:
        return f"{p['id']}: below the speed target"
    return ""


def report_reason(report):
    """Why a graded submission lost points, from its report: the parts' reasons, the lab's
    failed checks first."""
    lab = [f"{ch['name']} failed" for ch in report.get("checks", []) if ch.get("status") == "failed"]
    parts = [x for x in (part_reason(p) for p in report.get("parts", [])) if x]
    return "; ".join(lab + parts)


def status_from_report(report):
    """The gradebook status of a submission the grader saw: the grader's own outcome
    (grader/core/lab_scoring.hpp), never worked out again here."""
    return report["outcome"]


def row_from_report(submission, student_id, report):
    """A gradebook row from the grader's --json report of one submission."""
    status = status_from_report(report)
    if report.get("infrastructure_error"):
        # Not a grade: worth what the graded submissions are worth (write() fills it in).
        return row(submission, student_id, status, message="infrastructure: " + report["infrastructure_error"],
                   reason="infrastructure")
    parts = report.get("parts", [])
    correct = sum(p["correctness"]["status"] == "passed" for p in parts)
    timed = [p for p in parts if p["timing"]["status"] == "measured"]
    speedups = {p["id"]: p["timing"]["speedup"] if p["timing"]["status"] == "measured" else None for p in parts}
    target = timed[-1]["timing"]["target"] if timed else None
    return row(submission, student_id, status, report.get("score", 0.0), report.get("max_score", 0.0),
               f"{correct}/{len(parts)} parts", speedups, target, report.get("summary", ""), report_reason(report))


def speedup_column(part):
    return f"speedup_{part}"


def part_ids(rows):
    """Every part any row knows, in the lab's order."""
    ids = []
    for r in rows:
        for p in r.get("speedups", {}):
            if p not in ids:
                ids.append(p)
    return ids


def csv_fields(rows):
    """COLUMNS with one speedup_<part> column per part, for a spreadsheet or an LMS import."""
    fields = []
    for c in COLUMNS:
        fields += [speedup_column(p) for p in part_ids(rows)] if c == SPEEDUPS else [c]
    return fields


def csv_row(r):
    flat = {c: r.get(c, "") for c in COLUMNS if c != SPEEDUPS}
    flat["target"] = "" if r["target"] is None else r["target"]
    for p, x in r["speedups"].items():
        flat[speedup_column(p)] = "" if x is None else x
    return flat


def graded_texts(out_dir, rows):
    texts = {}
    for r in rows:
        try:
            with open(os.path.join(out_dir, r["submission"], names.GRADED_FILE), encoding="utf-8", errors="replace") as f:
                texts[r["submission"]] = f.read()
        except OSError:
            pass
    return texts


def write(out_dir, rows, review=None):
    """gradebook.csv and gradebook.json, through temporary files and renames. review: the
    class_review.review() options (reference_texts, deadline, curve, grace_s)."""
    rows = sorted(rows, key=lambda r: r["submission"])
    rows = class_review.review(rows, graded_texts(out_dir, rows), **(review or {}))
    # A submission that never reached the grader has no maximum of its own: it is worth
    # what the graded ones are worth.
    known = max((r["max_score"] for r in rows), default=0.0)
    rows = [dict(r, max_score=r["max_score"] or known) for r in rows]
    tmp = os.path.join(out_dir, ".gradebook.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=csv_fields(rows), restval="")
        w.writeheader()
        w.writerows(csv_row(r) for r in rows)
    os.replace(tmp, os.path.join(out_dir, names.GRADEBOOK_CSV))
    tmp = os.path.join(out_dir, "." + names.GRADEBOOK_JSON + ".tmp")
    with open(tmp, "w") as f:
        json.dump(rows, f, indent=2)
        f.write("\n")
    os.replace(tmp, os.path.join(out_dir, names.GRADEBOOK_JSON))


def headline_speedup(r):
    """The last timed part's speedup (the lab's headline technique), or None."""
    timed = [x for x in r.get("speedups", {}).values() if x is not None]
    return timed[-1] if timed else None


def summary(rows):
    """Counts by status, the score distribution and the median speedup, as text."""
    lines = [f"{len(rows)} submission(s)"]
    for s in names.STATUSES + names.SLURM_STATUSES:
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


def never_graded_results(r):
    """Gradescope's results.json for a submission the grader never saw (no usable file, a
    build that ran too long, a grader that never answered): score 0 and the reason. Every
    submission the grader saw, a failed build included, gets the grader's own results.json
    (grader --gradescope, with --build-failure for a build that failed)."""
    return {"score": 0.0, "output": f"{r['status']}: {r['message']}", "visibility": "visible",
            "stdout_visibility": "visible", "tests": []}
