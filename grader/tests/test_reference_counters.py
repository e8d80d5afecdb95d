"""A class's reference counters (grader --count-references, supervisor/reference_counters.hpp),
counted by each lab's emulated template worker, whose student is the stub:

- honest: a grade of the lab's solution that reads them gives the counters, checks and
  score of a grade that counts them itself, on a draw with the large problem and without;
- stale: a file counted by a worker that has changed since is not read; the grade counts
  them itself and says so, with the same result;
- not a file of them (another lab's, garbage): the same.

    python3 grader/tests/test_reference_counters.py BUILD_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from grader.batch.build_recipe import Recipe  # noqa: E402
from grader.batch.grade_one import file_sha256 as sha256  # noqa: E402

BUILD = None
LABS = ("lab1", "lab2", "lab3", "lab4", "lab5")
# Seeds whose draws take no kind's large problem (1) and each kind's that has one (4: the
# reductions' 4194311, lab 5's records' 524309): the reports say what was drawn, checked below.
SEEDS = (1, 4)
LARGE = ("n=4194311", "n=524309")


def grade(lab, seed, out, counters=None):
    """Graded with the file `counters` pinned by the SHA-256 of its bytes now."""
    cmd = [os.path.join(BUILD, "bin", "grader"), lab, "--emulate", "--seed", str(seed), "--json", out,
           "--worker-dir", os.path.join(BUILD, "selfcheck", "solution"), "--no-color"]
    if counters:
        cmd += ["--reference-counters", counters, "--reference-counters-sha256", sha256(counters)]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with open(out) as f:
        return json.load(f), run.stderr


def count(lab, worker, out):
    return subprocess.run([os.path.join(BUILD, "bin", "grader"), "--count-references", lab, worker, out],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


class ReferenceCounters(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="reference-counters-test-")
        cls.recipe = Recipe(BUILD)
        cls.files, cls.said = {}, {}
        for lab in LABS:
            path = os.path.join(cls.tmp, f"{lab}.json")
            run = count(lab, cls.recipe.templates[(lab, "emulated")]["template_worker"], path)
            assert run.returncode == 0, run.stdout
            cls.files[lab] = path
            cls.said[lab] = run.stdout
        cls.fresh = {}  # (lab, seed): the grade that counted them itself

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def fresh_grade(self, lab, seed):
        if (lab, seed) not in self.fresh:
            self.fresh[(lab, seed)] = grade(lab, seed, os.path.join(self.tmp, f"{lab}-{seed}-fresh.json"))[0]
            self.assertEqual(self.fresh[(lab, seed)]["reference_counters"], "")  # no file: counted, as ./grade does
        return self.fresh[(lab, seed)]

    def assert_same_grade(self, mine, fresh):
        self.assertEqual(mine["score"], fresh["score"])
        self.assertEqual([p["id"] for p in mine["parts"]], [p["id"] for p in fresh["parts"]])
        for a, b in zip(mine["parts"], fresh["parts"]):
            self.assertEqual(a["counters"], b["counters"], a["id"])
            self.assertEqual(a["checks"], b["checks"], a["id"])
            self.assertEqual(a["ladder"], b["ladder"], a["id"])

    def test_it_says_the_sha256_of_what_it_wrote(self):
        # The batch pins the file by this line, never by reading back what may have changed.
        for lab in LABS:
            self.assertEqual(self.said[lab], sha256(self.files[lab]) + "\n")

    def test_every_lab_reads_them_and_grades_as_if_it_had_counted(self):
        for lab in LABS:
            for seed in SEEDS:
                with self.subTest(lab=lab, seed=seed):
                    mine, said = grade(lab, seed, os.path.join(self.tmp, f"{lab}-{seed}.json"), self.files[lab])
                    self.assertIn("reference counters: the class's, from " + self.files[lab], said)
                    self.assertEqual(mine["reference_counters"], "class")
                    fresh = self.fresh_grade(lab, seed)
                    self.assertEqual(fresh["score"], mine["score"])
                    self.assertGreater(mine["score"], 0)
                    self.assert_same_grade(mine, fresh)
                    versions = [v["version"] for p in mine["parts"] for v in p["counters"]["versions"]]
                    self.assertIn("reference", versions)
                    self.assertIn("student", versions)
                    drawn = ", ".join(p["counters"]["problems"] for p in mine["parts"])
                    drew_large = any(word in drawn.split(", ") for word in LARGE)
                    self.assertEqual(drew_large, seed == 4, f"{lab}, seed {seed} drew {drawn}")

    def test_a_file_counted_by_a_worker_that_changed_since_is_not_read(self):
        worker = os.path.join(self.tmp, "lab3_worker_emulated")
        shutil.copy2(self.recipe.templates[("lab3", "emulated")]["template_worker"], worker)
        stale = os.path.join(self.tmp, "stale.json")
        self.assertEqual(count("lab3", worker, stale).returncode, 0)
        with open(worker, "ab") as f:
            f.write(b"\0")  # rebuilt since
        mine, said = grade("lab3", 4, os.path.join(self.tmp, "stale-grade.json"), stale)
        self.assertIn(f"reference counters: counted in this grade instead: the worker that counted them ({worker}) "
                      "has changed or is gone since", said)
        self.assertEqual(mine["reference_counters"],
                         f"counted: the worker that counted them ({worker}) has changed or is gone since")
        self.assert_same_grade(mine, self.fresh_grade("lab3", 4))

    def test_another_labs_file_or_garbage_is_not_read(self):
        garbage = os.path.join(self.tmp, "garbage.json")
        with open(garbage, "w") as f:
            f.write("[1, 2")
        for path, why in ((self.files["lab4"], f"{self.files['lab4']} holds lab4's, not lab3's"),
                          (garbage, f"{garbage} is not a file of reference counters")):
            with self.subTest(path=path):
                mine, said = grade("lab3", 4, os.path.join(self.tmp, "other-grade.json"), path)
                self.assertIn("reference counters: counted in this grade instead: " + why, said)
                self.assertTrue(mine["reference_counters"].startswith("counted: " + why))
                self.assert_same_grade(mine, self.fresh_grade("lab3", 4))

    def test_a_student_only_worker_runs_no_reference(self):
        # The worker itself, as the grader runs it: with student_only, its counters event
        # holds the student's version alone (the reference and baseline never ran there).
        worker = os.path.join(BUILD, "selfcheck", "solution", "lab3_worker_emulated")
        for student_only, versions in ((False, ["baseline", "reference", "student"]), (True, ["student"])):
            job = {"command": "correctness", "sandbox": "strict",
                   "correctness": {"parts": ["A"], "seed": 4, "tolerance_c": 8.0, "inputs": ["random"],
                                   "problems": {"reduction": {"sizes": [4097], "large": []}},
                                   "counters": {"problems": {"reduction": [4097]}, "student_only": student_only},
                                   "wait_for_go": False},
                   "timing": None, "profile": None}
            r, w = os.pipe()
            run = subprocess.Popen([worker, "--events-fd", str(w), "--job", json.dumps(job)], pass_fds=(w,),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            os.close(w)
            with os.fdopen(r) as f:
                events = [json.loads(line) for line in f if line.strip()]
            err = run.communicate(timeout=300)[1]
            self.assertEqual(run.returncode, 0, err[-500:])
            counted = [e for e in events if e.get("event") == "counters"]
            self.assertEqual(len(counted), 1)
            self.assertEqual([v["version"] for v in counted[0]["versions"]], versions)
            self.assertEqual({v["problem"] for v in counted[0]["versions"]}, {"n=4097"})

    def test_no_lab_no_worker_exit_2_with_the_reason(self):
        run = count("lab9", "/nonexistent", os.path.join(self.tmp, "x.json"))
        self.assertEqual(run.returncode, 2)
        self.assertIn("grader: --count-references: unknown lab 'lab9'", run.stdout)
        run = count("lab3", "/nonexistent/lab3_worker_emulated", os.path.join(self.tmp, "x.json"))
        self.assertEqual(run.returncode, 2)
        self.assertIn("grader: --count-references: cannot read the worker /nonexistent/lab3_worker_emulated",
                      run.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "x.json")))


if __name__ == "__main__":
    BUILD = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
