"""PrairieLearn's external grader (grader/prairielearn/run_grader) run as the container runs it,
against a fake /grade tree and the course's build (no Docker): a solution, the stub, a file
that does not compile, one the guard refuses, corrupt and missing uploads, a hang within a
short time limit and a question naming no lab each get a results.json that holds what
PrairieLearn documents (results_schema.py), with the grade each deserves. The example
question's files hold what the image and the entrypoint need.

Run by ctest with the build folder (the repository root on PYTHONPATH): python3 test_prairielearn.py BUILD_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

from grader.prairielearn import results_schema
from scripts import labs_manifest

ROOT = labs_manifest.ROOT
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
HERE = os.path.join(ROOT, "grader", "prairielearn")
FOLDER = "lab1_divergent"
CORRECTNESS = "Part A correctness (reduce_divergent)"


def read(*parts):
    with open(os.path.join(ROOT, *parts), "rb") as f:
        return f.read()


class PrairieLearnTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="grade-")
        self.addCleanup(shutil.rmtree, self.root, ignore_errors=True)

    def grade(self, files, *args, lab="lab1", code=0):
        """Runs the entrypoint on an upload of FILES ({name: bytes}); returns its results.json,
        checked against PrairieLearn's documented format. CODE: its exit code (2 for wrong
        arguments, which still write results)."""
        student = os.path.join(self.root, "student")
        os.makedirs(student)
        for name, data in files.items():
            with open(os.path.join(student, name), "wb") as f:
                f.write(data)
        env = dict(os.environ, PL_GRADE_ROOT=self.root, COURSE_BUILD_DIR=BUILD)
        start = time.time()
        run = subprocess.run([os.path.join(HERE, "run_grader"), lab, *args], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
        self.seconds = time.time() - start
        self.assertEqual(run.returncode, code, run.stdout.decode())
        with open(os.path.join(self.root, "results", "results.json")) as f:
            results = json.load(f)
        self.assertEqual(results_schema.problems(results), [])
        return results

    def test_solution(self):
        r = self.grade({"kernels.cu": read("solutions", FOLDER, "kernels.cu")})
        self.assertEqual((r["gradable"], r["score"]), (True, 1.0))
        self.assertEqual(r["message"], "lab1: 60/60 (correct; on the CPU emulator: timing needs a GPU)")
        self.assertIn("Grading on the CPU emulator", r["output"])  # the grader's report
        part = [t for t in r["tests"] if t["name"] == CORRECTNESS]
        self.assertEqual([(t["points"], t["max_points"], t["message"]) for t in part], [(60.0, 60.0, "passed")])
        self.assertIn("Check no_libraries", [t["name"] for t in r["tests"]])

    def test_pending_performance_points_do_not_lower_the_score(self):
        # Under "pending" the grade's maximum holds performance points only a GPU run gives.
        policy = os.path.join(self.root, "pending.jsonc")
        with open(policy, "w") as f:
            f.write('{"emulated_performance": "pending"}\n')
        r = self.grade({"kernels.cu": read("solutions", FOLDER, "kernels.cu")}, "--policy", policy)
        self.assertEqual((r["gradable"], r["score"]), (True, 1.0))
        self.assertEqual(r["message"], "lab1: 60/100 (correct; on the CPU emulator: timing needs a GPU)")

    def test_stub(self):
        r = self.grade({"kernels.cu": read("labs", FOLDER, "kernels.cu")})
        self.assertEqual((r["gradable"], r["score"]), (True, 0.0))
        self.assertEqual(r["message"], "lab1: 0/60 (not correct: part A)")
        part = [t for t in r["tests"] if t["name"] == CORRECTNESS][0]
        self.assertEqual((part["points"], part["max_points"], part["message"]), (0.0, 60.0, "failed"))
        self.assertIn("untouched stub", part["output"])

    def test_compile_error_is_not_gradable(self):
        r = self.grade({"kernels.cu": b'#include "contracts/lab1.cuh"\nint broken(\n'})
        self.assertEqual((r["gradable"], r["score"]), (False, 0.0))
        self.assertTrue(r["message"].startswith("kernels.cu does not compile: "), r["message"])
        self.assertEqual(r["format_errors"], [r["message"]])
        self.assertEqual(len(r["tests"]), 1)
        self.assertTrue(r["tests"][0]["name"].startswith("Build of "), r["tests"][0]["name"])
        self.assertIn("expected primary-expression", r["tests"][0]["output"])  # the compiler's message

    def test_refused_file_scores_zero(self):
        r = self.grade({"kernels.cu": read("grader", "tests", "attacks", "forge_events", FOLDER, "kernels.cu")})
        self.assertEqual((r["gradable"], r["score"]), (True, 0.0))
        self.assertTrue(r["message"].startswith("kernels.cu was refused before compiling"), r["message"])
        self.assertIn("has a constructor or initializer of its own", r["message"])

    def test_unusable_uploads_are_not_gradable(self):
        hint = "Upload lab1_divergent/kernels.cu (or kernels.cu alone)."
        for files, said in (({"kernels.cu": b"\x7fELF\x00\x01" + bytes(range(256))}, "kernels.cu is not a text file"),
                            ({"notes.txt": b"I forgot the kernel"}, "no kernels.cu for lab1_divergent anywhere"),
                            ({}, "found: nothing")):
            shutil.rmtree(self.root)
            r = self.grade(files)
            self.assertEqual((r["gradable"], r["score"], r["tests"]), (False, 0.0, []), said)
            self.assertIn(said, r["message"])
            self.assertTrue(r["message"].endswith(hint), r["message"])
            self.assertEqual(r["format_errors"], [r["message"]])

    def test_hang_ends_before_the_time_limit(self):
        # 40 s: the grading gets 25 of them (the build 12.5, room for a loaded machine); the
        # emulator's watchdog waits longer than that here, so the grading's own limit stops
        # the hang, and results are still written in time.
        with mock.patch.dict(os.environ, {"COURSE_EMU_WATCHDOG_SECONDS": "120"}):
            r = self.grade({"kernels.cu": read("grader", "tests", "submissions", "hang", FOLDER, "kernels.cu")},
                           "--timeout", "40")
        self.assertLess(self.seconds, 40)
        self.assertEqual((r["gradable"], r["score"]), (True, 0.0))
        self.assertTrue(r["message"].startswith("grading ran longer than "), r["message"])

    def test_broken_question(self):
        r = self.grade({"kernels.cu": read("labs", FOLDER, "kernels.cu")}, lab="lab9")
        self.assertEqual((r["gradable"], r["score"]), (False, 0.0))
        self.assertIn("the question names lab 'lab9'; the course's labs are lab1, lab2, lab3, lab4, lab5", r["message"])
        for timeout in ("soon", "0"):
            shutil.rmtree(self.root)
            r = self.grade({}, "--timeout", timeout, code=2)
            self.assertEqual(r["gradable"], False)
            self.assertIn("the question's entrypoint has wrong arguments", r["message"])

    def test_example_question(self):
        with open(os.path.join(HERE, "example_question", "info.json")) as f:
            info = json.load(f)
        self.assertEqual(info["gradingMethod"], "External")
        options = info["externalGradingOptions"]
        self.assertIs(options["enabled"], True)
        entrypoint = options["entrypoint"]
        # The image has the course at /course (the Dockerfile's COPY), so the entrypoint is this file there.
        self.assertEqual(entrypoint[0], "/course/grader/prairielearn/run_grader")
        self.assertTrue(os.access(os.path.join(HERE, "run_grader"), os.X_OK))
        with open(os.path.join(HERE, "Dockerfile")) as f:
            self.assertIn("\nCOPY . /course\n", f.read())
        self.assertIn(entrypoint[1], labs_manifest.lab_names())
        # The grader stops before PrairieLearn does, which allows at most 600 s.
        self.assertEqual(float(entrypoint[entrypoint.index("--timeout") + 1]), options["timeout"])
        self.assertLessEqual(options["timeout"], 600)
        with open(os.path.join(HERE, "example_question", "question.html")) as f:
            html = f.read()
        self.assertIn('<pl-file-upload file-names="kernels.cu"></pl-file-upload>', html)
        self.assertIn("<pl-external-grader-results></pl-external-grader-results>", html)


class SchemaTest(unittest.TestCase):
    """The checker itself: each documented rule refuses what breaks it."""

    def test_documented_example_passes(self):
        ok = {"gradable": True, "score": 0.25, "message": "Tests completed successfully.", "output": "Running...",
              "images": [{"label": "First Image", "url": "data:image/png;base64,..."}, "data:image/gif;base64,..."],
              "tests": [{"name": "Test 1", "description": "Tests that a thing does a thing.", "points": 1,
                         "max_points": 1, "message": "No errors!", "output": "Running test..."}]}
        self.assertEqual(results_schema.problems(ok), [])
        self.assertEqual(results_schema.problems({"gradable": False, "format_errors": "no file"}), [])

    def test_each_rule(self):
        test = {"name": "t", "points": 1, "max_points": 1}
        for bad, said in (([], "the results are not a JSON object"),
                          ({}, "score is missing or not a number (it is mandatory when gradable)"),
                          ({"score": 1.5}, "score 1.5 is outside [0, 1]"),
                          ({"score": True}, "score is missing or not a number"),
                          ({"gradable": "no", "score": 0}, "gradable is not a boolean"),
                          ({"score": 0, "output": 3}, "output is not a string"),
                          ({"gradable": False, "format_errors": [1]}, "format_errors is neither"),
                          ({"score": 0, "images": [{"label": "x"}]}, "images[0] is neither a URL nor an object"),
                          ({"score": 0, "tests": {}}, "tests is not a list"),
                          ({"score": 0, "tests": [dict(test, points=2)]}, "tests[0] has more points than its max_points"),
                          ({"score": 0, "tests": [dict(test, max_points=None)]}, "tests[0].max_points is missing"),
                          ({"score": 0, "tests": [{"points": 0, "max_points": 0}]}, "tests[0] has no name"),
                          ({"score": 0, "tests": [dict(test, output=[])]}, "tests[0].output is not a string"),
                          ({"score": 0, "output": "x" * results_schema.MAX_BYTES}, "over PrairieLearn's 1000000")):
            self.assertTrue(any(said in p for p in results_schema.problems(bad)), (bad, said))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
