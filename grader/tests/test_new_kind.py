"""A problem kind is one worker module and one policy block: the recipe of
docs/architecture.md ("Adding a problem kind"), followed in a copy of the course.

The kind is "scale" (out[i] = 2 * in[i]), which no lab of the course has. In the copy, the
module grader/tests/new_kind/scale.cpp becomes grader/worker/kinds/scale.cpp, its block
(new_kind/problem_block.jsonc) goes under "problems" in the default policy, and a lab of that
kind, lab6 (new_kind/lab6_scale/), is its folder, its solution and one line of labs.json;
nothing else of the course changes. Then, CPU emulator only:

- `make lab6` builds, and `./grade lab6` grades the stub: exit 1, part A not correct, 0/60;
- the solution's self-check worker passes with 60/60, its cases the block's sizes;
- the grading plan (`grader --describe-grading`) lists the kind's cases;
- a policy file can change the new kind's sizes, and the grade runs those.

Run by ctest (the repository root on PYTHONPATH, as CMake's COURSE_PYTHON puts it): python3 test_new_kind.py (COURSE_KEEP_TMP=1 keeps the copy).
"""
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

from grader.tests.course_copy import ROOT, copy_course

FIXTURE = Path(__file__).resolve().parent / "new_kind"
NEW_LAB, NEW_FOLDER, KIND = "lab6", "lab6_scale", "scale"
MANIFEST_LINE = f'    {{"name": "{NEW_LAB}", "folder": "{NEW_FOLDER}"}}'
POLICY = Path("grader/policy/default_policy.jsonc")


def add_kind(course):
    shutil.copy(FIXTURE / "scale.cpp", course / "grader/worker/kinds/scale.cpp")
    path = course / POLICY
    text = path.read_text(encoding="utf-8")
    opening = '  "problems": {\n'
    assert text.count(opening) == 1, "the default policy's problems block moved"
    block = (FIXTURE / "problem_block.jsonc").read_text(encoding="utf-8")
    path.write_text(text.replace(opening, opening + block), encoding="utf-8")


def add_lab(course):
    (course / "labs" / NEW_FOLDER).mkdir()
    for name in ("README.md", "binding.cuh", "contract.cuh", "hints.json", "kernels.cu", "lab.json"):
        shutil.copy(FIXTURE / NEW_FOLDER / name, course / "labs" / NEW_FOLDER / name)
    (course / "solutions" / NEW_FOLDER).mkdir()
    shutil.copy(FIXTURE / NEW_FOLDER / "solution.cu", course / "solutions" / NEW_FOLDER / "kernels.cu")
    path = course / "labs.json"
    lines = path.read_text(encoding="utf-8").split("\n")
    last = max(i for i, line in enumerate(lines) if line.lstrip().startswith('{"name": "lab'))
    lines[last] += ","
    lines.insert(last + 1, MANIFEST_LINE)
    path.write_text("\n".join(lines), encoding="utf-8")


class NewKind(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="course_new_kind_"))
        cls.course = cls.tmp / "course"
        copy_course(cls.course)
        add_kind(cls.course)
        add_lab(cls.course)
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

    def grade_solution(self, *extra):
        report_file = self.tmp / "solution.json"
        out = self.run_step([str(self.build / "bin" / "grader"), NEW_LAB, "--worker-dir",
                             str(self.build / "selfcheck" / "solution"), "--json", str(report_file), *extra])
        return out, json.loads(report_file.read_text())

    def test_the_kind_is_one_module_and_one_block(self):
        def files(root):
            return {p.relative_to(root): p for p in root.rglob("*") if p.is_file()
                    and not {"build", "__pycache__", ".git"} & set(p.relative_to(root).parts)
                    and not p.relative_to(root).parts[0].startswith("build")}
        mine, theirs = files(self.course), files(ROOT)
        added = sorted(str(p) for p in set(mine) - set(theirs))
        self.assertEqual(added, ["grader/worker/kinds/scale.cpp"]
                         + [f"labs/{NEW_FOLDER}/{n}" for n in
                            ("README.md", "binding.cuh", "contract.cuh", "hints.json", "kernels.cu", "lab.json")]
                         + [f"solutions/{NEW_FOLDER}/kernels.cu"])
        changed = sorted(str(p) for p in set(mine) & set(theirs) if mine[p].read_bytes() != theirs[p].read_bytes())
        self.assertEqual(changed, [str(POLICY), "labs.json"])
        before = theirs[POLICY].read_text().splitlines()
        after = mine[POLICY].read_text().splitlines()
        block = (FIXTURE / "problem_block.jsonc").read_text().splitlines()
        edits = [(tag, after[j1:j2]) for tag, _, _, j1, j2 in
                 difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes() if tag != "equal"]
        self.assertEqual(edits, [("insert", block)])

    def test_the_stub_fails(self):
        out = self.run_step([str(self.course / "grade"), NEW_LAB, "--emulate", "--json", str(self.tmp / "stub.json")],
                            expect=1)
        report = json.loads((self.tmp / "stub.json").read_text())
        self.assertEqual([p["id"] for p in report["parts"]], ["A"])
        self.assertEqual(report["parts"][0]["correctness"]["status"], "failed")
        self.assertIn("was never written", report["parts"][0]["correctness"]["failures"][0]["detail"])
        self.assertIn(f"{NEW_LAB}: 0/60", out)

    def test_the_solution_passes_on_the_kinds_cases(self):
        out, report = self.grade_solution()
        self.assertEqual((report["exit_code"], report["score"], report["max_score"]), (0, 60, 60))
        part = report["parts"][0]
        self.assertEqual((part["title"], part["correctness"]["status"]), ("one element per thread", "passed"))
        self.assertEqual(part["correctness"]["cases"], 5)  # sizes_emulated: 1, 31, 33, 1000, 4097
        self.assertIn(f"{NEW_LAB}: 60/60", out)

    def test_the_plan_lists_the_kind(self):
        plan = json.loads(self.run_step([str(self.build / "bin" / "grader"), "--describe-grading"]))
        self.assertEqual(plan["cases"]["emulated"]["problems"][KIND], {"sizes": [1, 31, 33, 1000, 4097], "large": []})
        self.assertEqual(plan["timing"]["timed"][KIND], 16777216)

    def test_a_policy_sets_the_new_kinds_sizes(self):
        policy = self.tmp / "policy.jsonc"
        policy.write_text(json.dumps({"problems": {KIND: {"sizes_emulated": [7, 4099], "counted_from": 7}}}))
        _, report = self.grade_solution("--policy", str(policy))
        self.assertEqual(report["parts"][0]["correctness"]["cases"], 2)
        self.assertEqual(report["exit_code"], 0)


if __name__ == "__main__":
    unittest.main()
