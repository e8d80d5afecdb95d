"""Tests of scripts/batch_throughput.py: the class it makes, the verdict comparison on
literal rows, and (given a course build: python3 test_batch_throughput.py BUILD_DIR, as
ctest's batch.throughput runs it) two emulated batches of a small lab 1 class end to end."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from scripts import batch_throughput as tp
from scripts import throughput_load
from grader.batch import roster
from grader.batch import intake

HERE = os.path.dirname(os.path.abspath(__file__))


ROOT = tp.ROOT
SCRIPT = os.path.join(ROOT, "scripts", "batch_throughput.py")
POLICY = os.path.join(ROOT, "grader", "tests", "policies", "fast_timeout.jsonc")
BUILD = None  # set from the command line; without it the end-to-end test is skipped


def row(name, status="graded", score=100.0, correctness="1/1 parts", speedup=3.9):
    return {"submission": name, "student_id": name, "status": status, "score": score, "max_score": 100.0,
            "correctness": correctness, "speedups": {"A": speedup}, "target": 3.5, "message": "took 1.2 s"}


def report(correctness="passed", verdict="meets_target", perf=40.0):
    return {"parts": [{"id": "A", "correctness": {"status": correctness}, "correctness_points": 60.0,
                       "timing": {"status": "measured", "verdict": verdict, "speedup": 3.9},
                       "performance_points": perf, "penalty": "none"}]}


class ClassTest(unittest.TestCase):
    def test_mix(self):
        kinds = tp.class_kinds(60)
        self.assertEqual([kinds.count(k) for k in ("solution", "alt", "stub")], [42, 12, 6])
        self.assertNotEqual(kinds[-6:], ["stub"] * 6)  # spread, not in a block
        self.assertEqual(sorted(set(tp.class_kinds(4))), ["alt", "solution", "stub"])
        self.assertEqual(tp.class_kinds(1), ["solution"])

    def test_every_file_distinct_and_where_intake_finds_it(self):
        tmp = tempfile.mkdtemp()
        try:
            made = tp.make_class(os.path.join(tmp, "subs"), "lab5", 12)  # lab 5 has no alt: the solution
            self.assertEqual(len(made), 12)
            texts = set()
            for name in made:
                with open(os.path.join(tmp, "subs", name, "lab5_padding", "kernels.cu")) as f:
                    first, rest = f.read().split("\n", 1)
                self.assertEqual(first, "// student " + name.split("_")[1])
                texts.add(first)
            self.assertEqual(len(texts), 12)
            # The batch's intake takes each file, and sees no duplicate (nothing short-circuited).
            subs = intake.discover(os.path.join(tmp, "subs"))
            self.assertEqual(sorted(s.name for s in subs), sorted(made))
            self.assertEqual([s.other_entries for s in roster.newest_per_student(subs)], [""] * 12)
            self.assertEqual(intake.student_file(subs[0], "lab5_padding")[0], "lab5_padding/kernels.cu")
        finally:
            shutil.rmtree(tmp)


def fake_batch_crashing(crashed):
    """A stand-in for run_batch whose gradebook has every submission graded, except those
    where crashed(args, K, name) holds."""
    def fake_batch(args, subs, results, k, log):
        os.makedirs(results)
        rows = [row(n, status="crashed" if crashed(args, k, n) else "graded") for n in sorted(os.listdir(subs))]
        with open(os.path.join(results, "gradebook.json"), "w") as f:
            json.dump(rows, f)
        open(log, "w").close()
        return {"submissions": 3, "elapsed_s": 6.0, "per_minute": 30.0, "per_minute_once_built": 45.0}, None
    return fake_batch


class CompareTest(unittest.TestCase):
    def test_same_verdicts_whatever_the_times(self):
        a = {"s1": tp.verdict(row("s1"), report()), "s2": tp.verdict(row("s2", score=0.0), None)}
        b = {"s1": tp.verdict(row("s1", speedup=4.4), report()), "s2": tp.verdict(dict(row("s2", score=0.0),
                                                                                    message="other"), None)}
        self.assertEqual(tp.differences(a, b), [])
        self.assertEqual(tp.equal_column([]), "yes")

    def test_a_different_status_is_reported(self):
        ref = {n: tp.verdict(row(n)) for n in ("s1", "s2", "s3")}
        other = dict(ref, s2=tp.verdict(row("s2", status="crashed")))
        diffs = tp.differences(ref, other)
        self.assertEqual([n for n, _ in diffs], ["s2"])
        self.assertIn("status 'graded' -> 'crashed'", diffs[0][1])
        self.assertEqual(tp.equal_column(diffs), "1 differ: s2")

    def test_a_part_verdict_and_a_missing_row_are_reported(self):
        ref = {"s1": tp.verdict(row("s1"), report()), "s2": tp.verdict(row("s2"), report())}
        other = {"s1": tp.verdict(row("s1"), report(verdict="inconclusive", perf=20.0))}
        diffs = dict(tp.differences(ref, other))
        self.assertIn("part A timing_verdict 'meets_target' -> 'inconclusive'", diffs["s1"])
        self.assertIn("part A performance_points 40.0 -> 20.0", diffs["s1"])
        self.assertEqual(diffs["s2"], "missing from this run")

    def test_a_failed_batch_fails_the_script(self):
        tmp = tempfile.mkdtemp()
        try:
            out = os.path.join(tmp, "tp.json")
            proc = subprocess.run([sys.executable, SCRIPT, "--emulate", "--lab", "lab1", "--count", "2",
                                   "--graders", "1,2", "--build-dir", os.path.join(tmp, "no_build"),
                                   "--work", os.path.join(tmp, "work"), "--out", out],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            self.assertEqual(proc.returncode, 1, proc.stdout.decode())
            self.assertIn("the batch exited with 2", proc.stdout.decode())
            with open(out) as f:
                result = json.load(f)
            self.assertFalse(result["ok"])
            self.assertEqual(len(result["runs"]), 1)  # no reference: nothing else is run
        finally:
            shutil.rmtree(tmp)

    def test_a_difference_fails_the_script(self):
        # Batches stood in for: the K=2 run crashes student_002, which must fail the run.
        tmp = tempfile.mkdtemp()
        real, tp.run_batch = tp.run_batch, fake_batch_crashing(lambda args, k, n: (k, n) == (2, "student_002"))
        try:
            out = os.path.join(tmp, "tp.json")
            self.assertEqual(tp.main(["--count", "3", "--graders", "1,2,1", "--work", os.path.join(tmp, "w"),
                                      "--out", out]), 1)
            with open(out) as f:
                runs = json.load(f)["runs"]
            self.assertEqual([r["verdicts_equal"] for r in runs], [True, False, True])
            self.assertEqual(runs[1]["verdicts_equal_text"], "1 differ: student_002")
            self.assertEqual([d["submission"] for d in runs[1]["differences"]], ["student_002"])
        finally:
            tp.run_batch = real
            shutil.rmtree(tmp)

    def test_a_reference_file_is_the_first_runs_reference(self):
        # Two invocations, as an A/B runs them: the second compares its runs with the first's
        # stored verdicts, so its first run can differ too.
        tmp = tempfile.mkdtemp()
        real, tp.run_batch = tp.run_batch, fake_batch_crashing(
            lambda args, k, n: args.policy is not None and (k, n) == (2, "student_003"))
        try:
            a, b = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
            self.assertEqual(tp.main(["--count", "3", "--graders", "2", "--any-reference", "--out", a]), 0)
            with open(a) as f:
                self.assertEqual(sorted(json.load(f)["runs"][0]["verdicts"]),
                                 ["student_001", "student_002", "student_003"])
            # The first K need not be 1: the file is the reference.
            self.assertEqual(tp.main(["--count", "3", "--graders", "2,1", "--policy", POLICY,
                                      "--reference", a, "--out", b]), 1)
            with open(b) as f:
                runs = json.load(f)["runs"]
            self.assertEqual([r["verdicts_equal"] for r in runs], [False, True])
            self.assertEqual(runs[0]["verdicts_equal_text"], "1 differ: student_003")
            self.assertEqual(runs[1]["verdicts_equal_text"], "yes")
            # Not the same class: refused before any batch.
            self.assertEqual(tp.main(["--count", "4", "--graders", "1", "--reference", a]), 2)
            self.assertEqual(tp.main(["--count", "3", "--graders", "1", "--reference", os.path.join(tmp, "none")]), 2)
            self.assertEqual(tp.main(["--count", "3", "--graders", "1", "--emulate", "--reference", a]), 2)
            with open(b, "w") as f:
                json.dump({"lab": "lab3", "count": 3, "emulate": False, "runs": [{"verdicts": ["student_001"]}]}, f)
            self.assertEqual(tp.main(["--count", "3", "--graders", "1", "--reference", b]), 2)
        finally:
            tp.run_batch = real
            shutil.rmtree(tmp)

    def test_bad_options(self):
        self.assertEqual(tp.main(["--graders", "2,1"]), 2)
        self.assertEqual(tp.main(["--lab", "lab9"]), 2)


class PhaseTest(unittest.TestCase):
    def test_medians_per_phase_from_the_reports(self):
        tmp = tempfile.mkdtemp()
        try:
            for name, seconds in (("a", {"correctness": 2.0, "timing": 1.0, "gpu_alone": 0.3, "total": 4.0}),
                                  ("b", {"correctness": 3.0, "timing": 1.5, "gpu_alone": 0.4, "total": 5.0}),
                                  ("c", {"correctness": 4.0, "total": 6.0})):
                os.makedirs(os.path.join(tmp, name))
                with open(os.path.join(tmp, name, "report.json"), "w") as f:
                    json.dump({"seconds": seconds}, f)
            os.makedirs(os.path.join(tmp, "never_graded"))
            medians = tp.phase_medians(tmp)
            self.assertEqual(medians, {"correctness": 3.0, "timing": 1.25, "gpu_alone": 0.35, "total": 5.0})
            text = tp.phase_table([{"graders_per_gpu": 1, "seconds": medians}, {"graders_per_gpu": 8, "seconds": {}}])
            self.assertIn("K | correctness | timing | gpu_alone | total", text)
            self.assertIn("1 | 3.00        | 1.25   | 0.35      | 5.00", text)
            self.assertIn("8 | -           | -      | -         | -", text)
        finally:
            shutil.rmtree(tmp)


class SpeedupTest(unittest.TestCase):
    def test_median_speedups_per_part(self):
        tmp = tempfile.mkdtemp()
        try:
            rows = [row("a", speedup=3.0), row("b", speedup=4.0), row("c", speedup=5.0),
                    dict(row("stub", status="wrong"), speedups={"A": None})]
            with open(os.path.join(tmp, "gradebook.json"), "w") as f:
                json.dump(rows, f)
            self.assertEqual(tp.median_speedups(tmp), {"A": 4.0})
        finally:
            shutil.rmtree(tmp)


class EndToEndTest(unittest.TestCase):
    def test_two_emulated_batches_agree(self):
        if BUILD is None:
            self.skipTest("no course build given (python3 test_batch_throughput.py BUILD_DIR)")
        tmp = tempfile.mkdtemp()
        try:
            out, work = os.path.join(tmp, "tp.json"), os.path.join(tmp, "work")
            proc = subprocess.run([sys.executable, SCRIPT, "--emulate", "--lab", "lab1", "--count", "4",
                                   "--graders", "1,2", "--policy", POLICY, "--jobs", "2", "--build-dir", BUILD,
                                   "--work", work, "--keep", "--out", out],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            text = proc.stdout.decode()
            print(text)
            self.assertEqual(proc.returncode, 0, text)
            self.assertIn("per minute once built", text)
            with open(out) as f:
                result = json.load(f)
            self.assertTrue(result["ok"])
            self.assertEqual((result["lab"], result["count"], result["jobs"]), ("lab1", 4, 2))
            self.assertEqual([r["graders_per_gpu"] for r in result["runs"]], [1, 2])
            for r in result["runs"]:
                self.assertTrue(r["verdicts_equal"])
                self.assertEqual(r["differences"], [])
                self.assertEqual([r["stats"][k] for k in ("submissions", "builds", "graded")], [4, 4, 4])
                self.assertGreater(r["stats"]["per_minute"], 0)
                self.assertEqual(r["stats"]["backend"], "emulated")
            self.assertEqual(result["runs"][1]["stats"]["graders_per_gpu"], 2)
            # Where the time went: emulated reports time correctness and checks, never timing.
            for r in result["runs"]:
                self.assertGreater(r["seconds"]["correctness"], 0)
                self.assertGreater(r["seconds"]["total"], r["seconds"]["correctness"])
                self.assertNotIn("timing", r["seconds"])
                # The correctness worker's start, to its ready event, is part of its phase.
                self.assertGreater(r["seconds"]["correctness_ready"], 0)
                self.assertLess(r["seconds"]["correctness_ready"], r["seconds"]["correctness"])
                for gpu_only in ("timing_ready", "racecheck_ready", "racecheck_shared"):
                    self.assertNotIn(gpu_only, r["seconds"])
            self.assertIn("median seconds of one grading, by phase", text)
            self.assertEqual([r["median_speedups"] for r in result["runs"]], [{}, {}])  # nothing timed
            # How busy the machine was, and which programs the batch's CPU went to.
            for r in result["runs"]:
                self.assertGreater(r["load"]["busy_cores"], 0)
                programs = {p["program"]: p for p in r["load"]["processes"]}
                self.assertIn("lab1_worker_emulated", programs)
                self.assertGreater(programs["lab1_worker_emulated"]["runs"], 0)
            self.assertIn("cores busy on average; child processes by CPU seconds", text)
            # The stub's verdict is not the solution's: the comparison has something to compare.
            verdicts = tp.read_verdicts(result["runs"][0]["results"])
            self.assertEqual(len({v["score"] for v in verdicts.values()}), 2)
        finally:
            shutil.rmtree(tmp)


class LoadTest(unittest.TestCase):
    def test_busy_cores_from_two_readings(self):
        with mock.patch("os.cpu_count", return_value=4):
            self.assertEqual(throughput_load.busy_cores((100, 1000), (150, 1100)), 2.0)
        self.assertIsNone(throughput_load.busy_cores(None, (150, 1100)))
        self.assertIsNone(throughput_load.busy_cores((100, 1000), (100, 1000)))

    def test_process_log_summed_by_program(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write('{"program": "nvcc", "args": [], "seconds": 2.0, "cpu_seconds": 1.5}\n')
            f.write('{"program": "lab3_worker_gpu", "args": ["--job"], "seconds": 3.0, "cpu_seconds": 2.5}\n')
            f.write('not json\n[1, 2]\n{"program": "x", "seconds": null}\n')
            f.write('{"program": "nvcc", "args": [], "seconds": 1.0, "cpu_seconds": 1.25}\n')
        self.addCleanup(os.remove, f.name)
        self.assertEqual(throughput_load.process_summary(f.name), [
            {"program": "nvcc", "runs": 2, "seconds": 3.0, "cpu_seconds": 2.8},
            {"program": "lab3_worker_gpu", "runs": 1, "seconds": 3.0, "cpu_seconds": 2.5}])
        self.assertEqual(throughput_load.process_summary(f.name + ".missing"), [])


if __name__ == "__main__":
    if len(sys.argv) > 1:
        BUILD = os.path.abspath(sys.argv.pop(1))
    unittest.main(argv=[sys.argv[0], "-v"])
