"""Batch grading on real GPUs through Slurm: a single-node cluster (slurm_cluster.py) whose
gres/gpu are this machine's GPUs (gres.conf naming /dev/nvidia0, ...) grades a lab 3 class
with --slurm --wait, each array task given its GPU by Slurm (--gres=gpu:1, which sets
CUDA_VISIBLE_DEVICES). Its gradebook must equal a local GPU batch's, row by row (status,
score, maximum), and each task must have graded on the GPU.

The class: 3 copies of the reference, the independently written solution
(grader/tests/submissions/alt/), the stub and a file that does not compile.

Run by ctest: python3 test_slurm_gpu.py BUILD_DIR. Exits 77 (skipped) with the reason
where there is no GPU or Slurm cannot run (slurm_local.py says how to run it from
unpacked packages).
"""
import json
import os
import shutil
import subprocess
import sys
import unittest

from grader.batch.tests import slurm_local
from grader.batch.tests.slurm_cluster import SKIP_EXIT_CODE, SlurmCluster, run_unittests, skip_reason
from grader.batch.tests.test_slurm import grade_both, rows

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
FOLDER = "lab3_unrolled"


def read(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return f.read()


def make_class(folder):
    """{submission: expected status}"""
    sources = {"ref_a": read("solutions", FOLDER, "kernels.cu"), "ref_b": read("solutions", FOLDER, "kernels.cu"),
               "ref_c": read("solutions", FOLDER, "kernels.cu"),
               "alt": read("grader", "tests", "submissions", "alt", FOLDER, "kernels.cu"),
               "stub": read("labs", FOLDER, "kernels.cu"),
               "broken": '#include "contracts/lab3.cuh"\nnamespace LAB_IMPL { this does not compile }\n'}
    for name, text in sources.items():
        os.makedirs(os.path.join(folder, name, FOLDER))
        with open(os.path.join(folder, name, FOLDER, "kernels.cu"), "w") as f:
            f.write(f"// {name}\n" + text)
    return {name: "compile_error" if name == "broken" else "graded" for name in sources}


def run_batch(subs, out, *extra):
    args = [sys.executable, os.path.join(ROOT, "grader", "batch", "grade_batch.py"), "lab3", subs, "--out", out,
            "--build-dir", BUILD, "--jobs", "4",
            "--policy", os.path.join(ROOT, "grader", "tests", "policies", "fast_timeout.jsonc"), *extra]
    # The cluster's commands are in this process's environment (run_unittests).
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


class SlurmOnGpus(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        grade_both(cls, make_class, run_batch, "--tasks", "2")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_both_runs_succeed(self):
        self.assertEqual(self.local_run.returncode, 0, self.local_run.stdout[-3000:])
        self.assertEqual(self.slurm_run.returncode, 0, self.slurm_run.stdout[-3000:])

    def test_gradebooks_are_identical(self):
        local, slurm = rows(self.local), rows(self.slurm)
        verdicts = {name: (r["status"], r["score"], r["max_score"]) for name, r in slurm.items()}
        self.assertEqual(verdicts, {name: (r["status"], r["score"], r["max_score"]) for name, r in local.items()})
        self.assertEqual({name: r["status"] for name, r in slurm.items()}, self.expected)
        for name in ("ref_a", "ref_b", "ref_c", "alt"):
            self.assertEqual(slurm[name]["score"], 100.0, slurm[name]["message"])
        self.assertEqual(slurm["stub"]["score"], 0.0)

    def test_tasks_graded_on_the_gpu(self):
        for name in ("ref_a", "alt", "stub"):
            with open(os.path.join(self.slurm, name, "report.json")) as f:
                report = json.load(f)
            self.assertEqual(report["backend"], "gpu", name)
            self.assertNotEqual(report["device"], "", name)
        with open(os.path.join(self.slurm, ".slurm", "run-1", "array.sh")) as f:
            self.assertIn("#SBATCH --gres=gpu:1", f.read())


def main():
    devices = slurm_local.gpu_devices()
    reason = "no NVIDIA GPU on this machine" if not devices else skip_reason()
    if reason:
        print(f"SKIPPED: {reason}")
        return SKIP_EXIT_CODE
    return run_unittests(SlurmCluster(gpus=devices[:1]), f"with {devices[0]} as gres/gpu")


if __name__ == "__main__":
    sys.exit(main())
