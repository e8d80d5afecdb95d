"""The student release (scripts/make_release.py) and the Gradescope package hold no answers:
no solutions/, no test submission, no file but the stubs that defines a lab's kernel, and
compiled references without debug information or this machine's paths. The release builds
and grades: the stub fails, the reference answer copied in passes, and so through GitHub
Classroom's workflow, whose commands are run there as its command grader runs them.

Run by ctest (the repository root on PYTHONPATH, as CMake's COURSE_PYTHON puts it): python3 test_release.py [emulated|gpu]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

from grader.classroom import block_yaml
from grader.classroom import workflow
from scripts import course_package
from scripts.labs_manifest import labs

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(os.path.dirname(HERE))
ROOT = os.path.dirname(SCRIPTS)


BACKEND = sys.argv[1] if len(sys.argv) > 1 else "emulated"
# A definition (not a declaration) of any kernel: a released file that has one could hand a
# student a technique (a corrected warp tail, a padded tile), whatever the kernel is called.
DEFINES_KERNEL = re.compile(r"__global__\s+(?:__launch_bounds__\([^)]*\)\s*)?[\w:<>\s\*]*?\b\w+\s*\([^;{]*\)\s*\{")
SOURCE = re.compile(r"\.(cu|cuh|cpp|hpp|h|in|inc)$")
# Where kernels may stand: the stubs students start from, the labs' own baselines (lab 5's
# unpadded kernels, which its handout shows), the probe of a GPU's memory, and the GPU
# worker's input kernel (each thread one run of elements, summed on its own: no technique
# of the labs; its file says so).
BASELINES = {lab["baseline"] for lab in labs() if lab.get("baseline")}
ALLOWED = BASELINES | {"scripts/hmm_probe.cu", "grader/worker/input_maker.cu"}


def kernel_definitions(files, read):
    """The files among `files` that define a kernel, other than the stubs and ALLOWED."""
    found = []
    for f in files:
        if SOURCE.search(f) and not re.fullmatch(r"labs/[^/]+/kernels\.cu", f) and f not in ALLOWED:
            if DEFINES_KERNEL.search(read(f)):
                found.append(f)
    return found


def stripped_problems(path):
    """Why a compiled reference gives away more than its code, or []."""
    problems = []
    sections = subprocess.run(["readelf", "-S", "-W", path], stdout=subprocess.PIPE, check=True).stdout.decode()
    if ".debug_" in sections:
        problems.append(f"{os.path.basename(path)} has debug information")
    with open(path, "rb") as f:
        if ROOT.encode() in f.read():
            problems.append(f"{os.path.basename(path)} names this checkout's path {ROOT}")
    return problems


class ReleaseTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.out = os.path.join(cls.tmp, "student")
        args = [sys.executable, os.path.join(ROOT, "scripts", "make_release.py"), cls.out]
        if BACKEND == "emulated":
            args.append("--no-gpu")
        run = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if run.returncode != 0:
            raise RuntimeError("make_release failed:\n" + run.stdout.decode()[-3000:])
        cls.files = []
        for root, _, names in os.walk(cls.out):
            cls.files += [os.path.relpath(os.path.join(root, n), cls.out) for n in names]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def read(self, f):
        with open(os.path.join(self.out, f), errors="replace") as fh:
            return fh.read()

    def test_no_answers(self):
        self.assertFalse([f for f in self.files if f.startswith(course_package.ANSWER_DIRS)])
        self.assertEqual(kernel_definitions(self.files, self.read), [])
        for lab in labs():  # the stubs are there, as students start from them
            self.assertIn(f"labs/{lab['folder']}/kernels.cu", self.files)

    def test_references_compiled_and_stripped(self):
        prebuilt = sorted(f for f in self.files if f.startswith(course_package.PREBUILT + "/"))
        backends = ["emulated"] + (["gpu"] if BACKEND == "gpu" else [])
        self.assertEqual(prebuilt, sorted(f"prebuilt/{lab['name']}_reference_solutions_{b}.o"
                                          for lab in labs() for b in backends))
        for f in prebuilt:
            self.assertEqual(stripped_problems(os.path.join(self.out, f)), [])

    @unittest.skipUnless(BACKEND == "emulated", "Classroom grades on CPU runners; release.emulated runs it")
    def test_classroom_workflow_grades(self):
        with open(os.path.join(self.out, workflow.RELEASE_PATH), encoding="utf-8") as f:
            text = f.read()
        with open(workflow.COMMITTED, encoding="utf-8") as f:
            self.assertEqual(text, f.read())
        steps = block_yaml.load(text)["jobs"][workflow.JOB]["steps"]
        # The runner's own steps, but the dependencies (this machine has them): configure
        # and build the grader, in the release's default build folder.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("COURSE_", "PYTHONPATH"))}
        for step in steps:
            if "run" in step and step["name"] != workflow.INSTALL_STEP:
                subprocess.run(["bash", "-ec", step["run"]], cwd=self.out, env=env, check=True, stdout=subprocess.DEVNULL)
        lab1 = next(s for s in steps if s.get("id") == "lab1")["with"]
        self.assertEqual(lab1["max-score"], 60)
        upload = next(s for s in steps if s.get("uses") == "actions/upload-artifact@v4")["with"]["path"]
        page = os.path.join(self.out, upload, "lab1.html")
        stub_path = os.path.join(self.out, "labs", "lab1_divergent", "kernels.cu")
        with open(stub_path) as f:
            stub = f.read()
        with open(os.path.join(ROOT, "solutions", "lab1_divergent", "kernels.cu")) as f:
            solution = f.read()
        try:
            for text, expected in ((stub, 0), (solution, 60)):
                with open(stub_path, "w") as f:
                    f.write(text)
                self.assertEqual(self.classroom_score(lab1), expected)
                with open(page, encoding="utf-8") as f:
                    self.assertIn('<section class="part" data-part="A">', f.read())
                os.unlink(page)
        finally:
            with open(stub_path, "w") as f:
                f.write(stub)

    def classroom_score(self, test):
        """What classroom-resources/autograding-command-grader@v1 awards: max-score when the
        command, run by a shell in the repository's root with only PATH and HOME of the
        runner's environment, exits 0 within the timeout (minutes); 0 otherwise."""
        env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root")}
        run = subprocess.run(["/bin/sh", "-c", test["command"]], cwd=self.out, env=env, timeout=test["timeout"] * 60,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return test["max-score"] if run.returncode == 0 else 0

    def test_it_builds_and_grades(self):
        # The release's default build folder, which the Classroom test builds too.
        build = os.path.join(self.out, "build")
        cmake = ["cmake", "-S", self.out, "-B", build, f"-DCOURSE_GPU={'ON' if BACKEND == 'gpu' else 'OFF'}"]
        subprocess.run(cmake, check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", build, "-j", str(os.cpu_count() or 2), "--target", "lab1"], check=True,
                       stdout=subprocess.DEVNULL)
        full = 100.0 if BACKEND == "gpu" else 60.0
        with open(os.path.join(ROOT, "solutions", "lab1_divergent", "kernels.cu")) as f:
            solution = f.read()
        for text, score in ((None, 0.0), (solution, full)):
            if text is not None:
                with open(os.path.join(self.out, "labs", "lab1_divergent", "kernels.cu"), "w") as f:
                    f.write(text)
            report = os.path.join(self.tmp, "report.json")
            env = dict(os.environ, COURSE_BUILD_DIR=build)
            grade = [os.path.join(self.out, "grade"), "lab1", "--json", report, "--quiet"]
            if BACKEND == "emulated":
                grade.append("--emulate")
            subprocess.run(grade, env=env, cwd=self.out, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(report) as f:
                self.assertEqual(json.load(f)["score"], score)


class GradescopePackageTest(unittest.TestCase):
    def test_no_answers_in_the_package(self):
        with tempfile.TemporaryDirectory() as tmp:
            zip_path = os.path.join(tmp, "lab3.zip")
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_gradescope.py"), "lab3", "--out",
                            zip_path], check=True, stdout=subprocess.DEVNULL)
            with zipfile.ZipFile(zip_path) as z:
                names = z.namelist()
                z.extractall(os.path.join(tmp, "pkg"))
            self.assertFalse([n for n in names if n.startswith(course_package.ANSWER_DIRS)])

            def read(f):
                with open(os.path.join(tmp, "pkg", f), errors="replace") as fh:
                    return fh.read()
            self.assertEqual(kernel_definitions(names, read), [])
            prebuilt = sorted(n for n in names if n.startswith("prebuilt/"))
            self.assertEqual(prebuilt, ["prebuilt/lab1_reference_solutions_emulated.o",
                                        "prebuilt/lab3_reference_solutions_emulated.o"])
            for n in prebuilt:
                self.assertEqual(stripped_problems(os.path.join(tmp, "pkg", n)), [])


def gpu_present():
    try:
        return b"GPU " in subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL).stdout
    except OSError:
        return False


if __name__ == "__main__":
    if BACKEND == "gpu" and not gpu_present():
        print("no GPU on this machine: skipped")
        sys.exit(77)
    unittest.main(argv=[sys.argv[0], "-v"])
