"""The Gradescope package, run against a fake /autograder tree in a temporary folder: a
passing, a failing, a non-compiling and a missing submission all get a results.json, the
grader's own (grader --gradescope) for every submission that has a file to build."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
LAB, FOLDER = "lab1", "lab1_divergent"
OLDEST_CMAKE = os.path.join(os.environ.get("COURSE_OLDEST_CMAKE_DIR",
                                           os.path.join(os.path.expanduser("~"), ".cache", "course", "cmake-3.22")),
                            "cmake", "data", "bin")


class GradescopeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.root = os.path.join(cls.tmp, "autograder")
        zip_path = os.path.join(cls.tmp, "autograder.zip")
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_gradescope.py"), LAB, "--out", zip_path],
                       check=True)
        with zipfile.ZipFile(zip_path) as z:
            cls.names = z.namelist()
            z.extractall(os.path.join(cls.root, "source"))  # what Gradescope does with the upload
        env = dict(os.environ, AUTOGRADER_ROOT=cls.root, COURSE_SKIP_DEPS="1")  # deps are here already
        # Built with the oldest CMake the course supports, as on Gradescope's Ubuntu 22.04
        # image (scripts/install_deps.sh --instructor installs it beside the system's).
        if os.access(os.path.join(OLDEST_CMAKE, "cmake"), os.X_OK):
            env["PATH"] = OLDEST_CMAKE + os.pathsep + env["PATH"]
        setup = subprocess.run(["bash", os.path.join(cls.root, "source", "setup.sh")], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        cls.setup_log = setup.stdout.decode("utf-8", "replace")
        if setup.returncode != 0:
            raise RuntimeError("setup.sh failed:\n" + cls.setup_log[-3000:])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def grade(self, files):
        sub = os.path.join(self.root, "submission")
        shutil.rmtree(sub, ignore_errors=True)
        shutil.rmtree(os.path.join(self.root, "results"), ignore_errors=True)
        os.makedirs(sub)
        for name, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(sub, name)), exist_ok=True)
            with open(os.path.join(sub, name), "w") as f:
                f.write(text)
        scratch = os.path.join(self.tmp, "tmpdir")  # the grading's own temporary files land here
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(scratch)
        env = dict(os.environ, AUTOGRADER_ROOT=self.root, TMPDIR=scratch)
        run = subprocess.run(["bash", os.path.join(self.root, "source", "run_autograder")], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.assertEqual(run.returncode, 0, run.stdout.decode())
        # A test run or an instructor's rerun grades many in one machine: nothing may pile up.
        self.assertEqual(os.listdir(scratch), [])
        self.stdout = run.stdout.decode("utf-8", "replace")
        with open(os.path.join(self.root, "results", "results.json")) as f:
            return json.load(f)

    def read(self, *parts):
        with open(os.path.join(ROOT, *parts)) as f:
            return f.read()

    @unittest.skipUnless(os.access(os.path.join(OLDEST_CMAKE, "cmake"), os.X_OK),
                         "CMake 3.22 is not installed (scripts/install_deps.sh --instructor)")
    def test_setup_ran_with_cmake_3_22(self):
        with open(os.path.join(self.root, "build", "CMakeCache.txt")) as f:
            self.assertIn("CMAKE_COMMAND:INTERNAL=" + os.path.join(OLDEST_CMAKE, "cmake"), f.read())

    def test_package_layout(self):
        for name in ("setup.sh", "run_autograder", "gradescope_lab", "CMakeLists.txt",
                     "prebuilt/lab1_reference_solutions_emulated.o", "grader/gradescope/run_autograder.py"):
            self.assertIn(name, self.names)
        self.assertFalse(any(n.startswith("build/") for n in self.names))
        # The reference answers travel compiled, never as source.
        self.assertFalse(any(n.startswith("solutions/") for n in self.names))

    def test_passing_submission(self):
        r = self.grade({"kernels.cu": self.read("solutions", FOLDER, "kernels.cu")})
        self.assertEqual(r["score"], 60.0)  # correctness only: the default policy omits performance
        self.assertIn("CPU emulator", r["output"])  # the grader's note on the backend
        self.assertTrue(r["output"].startswith("lab1: 60/60"), r["output"])
        # The grader's human report is the autograder's stdout, which Gradescope shows.
        self.assertIn("lab1: 60/60", self.stdout)
        correctness = [t for t in r["tests"] if "correctness" in t["name"]]
        self.assertEqual([(t["status"], t["score"], t["max_score"]) for t in correctness], [("passed", 60.0, 60.0)])
        # The HTML report, as a test without points: the student's kernel in pictures.
        page = self.page_test(r)
        self.assertIn('<section class="part" data-part="A">', page)
        self.assertIn('<figure class="picture" data-kind="lanes" data-version="student">', page)  # the divergent tree's active lanes
        self.assertIn("reduce_divergent", page)

    def page_test(self, r):
        pages = [t for t in r["tests"] if t["name"] == "Your kernels in pictures (the HTML report)"]
        self.assertEqual(len(pages), 1, [t["name"] for t in r["tests"]])
        self.assertEqual(pages[0]["output_format"], "html")
        self.assertNotIn("score", pages[0])
        self.assertNotIn("max_score", pages[0])
        return pages[0]["output"]

    def test_failing_submission(self):
        r = self.grade({f"{FOLDER}/kernels.cu": self.read("labs", FOLDER, "kernels.cu")})
        self.assertEqual(r["score"], 0.0)
        correctness = [t for t in r["tests"] if "correctness" in t["name"]][0]
        self.assertEqual(correctness["status"], "failed")
        self.assertIn("untouched stub", correctness["output"])
        self.assertIn('data-check="correctness">failed', self.page_test(r))

    def build_test(self, r):
        """The one test the grader writes for a build that failed (--build-failure)."""
        self.assertEqual(r["score"], 0.0)
        self.assertEqual(len(r["tests"]), 1, r["tests"])
        t = r["tests"][0]
        self.assertTrue(t["name"].startswith("Build of "), t["name"])
        self.assertEqual((t["status"], t["score"], t["max_score"]), ("failed", 0.0, 60.0))
        return t

    def test_non_compiling_submission(self):
        r = self.grade({"kernels.cu": '#include "contracts/lab1.cuh"\nint broken(\n'})
        t = self.build_test(r)
        self.assertIn("does not compile; nothing was graded", r["output"])
        self.assertIn("does not compile; nothing was graded", t["output"])
        self.assertIn("kernels.cu", t["output"])  # the compiler's messages about the file

    def test_attacks_are_refused(self):
        # Two of the adversarial suite's files (grader/tests/attacks/): an include of the
        # reference, and host code that would forge the worker's events.
        for name, folder in (("include_solution", "lab3_unrolled"), ("forge_events", "lab1_divergent")):
            text = self.read("grader", "tests", "attacks", name, folder, "kernels.cu")
            r = self.grade({"kernels.cu": text})
            self.build_test(r)
            self.assertIn("was refused by the course's guard; nothing was graded", r["output"], name)

    def test_kernel_attacks(self):
        # The lab 1 files of the adversarial suite whose kernel itself reaches for the host
        # (the emulator, Gradescope's only backend, runs kernels as host code): refused by
        # the guard, or stopped by the emulator's memory check.
        for name in ("forge_from_kernel", "take_address", "indirect_call", "printf_n", "stack_smash", "builtin_store",
                     "vla_stack"):
            r = self.grade({"kernels.cu": self.read("grader", "tests", "attacks", name, FOLDER, "kernels.cu")})
            self.build_test(r)
            self.assertIn("was refused by the course's guard; nothing was graded", r["output"], name)
        r = self.grade({"kernels.cu": self.read("grader", "tests", "attacks", "wild_store", FOLDER, "kernels.cu")})
        self.assertEqual(r["score"], 0.0)
        correctness = [t for t in r["tests"] if "correctness" in t["name"]][0]
        self.assertEqual(correctness["status"], "failed")
        self.assertIn("out-of-bounds write by kernel code (4 bytes)", correctness["output"])
        for name, said in (("local_index", "out-of-bounds index: 4095 is outside the array, of type 'float [4]'"),
                           ("printf_n_computed", "printf's %n writes to memory through a pointer"),
                           ("printf_n_far", "printf with a format longer than 4096 characters"),
                           ("inline_memcpy", "out-of-bounds write")):
            r = self.grade({"kernels.cu": self.read("grader", "tests", "attacks", name, FOLDER, "kernels.cu")})
            self.assertEqual(r["score"], 0.0, name)
            self.assertIn(said, r["output"] + "".join(t["output"] for t in r["tests"]), name)

    def test_missing_file(self):
        # The grader never saw a file: the autograder writes the reason itself.
        r = self.grade({"notes.txt": "I forgot the kernel"})
        self.assertEqual(r["score"], 0.0)
        self.assertEqual(r["tests"], [])
        self.assertTrue(r["output"].startswith("invalid_submission: "), r["output"])
        self.assertIn("no kernels.cu", r["output"])

    def test_a_bad_policy_is_not_packaged(self):
        with tempfile.TemporaryDirectory() as tmp:
            policy, out = os.path.join(tmp, "policy.jsonc"), os.path.join(tmp, "package.zip")
            with open(policy, "w") as f:
                f.write('{"emulated_performance": "pending", "timing": {"round": 5}}')
            run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_gradescope.py"), LAB, "--out",
                                  out, "--policy", policy], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            text = run.stdout.decode()
            self.assertEqual(run.returncode, 2, text)
            self.assertIn(f"make_gradescope: {policy}: unknown key timing.round (the keys of timing are ", text)
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
