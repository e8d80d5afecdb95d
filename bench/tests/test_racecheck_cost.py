"""racecheck_cost (bench/racecheck_cost.cpp) without a GPU, through a stand-in
compute-sanitizer that logs its command line and prints racecheck's summary:

- the "grader" variant runs the grader's command (racecheck_argv), "student" the same
  filtered to the lab's student namespace; both run the worker's correctness job of the
  lab's race_check_parts at the policy's sanitizer sizes;
- K processes run each round, the variants' order alternates by round, and the JSON holds
  every run;
- a run without racecheck's summary is a failure (exit 1), and a missing sanitizer a
  usage error (exit 2).

    python3 bench/tests/test_racecheck_cost.py RACECHECK_COST
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

TOOL = None

STAND_IN = """#!/usr/bin/env bash
printf '%s\\n' "$*" >> "{log}"
echo "========= RACECHECK SUMMARY: {hazards} hazards displayed (0 errors, {hazards} warnings)"
"""


class RacecheckCost(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="racecheck-cost-test-")
        self.log = os.path.join(self.tmp.name, "runs.log")

    def tearDown(self):
        self.tmp.cleanup()

    def sanitizer(self, body):
        path = os.path.join(self.tmp.name, "compute-sanitizer")
        with open(path, "w") as f:
            f.write(body)
        os.chmod(path, 0o755)
        return path

    def run_tool(self, *args):
        return subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=120)

    def test_variants_commands_and_rows(self):
        tool = self.sanitizer(STAND_IN.format(log=self.log, hazards=3))
        out = os.path.join(self.tmp.name, "cost.json")
        r = self.run_tool("--worker", "/w/lab3_worker_gpu", "--sanitizer", tool, "--processes", "1,2",
                          "--rounds", "2", "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.log) as f:
            runs = f.read().splitlines()
        self.assertEqual(len(runs), 12)  # K=1 and K=2, two rounds of two variants
        student = [c for c in runs if "--show-backtrace no --kernel-name kns=lab3_student /w/lab3_worker_gpu " in c]
        self.assertEqual(len(student), 6)
        self.assertEqual(len([c for c in runs if "--kernel-name" not in c]), 6)
        for command in runs:
            self.assertTrue(command.startswith("--tool racecheck --racecheck-report hazard --error-exitcode 86 "),
                            command)
            self.assertIn("/w/lab3_worker_gpu --events-fd 3 --job ", command)
            job = json.loads(command.split(" --job ", 1)[1])
            self.assertEqual(job["command"], "correctness")
            self.assertEqual(job["sandbox"], "relaxed")
            self.assertEqual(job["correctness"]["parts"], ["B", "C"])
            self.assertEqual(job["correctness"]["inputs"], ["random"])
            self.assertEqual(job["correctness"]["problems"]["reduction"]["sizes"], [33, 4097])
        with open(out) as f:
            rows = json.load(f)["rows"]
        self.assertEqual([(row["variant"], row["processes"], row["round"]) for row in rows],
                         [("grader", 1, 1), ("student", 1, 1), ("student", 1, 2), ("grader", 1, 2),
                          ("grader", 2, 1), ("student", 2, 1), ("student", 2, 2), ("grader", 2, 2)])
        self.assertEqual([len(row["seconds"]) for row in rows], [1, 1, 1, 1, 2, 2, 2, 2])
        self.assertEqual({row["hazards"] for row in rows}, {3})

    def test_no_summary_fails(self):
        tool = self.sanitizer("#!/usr/bin/env bash\necho 'Error: Device not supported'\n")
        r = self.run_tool("--worker", "/w/lab3_worker_gpu", "--sanitizer", tool, "--processes", "1",
                          "--rounds", "1", "--variants", "student")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no racecheck summary", r.stderr)

    def test_missing_sanitizer_is_a_usage_error(self):
        r = self.run_tool("--worker", "/w/lab3_worker_gpu", "--sanitizer", os.path.join(self.tmp.name, "none"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("compute-sanitizer not found", r.stderr)


def main():
    global TOOL
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    TOOL = os.path.abspath(sys.argv.pop(1))
    return 0 if unittest.main(exit=False, verbosity=2).result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
