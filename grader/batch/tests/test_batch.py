"""Batch grading of a generated class: every kind of broken submission gets its row.

Run by ctest with the build folder (the repository root on PYTHONPATH, as CMake's COURSE_PYTHON puts it): python3 test_batch.py BUILD_DIR [gpu|emulated]
"""
import csv
import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
BATCH = os.path.join(ROOT, "grader", "batch", "grade_batch.py")
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
BACKEND = sys.argv[2] if len(sys.argv) > 2 else "emulated"
LAB = "lab1_divergent"


def read(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return f.read()


SOLUTION = read("solutions", LAB, "kernels.cu")
STUB = read("labs", LAB, "kernels.cu")
HANG = read("grader", "tests", "submissions", "hang", LAB, "kernels.cu")
FAULT = read("grader", "tests", "submissions", "fault", LAB, "kernels.cu")
OVERRUN = SOLUTION.replace("if (tid == 0) out[blockIdx.x] = partial[0];",
                           "if (tid == 0) { out[blockIdx.x] = partial[0]; out[gridDim.x + 3] = 1.0f; }")
BROKEN = '#include "contracts/lab1.cuh"\nnamespace LAB_IMPL {\n__global__ void reduce_divergent(' \
         'const float* in, float* out, unsigned n) { return undefined_name; }\n}\n'

# submission name -> expected status
EXPECTED = {
    "correct": "graded",                   # and an older correct.zip: one row, the newer graded
    "nested.zip": "graded",
    "deep.zip": "graded",                  # three folders down, beside a report
    "latin1": "graded",                    # a Windows-1252 comment
    "smithjane_LATE_12345_67999_kernels-1.cu": "graded",  # Canvas: the later of two uploads
    "wrong": "graded",
    "compile_error": "compile_error",
    "hang.tar.gz": "timeout",
    "illegal_address": "crashed",
    "out_of_bounds": "graded",
    "corrupt.zip": "invalid_submission",
    "empty": "invalid_submission",
    "traversal.zip": "invalid_submission",
    "symlink": "invalid_submission",
    "wrong_name": "invalid_submission",
}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_class(folder):
    write(os.path.join(folder, "correct", LAB, "kernels.cu"), SOLUTION)
    with zipfile.ZipFile(os.path.join(folder, "correct.zip"), "w") as z:
        z.writestr("kernels.cu", STUB)
    hour_ago = time.time() - 3600
    os.utime(os.path.join(folder, "correct.zip"), (hour_ago, hour_ago))
    with zipfile.ZipFile(os.path.join(folder, "deep.zip"), "w") as z:
        z.writestr("report.pdf", "%PDF-1.4")
        z.writestr("home/dee/cuda/kernels.cu", SOLUTION + "// done\n")
    os.makedirs(os.path.join(folder, "latin1"))
    with open(os.path.join(folder, "latin1", "kernels.cu"), "wb") as f:
        f.write(("// R\u00e9duction na\u00efve, \u00a9 Ren\u00e9e\n" + SOLUTION).encode("cp1252"))
    write(os.path.join(folder, "smithjane_12345_67890_kernels.cu"), SOLUTION)
    write(os.path.join(folder, "smithjane_LATE_12345_67999_kernels-1.cu"), STUB)
    with zipfile.ZipFile(os.path.join(folder, "nested.zip"), "w") as z:
        z.writestr(f"alice/{LAB}/kernels.cu", SOLUTION)
        z.writestr("__MACOSX/alice/._kernels.cu", "junk")
    write(os.path.join(folder, "wrong", "kernels.cu"), STUB)
    write(os.path.join(folder, "compile_error", "kernels.cu"), BROKEN)
    with tarfile.open(os.path.join(folder, "hang.tar.gz"), "w:gz") as t:
        data = HANG.encode()
        info = tarfile.TarInfo(f"{LAB}/kernels.cu")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    write(os.path.join(folder, "illegal_address", "kernels.cu"), FAULT)
    write(os.path.join(folder, "out_of_bounds", "kernels.cu"), OVERRUN)
    with open(os.path.join(folder, "corrupt.zip"), "wb") as f:
        f.write(b"PK\x03\x04 this is not really a zip archive")
    os.makedirs(os.path.join(folder, "empty"))
    with zipfile.ZipFile(os.path.join(folder, "traversal.zip"), "w") as z:
        z.writestr("kernels.cu", SOLUTION)
        z.writestr("../../outside.txt", "escape")
    os.makedirs(os.path.join(folder, "symlink"))
    os.symlink("/etc/hostname", os.path.join(folder, "symlink", "kernels.cu"))
    write(os.path.join(folder, "wrong_name", "kernel.cu"), SOLUTION)


def run_batch_args(subs, out, *extra):
    args = [sys.executable, BATCH, "lab1", subs, "--out", out, "--build-dir", BUILD, "--jobs", "2",
            "--policy", os.path.join(ROOT, "grader", "tests", "policies", "fast_timeout.jsonc")]
    if BACKEND == "emulated":
        args.append("--emulate")
    return args + list(extra)


def batch_env():
    return dict(os.environ, COURSE_EMU_WATCHDOG_SECONDS="2")


def run_batch(subs, out, *extra):
    return subprocess.run(run_batch_args(subs, out, *extra), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env=batch_env())


def gradebook(out):
    with open(os.path.join(out, "gradebook.csv")) as f:
        return list(csv.DictReader(f))


class BatchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.subs = os.path.join(cls.tmp, "submissions")
        make_class(cls.subs)
        cls.out = os.path.join(cls.tmp, "results")
        cls.batch = run_batch(cls.subs, cls.out)
        print(cls.batch.stdout.decode())

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_every_submission_has_its_status(self):
        self.assertEqual(self.batch.returncode, 0)
        rows = {r["submission"]: r for r in gradebook(self.out)}
        self.assertEqual(sorted(rows), sorted(EXPECTED))
        for name, status in EXPECTED.items():
            self.assertEqual(rows[name]["status"], status, f"{name}: {rows[name]['message']}")

    def test_scores_and_messages(self):
        rows = {r["submission"]: r for r in gradebook(self.out)}
        full = 100.0 if BACKEND == "gpu" else 60.0
        self.assertEqual(float(rows["correct"]["score"]), full)
        self.assertEqual(float(rows["correct"]["max_score"]), full)
        self.assertEqual(float(rows["wrong"]["score"]), 0.0)
        self.assertEqual(float(rows["compile_error"]["max_score"]), full)
        self.assertIn("undefined_name", rows["compile_error"]["message"])
        self.assertEqual(rows["correct"]["other_entries"], "correct.zip")
        self.assertEqual(float(rows["latin1"]["score"]), full)
        self.assertEqual(float(rows["deep.zip"]["score"]), full)
        jane = rows["smithjane_LATE_12345_67999_kernels-1.cu"]
        self.assertEqual((jane["student_id"], jane["lms_id"], jane["other_entries"], float(jane["score"])),
                         ("smithjane", "12345", "smithjane_12345_67890_kernels.cu", 0.0))
        self.assertIn("climbs out of the submission", rows["traversal.zip"]["message"])
        self.assertIn("symbolic link", rows["symlink"]["message"])
        self.assertIn("corrupt zip", rows["corrupt.zip"]["message"])
        self.assertIn("found: kernel.cu", rows["wrong_name"]["message"])

    def test_reports_for_every_submission(self):
        for name in EXPECTED:
            d = os.path.join(self.out, name)
            with open(os.path.join(d, "results.json")) as f:
                results = json.load(f)
            self.assertIn("score", results)
            self.assertTrue(os.path.getsize(os.path.join(d, "report.txt")) > 0)
        with open(os.path.join(self.out, "gradebook.json")) as f:
            self.assertEqual(len(json.load(f)), len(EXPECTED))
        self.assertTrue(os.path.getsize(os.path.join(self.out, "class_scores.png")) > 0)
        # The HTML page of each graded submission, with its own source and its verdicts.
        for name in ("correct", "wrong"):
            with open(os.path.join(self.out, name, "report.html"), encoding="utf-8") as f:
                page = f.read()
            self.assertIn('data-part="A"', page)
            self.assertIn('data-check="correctness">' + ("passed" if name == "correct" else "failed"), page)
            self.assertIn('<pre class="src">', page)

    def test_grades_read_the_class_reference_counters(self):
        # Counted once for the class (with the batch's policy) and read by every grade, on
        # either backend (a GPU grade's emulator run reads them too).
        with open(os.path.join(self.out, "reference_counters.json")) as f:
            counted = json.load(f)
        self.assertEqual(counted["lab"], "lab1")
        self.assertEqual(sorted(counted["parts"]), ["A"])
        for name in ("correct", "wrong", "latin1"):
            with open(os.path.join(self.out, name, "report.json")) as f:
                self.assertEqual(json.load(f)["reference_counters"], "class", name)

    def test_grades_read_the_lab_described_once(self):
        # The template worker described the lab once for the batch's graders; each grade read
        # that rather than starting its own worker to ask (the same parts and device).
        folder = os.path.join(self.out, ".described")
        # One file: the emulator's, or that of the one GPU the batch grades on.
        (name,) = os.listdir(folder)
        self.assertRegex(name, r"^lab1_emulated\.json$" if BACKEND == "emulated" else r"^lab1_gpu[0-9]+\.json$")
        with open(os.path.join(folder, name)) as f:
            described = json.load(f)
        self.assertEqual((described["hello"]["lab"], described["hello"]["backend"]), ("lab1", BACKEND))
        self.assertEqual([p["id"] for p in described["hello"]["parts"]], ["A"])
        device = described["hello"]["device"]["name"]
        self.assertEqual(device == "CPU emulator", BACKEND == "emulated")
        for name in ("correct", "wrong", "latin1"):
            with open(os.path.join(self.out, name, "report.json")) as f:
                report = json.load(f)
            self.assertEqual(report["described"], "class", name)
            self.assertEqual(report["device"], device, name)

    def test_figures_for_scripts(self):
        # What the batch prints at the end, as JSON (scripts/batch_throughput.py reads it).
        with open(os.path.join(self.out, "batch_stats.json")) as f:
            stats = json.load(f)
        self.assertEqual(stats["submissions"], len(EXPECTED))
        # Built: all but the 5 unusable entries; graded: those built, less the compile error.
        self.assertEqual((stats["builds"], stats["graded"]), (10, 9))
        self.assertEqual((stats["backend"], stats["graders_per_gpu"], stats["jobs"]), (BACKEND, 1, 2))
        # elapsed_s is stored to the millisecond: the rate agrees to within that rounding.
        self.assertAlmostEqual(stats["per_minute"], 60 * stats["submissions"] / stats["elapsed_s"],
                               delta=stats["per_minute"] * 0.001 / stats["elapsed_s"] + 0.001)
        self.assertGreater(stats["per_minute_once_built"], 0)
        self.assertIn(f"({stats['per_minute']:.1f} per minute)", self.batch.stdout.decode())

    def test_failed_builds_are_reported_by_the_grader(self):
        # One place builds Gradescope's JSON: the grader, told of the failed build.
        d = os.path.join(self.out, "compile_error")
        with open(os.path.join(d, "report.json")) as f:
            report = json.load(f)
        self.assertEqual(report["build"]["kind"], "compile_error")
        self.assertIn("undefined_name", report["build"]["log"])
        with open(os.path.join(d, "results.json")) as f:
            results = json.load(f)
        self.assertEqual(results["score"], 0.0)
        self.assertEqual([t["name"].split()[:2] for t in results["tests"]], [["Build", "of"]])
        self.assertIn("does not compile; nothing was graded", results["output"])

    def test_speedups_are_numbers(self):
        with open(os.path.join(self.out, "gradebook.csv")) as f:
            self.assertIn("speedup_A", csv.DictReader(f).fieldnames)
        with open(os.path.join(self.out, "gradebook.json")) as f:
            rows = {r["submission"]: r for r in json.load(f)}
        correct = rows["correct"]
        self.assertEqual(list(correct["speedups"]), ["A"])
        if BACKEND == "gpu":
            self.assertIsInstance(correct["speedups"]["A"], float)
            self.assertIsInstance(correct["target"], float)
            csv_row = {r["submission"]: r for r in gradebook(self.out)}["correct"]
            self.assertEqual(float(csv_row["speedup_A"]), correct["speedups"]["A"])
        else:  # the CPU emulator times nothing
            self.assertEqual((correct["speedups"]["A"], correct["target"]), (None, None))
        self.assertEqual(rows["compile_error"]["speedups"], {})

    def test_nothing_but_the_lab_file_left_the_archives(self):
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "outside.txt")))
        self.assertFalse(os.path.exists(os.path.join(os.path.dirname(self.tmp), "outside.txt")))

    def test_rows_say_why_and_what_was_graded(self):
        with open(os.path.join(self.out, "gradebook.json")) as f:
            rows = {r["submission"]: r for r in json.load(f)}
        policy = os.path.join(ROOT, "grader", "tests", "policies", "fast_timeout.jsonc")
        with open(policy, "rb") as f:
            policy_hash = hashlib.sha256(f.read()).hexdigest()
        correct = rows["correct"]
        self.assertEqual(correct["sha256"], hashlib.sha256(SOLUTION.encode()).hexdigest())
        self.assertEqual((correct["policy_sha256"], correct["backend"], correct["reason"]), (policy_hash, BACKEND, ""))
        self.assertRegex(correct["graded_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertEqual(rows["wrong"]["reason"], "A: wrong result (random input, n=1)")
        self.assertEqual(rows["compile_error"]["reason"], "does not compile")
        self.assertIn(rows["out_of_bounds"]["reason"], ("A: out-of-bounds write (past its output)", "A: out-of-bounds write"))
        self.assertEqual(rows["empty"]["sha256"], "")

    def test_copies_are_flagged(self):
        rows = {r["submission"]: r for r in gradebook(self.out)}
        self.assertEqual(rows["correct"]["same_file_as"], "deep.zip; latin1; nested.zip")
        self.assertEqual((rows["correct"]["copy_of_reference"], rows["deep.zip"]["copy_of_reference"]),
                         ("identical", "identical but for comments and spacing"))
        # Two untouched stubs are no one's copies.
        self.assertEqual((rows["wrong"]["same_file_as"], rows["wrong"]["copy_of_reference"]), ("", ""))

    def test_rerun_skips_graded_submissions(self):
        again = run_batch(self.subs, self.out)
        self.assertEqual(again.returncode, 0)
        self.assertIn(f"{len(EXPECTED)} submission(s) already graded", again.stdout.decode())
        self.assertEqual(len(gradebook(self.out)), len(EXPECTED))


class RegradeTest(unittest.TestCase):
    def test_a_changed_file_is_graded_again_and_regrade_names_one(self):
        with tempfile.TemporaryDirectory() as tmp:
            subs, out = os.path.join(tmp, "submissions"), os.path.join(tmp, "results")
            write(os.path.join(subs, "alice", "kernels.cu"), STUB)
            write(os.path.join(subs, "bob", "kernels.cu"), SOLUTION)
            first = run_batch(subs, out)
            self.assertEqual(first.returncode, 0, first.stdout.decode())
            self.assertEqual({r["submission"]: float(r["score"]) for r in gradebook(out)}, {"alice": 0.0, "bob": 60.0
                             if BACKEND == "emulated" else 100.0})
            # Alice hands in again; Bob does not.
            write(os.path.join(subs, "alice", "kernels.cu"), SOLUTION)
            again = run_batch(subs, out)
            text = again.stdout.decode()
            self.assertEqual(again.returncode, 0, text)
            self.assertIn("grade batch: 1 submission(s) already graded and unchanged", text)
            self.assertIn("grade batch: 1 submission(s) changed since they were graded", text)
            self.assertEqual(float({r["submission"]: r for r in gradebook(out)}["alice"]["score"]),
                             60.0 if BACKEND == "emulated" else 100.0)
            one = run_batch(subs, out, "--regrade", "bob")
            self.assertIn("grade batch: 1 submission(s) already graded and unchanged", one.stdout.decode())
            missing = run_batch(subs, out, "--regrade", "carol")
            self.assertEqual(missing.returncode, 2)
            self.assertIn("grade batch: --regrade carol: no such submission in", missing.stdout.decode())


class PolicyTest(unittest.TestCase):
    def test_a_bad_policy_is_refused_before_anything_is_graded(self):
        with tempfile.TemporaryDirectory() as tmp:
            subs = os.path.join(tmp, "submissions")
            write(os.path.join(subs, "alice", "kernels.cu"), SOLUTION)
            policy = os.path.join(tmp, "policy.jsonc")
            write(policy, '{"labs": {"lab1": {"threshold_fractoin": 0.9}}}')
            out = os.path.join(tmp, "results")
            args = run_batch_args(subs, out)
            args[args.index("--policy") + 1] = policy
            run = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=batch_env())
            text = run.stdout.decode()
            self.assertEqual(run.returncode, 2, text)
            self.assertIn(f"grade batch: {policy}: unknown key labs.lab1.threshold_fractoin (the keys of labs.lab1 "
                          "are ", text)
            self.assertFalse(os.path.exists(os.path.join(out, "alice", "row.json")), text)
            self.assertFalse(os.path.exists(os.path.join(out, "gradebook.csv")), text)


class ResumeTest(unittest.TestCase):
    def test_interrupted_batch_loses_and_repeats_nothing(self):
        tmp = tempfile.mkdtemp()
        subs = os.path.join(tmp, "submissions")
        for i in range(6):
            write(os.path.join(subs, f"s{i}", "kernels.cu"), SOLUTION if i % 2 == 0 else STUB)
        out = os.path.join(tmp, "results")
        args = [sys.executable, BATCH, "lab1", subs, "--out", out, "--build-dir", BUILD, "--jobs", "1", "--quiet"]
        if BACKEND == "emulated":
            args.append("--emulate")
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.time() + 300
        while time.time() < deadline:  # wait for a few rows, then pull the plug
            done = [s for s in os.listdir(subs) if os.path.exists(os.path.join(out, s, "row.json"))]
            if len(done) >= 2 or proc.poll() is not None:
                break
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        finished = {s for s in os.listdir(subs) if os.path.exists(os.path.join(out, s, "row.json"))}
        self.assertGreaterEqual(len(finished), 2)
        resumed = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.assertEqual(resumed.returncode, 0, resumed.stdout.decode())
        rows = gradebook(out)
        self.assertEqual(sorted(r["submission"] for r in rows), [f"s{i}" for i in range(6)])
        self.assertEqual({r["submission"]: r["status"] for r in rows}, {f"s{i}": "graded" for i in range(6)})
        shutil.rmtree(tmp, ignore_errors=True)


def gpu_present():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
        return b"GPU " in out
    except OSError:
        return False


if __name__ == "__main__":
    if BACKEND == "gpu" and not gpu_present():
        print("no GPU on this machine: skipped")
        sys.exit(77)  # ctest: not run
    unittest.main(argv=[sys.argv[0], "-v"])
