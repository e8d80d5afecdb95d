"""The lab described once for a class (grader --describe-lab, --described;
supervisor/worker_choice.hpp), by each lab's template worker, whose student is the stub:

- honest: a grade of the lab's solution that reads the description gives the report of a
  grade that asked its own worker (parts, device, notes, checks, score), and says "class";
- not this grade's (another lab's, the other backend's, garbage, missing, fewer parts than
  the lab has, bytes other than those the batch pinned): the grade asks its own worker,
  says why, and gives the same report;
- bad requests: an unknown lab, a worker that cannot start, a worker of another lab exit 2
  with the reason, and write nothing.

    python3 grader/tests/test_described.py BUILD_DIR
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
# Everything a report holds but its times and when it started.
UNTIMED = ("seconds", "started_at", "described")


# A pin for a file that is not there, or not a file.
NO_FILE_PIN = "0" * 64


def grade(lab, out, described=None, pin=None):
    """Graded with `described` pinned by `pin`, by default the SHA-256 of its bytes now."""
    cmd = [os.path.join(BUILD, "bin", "grader"), lab, "--emulate", "--seed", "3", "--json", out,
           "--worker-dir", os.path.join(BUILD, "selfcheck", "solution"), "--no-color"]
    if described:
        if pin is None:
            pin = sha256(described) if os.path.isfile(described) else NO_FILE_PIN
        cmd += ["--described", described, "--described-sha256", pin]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with open(out) as f:
        return json.load(f), run.stderr


def describe(lab, worker, out):
    return subprocess.run([os.path.join(BUILD, "bin", "grader"), "--describe-lab", lab, worker, out],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


class Described(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="described-test-")
        recipe = Recipe(BUILD)
        cls.files, cls.said = {}, {}
        for lab in LABS:
            path = os.path.join(cls.tmp, f"{lab}.json")
            run = describe(lab, recipe.template_worker(lab, "emulated"), path)
            assert run.returncode == 0, run.stdout
            cls.files[lab] = path
            cls.said[lab] = run.stdout
        cls.asked = {}  # lab: the grade that asked its own worker

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def asked_grade(self, lab):
        if lab not in self.asked:
            self.asked[lab] = grade(lab, os.path.join(self.tmp, f"{lab}-asked.json"))[0]
            self.assertEqual(self.asked[lab]["described"], "")  # no file: asked, as ./grade does
        return self.asked[lab]

    def assert_same_report(self, mine, asked):
        for key in asked:
            if key not in UNTIMED:
                self.assertEqual(mine[key], asked[key], key)

    def test_it_says_the_sha256_of_what_it_wrote(self):
        # The batch pins the file by this line, never by reading back what may have changed.
        for lab in LABS:
            self.assertEqual(self.said[lab], sha256(self.files[lab]) + "\n")

    def test_a_file_given_unpinned_or_badly_pinned_is_refused(self):
        for extra, why in (([], "--described requires --described-sha256"),
                           (["--described-sha256", ""], "--described-sha256: not a SHA-256 (64 hex digits): ''"),
                           (["--described-sha256", "ABC"], "--described-sha256: not a SHA-256 (64 hex digits): 'abc'")):
            with self.subTest(extra=extra):
                run = subprocess.run([os.path.join(BUILD, "bin", "grader"), "lab3", "--emulate", "--worker-dir",
                                      os.path.join(BUILD, "selfcheck", "solution"), "--described", self.files["lab3"]]
                                     + extra, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                self.assertEqual(run.returncode, 2)
                self.assertIn(why, run.stdout)

    def test_a_pin_in_capitals_is_the_same_pin(self):
        mine, _ = grade("lab3", os.path.join(self.tmp, "lab3-capitals.json"), self.files["lab3"],
                        sha256(self.files["lab3"]).upper())
        self.assertEqual(mine["described"], "class")

    def test_every_lab_reads_it_and_grades_as_if_it_had_asked(self):
        for lab in LABS:
            with self.subTest(lab=lab):
                mine, said = grade(lab, os.path.join(self.tmp, f"{lab}-class.json"), self.files[lab],
                                   sha256(self.files[lab]))
                self.assertIn("the lab as described for the class, in " + self.files[lab], said)
                self.assertEqual(mine["described"], "class")
                self.assertGreater(mine["score"], 0)
                self.assertEqual(mine["device"], "CPU emulator")
                self.assert_same_report(mine, self.asked_grade(lab))

    def test_a_file_not_for_this_grade_is_not_read(self):
        with open(self.files["lab3"]) as f:
            gpu = json.load(f)
        gpu["hello"]["backend"] = "gpu"
        gpu_file = os.path.join(self.tmp, "gpu.json")
        garbage = os.path.join(self.tmp, "garbage.json")
        with open(gpu_file, "w") as f:
            json.dump(gpu, f)
        with open(garbage, "w") as f:
            f.write('{"hello": [1, 2')
        missing = os.path.join(self.tmp, "missing.json")
        # A forged file that would grade part A alone, as if the lab had no other part.
        with open(self.files["lab3"]) as f:
            short = json.load(f)
        short["hello"]["parts"] = short["hello"]["parts"][:1]
        short_file = os.path.join(self.tmp, "short.json")
        with open(short_file, "w") as f:
            json.dump(short, f)
        # The class's own file, written over after the batch pinned its bytes.
        over = os.path.join(self.tmp, "over.json")
        shutil.copy(self.files["lab3"], over)
        pin = sha256(over)
        with open(over, "a") as f:
            f.write(" ")
        # What a student's code could put in the file's place: a folder, a FIFO (whose open
        # would wait for a writer), a link to a device that never ends. None is read, and
        # the grade neither stops nor waits.
        folder = os.path.join(self.tmp, "folder.json")
        os.makedirs(folder, exist_ok=True)
        fifo = os.path.join(self.tmp, "fifo.json")
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        link = os.path.join(self.tmp, "link.json")
        if not os.path.lexists(link):
            os.symlink("/dev/zero", link)
        for path, pinned, why in ((self.files["lab4"], None, "it describes lab4"),
                                  (gpu_file, None, "it describes the gpu worker"),
                                  (garbage, None, "it is not a lab's description"),
                                  (missing, None, f"cannot read {missing}: No such file or directory"),
                                  (short_file, None, "it lists parts A, not the lab's A,B,C"),
                                  (over, pin, f"{over} has changed since the batch wrote it"),
                                  (folder, None, f"cannot read {folder}: not a regular file"),
                                  (fifo, None, f"cannot read {fifo}: not a regular file"),
                                  (link, None, f"cannot read {link}: Too many levels of symbolic links")):
            with self.subTest(path=path):
                out = os.path.join(self.tmp, "other.json")
                if os.path.exists(out):
                    os.remove(out)
                mine, said = grade("lab3", out, path, pinned)
                self.assertIn(f"the lab's description {path} not read ({why}): asking the worker", said)
                self.assertEqual(mine["described"], f"asked: {path}: {why}")
                self.assert_same_report(mine, self.asked_grade("lab3"))

    def test_no_lab_no_worker_another_labs_worker_exit_2_with_the_reason(self):
        out = os.path.join(self.tmp, "x.json")
        run = describe("lab9", "/nonexistent", out)
        self.assertEqual(run.returncode, 2)
        self.assertIn("grader: --describe-lab: unknown lab 'lab9'", run.stdout)
        run = describe("lab3", "/nonexistent/lab3_worker_emulated", out)
        self.assertEqual(run.returncode, 2)
        self.assertIn("grader: --describe-lab: /nonexistent/lab3_worker_emulated: the worker could not be started",
                      run.stdout)
        run = describe("lab2", Recipe(BUILD).template_worker("lab3", "emulated"), out)
        self.assertEqual(run.returncode, 2)
        self.assertIn("is a worker of lab3, not lab2", run.stdout)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    BUILD = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
