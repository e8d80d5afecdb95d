#!/usr/bin/env python3
"""The whole emulated grade of each lab's reference, as `make emu-bench` prints it: the
grader on the reference workers the build made (build/selfcheck/solution), one lab after
another, with a fixed seed; `seconds` from each report (correctness, the counters
included) and the wall time of the whole grade, on one core (COURSE_EMU_CORES=1) and on
all of them.

    python3 -m bench.emu.emu_grades [--build-dir build] [--seed 1] [--repeat 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from scripts.labs_manifest import lab_names

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def grade(build, lab, seed, report, cores):
    env = dict(os.environ)
    env.pop("COURSE_EMU_CORES", None)
    if cores:
        env["COURSE_EMU_CORES"] = str(cores)
    cmd = [os.path.join(build, "bin", "grader"), lab, "--emulate", "--quiet", "--no-color", "--worker-dir",
           os.path.join(build, "selfcheck", "solution"), "--seed", str(seed), "--json", report]
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - t0
    with open(report) as f:
        r = json.load(f)
    return wall, r["seconds"]["correctness"], r["score"], r["max_score"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3, help="runs per lab; the median is printed")
    args = p.parse_args(argv)
    if not os.path.isdir(os.path.join(args.build_dir, "selfcheck", "solution")):
        print(f"emu_grades: {args.build_dir}/selfcheck/solution has no reference workers (build with tests on: make)",
              file=sys.stderr)
        return 2
    every = len(os.sched_getaffinity(0))
    print(f"{'lab':<6} {'cores':>5} {'wall s':>8} {'correctness s':>14}  score   (median of {args.repeat}, seed {args.seed})")
    with tempfile.TemporaryDirectory() as tmp:
        for cores, label in ((1, "1"), (None, str(every))):
            total = 0.0
            for lab in lab_names():
                runs = [grade(args.build_dir, lab, args.seed, os.path.join(tmp, f"{lab}.json"), cores)
                        for _ in range(args.repeat)]
                wall = statistics.median(r[0] for r in runs)
                corr = statistics.median(r[1] for r in runs)
                total += wall
                print(f"{lab:<6} {label:>5} {wall:8.2f} {corr:14.2f}  {runs[0][2]:.0f}/{runs[0][3]:.0f}")
            print(f"{'all':<6} {label:>5} {total:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
