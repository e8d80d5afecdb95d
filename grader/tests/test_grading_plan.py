"""The grader's plan (`grader --describe-grading`, core/grading_plan.cpp), which the handouts
cite through scripts/cite_grading.py, against real grades on one backend: each part's
checks are the plan's (traced_run is reported only when it fails, and then the checks of
the emulator's trace and counters have nothing to judge), and a part whose checks
failed pays exactly the worst of their planned costs. Graded: every lab's reference, and
files that fail each kind of check.

Exit 0 when all agree, 1 when any differs, 77 (ctest: skipped) when the GPU backend was
asked for and the grade ran elsewhere.

  python3 test_grading_plan.py --grader G --build BUILD --backend emulated --out DIR
"""
import argparse
import json
import os
import subprocess
import sys

SKIPPED = 77
RANK = {"none": 0, "performance": 1, "everything": 2}
# (worker folder under BUILD, lab): the references, then a failed check of each kind.
GRADED = [("selfcheck/solution", lab) for lab in ("lab1", "lab2", "lab3", "lab4", "lab5")] + [
    ("testsub/lab1_as_lab2", "lab2"),   # no_divergence
    ("testsub/shared_tree", "lab4"),    # uses_shuffle, no_shared_tree
    ("testsub/scalar_loads", "lab4"),   # wide_loads
    ("testsub/unpadded", "lab5"),       # bank_wavefronts
    ("testsub/cg_reduce", "lab4"),      # no_libraries
    ("testsub/divergent_barrier", "lab3"),  # traced_run on a GPU
]


def grade(args, worker, lab):
    out = os.path.join(args.out, f"{worker.replace('/', '_')}_{lab}.json")
    cmd = [args.grader, lab, "--worker-dir", os.path.join(args.build, worker), "--seed", "1", "--quiet", "--json", out]
    if args.backend == "emulated":
        cmd.append("--emulate")
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)
    with open(out) as f:
        return json.load(f)


def compare(report, lab_plan, backend, where):
    """The differences between one grade and the plan, as lines."""
    wrong = []
    lab_checks = {c["name"] for c in report["checks"]}
    for part in report["parts"]:
        plan = {c["name"]: c for c in lab_plan["parts"][part["id"]][backend]}
        planned_part = {n for n, c in plan.items() if not c["whole_lab"]}
        planned_lab = {n for n, c in plan.items() if c["whole_lab"]}
        got = {c["name"]: c["status"] for c in part["checks"]}
        if lab_checks != planned_lab:
            wrong.append(f"{where} {part['id']}: the file's checks {sorted(lab_checks)}, planned {sorted(planned_lab)}")
        if part["correctness"]["status"] == "passed":
            extra = set(got) - planned_part
            missing = planned_part - set(got) - {"traced_run"}
            if got.get("traced_run") == "failed":
                # A traced run that went wrong leaves nothing for the trace's and the
                # counters' checks to judge (and the part earns nothing already).
                missing -= {n for n, c in plan.items() if c["judged_by"].startswith("the emulator's")}
            if extra or missing:
                wrong.append(f"{where} {part['id']}: checks not planned {sorted(extra)}, planned but not run "
                             f"{sorted(missing)}")
            failed = [n for n, s in got.items() if s == "failed" and n in plan]
            failed += [c["name"] for c in report["checks"] if c["status"] == "failed" and c["name"] in plan]
            want = max((plan[n]["cost"] for n in failed), key=RANK.get, default="none")
            if part["penalty"] != want:
                wrong.append(f"{where} {part['id']}: failed {sorted(failed)} cost {part['penalty']!r}, the plan says "
                             f"{want!r}")
    return wrong


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--grader", required=True)
    p.add_argument("--build", required=True)
    p.add_argument("--backend", choices=["emulated", "gpu"], required=True)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    plan = json.loads(subprocess.run([args.grader, "--describe-grading"], capture_output=True, text=True,
                                     check=True).stdout)
    wrong = []
    # The handouts say the technique checks are the same on both backends.
    for lab, lab_plan in plan["labs"].items():
        for part, backends in lab_plan["parts"].items():
            kinds = {b: [c["name"] for c in checks if c["name"] != "ncu_wavefronts"] for b, checks in backends.items()}
            if kinds["gpu"] != kinds["emulated"]:
                wrong.append(f"{lab} {part}: checks on a GPU {kinds['gpu']}, on the emulator {kinds['emulated']}")
    for worker, lab in GRADED:
        report = grade(args, worker, lab)
        if report.get("backend") != args.backend:
            print(f"skipped: {worker} {lab} was graded on {report.get('backend')!r}, not {args.backend}")
            return SKIPPED
        found = compare(report, plan["labs"][lab], args.backend, f"{worker} {lab}")
        failed = sorted({c["name"] for part in report["parts"] for c in part["checks"] if c["status"] == "failed"} |
                        {c["name"] for c in report["checks"] if c["status"] == "failed"})
        print(f"checked {worker} {lab}: failed {', '.join(failed) or 'nothing'}")
        wrong += found
    for line in wrong:
        print(line)
    print(f"{len(wrong)} difference(s) from the plan")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
