"""The student's loop end to end, in a copy of the course with its own small build (CPU
emulator only, no tests), so the build the other tests use is never touched:

- `./grade lab1 --emulate` with no `make` builds and grades the stub (fails); after the
  file is edited to the solution, without `make`, the new code is graded (passes), and
  the report names the file and its SHA-256;
- a mistyped option and a deleted lab file: exit 2 and the reason, before any rebuild;
- a compile error: exit 1, the compiler's message, never "rebuilt", every report file
  written, no grade of the old build; `--no-build` grades the old build and says the file is newer;
- a file the guard refuses: exit 1 and the guard's message;
- `./grade progress` shows lab1's last result and the labs never graded;
- `./grade watch lab1` regrades on a save and leaves with exit 0 on Ctrl-C;
- a build made with LAB_SOURCE=solutions: the report says the reference was graded, and
  the student's progress is left alone.

Run by ctest (the repository root on PYTHONPATH, as CMake's COURSE_PYTHON puts it): python3 test_student_loop.py (COURSE_KEEP_TMP=1 keeps the copy).
"""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path

from grader.tests.course_copy import copy_course

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FOLDER = "lab1_divergent"

COMPILE_ERROR = b"""#include "contracts/lab1.cuh"
namespace LAB_IMPL {
__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = sdata_missing[0];
}
}  // namespace LAB_IMPL
"""
REFUSED = b"""#include "contracts/lab1.cuh"
#include "../../grader/core/report.hpp"
namespace LAB_IMPL {
__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}
}  // namespace LAB_IMPL
"""


def sha256(data):
    return hashlib.sha256(data).hexdigest()


