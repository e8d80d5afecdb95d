#!/usr/bin/env python3
"""Gradescope's per-submission step: finds the lab file in /autograder/submission, builds
it against the prebuilt course, grades correctness on the CPU emulator, and always writes
/autograder/results/results.json, even when the submission is unusable or does not
compile. Performance points follow the policy's "emulated_performance": "omit" leaves them
out of the maximum, "pending" keeps them for a later GPU batch run."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "batch"))

import gradebook  # noqa: E402
import intake  # noqa: E402
from build_recipe import Recipe, RecipeError  # noqa: E402


def write_results(path, results):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def failure(status, message):
    return gradebook.gradescope_results({"status": status, "message": message})


def grade(root):
    source = os.path.join(root, "source")
    with open(os.path.join(source, "gradescope_lab")) as f:
        lab = f.read().strip()
    recipe = Recipe(os.path.join(root, "build"))
    folder = recipe.folder(lab)
    sub = intake.Submission("submission", os.path.join(root, "submission"), "dir", "submission")
    try:
        inner, data = intake.student_file(sub, folder)
    except intake.InvalidSubmission as e:
        return failure("invalid_submission", f"{e}. Upload {folder}/kernels.cu (or kernels.cu alone).")
    scratch = tempfile.mkdtemp(prefix="autograder-")
    path = os.path.join(scratch, folder, "kernels.cu")
    os.makedirs(os.path.dirname(path))
    with open(path, "wb") as f:
        f.write(data)
    built = recipe.build(lab, "emulated", path, scratch, timeout=600)
    if not built.ok:
        log = "\n".join(built.log.strip().splitlines()[-40:])
        if built.rejected:
            return failure("rejected", f"{inner} was refused before compiling:\n{log}")
        return failure("compile_error", f"{inner} does not compile:\n{log}")
    results = os.path.join(scratch, "results.json")
    policy = os.path.join(source, "gradescope_policy.jsonc")
    cmd = [recipe.grader, lab, "--emulate", "--worker-dir", built.worker_dir, "--gradescope", results, "--no-color"]
    if os.path.exists(policy):
        cmd += ["--policy", policy]
    env = dict(os.environ, COURSE_STUDENT_SOURCE=built.source, COURSE_STUDENT_OBJECT=built.object)
    try:
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1800)
    except subprocess.TimeoutExpired:
        return failure("timeout", "grading took longer than 30 minutes")
    report = proc.stdout.decode("utf-8", "replace")
    try:
        with open(results) as f:
            out = json.load(f)
    except (OSError, ValueError):
        return failure("crashed", f"the grader exited with {proc.returncode} and no results:\n{report[-2000:]}")
    out["output"] = ("Graded on Gradescope's CPU emulator: correctness only. Performance is graded on a GPU, "
                     "if your instructor runs the class on one.\n\n" + report)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--root", default="/autograder")
    args = p.parse_args()
    path = os.path.join(args.root, "results", "results.json")
    try:
        results = grade(args.root)
    except (RecipeError, OSError, ValueError) as e:
        results = failure("crashed", f"the autograder is broken, not your submission: {e}")
    write_results(path, results)
    print(results.get("output", ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
