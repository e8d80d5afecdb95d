#!/usr/bin/env python3
"""Gradescope's per-submission step: finds the lab file in /autograder/submission, builds
it against the prebuilt course, grades correctness on the CPU emulator, and always writes
/autograder/results/results.json, even when the submission is unusable or does not
compile. Performance points follow the policy's "emulated_performance": "omit" leaves them
out of the maximum, "pending" keeps them for a later GPU batch run.

results.json is the grader's own (grader --gradescope), a build that failed or was refused
included (grader --build-failure); this script writes one itself only when the grader never
saw the submission (no usable file) or could not run. The grader's human report goes to
stdout, which Gradescope shows the student. Where the submission was graded, results.json
also gets one test without points whose output is the HTML report of the student's own
kernels (grader/html/report_page.py, output_format "html"); a page that cannot be drawn
never costs the grade."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from grader.batch import grader_command
from grader.batch import gradebook
from grader.batch import intake
from grader.html import report_page
from grader.batch.build_recipe import Recipe, RecipeError

HERE = os.path.dirname(os.path.abspath(__file__))


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
    """Has the grader write `results`; returns None when it did, else the results to write."""
    source = os.path.join(root, "source")
    with open(os.path.join(source, "gradescope_lab")) as f:
        lab = f.read().strip()
    recipe = Recipe(os.path.join(root, "build"))
    folder = recipe.folder(lab)
    sub = intake.Submission("submission", os.path.join(root, "submission"), "dir", "submission")
    try:
        _, data = intake.student_file(sub, folder)
    except intake.InvalidSubmission as e:
        return failure("invalid_submission", f"{e}. Upload {folder}/kernels.cu (or kernels.cu alone).")
    scratch = tempfile.mkdtemp(prefix="autograder-")
    path = os.path.join(scratch, folder, "kernels.cu")
    os.makedirs(os.path.dirname(path))
    with open(path, "wb") as f:
        f.write(data)
    built = recipe.build(lab, "emulated", path, scratch, timeout=600)
    build_failure = None
    if not built.ok:
        build_failure = os.path.join(scratch, "build_failure.json")
        grader_command.write_build_failure(build_failure, built)
    policy = os.path.join(source, "gradescope_policy.jsonc")
    report = os.path.join(scratch, "report.json")
    cmd = grader_command.command(recipe.grader, lab, built, True, policy if os.path.exists(policy) else None,
                                 build_failure, json_out=report, gradescope=results)
    try:
        proc = subprocess.run(cmd, timeout=1800)
    except subprocess.TimeoutExpired:
        return failure("timeout", "grading took longer than 30 minutes")
    if not os.path.exists(results):
        return failure("crashed", f"the grader exited with {proc.returncode} and wrote no results "
                                  "(its messages are above)")
    if built.ok:
        add_page(results, report, path)
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
    path = os.path.join(args.root, "results", "results.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.remove(path)  # only this submission's results count
    try:
        results = grade(args.root, path)
    except (RecipeError, OSError, ValueError) as e:
        results = failure("crashed", f"the autograder is broken, not your submission: {e}")
    if results is not None:
        write_results(path, results)
        print(results["output"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
