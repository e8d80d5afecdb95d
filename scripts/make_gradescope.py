#!/usr/bin/env python3
"""Builds a Gradescope autograder package for one lab (`make gradescope LAB=lab3`).

Gradescope unpacks the zip into /autograder/source: setup.sh and run_autograder at its top,
next to the course's files (those git tracks or would track: no build output; labs/ holds the
stubs as the checkout has them). An instructor's policy can go in with --policy.

The answers do not travel: solutions/ and the grader's test submissions are left out
(course_package.py), and the reference kernels the lab needs (its own and the naive
baseline's) are compiled here for the CPU emulator and shipped as objects in prebuilt/,
stripped of debug information and of this machine's paths, which setup.sh hands to CMake
(COURSE_PREBUILT_DIR). A student's file that tried to read or include them finds nothing.

    python3 -m scripts.make_gradescope lab3 --out build/gradescope/lab3_autograder.zip
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

from scripts import labs_manifest
from scripts.course_package import PREBUILT, ROOT, reference_objects, shipped_files


def policy_problem(policy):
    """Why `policy` is not a valid policy file, or None, as the grader that will read it
    says (built in ./build first when it is not there yet)."""
    if not os.path.isfile(policy):
        return f"policy file {policy} does not exist"
    build = os.path.join(ROOT, "build")
    grader = os.path.join(build, "bin", "grader")
    if not os.access(grader, os.X_OK):
        for cmd in (["cmake", "-S", ROOT, "-B", build], ["cmake", "--build", build, "--target", "grader"]):
            run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if run.returncode != 0:
                return "building the grader to check the policy failed:\n" + run.stdout.decode()[-2000:]
    check = subprocess.run([grader, "--check-policy", policy], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return None if check.returncode == 0 else check.stdout.decode().strip().removeprefix("grader: ")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("lab")
    p.add_argument("--out", help="the zip (default build/gradescope/<lab>_autograder.zip)")
    p.add_argument("--policy", help="policy file for the autograder (e.g. emulated_performance: pending)")
    args = p.parse_args(argv)
    labs = labs_manifest.lab_names()
    if args.lab not in labs:
        print(f"make_gradescope: unknown lab '{args.lab}'; the labs are {', '.join(labs)}", file=sys.stderr)
        return 2
    if args.policy:
        problem = policy_problem(args.policy)
        if problem:
            print(f"make_gradescope: {problem}", file=sys.stderr)
            return 2
    out = args.out or os.path.join(ROOT, "build", "gradescope", f"{args.lab}_autograder.zip")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    prebuilt_dir = tempfile.mkdtemp(prefix="gradescope-prebuilt-")
    try:
        prebuilt = reference_objects({args.lab, "lab1"}, ["emulated"], prebuilt_dir)
    except (OSError, RuntimeError, subprocess.CalledProcessError) as e:
        shutil.rmtree(prebuilt_dir, ignore_errors=True)
        print(f"make_gradescope: compiling the reference kernels failed: {e}", file=sys.stderr)
        return 2
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in ("setup.sh", "run_autograder"):
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o755 << 16
            with open(os.path.join(ROOT, "grader", "gradescope", name), "rb") as f:
                z.writestr(info, f.read())
        for f in shipped_files():
            z.write(os.path.join(ROOT, f), f)
        for name in prebuilt:
            z.write(os.path.join(prebuilt_dir, name), f"{PREBUILT}/{name}")
        z.writestr("gradescope_lab", args.lab + "\n")
        if args.policy:
            z.write(args.policy, "gradescope_policy.jsonc")
    shutil.rmtree(prebuilt_dir, ignore_errors=True)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
