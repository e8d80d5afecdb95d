"""Planted bugs and the hint each failing part must get (grader/tests/planted_hints.json).

Every submission is graded on one backend; each part the file lists must have exactly the
status and the hint written there ("" where the grader must stay silent rather than guess),
or on a GPU those of status_gpu and hint_gpu where they differ: a list there names every
answer that is right for a race whose outcome on a GPU varies from run to run.
Exit 0 when all match, 1 when any differs, 77 (ctest: skipped) when the GPU backend was
asked for and the grade ran elsewhere.

  python3 test_planted_hints.py --grader G --testsub BUILD/testsub --backend emulated --out DIR
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIPPED = 77


def grade(args, sub, lab):
    out = os.path.join(args.out, f"{sub}.json")
    cmd = [args.grader, lab, "--worker-dir", os.path.join(args.testsub, sub), "--seed", "1", "--quiet",
           "--json", out, "--course-root", ROOT]
    if args.backend == "emulated":
        cmd.append("--emulate")
    if args.policy:
        cmd += ["--policy", args.policy]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)
    with open(out) as f:
        return json.load(f)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--grader", required=True)
    p.add_argument("--testsub", required=True)
    p.add_argument("--backend", choices=["emulated", "gpu"], required=True)
    p.add_argument("--policy")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(HERE, "planted_hints.json")) as f:
        planted = json.load(f)["planted"]
    wrong = 0
    for entry in planted:
        report = grade(args, entry["submission"], entry["lab"])
        if report.get("backend") != args.backend:
            print(f"skipped: {entry['submission']} was graded on {report.get('backend')!r}, not {args.backend}")
            return SKIPPED
        parts = {p["id"]: p["correctness"] for p in report["parts"]}
        for part, want in entry["parts"].items():
            got = parts.get(part, {})
            expected_status = want.get(f"status_{args.backend}", want["status"])
            expected_hint = want.get(f"hint_{args.backend}", want["hint"])
            for what, have, should in (("status", got.get("status"), expected_status),
                                       ("hint", got.get("hint"), expected_hint)):
                # A list: a race whose outcome on a GPU varies from run to run, and each
                # answer that is right for one of its outcomes.
                if (have not in should) if isinstance(should, list) else (have != should):
                    wrong += 1
                    print(f"{entry['submission']} {entry['lab']} {part}: {what}\n  expected: {should!r}\n"
                          f"  got:      {have!r}")
        print(f"checked {entry['submission']} ({entry['lab']}): parts {', '.join(entry['parts'])}")
    print(f"{wrong} mismatch(es)")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
