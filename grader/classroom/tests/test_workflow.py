"""GitHub Classroom's workflow (grader/classroom/workflow.py): the committed
grader/classroom/autograding.yml is what the grader's plan gives for the default policy,
each lab worth its emulated points; another policy's points reach it; points Classroom
cannot take are refused; the YAML reader takes back what the writer wrote and nothing else.
The release test (scripts/tests/packaging/test_release.py) runs its lab 1 command in a release.

Run by ctest with the build folder (the repository root on PYTHONPATH): python3 test_workflow.py BUILD_DIR
"""
import contextlib
import io
import os
import sys
import tempfile
import unittest

from grader.classroom import block_yaml
from grader.classroom import workflow

BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(workflow.ROOT, "build")
GRADER = os.path.join(BUILD, "bin", "grader")


def steps(doc):
    return doc["jobs"][workflow.JOB]["steps"]


def run(args):
    """(exit code, stdout, stderr) of the generator."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = workflow.main(["--grader", GRADER] + args)
    return code, out.getvalue(), err.getvalue()


class WorkflowTest(unittest.TestCase):
    def policy(self, text):
        """A policy file, named relative to the repository root as the workflow names it."""
        f = tempfile.NamedTemporaryFile("w", suffix=".jsonc", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return os.path.relpath(f.name, workflow.ROOT)

    def test_committed_file_is_the_plans(self):
        code, _, err = run(["--check", workflow.COMMITTED])
        self.assertEqual(code, 0, err)
        with open(workflow.COMMITTED, encoding="utf-8") as f:
            doc = block_yaml.load(f.read())
        self.assertEqual(doc["name"], "Autograding Tests")
        tests = [s for s in steps(doc) if s.get("uses") == "classroom-resources/autograding-command-grader@v1"]
        # The default policy: 100 points a lab, 60% of them for correctness, all the
        # emulator can award ("emulated_performance": "omit").
        self.assertEqual([(t["id"], t["with"]["max-score"]) for t in tests],
                         [("lab1", 60), ("lab2", 60), ("lab3", 60), ("lab4", 60), ("lab5", 60)])
        self.assertEqual(tests[2]["with"]["command"],
                         "mkdir -p classroom-reports && ./grade lab3 --emulate --html classroom-reports/lab3.html")
        reporter = steps(doc)[-1]
        self.assertEqual(reporter["with"]["runners"], "lab1,lab2,lab3,lab4,lab5")
        self.assertEqual(reporter["env"]["LAB3_RESULTS"], "${{ steps.lab3.outputs.result }}")
        upload = [s for s in steps(doc) if s.get("uses") == "actions/upload-artifact@v4"]
        self.assertEqual(upload[0]["with"]["path"], "classroom-reports")
        self.assertEqual(upload[0]["if"], "always()")

    def test_a_stale_file_is_refused(self):
        with open(workflow.COMMITTED, encoding="utf-8") as f:
            stale = f.read().replace("max-score: 60", "max-score: 50", 1)
        with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
            f.write(stale)
        self.addCleanup(os.unlink, f.name)
        code, _, err = run(["--check", f.name])
        self.assertEqual(code, 1)
        self.assertIn("is not what the grader's plan gives", err)

    def test_another_policys_points(self):
        path = self.policy('{"lab_defaults": {"points": 50}, "labs": {"lab2": {"points": 20}}, '
                           '"emulated_performance": "pending"}')
        code, out, err = run(["--policy", path, "--labs", "lab1,lab2"])
        self.assertEqual(code, 0, err)
        tests = steps(block_yaml.load(out))[3:5]
        # "pending" keeps performance in the lab's maximum, but the emulator awards only
        # the correctness share: Classroom's max-score is that share.
        self.assertEqual([(t["id"], t["with"]["max-score"]) for t in tests], [("lab1", 30), ("lab2", 12)])
        self.assertTrue(tests[0]["with"]["command"].endswith(f"--policy {path}"), tests[0]["with"]["command"])

    def test_points_classroom_cannot_take(self):
        path = self.policy('{"lab_defaults": {"points": 99}}')
        code, _, err = run(["--policy", path, "--labs", "lab1"])
        self.assertEqual(code, 2)
        self.assertIn("lab1 is worth 59.4 points on the emulator, and Classroom's max-score is a whole number", err)

    def test_bad_arguments(self):
        code, _, err = run(["--labs", "lab9"])
        self.assertEqual(code, 2)
        self.assertIn("unknown lab(s) lab9", err)
        code, _, err = run(["--policy", "/abs/policy.jsonc"])
        self.assertEqual(code, 2)
        self.assertIn("relative to the repository root", err)


class BlockYamlTest(unittest.TestCase):
    def test_round_trip(self):
        value = {"on": ["push"], "jobs": {"a-b": {"steps": [{"run": 'echo "x: y" # not a comment', "n": 3},
                                                            {"with": {}, "list": []}, "plain"]}},
                 "flag": True, "none": None}
        text = block_yaml.dump(value, "two\nlines")
        self.assertTrue(text.startswith("# two\n# lines\n"))
        self.assertIn('"on":\n  - "push"\n', text)  # YAML 1.1 would read a bare on as true
        self.assertEqual(block_yaml.load(text), value)

    def test_other_yaml_is_refused(self):
        for text, said in (("key: plain words\n", "is not a JSON scalar"), ("a:\n", "'a' has no value"),
                           ("a: 1\n  b: 2\n", "unexpected indentation"), ("", "empty document")):
            with self.assertRaises(ValueError) as e:
                block_yaml.load(text)
            self.assertIn(said, str(e.exception), text)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
