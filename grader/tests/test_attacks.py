"""The adversarial suite (attacks/attacks.json) through every path a student's file takes.

Run by ctest with the build folder (the repository root on PYTHONPATH, as CMake's COURSE_PYTHON puts it): python3 test_attacks.py BUILD_DIR [gpu|emulated]

- `make` and `./grade`: the build of the attack's worker, the way `make labN` builds a
  student's file, must stop at course_cc_guard for a refused attack, with the expected
  message and none of the forbidden text; a graded attack builds and must not pass.
- `./grade batch`: a class per lab holding every attack of that lab and the reference;
  each attack gets its row and the reference still passes.
The Gradescope path is covered in grader/gradescope/tests/test_gradescope.py.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
BACKEND = sys.argv[2] if len(sys.argv) > 2 else "emulated"
with open(os.path.join(HERE, "attacks", "attacks.json")) as f:
    ATTACKS = json.load(f)["attacks"]


def refused_here(a):
    return a["expect"] == "refused" and BACKEND in a.get("refused_on", ["gpu", "emulated"])


def expected_status(a):
    """The gradebook status an attack must get on this backend: 'graded' for a kernel that
    runs and fails, 'crashed' for one that is stopped ('status', or 'status_gpu' where a GPU
    may do either: then a list)."""
    if refused_here(a):
        return "rejected"
    if a["expect"] == "refused":
        return a.get(BACKEND, "rejected")
    return a.get(f"status_{BACKEND}", a.get("status", "graded"))


def status_ok(a, status):
    want = expected_status(a)
    return status in want if isinstance(want, list) else status == want


def message(a):
    return a.get(f"message_{BACKEND}", a["message"])


def source_of(a):
    """Where an attack's file lives: attacks/, or submissions/ for the older test files."""
    return os.path.join(HERE, "submissions" if a.get("submission") else "attacks", a["name"], a["folder"], "kernels.cu")


def run(args, **kw):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)
    return p.returncode, p.stdout.decode("utf-8", "replace")


class GradePath(unittest.TestCase):
    """What a student gets from `make labN` and `./grade labN` on each attack."""

    def check_forbidden(self, a, text):
        for secret in a.get("forbid", []):
            self.assertNotIn(secret, text, f"{a['name']}: the log shows bytes of a file it must not read")

    def test_attacks(self):
        for a in ATTACKS:
            if a.get("submission"):
                continue  # its ./grade path is a robustness test of grader/tests/CMakeLists.txt
            with self.subTest(a["name"]):
                code, out = run(["cmake", "--build", BUILD, "--target", f"attack_{a['name']}_{BACKEND}"])
                self.check_forbidden(a, out)
                if a["expect"] == "refused" and expected_status(a) != "graded":
                    self.assertNotEqual(code, 0, f"{a['name']} was built:\n{out[-3000:]}")
                    if refused_here(a):
                        self.assertIn(message(a), out, out[-3000:])
                    continue
                self.assertEqual(code, 0, out[-3000:])
                report = os.path.join(tempfile.mkdtemp(), "report.json")
                args = [os.path.join(BUILD, "bin", "grader"), a["lab"], "--worker-dir",
                        os.path.join(BUILD, "attacks", a["name"]), "--quiet", "--no-color", "--json", report]
                if BACKEND != "gpu":
                    args.append("--emulate")
                code, out = run(args)
                self.assertEqual(code, 1, f"{a['name']} must fail:\n{out[-3000:]}")
                with open(report) as f:
                    text = f.read()
                self.assertIn(message(a), text + out, out[-3000:])
                self.check_forbidden(a, text + out)


class BatchPath(unittest.TestCase):
    """`./grade batch` over a class per lab: every attack gets its row, the reference passes."""

    def test_classes(self):
        labs = sorted({(a["lab"], a["folder"]) for a in ATTACKS})
        for lab, folder in labs:
            with self.subTest(lab):
                tmp = tempfile.mkdtemp()
                try:
                    self.grade_class(lab, folder, tmp)
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)

    def grade_class(self, lab, folder, tmp):
        subs = os.path.join(tmp, "submissions")
        attacks = [a for a in ATTACKS if a["lab"] == lab]
        for a in attacks:
            os.makedirs(os.path.join(subs, a["name"], folder))
            shutil.copy(source_of(a), os.path.join(subs, a["name"], folder, "kernels.cu"))
        os.makedirs(os.path.join(subs, "reference", folder))
        shutil.copy(os.path.join(ROOT, "solutions", folder, "kernels.cu"),
                    os.path.join(subs, "reference", folder, "kernels.cu"))
        out = os.path.join(tmp, "results")
        args = [sys.executable, os.path.join(ROOT, "grader", "batch", "grade_batch.py"), lab, subs, "--out", out,
                "--build-dir", BUILD, "--quiet", "--jobs", "2"]
        args += ["--gpus", "all"] if BACKEND == "gpu" else ["--emulate"]
        code, log = run(args)
        self.assertEqual(code, 0, log[-3000:])
        with open(os.path.join(out, "gradebook.json")) as f:
            rows = {r["submission"]: r for r in json.load(f)}
        self.assertEqual(sorted(rows), sorted([a["name"] for a in attacks] + ["reference"]))
        self.assertEqual(rows["reference"]["score"], rows["reference"]["max_score"], rows["reference"]["message"])
        for a in attacks:
            r = rows[a["name"]]
            self.assertTrue(status_ok(a, r["status"]), f"{a['name']}: {r['status']}, {r['message']}")
            self.assertLess(r["score"], r["max_score"], a["name"])
            shown = r["message"]
            d = os.path.join(out, a["name"])
            for name in ("report.json", "report.txt", "build.log", "results.json"):
                if os.path.exists(os.path.join(d, name)):
                    with open(os.path.join(d, name)) as f:
                        shown += f.read()
            if refused_here(a) or a["expect"] == "graded":
                self.assertIn(message(a), shown, a["name"])
            for secret in a.get("forbid", []):
                self.assertNotIn(secret, shown, f"{a['name']}: a log shows bytes of a file it must not read")


def gpu_present():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
        return b"GPU " in out
    except OSError:
        return False


if __name__ == "__main__":
    if BACKEND == "gpu" and not gpu_present():
        print("no GPU: the GPU attack tests are not run")
        sys.exit(77)  # ctest: not run
    unittest.main(argv=[sys.argv[0], "-v"])
