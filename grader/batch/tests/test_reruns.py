"""Reruns that never lie. A Ctrl-C in the middle of a batch: every grader stops, no
unfinished submission gets a row, the batch says how many are left, and the same command
again finishes the class with the gradebook an uninterrupted run gives. The same file
gets the same row in any batch and at any --jobs, a part that writes wild included.

Run by ctest with the build folder (the repository root on PYTHONPATH, as CMake's COURSE_PYTHON puts it): python3 test_reruns.py BUILD_DIR
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from grader.batch.tests.test_batch import BATCH, BUILD, SOLUTION, STUB, batch_env, gradebook, read, run_batch_args, write

# What the uninterrupted batch gives each of them on the emulator (test_batch.py's RegradeTest).
EXPECTED = {f"s{i}": ("graded", 60.0 if i % 2 == 0 else 0.0) for i in range(8)}
SUMMARY = re.compile(r"grade batch: interrupted: (\d+) graded, (\d+) left; run the same command again to finish")


def rows_done(out):
    return {s for s in EXPECTED if os.path.exists(os.path.join(out, s, "row.json"))}


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


class InterruptTest(unittest.TestCase):
    def interrupt_and_resume(self, to_group):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        subs, out = os.path.join(tmp, "submissions"), os.path.join(tmp, "results")
        for name, (_, score) in EXPECTED.items():
            write(os.path.join(subs, name, "kernels.cu"), SOLUTION if score else STUB)
        args = run_batch_args(subs, out)
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=batch_env(),
                                start_new_session=True)
        deadline = time.time() + 600
        while len(rows_done(out)) < 2 and proc.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        self.assertIsNone(proc.poll(), "the batch ended before it could be interrupted")
        if to_group:  # what the terminal does: the batch and everything it started
            os.killpg(proc.pid, signal.SIGINT)
        else:  # the batch's pid alone: it must stop its graders itself
            os.kill(proc.pid, signal.SIGINT)
        text = proc.communicate(timeout=60)[0].decode()
        self.assertEqual(proc.returncode, 130, text)
        self.assertNotIn("Traceback", text)
        self.assertIn("grade batch: SIGINT: stopping ", text)
        m = SUMMARY.search(text)
        self.assertIsNotNone(m, text)
        finished = rows_done(out)
        self.assertEqual((int(m.group(1)), int(m.group(2))), (len(finished), len(EXPECTED) - len(finished)))
        self.assertLess(len(finished), len(EXPECTED), text)
        for _ in range(100):  # no grader, worker or compiler outlives the batch
            if not group_alive(proc.pid):
                break
            time.sleep(0.1)
        self.assertFalse(group_alive(proc.pid), "a process the batch started is still running")
        # What finished is final and right; what did not has no row at all.
        for s in finished:
            with open(os.path.join(out, s, "row.json")) as f:
                row = json.load(f)
            self.assertEqual((row["status"], float(row["score"])), EXPECTED[s], s)

        again = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=batch_env())
        text = again.stdout.decode()
        self.assertEqual(again.returncode, 0, text)
        self.assertIn(f"grade batch: {len(finished)} submission(s) already graded and unchanged", text)
        self.assertEqual({r["submission"]: (r["status"], float(r["score"])) for r in gradebook(out)}, EXPECTED)

    def test_ctrl_c_at_the_terminal(self):
        self.interrupt_and_resume(to_group=True)

    def test_sigint_to_the_batch_alone(self):
        self.interrupt_and_resume(to_group=False)


LAB3 = read("solutions", "lab3_unrolled", "kernels.cu")
# Part B writes far past its output (past the guard words); parts A and C are the reference's.
WILD = LAB3.replace("    if (tid == 0) out[blockIdx.x] = v;\n}\n\n// Part C",
                    "    if (tid == 0) { out[blockIdx.x] = v; out[gridDim.x * 4 + 1000000] = 7.0f; }\n}\n\n// Part C", 1)


class DeterminismTest(unittest.TestCase):
    def test_same_file_same_row_at_any_jobs(self):
        self.assertNotEqual(WILD, LAB3)
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        subs = os.path.join(tmp, "submissions")
        for name, text in (("twin1", WILD), ("twin2", WILD), ("ref", LAB3), ("ref_copy", LAB3)):
            write(os.path.join(subs, name, "kernels.cu"), text)
        runs = []
        for jobs in ("1", "2"):
            out = os.path.join(tmp, f"results-{jobs}")
            run = subprocess.run([sys.executable, BATCH, "lab3", subs, "--out", out, "--build-dir", BUILD, "--emulate",
                                  "--jobs", jobs, "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            self.assertEqual(run.returncode, 0, run.stdout.decode())
            runs.append({r["submission"]: (r["status"], float(r["score"]), r["reason"]) for r in gradebook(out)})
        self.assertEqual(runs[0], runs[1])
        self.assertEqual(runs[0], {"twin1": ("crashed", 40.0, "B: out-of-bounds write"),
                                   "twin2": ("crashed", 40.0, "B: out-of-bounds write"),
                                   "ref": ("graded", 60.0, ""), "ref_copy": ("graded", 60.0, "")})


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
