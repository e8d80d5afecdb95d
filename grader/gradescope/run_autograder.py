#!/usr/bin/env python3
"""Gradescope's per-submission step: finds the lab file in /autograder/submission, builds
it against the prebuilt course, grades correctness on the CPU emulator, and always writes
/autograder/results/results.json, even when the submission is unusable or does not
compile. Performance points follow the policy's "emulated_performance": "omit" leaves them
out of the maximum, "pending" keeps them for a later GPU batch run.

The submission is graded as the batch grades each of a class's (grader/batch/grade_one.py),
so results.json is the grader's own (grader --gradescope), a build that failed or was
refused included (grader --build-failure), or, when the grader never saw the submission (no
usable file) or could not run, the batch's account of why. The grader's human report goes to
stdout, which Gradescope shows the student. Where the submission was graded, results.json
also gets one test without points whose output is the HTML report of the student's own
kernels (grader/html/report_page.py, output_format "html"); a page that cannot be drawn
never costs the grade."""
import argparse
import json
import os
import shutil
import sys
import tempfile

from grader import names
from grader.batch import grade_one
from grader.batch import gradebook
from grader.html import report_page
from grader.batch.build_recipe import RecipeError

PAGE_TEST = "Your kernels in pictures (the HTML report)"


def write_results(path, results):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def failure(status, message):
    return gradebook.never_graded_results({"status": status, "message": message})


def grade(root, results):
    """Grades the submission as the batch grades each of a class's (grader/batch/grade_one.py:
    the same intake, build, grader run and records), in a results folder of its own, then
    takes its results.json; returns None when it did, else the results to write."""
    source = os.path.join(root, "source")
    with open(os.path.join(source, "gradescope_lab")) as f:
        lab = f.read().strip()
    policy = os.path.join(source, "gradescope_policy.jsonc")
    with tempfile.TemporaryDirectory(prefix="autograder-") as out:
        d, built = grade_one.grade_alone(os.path.join(root, "build"), lab, os.path.join(root, "submission"),
                                         out, policy if os.path.exists(policy) else None)
        with open(os.path.join(d, names.TEXT), encoding="utf-8", errors="replace") as f:
            print(f.read(), end="")  # the human report, which Gradescope shows the student
        shutil.copyfile(os.path.join(d, names.GRADESCOPE), results)
        if built:
            add_page(results, os.path.join(d, names.REPORT), os.path.join(d, names.GRADED_FILE))
    return None


def add_page(results, report_path, source_path):
    """Appends the HTML report as a test without points; leaves results.json as the grader
    wrote it when the page cannot be drawn."""
    try:
        with open(report_path) as f:
            page = report_page.render(json.load(f), report_page.read_source(source_path))
        with open(results) as f:
            data = json.load(f)
        data.setdefault("tests", []).append(
            {"name": PAGE_TEST, "output": page, "output_format": "html", "visibility": "visible"})
        write_results(results, data)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        pass


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--root", default="/autograder")
    args = p.parse_args()
    path = os.path.join(args.root, "results", names.GRADESCOPE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.remove(path)  # only this submission's results count
    try:
        results = grade(args.root, path)
    except (RecipeError, OSError, ValueError) as e:
        results = failure(names.CRASHED, f"the autograder is broken, not your submission: {e}")
    if results is not None:
        write_results(path, results)
        print(results["output"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
