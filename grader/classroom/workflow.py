#!/usr/bin/env python3
"""GitHub Classroom's autograding workflow for the students' repository, written from the
grader's own plan (`grader --describe-grading [POLICY]`), so the points are the policy's.

Classroom runs it on GitHub's CPU runners, where the CPU emulator's grade is the grade: one
test per lab, `./grade LAB --emulate`, worth the lab's correctness points on the emulator
(the most an emulated grade can earn: it times nothing, and with "emulated_performance":
"pending" the performance points wait for a GPU batch run). Classroom's command grader
awards a test's max-score when its command exits 0 and nothing otherwise, and `./grade`
exits 0 only when every part passed, so a lab counts whole or not at all. Every lab's HTML
report is uploaded as an artifact.

`make release` copies grader/classroom/autograding.yml (this, with the default policy and
every lab) to the release's .github/workflows/classroom.yml. With your own policy:

    python3 -m grader.classroom.workflow --policy my_policy.jsonc --out ../student/.github/workflows/classroom.yml
    python3 -m grader.classroom.workflow --check grader/classroom/autograding.yml

--policy's path is relative to the repository root, as the workflow passes it to ./grade
in the student's checkout (copy the file there). Exit code: 0 written (or --check agrees),
1 --check disagrees, 2 the plan cannot be had or a lab's points are no whole number.
"""
import argparse
import os
import shlex
import sys

from grader.classroom import block_yaml
from scripts import labs_manifest
from scripts.cite_grading import load_plan

ROOT = labs_manifest.ROOT
COMMITTED = os.path.join(ROOT, "grader", "classroom", "autograding.yml")
RELEASE_PATH = os.path.join(".github", "workflows", "classroom.yml")  # where make release puts it
REPORTS = "classroom-reports"  # the folder of HTML reports the artifact holds
TIMEOUT_MINUTES = 10  # a first build and grade of lab 1 took about a minute on a 2-core machine
INSTALL_STEP = "Install the course's dependencies"
BUILD_STEP = "Configure the CPU-only build and build the grader"
ARTIFACT = "grading-reports"
# Classroom reads scores only from a workflow of this name with this one job (the grading
# reporter's README).
NAME, JOB = "Autograding Tests", "run-autograding-tests"


class PlanError(Exception):
    pass


def points(plan, lab):
    """The lab's points a run on the emulator can earn, a whole number (Classroom's max-score)."""
    try:
        value = plan["labs"][lab]["points"]["emulated"]["correctness"]
    except KeyError:
        raise PlanError(f"the grader's plan has no emulated points for {lab}")
    if value != int(value):
        raise PlanError(f"{lab} is worth {value:g} points on the emulator, and Classroom's max-score is a whole "
                        "number: choose points and correctness_weight whose product is one")
    return int(value)


def command(lab, policy=None):
    """The test's command, as Classroom runs it in the repository's root (with a shell)."""
    page = f"{REPORTS}/{lab}.html"
    grade = f"./grade {lab} --emulate --html {page}" + (f" --policy {shlex.quote(policy)}" if policy else "")
    return f"mkdir -p {REPORTS} && {grade}"


def workflow(plan, labs, policy=None):
    tests = [{"name": f"{lab} on the CPU emulator", "id": lab, "uses": "classroom-resources/autograding-command-grader@v1",
              "with": {"test-name": lab, "command": command(lab, policy), "timeout": TIMEOUT_MINUTES,
                       "max-score": points(plan, lab)}} for lab in labs]
    steps = [
        {"name": "Check out the repository", "uses": "actions/checkout@v4"},
        {"name": INSTALL_STEP, "run": "scripts/install_deps.sh"},
        # The student's files are compiled by each lab's test, where a compile error costs
        # that lab alone; this step builds only the course's side.
        {"name": BUILD_STEP, "run": 'make configure && cmake --build build -j "$(nproc)" --target grader'},
        *tests,
        {"name": "Upload the HTML reports", "if": "always()", "uses": "actions/upload-artifact@v4",
         "with": {"name": ARTIFACT, "path": REPORTS, "if-no-files-found": "warn"}},
        {"name": "Autograding Reporter", "uses": "classroom-resources/autograding-grading-reporter@v1",
         "env": {f"{lab.upper()}_RESULTS": f"${{{{ steps.{lab}.outputs.result }}}}" for lab in labs},
         "with": {"runners": ",".join(labs)}},
    ]
    return {"name": NAME, "on": ["push", "repository_dispatch"],
            "permissions": {"checks": "write", "actions": "read", "contents": "read"},
            "jobs": {JOB: {"runs-on": "ubuntu-latest", "if": "github.actor != 'github-classroom[bot]'",
                           "steps": steps}}}


def render(plan, labs, policy=None):
    about = (f"GitHub Classroom autograding: {', '.join(labs)} graded on the CPU emulator (correctness and the\n"
             f"technique checks; no timing), each lab worth its points in the grading policy"
             f"{' ' + policy if policy else ''}.\n"
             "Written by python3 -m grader.classroom.workflow from the grader's plan: do not edit, regenerate.")
    return block_yaml.dump(workflow(plan, labs, policy), about)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--grader", default=os.path.join(ROOT, "build", "bin", "grader"), help="the built grader")
    p.add_argument("--policy", help="a policy file, relative to the repository root (default: the course's)")
    p.add_argument("--labs", help="comma-separated labs (default: every lab of labs.json)")
    p.add_argument("--out", help="write the workflow here (default: stdout)")
    p.add_argument("--check", metavar="FILE", help="exit 1 unless FILE is what this would write")
    args = p.parse_args(argv)
    labs = args.labs.split(",") if args.labs else labs_manifest.lab_names()
    unknown = [lab for lab in labs if lab not in labs_manifest.lab_names()]
    if unknown:
        print(f"classroom workflow: unknown lab(s) {', '.join(unknown)}; the labs are "
              f"{', '.join(labs_manifest.lab_names())}", file=sys.stderr)
        return 2
    if args.policy and os.path.isabs(args.policy):
        print("classroom workflow: give --policy relative to the repository root, where the workflow runs",
              file=sys.stderr)
        return 2
    try:
        text = render(load_plan(args.grader, args.policy and os.path.join(ROOT, args.policy)), labs, args.policy)
    except (OSError, ValueError, PlanError) as e:
        print(f"classroom workflow: {e}", file=sys.stderr)
        return 2
    if args.check:
        with open(args.check, encoding="utf-8") as f:
            if f.read() != text:
                print(f"classroom workflow: {args.check} is not what the grader's plan gives; regenerate it with "
                      f"python3 -m grader.classroom.workflow --out {args.check}", file=sys.stderr)
                return 1
        return 0
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
