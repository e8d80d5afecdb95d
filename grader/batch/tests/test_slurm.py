"""Batch grading through a real Slurm cluster (single node, started here from Debian's
slurm-wlm and munge; slurm_cluster.py) on the CPU emulator:

- a generated class of 34 lab 1 submissions, 6 of them broken (a compile error, a hang,
  a fault, a corrupt archive, a kernel that would forge events, one that stores outside
  every buffer), graded locally and through a job array with --wait: the
  two gradebooks agree row by row (status, score, maximum), --graders-per-gpu 2 changing
  nothing on the emulator;
- an array task cancelled while it grades costs only its unfinished submissions, which
  get Slurm's status in the gradebook and no result; the same command run again grades
  only those (and merges in the dependent merge job).

Run by ctest with the build folder (the repository root on PYTHONPATH, as CMake's COURSE_PYTHON puts it): python3 test_slurm.py BUILD_DIR
Exits 77 (ctest: skipped) with the reason on stdout where Slurm cannot run.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
import zipfile

from grader.batch import grade_one
from grader.batch.tests import test_batch as tb  # (the class's submissions, and how the batch is run)
from grader.batch.tests.slurm_cluster import SKIP_EXIT_CODE, SlurmCluster, run_unittests, skip_reason

HERE = os.path.dirname(os.path.abspath(__file__))


CLUSTER = None


def make_class(folder):
    """34 submissions; the last 6 broken, one of each kind, two of them attacks. {name: expected status}."""
    expected = {}
    for i in range(28):
        name = f"s{i:02d}"
        if i % 7 == 3:  # the stub: builds, graded 0
            tb.write(os.path.join(folder, name, "kernels.cu"), tb.STUB)
        elif i % 7 == 5:  # a zip with the lab's folder inside
            with zipfile.ZipFile(os.path.join(folder, name + ".zip"), "w") as z:
                z.writestr(f"{name}/{tb.LAB}/kernels.cu", tb.SOLUTION)
            name += ".zip"
        else:
            tb.write(os.path.join(folder, name, tb.LAB, "kernels.cu"), tb.OVERRUN if i % 7 == 6 else tb.SOLUTION)
        expected[name] = "graded"
    tb.write(os.path.join(folder, "x_compile_error", "kernels.cu"), tb.BROKEN)
    with tarfile.open(os.path.join(folder, "x_hang.tar.gz"), "w:gz") as t:
        data = tb.HANG.encode()
        info = tarfile.TarInfo(f"{tb.LAB}/kernels.cu")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    tb.write(os.path.join(folder, "x_fault", "kernels.cu"), tb.FAULT)
    with open(os.path.join(folder, "x_corrupt.zip"), "wb") as f:
        f.write(b"PK\x03\x04 not a zip at all")
    expected.update({"x_compile_error": "compile_error", "x_hang.tar.gz": "timeout", "x_fault": "crashed",
                     "x_corrupt.zip": "invalid_submission"})
    # Two of the adversarial suite's kernels (grader/tests/attacks/): one that would reach
    # the host from inside a kernel (refused by the guard), one that stores outside every
    # buffer (stopped by the emulator's memory check).
    attacks = os.path.join(tb.ROOT, "grader", "tests", "attacks")
    for attack, status in (("forge_from_kernel", "rejected"), ("wild_store", "crashed")):
        with open(os.path.join(attacks, attack, tb.LAB, "kernels.cu")) as f:
            tb.write(os.path.join(folder, "y_" + attack, "kernels.cu"), f.read())
        expected["y_" + attack] = status
    return expected


def rows(out):
    with open(os.path.join(out, "gradebook.json")) as f:
        return {r["submission"]: r for r in json.load(f)}


def verdicts(out):
    """What must not depend on where a submission was graded (times and logs may)."""
    return {name: (r["status"], r["score"], r["max_score"]) for name, r in rows(out).items()}


def run_dir(out, n):
    return os.path.join(out, ".slurm", f"run-{n}")


def read_json(path):
    with open(path) as f:
        return json.load(f)


def grade_both(cls, make, run, *slurm_args):
    """Makes a class with make(folder) into a fresh cls.tmp and grades it with
    run(subs, out, *args) locally (cls.local, cls.local_run) and through Slurm with
    --slurm --wait and slurm_args (cls.slurm, cls.slurm_run); prints how long each took."""
    cls.tmp = tempfile.mkdtemp(prefix="batch-slurm-")
    cls.subs = os.path.join(cls.tmp, "submissions")
    cls.expected = make(cls.subs)
    cls.local, cls.slurm = os.path.join(cls.tmp, "local"), os.path.join(cls.tmp, "slurm")
    t = time.time()
    cls.local_run = run(cls.subs, cls.local)
    local_s, t = time.time() - t, time.time()
    cls.slurm_run = run(cls.subs, cls.slurm, "--slurm", "--wait", *slurm_args)
    print(f"local batch {local_s:.1f} s, through Slurm {time.time() - t:.1f} s")
    out = cls.slurm_run.stdout
    print((out.decode() if isinstance(out, bytes) else out)[-3000:])


class SlurmMatchesLocal(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # --graders-per-gpu is accepted and changes nothing on the emulator (no GPU lock).
        grade_both(cls, make_class, tb.run_batch, "--graders-per-gpu", "2")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_both_runs_succeed(self):
        self.assertEqual(self.local_run.returncode, 0, self.local_run.stdout.decode()[-3000:])
        self.assertEqual(self.slurm_run.returncode, 0, self.slurm_run.stdout.decode()[-3000:])

    def test_gradebooks_are_identical(self):
        local, slurm = verdicts(self.local), verdicts(self.slurm)
        self.assertEqual(sorted(local), sorted(self.expected))
        self.assertEqual(slurm, local)
        for name, status in self.expected.items():
            self.assertEqual(slurm[name][0], status, f"{name}: {rows(self.slurm)[name]['message']}")
        with open(os.path.join(self.slurm, "gradebook.csv")) as f:
            self.assertEqual(len(list(csv.DictReader(f))), len(self.expected))

    def test_graded_by_the_array(self):
        # 31 built (the compile error, the corrupt archive and the refused attack never reach
        # it): 4 tasks of ~8.
        run = run_dir(self.slurm, 1)
        manifest = read_json(os.path.join(run, "manifest.json"))
        self.assertEqual([len(s) for s in manifest["shards"]], [8, 8, 8, 7])
        array = read_json(os.path.join(run, "jobs.json"))["array"]
        for i in range(4):
            with open(os.path.join(run, f"task-{i}.out")) as f:
                self.assertIn(f"slurm_task {array}_{i}", f.read())
        self.assertIn(f"submitted array job {array}", self.slurm_run.stdout.decode())
        self.assertTrue(os.path.getsize(os.path.join(self.slurm, "class_scores.png")) > 0)
        self.assertFalse(os.path.exists(os.path.join(run, "scratch")))  # the merge removed its own run's builds
        # The array's grades read the class's reference counters, named by an absolute path
        # in the manifest: the tasks run in folders of their own.
        path, sha256 = manifest["reference_counters"]  # and the bytes each grade checks it still holds
        self.assertTrue(os.path.isabs(path))
        self.assertEqual(grade_one.file_sha256(path), sha256)
        graded = [read_json(os.path.join(self.slurm, name, "report.json")) for name in sorted(os.listdir(self.slurm))
                  if os.path.exists(os.path.join(self.slurm, name, "report.json"))]
        graded = [r for r in graded if r["parts"]]
        self.assertGreater(len(graded), 20)
        self.assertEqual({r["reference_counters"] for r in graded}, {"class"})
        # Each task described the lab once, on its node, with the template worker the
        # manifest names, and its grades read that.
        self.assertTrue(manifest["template_worker"].endswith("lab1_worker_emulated"))
        self.assertEqual({r["described"] for r in graded}, {"class"})


class CancelledTask(unittest.TestCase):
    """Task 0 grades a_correct, then b_hang (a hang: seconds, until the case time limit),
    then c_correct; it is cancelled while it grades b_hang."""

    def test_cancelled_task_costs_only_its_unfinished_submissions(self):
        tmp = tempfile.mkdtemp(prefix="batch-slurm-cancel-")
        self.addCleanup(shutil.rmtree, tmp, True)
        subs, out = os.path.join(tmp, "submissions"), os.path.join(tmp, "results")
        for name in ("a_correct", "c_correct", "d_correct", "e_correct", "f_correct"):
            tb.write(os.path.join(subs, name, "kernels.cu"), tb.SOLUTION)
        tb.write(os.path.join(subs, "b_hang", "kernels.cu"), tb.HANG)
        command = ("--slurm", "--tasks", "2")
        batch = subprocess.Popen(tb.run_batch_args(subs, out, *command, "--wait"), env=tb.batch_env(),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        jobs = os.path.join(run_dir(out, 1), "jobs.json")
        deadline = time.time() + 240
        while time.time() < deadline and not os.path.exists(os.path.join(out, "a_correct", "row.json")):
            time.sleep(0.05)
        array = read_json(jobs)["array"]
        CLUSTER.run("scancel", f"{array}_0")
        log = batch.communicate(timeout=300)[0].decode()
        self.assertEqual(batch.returncode, 0, log)
        book = rows(out)
        self.assertEqual(book["a_correct"]["status"], "graded", log)
        for name in ("b_hang", "c_correct"):
            self.assertEqual(book[name]["status"], "slurm_cancelled", log)
            self.assertIn(f"array task {array}_0 ended CANCELLED", book[name]["message"])
            self.assertFalse(os.path.exists(os.path.join(out, name, "row.json")))
        for name in ("d_correct", "e_correct", "f_correct"):
            self.assertEqual(book[name]["status"], "graded", log)
        self.assertIn("2 submission(s) without a result", log)

        # The same command again (merged by the dependent job this time): only the two.
        again = tb.run_batch(subs, out, *command)
        text = again.stdout.decode()
        self.assertEqual(again.returncode, 0, text)
        self.assertIn("4 submission(s) already graded", text)
        run2 = run_dir(out, 2)
        self.assertEqual(read_json(os.path.join(run2, "manifest.json"))["shards"], [["b_hang"], ["c_correct"]])
        ids = read_json(os.path.join(run2, "jobs.json"))
        self.assertIsNotNone(ids["merge"])
        CLUSTER.wait_final([ids["array"], ids["merge"]], timeout=300)
        book = rows(out)
        self.assertEqual(book["b_hang"]["status"], "timeout", book["b_hang"]["message"])
        self.assertEqual({n: r["status"] for n, r in book.items() if n != "b_hang"},
                         {n: "graded" for n in ("a_correct", "c_correct", "d_correct", "e_correct", "f_correct")})
        with open(os.path.join(run2, "merge.out")) as f:
            self.assertIn("gradebook:", f.read())


def main():
    global CLUSTER
    reason = skip_reason()
    if reason:
        print(f"SKIPPED: {reason}")
        return SKIP_EXIT_CODE
    CLUSTER = SlurmCluster()
    return run_unittests(CLUSTER, f"({CLUSTER.cpus} CPUs)")


if __name__ == "__main__":
    sys.exit(main())
