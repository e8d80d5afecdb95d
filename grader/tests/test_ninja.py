"""The course under CMake's Ninja generator: build, tests and batch grading.

Configures an emulator-only Ninja build of this checkout in SCRATCH, builds the grader, lab
1's self-check worker and a unit test, runs them through ctest, and grades three
submissions of lab 1 with grader/batch/grade_batch.py, which builds them from the recipe
CMake writes (build/batch/recipe.json) instead of the Makefile generator's link.txt.

    python3 test_ninja.py SCRATCH
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRATCH = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(tempfile.gettempdir(), "course_ninja")
FOLDER = "lab1_divergent"


def run(*args, **kw):
    p = subprocess.run(list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def read(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return f.read()


class NinjaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        jobs = str(min(os.cpu_count() or 2, 4))
        code, out = run("cmake", "-S", ROOT, "-B", SCRATCH, "-G", "Ninja", "-DCOURSE_GPU=OFF")
        assert code == 0, out[-3000:]
        code, out = run("cmake", "--build", SCRATCH, "-j", jobs, "--target", "grader", "batch_lab1_emulated",
                        "selfcheck_solution_lab1_emulated", "test_labs_manifest", "expect_grade")
        assert code == 0, out[-3000:]

    def test_it_is_a_ninja_build(self):
        self.assertTrue(os.path.exists(os.path.join(SCRATCH, "build.ninja")))
        self.assertFalse(os.path.exists(os.path.join(SCRATCH, "Makefile")))

    def test_recipe_and_records(self):
        with open(os.path.join(SCRATCH, "batch", "recipe.json")) as f:
            recipe = json.load(f)
        t = {(e["lab"], e["backend"]): e for e in recipe["templates"]}[("lab1", "emulated")]
        self.assertIn("{object}", t["link"])
        self.assertEqual(t["link"][t["link"].index("-o") + 1], "{worker}")
        self.assertTrue(all(os.path.exists(a) for a in t["link"] if a.endswith((".o", ".a"))), t["link"])
        with open(os.path.join(SCRATCH, "selfcheck", "solution", "lab1_worker_emulated.json")) as f:
            record = json.load(f)
        self.assertEqual(record["lab"], "lab1")
        self.assertEqual(record["backend"], "emulated")
        self.assertEqual(record["student_source"], os.path.join(ROOT, "solutions", FOLDER, "kernels.cu"))
        self.assertTrue(os.path.isfile(record["student_object"]), record["student_object"])

    def test_ctest(self):
        code, out = run("ctest", "--test-dir", SCRATCH, "--output-on-failure", "-R",
                        r"^(unit\.labs_manifest|selfcheck\.lab1\.emulated\.solution)$")
        self.assertEqual(code, 0, out[-3000:])
        # CTest 3.x writes "100% tests passed, 0 tests failed out of 2"; 4.x leaves out
        # the failed count when there are none.
        self.assertRegex(out, r"100% tests passed(, 0 tests failed)? out of 2\n")

    def test_batch(self):
        tmp = tempfile.mkdtemp()
        try:
            subs = os.path.join(tmp, "submissions")
            broken = '#include "contracts/lab1.cuh"\nnamespace LAB_IMPL {\nint oops = undefined_name;\n}\n'
            for name, text in (("correct", read("solutions", FOLDER, "kernels.cu")),
                               ("stub", read("labs", FOLDER, "kernels.cu")), ("broken", broken)):
                os.makedirs(os.path.join(subs, name))
                with open(os.path.join(subs, name, "kernels.cu"), "w") as f:
                    f.write(text)
            out_dir = os.path.join(tmp, "results")
            code, out = run(sys.executable, os.path.join(ROOT, "grader", "batch", "grade_batch.py"), "lab1", subs,
                            "--out", out_dir, "--build-dir", SCRATCH, "--emulate", "--jobs", "2", "--policy",
                            os.path.join(ROOT, "grader", "tests", "policies", "fast_timeout.jsonc"))
            self.assertEqual(code, 0, out[-3000:])
            with open(os.path.join(out_dir, "gradebook.csv")) as f:
                rows = {r["submission"]: r for r in csv.DictReader(f)}
            self.assertEqual({n: r["status"] for n, r in rows.items()},
                             {"correct": "graded", "stub": "graded", "broken": "compile_error"})
            self.assertEqual(float(rows["correct"]["score"]), 60.0)
            self.assertEqual(float(rows["stub"]["score"]), 0.0)
            self.assertIn("undefined_name", rows["broken"]["message"])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if shutil.which("ninja") is None:
        print("ninja is not installed (scripts/install_deps.sh installs it): skipped")
        sys.exit(77)  # ctest: not run
    unittest.main(argv=[sys.argv[0], "-v"])
