"""What batch_throughput.py reads of a graded class to compare its runs: each submission's
verdict (its gradebook row and, per part, its report's), the phases' median seconds and the
median speedups, and the differences between two runs' verdicts."""
import json
import os
import statistics

from grader import names

# What a gradebook row holds of the verdict (speedups, target and message hold times).
ROW_FIELDS = ("status", "score", "max_score", "correctness")


def points(x):
    return None if x is None else round(float(x), 2)


def part_verdicts(report):
    """{part id: its verdict} from a grader's --json report."""
    parts = {}
    for p in (report or {}).get("parts", []):
        timing = p.get("timing", {})
        parts[p["id"]] = {"correctness": p.get("correctness", {}).get("status"),
                          "correctness_points": points(p.get("correctness_points")),
                          "timing": timing.get("status"), "timing_verdict": timing.get("verdict"),
                          "performance_points": points(p.get("performance_points")),
                          "penalty": p.get("penalty")}
    return parts


def verdict(row, report=None):
    """What must not change from one run to another: the row's verdict and, with the
    grader's report, each part's."""
    v = {f: points(row.get(f)) if f in ("score", "max_score") else row.get(f) for f in ROW_FIELDS}
    v["parts"] = part_verdicts(report)
    return v


def read_verdicts(results):
    """{submission: verdict} of a results folder (gradebook.json and each report.json)."""
    with open(os.path.join(results, names.GRADEBOOK_JSON)) as f:
        rows = json.load(f)
    out = {}
    for r in rows:
        report = None
        try:
            with open(os.path.join(results, r["submission"], names.REPORT)) as f:
                report = json.load(f)
        except (OSError, ValueError):
            pass  # never graded (unusable file, build too long): the row is the verdict
        out[r["submission"]] = verdict(r, report)
    return out


PHASES = ("start", "correctness", "correctness_ready", "racecheck", "emulator", "emulator_wait", "timing",
          "timing_ready", "racecheck_ready", "gpu_alone", "gpu_shared", "racecheck_shared", "gpu_wait", "checks", "total")


def phase_medians(results):
    """{phase: median seconds} over the submissions of a results folder whose report.json
    says where its grading's time went ("seconds"); phases no report has are left out."""
    spent = {}
    for entry in sorted(os.listdir(results)):
        try:
            with open(os.path.join(results, entry, names.REPORT)) as f:
                seconds = json.load(f).get("seconds") or {}
        except (OSError, ValueError, AttributeError):
            continue
        for phase, value in seconds.items():
            if isinstance(value, (int, float)):
                spent.setdefault(phase, []).append(float(value))
    return {p: round(statistics.median(spent[p]), 3) for p in PHASES if p in spent}


def median_speedups(results):
    """{part: median speedup over the naive baseline} of the rows of a results folder that
    have one: if graders sharing a GPU disturbed each other's timing, these would move."""
    with open(os.path.join(results, names.GRADEBOOK_JSON)) as f:
        rows = json.load(f)
    found = {}
    for r in rows:
        for part, x in (r.get("speedups") or {}).items():
            if isinstance(x, (int, float)):
                found.setdefault(part, []).append(float(x))
    return {p: round(statistics.median(v), 3) for p, v in sorted(found.items())}


def differences(reference, other):
    """[(submission, what differs)] between two {submission: verdict}, in name order."""
    found = []
    for name in sorted(set(reference) | set(other)):
        if name not in other:
            found.append((name, "missing from this run"))
            continue
        if name not in reference:
            found.append((name, "missing from the reference run"))
            continue
        a, b = reference[name], other[name]
        what = [f"{f} {a[f]!r} -> {b[f]!r}" for f in ROW_FIELDS if a[f] != b[f]]
        for part in sorted(set(a["parts"]) | set(b["parts"])):
            pa, pb = a["parts"].get(part), b["parts"].get(part)
            if pa is None or pb is None:
                what.append(f"part {part} {'missing' if pb is None else 'new'}")
                continue
            what += [f"part {part} {k} {pa[k]!r} -> {pb[k]!r}" for k in pa if pa[k] != pb.get(k)]
        if what:
            found.append((name, "; ".join(what)))
    return found


def equal_column(diffs):
    if not diffs:
        return "yes"
    differing = [n for n, _ in diffs]
    shown = ", ".join(differing[:5]) + (", ..." if len(differing) > 5 else "")
    return f"{len(differing)} differ: {shown}"
