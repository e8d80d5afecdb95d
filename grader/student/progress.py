#!/usr/bin/env python3
"""./grade progress: every lab and part with its last result, score and date.

The grader saves each grade of a student's own labs/ file as BUILD/progress/LAB.json (the
whole JSON result; docs/grading.md says which runs count). This prints them as a table;
a lab never graded is shown as such, and a lab whose file changed since its last grade
is marked, since that grade is no longer of the file as it is.

Exit codes: 0 printed, 2 usage problem.
"""
import datetime
import hashlib
import json
import os
import sys
from pathlib import Path

from grader import names
from grader.student import course_build

COLUMNS = ("lab", "part", "result", "x naive", "score", "date", "backend")
BUILD_WORDS = {names.COMPILE_ERROR: "does not compile", names.REJECTED: "refused by the guard",
               names.LINK_ERROR: "does not link"}


def points(x):
    return f"{x:.0f}" if abs(x - round(x)) < 0.05 else f"{x:.1f}"


def local_date(iso):
    """'2025-11-30T21:58:03Z' as local time, '2025-11-30 22:58'; the text itself if it is not that."""
    try:
        t = datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    except (TypeError, ValueError):
        return str(iso or "-")
    return t.astimezone().strftime("%Y-%m-%d %H:%M")


def part_result(part, backend):
    """One part's outcome in a word or three."""
    status = part.get("correctness", {}).get("status", "not_run")
    if status != "passed":
        return {"failed": "FAILED", "crashed": "CRASHED", "timed_out": "TIMED OUT"}.get(status, "not run")
    if part.get("penalty", "none") != "none":
        return "correct, check failed"
    timing = part.get("timing", {})
    if backend != "gpu":
        return "correct"
    if timing.get("status") != "measured":
        return "correct, not timed"
    return "passed" if timing.get("verdict") == "meets_target" else "correct, " + timing.get("verdict", "").replace(
        "_", " ")


def speedup(part):
    t = part.get("timing", {})
    return f"{t['speedup']:.2f}x" if t.get("status") == "measured" and t.get("speedup") else "-"


def rows_of(lab, result, changed):
    """The table rows of one lab's saved result."""
    date = local_date(result.get("started_at")) + ("*" if changed else "")
    backend = result.get("backend") or "-"
    total = f"{points(result.get('score', 0))}/{points(result.get('max_score', 0))}"
    build = result.get("build")
    if build:
        return [(lab, "-", BUILD_WORDS.get(build.get("kind"), "did not build"), "-", total, date, "-")]
    parts = result.get("parts", [])
    rows = [(lab, p.get("id", "?"), part_result(p, backend), speedup(p),
             f"{points(p.get('score', 0))}/{points(p.get('max_points', 0))}", date, backend) for p in parts]
    if len(parts) != 1:
        rows.append((lab, "all", "passed" if result.get("passed") else "not yet", "-", total, date, backend))
    return rows


def file_changed(result):
    """Whether the graded file's bytes differ from the hash its last grade recorded."""
    source = result.get("source", {})
    path, recorded = source.get("path"), source.get("sha256")
    if not path or not recorded:
        return False
    try:
        return hashlib.sha256(Path(course_build.ROOT, path).read_bytes()).hexdigest() != recorded
    except OSError:
        return True


def table(build, folders):
    rows, changed_any = [], False
    for lab in folders:
        path = Path(build, "progress", f"{lab}.json")
        if not path.exists():
            rows.append((lab, "-", "not graded yet", "-", "-", "-", "-"))
            continue
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(result, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as e:
            rows.append((lab, "-", f"unreadable progress file ({e})", "-", "-", "-", "-"))
            continue
        changed = file_changed(result)
        changed_any = changed_any or changed
        rows.extend(rows_of(lab, result, changed))
    return rows, changed_any


def render(rows, changed_any):
    widths = [max(len(str(r[i])) for r in [COLUMNS, *rows]) for i in range(len(COLUMNS))]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    out = [line(COLUMNS)] + [line(r) for r in rows]
    if changed_any:
        out.append("* the file changed since that grade: ./grade LAB grades it as it is now")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 2 or argv[0] != "--build-dir":
        extra = " ".join(argv[2:]) if argv[:1] == ["--build-dir"] else " ".join(argv)
        print(f"grade progress: takes no arguments (got: {extra})", file=sys.stderr)
        return 2
    rows, changed_any = table(argv[1], course_build.lab_folders())
    sys.stdout.write(render(rows, changed_any))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
