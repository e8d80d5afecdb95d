"""A Ctrl-C in the middle of a batch: every grader stops, no unfinished submission gets a
row, the batch says how many are left, and the same command again finishes the class
with the gradebook an uninterrupted run gives.

Run by ctest with the build folder: python3 test_interrupt.py BUILD_DIR
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

from test_batch import SOLUTION, STUB, batch_env, gradebook, run_batch_args, write

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


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
