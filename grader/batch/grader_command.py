"""How batch grading and Gradescope run the grader on one submission.

The grader is told which files are the student's (--student-source, --student-object), and a
build that failed is handed to it as a build-failure file (--build-failure), so that every
report of a submission the grader saw, Gradescope's results.json included, is the grader's
own. Python reads only the --json report back (gradebook.row_from_report).
"""
import json
import os

from grader import names


def build_failure_kind(built):
    """The grader's word for a failed build (grader/supervisor/main.cpp, read_build_failure).
    A build that ran too long did not compile either; batch's row still says "timeout"."""
    return names.REJECTED if built.rejected else names.COMPILE_ERROR


def write_build_failure(path, built):
    """The file `grader --build-failure` reads: {"kind", "log", "source"}."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"kind": build_failure_kind(built), "log": built.log, "source": built.source}, f, indent=2)
        f.write("\n")


def command(grader, lab, built, emulate, policy=None, build_failure=None, json_out=None, gradescope=None,
            text=None, gpu_lock=None, reference_counters=None, described=None):
    """The grader's command line: a built submission is graded with its own worker and files;
    with build_failure (a file from write_build_failure) nothing runs and the reports say why.
    gpu_lock: a lock file shared by the graders of one GPU (--gpu-lock: shared while
    checking correctness, exclusive while timing); never on the emulator, which times nothing.
    reference_counters: the class's file of them (grade_one.count_references), or None.
    described: the lab as its template worker described it (grade_one.describe_lab), or None.
    Each of these two is a (path, sha256) pair: the grader reads the file only if its bytes
    are still those (a results folder may lie where a student's kernels can write)."""
    cmd = [grader, lab, "--quiet", "--no-color"]
    if build_failure:
        cmd += ["--build-failure", build_failure]
    else:
        cmd += ["--worker-dir", built.worker_dir, "--student-source", built.source, "--student-object", built.object]
    if emulate:
        cmd.append("--emulate")
    if policy:
        cmd += ["--policy", os.path.abspath(policy)]
    if gpu_lock and not emulate and not build_failure:
        cmd += ["--gpu-lock", gpu_lock]
    for option, pinned in (("--reference-counters", reference_counters), ("--described", described)):
        if pinned and not build_failure:
            cmd += [option, pinned[0], option + "-sha256", pinned[1]]
    for option, path in (("--json", json_out), ("--gradescope", gradescope), ("--text", text)):
        if path:
            cmd += [option, path]
    return cmd
