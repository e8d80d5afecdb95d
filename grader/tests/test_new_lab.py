"""A lab is its folder and one line of labs.json: the recipe of docs/architecture.md ("Adding a
lab"), followed in a copy of the course.

lab 3's folders are copied to labs/lab6_copied/ and solutions/lab6_copied/, its name replaced
by lab6 in the copied files (the contract's namespace, the files' #include), and one line
added to labs.json; nothing else of the course changes. Then, CPU emulator only:

- `make lab6` builds, and `./grade lab6` grades the stub: exit 1, every part fails;
- the solution's self-check worker passes with 60/60, its parts titled as lab.json says, its
  checks those lab.json's policy names over the default policy's lab_defaults;
- `./grade hint lab6 B` gives its first hint, from the copied hints.json;
- `./grade lab7` is still an unknown lab, and the message lists lab6 after lab5.

Run by ctest (the repository root on PYTHONPATH, as CMake's COURSE_PYTHON puts it): python3 test_new_lab.py (COURSE_KEEP_TMP=1 keeps the copy).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

from grader.tests.course_copy import ROOT, copy_course

FROM_LAB, FROM_FOLDER = "lab3", "lab3_unrolled"
NEW_LAB, NEW_FOLDER = "lab6", "lab6_copied"
MANIFEST_LINE = f'    {{"name": "{NEW_LAB}", "folder": "{NEW_FOLDER}"}}'


def copy_lab(course):
    """Copies lab 3's folders, with lab 3's name replaced in the copied files."""
    for tree in ("labs", "solutions"):
        source, dest = course / tree / FROM_FOLDER, course / tree / NEW_FOLDER
        shutil.copytree(source, dest)
        for path in sorted(dest.iterdir()):
            text = path.read_text(encoding="utf-8")
            text = re.sub(rf"\b{FROM_FOLDER}\b", NEW_FOLDER, text)
            path.write_text(re.sub(rf"\b{FROM_LAB}\b", NEW_LAB, text), encoding="utf-8")


def add_manifest_line(course):
    path = course / "labs.json"
    lines = path.read_text(encoding="utf-8").split("\n")
    last = max(i for i, line in enumerate(lines) if line.lstrip().startswith('{"name": "lab'))
    lines[last] += ","
    lines.insert(last + 1, MANIFEST_LINE)
    path.write_text("\n".join(lines), encoding="utf-8")


class NewLab(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="course_new_lab_"))
        cls.course = cls.tmp / "course"
        copy_course(cls.course)
        copy_lab(cls.course)
        add_manifest_line(cls.course)
        cls.build = cls.course / "build"
        cls.env = {k: v for k, v in os.environ.items() if k != "COURSE_BUILD_DIR"}
        cls.env["NO_COLOR"] = "1"
        cls.run_step(["cmake", "-S", str(cls.course), "-B", str(cls.build), "-DCOURSE_GPU=OFF", "-DBUILD_TESTING=ON",
                      "-DLAB_SOURCE=labs"])
        cls.run_step(["make", "-C", str(cls.course), NEW_LAB])
        cls.run_step(["cmake", "--build", str(cls.build), "--target", f"selfcheck_solution_{NEW_LAB}_emulated"])

    @classmethod
    def tearDownClass(cls):
        if not os.environ.get("COURSE_KEEP_TMP"):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def run_step(cls, command, expect=0):
        t = time.time()
        p = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=cls.env, cwd=cls.tmp)
        print(f"{' '.join(command[:3])} ...: {time.time() - t:.1f} s", file=sys.stderr)
        out = p.stdout.decode("utf-8", "replace")
        assert p.returncode == expect, f"{command}: exit {p.returncode}\n{out[-4000:]}"
        return out

    def test_the_lab_is_its_folder_and_one_line(self):
        # Against the course it was copied from: new files only in the two folders, and of the
        # course's own files only labs.json changed, by one line.
        def files(root):
            return {p.relative_to(root): p for p in root.rglob("*") if p.is_file()
                    and not {"build", "__pycache__", ".git"} & set(p.relative_to(root).parts)
                    and not p.relative_to(root).parts[0].startswith("build")}
        mine, theirs = files(self.course), files(ROOT)
        added = sorted(str(p) for p in set(mine) - set(theirs))
        self.assertEqual(added, [f"labs/{NEW_FOLDER}/{n}" for n in
                                 ("README.md", "binding.cuh", "contract.cuh", "hints.json", "kernels.cu", "lab.json")]
                         + [f"solutions/{NEW_FOLDER}/kernels.cu"])
        changed = sorted(str(p) for p in set(mine) & set(theirs) if mine[p].read_bytes() != theirs[p].read_bytes())
        self.assertEqual(changed, ["labs.json"])
        before = theirs[Path("labs.json")].read_text().splitlines()
        after = mine[Path("labs.json")].read_text().splitlines()
        # (the line before it gains the comma JSON needs)
        was = {line.rstrip(",") for line in before}
        self.assertEqual([line for line in after if line.rstrip(",") not in was], [MANIFEST_LINE])
        self.assertEqual(json.loads("\n".join(after))["labs"][-1], {"name": NEW_LAB, "folder": NEW_FOLDER})

    def test_its_hints_are_there(self):
        out = self.run_step([str(self.course / "grade"), "hint", NEW_LAB, "B"])
        self.assertIn(f"{NEW_LAB} B, hint 1 of ", out)

    def test_the_stub_fails(self):
        out = self.run_step([str(self.course / "grade"), NEW_LAB, "--emulate", "--json", str(self.tmp / "stub.json")],
                            expect=1)
        report = json.loads((self.tmp / "stub.json").read_text())
        self.assertEqual(report["lab"], NEW_LAB)
        self.assertEqual(report["source"]["path"], f"labs/{NEW_FOLDER}/kernels.cu")
        self.assertEqual([p["id"] for p in report["parts"]], ["A", "B", "C"])
        self.assertEqual({p["correctness"]["status"] for p in report["parts"]}, {"failed"})
        self.assertIn(f"{NEW_LAB}: 0/60", out)

    def test_the_solution_passes_with_the_labs_policy(self):
        out = self.run_step([str(self.build / "bin" / "grader"), NEW_LAB, "--worker-dir",
                             str(self.build / "selfcheck" / "solution"), "--json", str(self.tmp / "solution.json")])
        report = json.loads((self.tmp / "solution.json").read_text())
        self.assertEqual((report["exit_code"], report["score"], report["max_score"]), (0, 60, 60))
        self.assertEqual([p["title"] for p in report["parts"]],
                         ["first add during the load", "last warp unrolled", "fully unrolled, compile-time block size"])
        self.assertEqual({p["correctness"]["status"] for p in report["parts"]}, {"passed"})
        checks = {p["id"]: sorted(c["name"] for c in p["checks"]) for p in report["parts"]}
        self.assertIn("no_divergence", checks["B"])
        self.assertIn(f"{NEW_LAB}: 60/60", out)

    def test_another_name_is_still_unknown(self):
        out = self.run_step([str(self.course / "grade"), "lab7", "--emulate"], expect=2)
        self.assertIn("grade: unknown lab 'lab7'. The labs are: lab1 lab2 lab3 lab4 lab5 lab6", out)


if __name__ == "__main__":
    unittest.main()
