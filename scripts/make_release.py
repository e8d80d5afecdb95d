#!/usr/bin/env python3
"""Writes the student repository (`make release OUT=../cuda-labs-student`): the course
without its answers, ready to be pushed as the class's template repository.

It holds the course's files (what git tracks, course_package.py) except solutions/ and
the grader's test submissions, and the reference kernels every lab's grader compares with,
compiled here and stripped (prebuilt/, which CMake picks up by itself): for the CPU
emulator always, and for NVIDIA GPUs when nvcc is here (architectures
course_package.RELEASE_CUDA_ARCHITECTURES; a student's GPU build needs a CUDA Toolkit
that links them, 13 or newer). `make lab1 && ./grade lab1` works there as here; the
course's own tests and `make selfcheck` stay with the instructor. GitHub Classroom's
autograding workflow (grader/classroom/autograding.yml) goes to .github/workflows/, where
GitHub runs it on every push; --no-classroom leaves it out.

    python3 -m scripts.make_release OUT [--no-gpu] [--no-classroom]
"""
import argparse
import os
import shutil
import subprocess
import sys

from grader.classroom import workflow
from scripts.course_package import PREBUILT, ROOT, has_nvcc, reference_objects, shipped_files
from scripts.labs_manifest import lab_names


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", help="the folder to write (new, or empty)")
    p.add_argument("--no-gpu", action="store_true", help="only the emulator's references, even where nvcc is")
    p.add_argument("--no-classroom", action="store_true", help="without GitHub Classroom's autograding workflow")
    args = p.parse_args(argv)
    out = os.path.abspath(args.out)
    if os.path.exists(out) and (not os.path.isdir(out) or os.listdir(out)):
        print(f"make_release: {args.out} exists and is not an empty folder: give a new one", file=sys.stderr)
        return 2
    if out == ROOT or out.startswith(ROOT + os.sep) and not out.startswith(os.path.join(ROOT, "build")):
        print(f"make_release: {args.out} is inside the course's checkout: give a folder outside it", file=sys.stderr)
        return 2
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        print(f"make_release: cannot write {args.out}: {e}", file=sys.stderr)
        return 2
    backends = ["emulated"] + (["gpu"] if has_nvcc() and not args.no_gpu else [])
    try:
        objects = reference_objects(lab_names(), backends, os.path.join(out, PREBUILT))
    except (OSError, RuntimeError, subprocess.CalledProcessError) as e:
        print(f"make_release: compiling the reference kernels failed: {e}", file=sys.stderr)
        return 2
    files = shipped_files()
    for f in files:
        os.makedirs(os.path.dirname(os.path.join(out, f)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(out, f))
    if not args.no_classroom:
        os.makedirs(os.path.dirname(os.path.join(out, workflow.RELEASE_PATH)), exist_ok=True)
        shutil.copy2(workflow.COMMITTED, os.path.join(out, workflow.RELEASE_PATH))
    print(f"make_release: {len(files)} course files and {len(objects)} compiled references "
          f"({', '.join(backends)}) in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
