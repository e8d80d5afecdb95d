#!/usr/bin/env python3
"""PrairieLearn's external grader for one lab (the question's externalGradingOptions.entrypoint,
through run_grader beside this file): grades the kernels.cu under /grade/student on the CPU
emulator and always writes /grade/results/results.json in PrairieLearn's format
(results_schema.py), whatever the upload was.

The submission is graded as Gradescope's and the batch's are (grader/batch/grade_one.py:
the same intake, which takes only the lab file out of the upload, the same guarded build
and grader run), and the results are the grader's own, its Gradescope results.json
turned into PrairieLearn's: a test per part and check, the score as a fraction of the
lab's points on the emulator, the grader's report as the output. An upload with no usable
kernels.cu, a file that does not compile and an autograder that cannot run are not
gradable (no points given or taken, no attempt used, the reason in format_errors); a file
the guard refuses and a grading that runs out of time score 0.

    run_grader LAB [--timeout S] [--policy FILE]

--timeout: the question's externalGradingOptions.timeout; the grading stops MARGIN_S
before it, so that results.json is written before PrairieLearn stops the container.
PL_GRADE_ROOT (default /grade) and COURSE_BUILD_DIR (default the course's build/) move the
two folders, which the tests do.
"""
import argparse
import os
import shutil
import sys
import tempfile

from grader import names
from grader.batch import grade_one
from grader.batch.shard import read_json, write_json
from scripts import labs_manifest
from grader.prairielearn import results_schema

MARGIN_S = 15  # of the timeout, for starting, reading the upload and writing the results
DEFAULT_TIMEOUT_S = 120
OUTPUT_CHARS = 200_000  # of the grader's report; PrairieLearn takes 1 MB in all
TEST_OUTPUT_CHARS = 20_000


def clip(text, limit):
    return text if len(text) <= limit else text[:limit] + f"\n[... {len(text) - limit} more characters not shown]"


def broken(why):
    """The results of an autograder that could not grade: not the student's doing, so not gradable."""
    message = f"The autograder could not grade this submission (not your doing): {why}"
    return {"gradable": False, "score": 0.0, "message": message, "output": message, "format_errors": [message],
            "tests": []}


def pl_test(test):
    """One test of the grader's Gradescope results as PrairieLearn shows a test."""
    return {"name": test["name"], "points": test.get("score", 0.0), "max_points": test.get("max_score", 0.0),
            "message": test.get("status", ""), "output": clip(test.get("output", ""), TEST_OUTPUT_CHARS)}


def emulated_maximum(folder, row):
    """The points the emulator can award: the parts' correctness maxima. Under a "pending"
    policy the row's maximum also holds the performance points that only a GPU run gives,
    which PrairieLearn's score must not count against the student."""
    try:
        parts = read_json(os.path.join(folder, names.REPORT)).get("parts", [])
        total = sum(float(p.get("correctness_max", 0)) for p in parts if isinstance(p, dict))
    except (OSError, ValueError, TypeError, AttributeError):
        total = 0.0
    return total if total > 0 else row["max_score"]


def results_of(folder):
    """PrairieLearn's results from the reports grade_one wrote in FOLDER."""
    row = read_json(os.path.join(folder, names.ROW))
    gradescope = read_json(os.path.join(folder, names.GRADESCOPE))
    with open(os.path.join(folder, names.TEXT), encoding="utf-8", errors="replace") as f:
        text = f.read()
    status, message = row["status"], row["message"]
    # A grader that left no report, or said it could not grade, failed on its own side.
    infrastructure = message.startswith("infrastructure:") or (
        status == names.CRASHED and not os.path.exists(os.path.join(folder, names.REPORT)))
    gradable = not infrastructure and status not in (names.INVALID_SUBMISSION, names.COMPILE_ERROR)
    maximum = emulated_maximum(folder, row)
    score = gradescope.get("score", 0.0) / maximum if gradable and maximum > 0 else 0.0
    results = {"gradable": gradable, "score": min(1.0, max(0.0, score)), "message": message,
               "output": clip(text, OUTPUT_CHARS), "tests": [pl_test(t) for t in gradescope.get("tests", [])]}
    if not gradable:
        results["format_errors"] = [message]
    return results


def grade(root, lab, build, timeout, policy):
    if lab not in labs_manifest.lab_names():
        return broken(f"the question names lab '{lab}'; the course's labs are {', '.join(labs_manifest.lab_names())}")
    seconds = max(timeout - MARGIN_S, timeout / 2)
    out = tempfile.mkdtemp(prefix="prairielearn-")
    try:
        folder, _ = grade_one.grade_alone(build, lab, os.path.join(root, "student"), out, policy,
                                          compile_timeout=seconds / 2, seconds=seconds)
        return results_of(folder)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def write(path, results):
    os.makedirs(os.path.dirname(path), exist_ok=True)  # PrairieLearn does not make it
    write_json(path, results)


def positive_seconds(text):
    value = float(text)
    if not value > 0:
        raise ValueError(text)
    return value


def main(argv=None):
    root = os.environ.get("PL_GRADE_ROOT", "/grade")
    path = os.path.join(root, names.PRAIRIELEARN_RESULTS)
    if os.path.exists(path):
        os.remove(path)  # only this submission's results count
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("lab")
    p.add_argument("--timeout", type=positive_seconds, default=DEFAULT_TIMEOUT_S, help="PrairieLearn's timeout, seconds")
    p.add_argument("--policy", help="a grading policy file, e.g. under /grade/serverFilesCourse")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        if e.code == 0:
            return 0  # --help
        write(path, broken("the question's entrypoint has wrong arguments (run_grader LAB [--timeout S] "
                           "[--policy FILE])"))
        return e.code or 2
    build = os.environ.get("COURSE_BUILD_DIR", os.path.join(labs_manifest.ROOT, "build"))
    try:
        results = grade(root, args.lab, build, args.timeout, args.policy)
    except Exception as e:  # whatever went wrong, PrairieLearn gets a results.json that says so
        results = broken(f"{type(e).__name__}: {e}")
    problems = results_schema.problems(results)
    if problems:
        results = broken("its results broke PrairieLearn's format: " + "; ".join(problems))
    write(path, results)
    print(results["output"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
