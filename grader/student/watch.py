#!/usr/bin/env python3
"""./grade watch LAB [grader options]: rebuild and regrade LAB whenever its file changes.

The file (labs/<folder>/kernels.cu, or what LAB_SOURCE points at) is polled every 0.5 s
for a new modification time or size, so no inotify tools are needed. Each run clears the
screen when stdout is a terminal and prints the short form of the report: the file, the
summary line, each failing part with its first failures and hint, failed checks, and a
compile error's messages. The options are the grader's (--emulate, --seed, --json, ...);
the full report is `./grade LAB`. Ctrl-C stops watching, with exit code 0.

Exit codes: 0 stopped by Ctrl-C, 2 usage or infrastructure problem (no build, no cmake).
"""
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader import course_python
from grader.student import course_build
from grader.student.course_build import Problem

POLL_SECONDS = 0.5


def signature(path):
    """(mtime, size) of the watched file, or None while it is missing (an editor's save in progress)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def json_option(options):
    """The --json path the student asked for, if any: watch reads the result from it."""
    for i, o in enumerate(options):
        if o == "--json" and i + 1 < len(options):
            return options[i + 1]
        if o.startswith("--json="):
            return o[len("--json="):]
    return None


class Painter:
    def __init__(self, on):
        self.on = on

    def paint(self, text, code):
        return f"\033[{code}m{text}\033[0m" if self.on else text


def number(x):
    """A value as the text report prints it (9 significant digits); NaN arrives as null."""
    return f"{x:.9g}" if isinstance(x, (int, float)) else "NaN"


def short_report(result, paint):
    """The summary and what failed, from the grader's JSON result."""
    out = []
    for note in result.get("notes", []):
        if note.startswith("graded ") or "changed after" in note:
            out.append(paint.paint("note: ", "33") + note)
    build = result.get("build")
    if build:
        out.append(build.get("log", ""))
    for check in result.get("checks", []):
        if check.get("status") == "failed":
            out.append(f"check {check.get('name')} FAILED: {check.get('detail')}")
    for part in result.get("parts", []):
        c = part.get("correctness", {})
        if c.get("status") != "passed":
            out.append(f"{part.get('id')} {part.get('kernel')}: {c.get('status', '?').upper()} "
                       f"({c.get('cases', 0) - c.get('failed', 0)} of {c.get('cases', 0)} cases right)")
            for f in c.get("failures", [])[:3]:
                what = f.get("detail") if f.get("fault") else \
                    f"expected {number(f.get('expected'))}, got {number(f.get('got'))}"
                out.append(f"    {f.get('input')} input, {f.get('size')}: {what}")
            if c.get("message"):
                out.append("    " + c["message"].replace("\n", "\n    "))
            if c.get("hint"):
                out.append("    " + paint.paint("hint: ", "33") + c["hint"])
        for check in part.get("checks", []):
            if check.get("status") == "failed":
                out.append(f"{part.get('id')} check {check.get('name')} FAILED: {check.get('detail')}")
        t = part.get("timing", {})
        if t.get("status") == "measured" and t.get("verdict") != "meets_target":
            out.append(f"{part.get('id')}: {t.get('speedup', 0):.2f}x vs naive, target {t.get('target', 0):.2f}x")
    if result.get("infrastructure_error"):
        out.append("error: " + result["infrastructure_error"])
    summary = result.get("summary", "")
    out.append(paint.paint(summary, "32" if result.get("passed") else "31;1"))
    return "\n".join(x for x in out if x)


def grade_once(build, lab, options, paint):
    """Builds and grades once through grade_lab.py (quietly), then prints the short report."""
    asked = json_option(options)
    tmp = None
    if asked is None:
        fd, tmp = tempfile.mkstemp(suffix=".json", prefix="watch_")
        os.close(fd)
        os.unlink(tmp)  # a stale file must not pass for this run's result
        options = options + ["--json", tmp]
    try:
        cmd = course_python.command("grader.student.grade_lab", "--build-dir", build, lab, *options, "--quiet",
                                    "--no-color")
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=course_python.env())
        report = asked or tmp
        try:
            with open(report) as f:
                result = json.load(f)
        except (OSError, ValueError):
            # No result: the build failed outside the student's file, or the grader could not start.
            sys.stdout.write(proc.stderr.decode("utf-8", "replace")[-4000:])
            print(paint.paint(f"{lab}: not graded (exit code {proc.returncode})", "31;1"))
            return
        print(short_report(result, paint))
    finally:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)


def watch(build, lab, options):
    folder = course_build.lab_folders()[lab]
    cache = course_build.configured_build(build, lab)
    source = course_build.student_source(cache, folder)
    if not source.exists():
        raise Problem(f"{source} does not exist, so there is nothing to watch")
    tty = sys.stdout.isatty()
    paint = Painter(tty and not os.environ.get("NO_COLOR") and "--no-color" not in options)
    shown = str(source.relative_to(course_build.ROOT)) if source.is_relative_to(course_build.ROOT) else str(source)
    last = None
    while True:
        now = signature(source)
        if now is not None and now != last:
            time.sleep(0.1)  # let an editor finish writing
            now = signature(source) or now
            last = now
            if tty:
                sys.stdout.write("\033[H\033[2J")
            print(paint.paint(f"[{time.strftime('%H:%M:%S')}] {lab}: grading {shown}", "2"), flush=True)
            grade_once(build, lab, options, paint)
            print(paint.paint(f"watching {shown}; Ctrl-C stops", "2"), flush=True)
        time.sleep(POLL_SECONDS)


def main(argv):
    parsed = course_build.lab_arguments(argv, "grade watch", "./grade watch LAB [grader options]")
    if parsed is None:
        return 2
    build, lab, options = parsed
    if "--no-build" in options:
        print("grade watch: --no-build makes no sense here: watch rebuilds on every change", file=sys.stderr)
        return 2
    try:
        watch(build, lab, options)
    except Problem as e:
        print(f"grade watch: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nstopped watching", flush=True)
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