class Lines:
    """A child's stdout, read by a thread, so the test can wait for a line with a deadline."""

    def __init__(self, proc):
        self.lines, self.proc = [], proc
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.append(raw.decode("utf-8", "replace"))

    def wait_for(self, pattern, count, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if sum(1 for line in self.lines if re.search(pattern, line)) >= count:
                return "".join(self.lines)
            time.sleep(0.2)
        raise AssertionError(f"no {count}th line matching {pattern!r} in {timeout} s:\n" + "".join(self.lines))


class StudentLoop(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="course_student_loop_"))
        cls.course = cls.tmp / "course"
        copy_course(cls.course)
        cls.build = cls.course / "build"
        cls.lab_file = cls.course / "labs" / FOLDER / "kernels.cu"
        cls.stub = cls.lab_file.read_bytes()
        cls.solution = (ROOT / "solutions" / FOLDER / "kernels.cu").read_bytes()
        cls.env = {k: v for k, v in os.environ.items() if k != "COURSE_BUILD_DIR"}
        cls.env["NO_COLOR"] = "1"
        cls.configure("labs")

    @classmethod
    def tearDownClass(cls):
        if not os.environ.get("COURSE_KEEP_TMP"):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def configure(cls, lab_source):
        t = time.time()
        p = subprocess.run(["cmake", "-S", str(cls.course), "-B", str(cls.build), "-DCOURSE_GPU=OFF",
                            "-DBUILD_TESTING=OFF", f"-DLAB_SOURCE={lab_source}"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=cls.env)
        assert p.returncode == 0, p.stdout.decode()[-3000:]
        print(f"configure (LAB_SOURCE={lab_source}): {time.time() - t:.1f} s", file=sys.stderr)

    def grade(self, *args):
        t = time.time()
        p = subprocess.run([str(self.course / "grade"), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           env=self.env, cwd=self.tmp)
        print(f"./grade {' '.join(args)}: {time.time() - t:.1f} s", file=sys.stderr)
        return p.returncode, p.stdout.decode("utf-8", "replace")

    def edit(self, data):
        self.lab_file.write_bytes(data)

    def report(self, name):
        return json.loads((self.tmp / name).read_text())

    def test_the_loop(self):
        # Steps share one build, in order: each depends on what the one before left.
        self.grades_what_is_there_now()
        self.a_bad_policy_is_refused_before_the_build()
        self.a_bad_option_is_refused_before_the_build()
        self.a_deleted_file_is_missing_not_a_compile_error()
        self.compile_error_is_the_students_failure()
        self.guard_refusal_is_the_students_failure()
        self.progress_shows_the_last_results()
        self.watch_regrades_on_save()
        self.another_source_is_named_and_not_progress()

    def a_bad_policy_is_refused_before_the_build(self):
        policy = self.tmp / "typo.jsonc"
        policy.write_text('{"correctness": {"tolerance": 2.0}}')
        self.edit(self.lab_file.read_bytes() + b"\n// edited: a rebuild would show\n")
        code, out = self.grade("lab1", "--emulate", "--policy", str(policy))
        self.assertEqual(code, 2, out[-3000:])
        self.assertIn(f"grade: {policy}: unknown key correctness.tolerance (the keys of correctness are ", out)
        self.assertNotIn("rebuilt lab1", out)

    def a_bad_option_is_refused_before_the_build(self):
        self.edit(self.lab_file.read_bytes() + b"\n// edited again: a rebuild would show\n")
        code, out = self.grade("lab1", "--emulate", "--bogus")
        self.assertEqual(code, 2, out[-3000:])
        self.assertIn("The following argument was not expected: --bogus", out)
        self.assertNotIn("rebuil", out)

    def a_deleted_file_is_missing_not_a_compile_error(self):
        kept = self.lab_file.read_bytes()
        self.lab_file.unlink()
        try:
            code, out = self.grade("lab1", "--emulate")
        finally:
            self.edit(kept)
        self.assertEqual(code, 2, out[-3000:])
        self.assertIn(f"grade: labs/{FOLDER}/kernels.cu is missing, so there is nothing to grade; 'git checkout "
                      f"labs/{FOLDER}/kernels.cu' brings back the stub (or copy your file there)", out)
        self.assertNotIn("does not compile", out)

    def grades_what_is_there_now(self):
        code, out = self.grade("lab1", "--emulate", "--json", "stub.json")
        self.assertEqual(code, 1, out[-3000:])
        r = self.report("stub.json")
        self.assertEqual(r["source"], {"path": f"labs/{FOLDER}/kernels.cu", "sha256": sha256(self.stub)})
        self.assertEqual(r["parts"][0]["correctness"]["status"], "failed")

        self.edit(self.solution)  # no make
        code, out = self.grade("lab1", "--emulate", "--json", "solution.json")
        self.assertEqual(code, 0, out[-3000:])
        self.assertIn(f"graded: labs/{FOLDER}/kernels.cu, sha256 {sha256(self.solution)[:12]}", out)
        self.assertEqual(self.report("solution.json")["source"]["sha256"], sha256(self.solution))
        saved = json.loads((self.build / "progress" / "lab1.json").read_text())
        self.assertTrue(saved["passed"])
        self.assertEqual(saved["backend"], "emulated")

    def compile_error_is_the_students_failure(self):
        self.edit(COMPILE_ERROR)
        code, out = self.grade("lab1", "--emulate", "--json", "ce.json", "--junit", "ce.xml", "--gradescope",
                               "ce_gs.json", "--text", "ce.txt")
        self.assertEqual(code, 1, out[-3000:])
        self.assertIn("error: 'sdata_missing' was not declared", out)
        self.assertIn(f"lab1: 0/60 (labs/{FOLDER}/kernels.cu does not compile; nothing was graded)", out)
        self.assertNotIn("Correctness", out)  # the old build was not graded
        self.assertNotIn("rebuilt lab1", out)  # a build that failed is not announced as done
        r = self.report("ce.json")
        self.assertEqual(r["build"]["kind"], "compile_error")
        self.assertEqual(r["source"]["sha256"], sha256(COMPILE_ERROR))
        self.assertEqual((r["exit_code"], r["score"], r["parts"]), (1, 0, []))
        self.assertIn("sdata_missing", (self.tmp / "ce.txt").read_text())
        self.assertIn("<failure message=\"labs/lab1_divergent/kernels.cu does not compile",
                      (self.tmp / "ce.xml").read_text())
        self.assertEqual(self.report("ce_gs.json")["score"], 0)

        # --no-build grades the last build that worked (the solution), and says the file is newer.
        code, out = self.grade("lab1", "--emulate", "--no-build")
        self.assertEqual(code, 0, out[-3000:])
        self.assertIn("changed after this grader was built", out)

    def guard_refusal_is_the_students_failure(self):
        self.edit(REFUSED)
        code, out = self.grade("lab1", "--emulate")
        self.assertEqual(code, 1, out[-3000:])
        self.assertIn("course_cc_guard: labs/lab1_divergent/kernels.cu was not compiled", out)
        self.assertIn("was refused by the course's guard; nothing was graded", out)

    def progress_shows_the_last_results(self):
        code, out = self.grade("progress")
        self.assertEqual(code, 0, out)
        rows = {line.split()[0]: line for line in out.splitlines()[1:] if line.strip() and line.startswith("lab")}
        self.assertRegex(rows["lab1"], r"^lab1\s+-\s+refused by the guard\s+-\s+0/60\s+\d{4}-\d\d-\d\d \d\d:\d\d")
        self.assertRegex(rows["lab2"], r"^lab2\s+-\s+not graded yet")
        code, _ = self.grade("progress", "lab1")
        self.assertEqual(code, 2)

    def watch_regrades_on_save(self):
        self.edit(self.stub)
        proc = subprocess.Popen([str(self.course / "grade"), "watch", "lab1", "--emulate"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=self.env)
        try:
            lines = Lines(proc)
            lines.wait_for(r"^watching labs/lab1_divergent/kernels.cu", 1, 120)
            self.assertIn("lab1: 0/60 (not correct: part A)", "".join(lines.lines))
            time.sleep(1.1)  # a new modification time even on a file system that keeps seconds
            self.edit(self.solution)
            out = lines.wait_for(r"^watching labs/lab1_divergent/kernels.cu", 2, 120)
            self.assertIn("lab1: 60/60 (correct; on the CPU emulator: timing needs a GPU)", out)
            proc.send_signal(signal.SIGINT)
            self.assertEqual(proc.wait(timeout=30), 0)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            lines.reader.join(timeout=10)
            proc.stdout.close()
        self.assertIn("stopped watching", "".join(lines.lines))

    def another_source_is_named_and_not_progress(self):
        before = (self.build / "progress" / "lab1.json").read_bytes()
        self.configure("solutions")
        code, out = self.grade("lab1", "--emulate")
        self.assertEqual(code, 0, out[-3000:])
        self.assertIn(f"note: graded solutions/{FOLDER}/kernels.cu, the reference answer, not "
                      f"labs/{FOLDER}/kernels.cu", out)
        self.assertEqual((self.build / "progress" / "lab1.json").read_bytes(), before)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
