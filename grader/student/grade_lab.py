#!/usr/bin/env python3
"""./grade LAB [--no-build] [grader options]: bring the lab's build up to date, then grade it.

Never a stale grade (docs/grading.md): the lab is rebuilt first (`cmake --build BUILD
--target LAB`, only what changed). When the student's file does not build, nothing is
graded: the compiler's or the guard's messages are the report (and the --json,
--gradescope, --junit and --text files, written by the grader), and the exit code is 1.
A build that fails for another reason, or no build at all, exits 2 with what to run.
`--html FILE` also writes the HTML report (grader/html/report_page.py).
--no-build skips the build and grades the last one as it is (the report says so when the
file is newer than it).

Exit codes: 0 passed, 1 failed (a file that does not build included), 2 usage or
infrastructure problem.
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from grader import names
from grader.student import course_build
from grader.html import report_page
from grader.student.course_build import Problem


def grader_args(build, lab, options):
    """The grader's command line: the student's options and where the course and progress are."""
    grader = Path(build, "bin", "grader")
    return [str(grader), lab, *options, "--course-root", str(course_build.ROOT),
            "--progress-dir", str(Path(build, "progress"))]


def options_accepted(build, lab, options):
    """True when the built grader accepts the options (it prints why when it does not)."""
    args = grader_args(build, lab, options) + ["--check-options"]
    return subprocess.run(args).returncode == 0


def built(build, lab):
    b = Path(build, "bin")
    return os.access(b / "grader", os.X_OK) and any(
        os.access(b / f"{lab}_worker_{k}", os.X_OK) for k in ("gpu", "emulated"))


def report_build_failure(build, lab, folder, cache, outcome, options):
    """The student's file did not build: the grader writes the failed result and its reports."""
    source = course_build.student_source(cache, folder)
    messages = course_build.student_messages(outcome.log, lab, outcome.kind, course_build.display_name(source))
    grader = Path(build, "bin", "grader")
    if not os.access(grader, os.X_OK):
        # The first build stopped at the student's file before the grader was linked; the
        # grader does not depend on that file, so it can be built to write the reports.
        course_build.build_lab(build, "grader")
    if not os.access(grader, os.X_OK):
        words = {names.REJECTED: "was refused by the course's guard", names.LINK_ERROR: "does not link with the course's code"}
        print(f"{messages}\n\n{lab}: {course_build.display_name(source)} {words.get(outcome.kind, 'does not compile')}; "
              "nothing was graded (and no report file was written: the grader is not built yet)")
        return 1
    with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="build_failure_", delete=False) as f:
        json.dump({"kind": outcome.kind, "log": messages, "source": str(source)}, f)
    try:
        args = grader_args(build, lab, options) + ["--build-failure", f.name]
        return subprocess.run(args).returncode
    finally:
        os.unlink(f.name)


def policy_problem(build, options):
    """Why the --policy file of `options` is not valid, or None: checked before anything is
    built, where the grader is built already (otherwise it checks it when it starts)."""
    policy = next((options[i + 1] for i, o in enumerate(options[:-1]) if o == "--policy"), None)
    if policy is None:
        policy = next((o.split("=", 1)[1] for o in options if o.startswith("--policy=")), None)
    grader = Path(build, "bin", "grader")
    if policy is None or not os.access(grader, os.X_OK):
        return None
    if not os.path.isfile(policy):
        return f"policy file {policy} does not exist"
    check = subprocess.run([str(grader), "--check-policy", policy], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return None if check.returncode == 0 else check.stdout.decode().strip().removeprefix("grader: ")


def main(argv):
    parsed = course_build.lab_arguments(argv, "grade", "grade_lab.py --build-dir BUILD LAB [--no-build] [grader options]")
    if parsed is None:
        return 2
    build, lab, options = parsed
    html, options = html_option(options)
    # Asking for the grader's help builds nothing.
    no_build = "--no-build" in options or "--help" in options or "-h" in options
    options = [o for o in options if o != "--no-build"]
    quiet = "--quiet" in options
    problem = policy_problem(build, options)
    if problem:
        print(f"grade: {problem}", file=sys.stderr)
        return 2
    # A grader built before checks the options now, so that a mistyped one costs no rebuild
    # (the first build has no grader to ask, and the grader checks them after it).
    if not no_build and built(build, lab) and not options_accepted(build, lab, options):
        return 2
    try:
        if no_build:
            if not built(build, lab):
                raise Problem(f"{lab} is not built yet: run '{course_build.make_command(lab, build)}' first")
        else:
            cache = course_build.configured_build(build, lab)
            source = course_build.student_source(cache, course_build.lab_folders()[lab])
            if not source.is_file():
                shown = os.path.relpath(source, course_build.ROOT)
                raise Problem(f"{shown} is missing, so there is nothing to grade; 'git checkout {shown}' "
                              "brings back the stub (or copy your file there)")
            say = course_build.status_printer(lab, quiet, first=not built(build, lab))
            outcome = course_build.build_lab(build, lab, say)
            # A build that failed is said by the report that follows, not as "rebuilt".
            if outcome.changed and not quiet and outcome.status not in ("student", "infra"):
                print(f"[grade] rebuilt {lab} in {outcome.seconds:.1f} s", file=sys.stderr)
            if outcome.status == "student":
                if html is not None:
                    print("grade: no HTML report: the file did not build, so nothing was graded", file=sys.stderr)
                return report_build_failure(build, lab, course_build.lab_folders()[lab], cache, outcome, options)
            if outcome.status == "infra":
                print(outcome.log[-6000:], file=sys.stderr)
                raise Problem(f"the build of {lab} failed, and not in your file (the messages above say why; "
                              f"'{course_build.make_command(lab, build)}' shows the whole build)")
    except Problem as e:
        print(f"grade: {e}", file=sys.stderr)
        return 2
    if html is None:
        args = grader_args(build, lab, options)
        sys.stdout.flush()
        os.execv(args[0], args)
    return grade_with_page(build, lab, options, html)


def html_option(options):
    """(the --html FILE path or None, the other options)."""
    rest, html = [], None
    it = iter(options)
    for o in it:
        if o == "--html":
            html = next(it, "")
        elif o.startswith("--html="):
            html = o.split("=", 1)[1]
        else:
            rest.append(o)
    return html, rest


def grade_with_page(build, lab, options, html):
    """Grades, then writes the HTML report (grader/html/report_page.py) from the JSON one."""
    if not html:
        print("grade: --html needs a file name", file=sys.stderr)
        return 2
    json_path = next((options[i + 1] for i, o in enumerate(options[:-1]) if o == "--json"), None)
    tmp = None
    if json_path is None:
        fd, tmp = tempfile.mkstemp(suffix=".json", prefix="report_")
        os.close(fd)
        json_path = tmp
        options = options + ["--json", tmp]
    try:
        code = subprocess.run(grader_args(build, lab, options)).returncode
        try:
            report_page.write(json_path, html)
        except (OSError, ValueError) as e:
            print(f"grade: the HTML report was not written: {e}", file=sys.stderr)
            return 2
        if "--quiet" not in options:
            print(f"[grade] HTML report: {html}", file=sys.stderr)
        return code
    finally:
        if tmp:
            os.unlink(tmp)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
