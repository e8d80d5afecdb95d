#!/usr/bin/env python3
"""Tests of ./grade hint (grader/student/hints.py) and of the labs' hint files.

The command-line cases run hints.py on small hint files written here, so that their
expectations can be literal; the data cases check the real files, each lab's hints.json.
Run from the repository root: PYTHONPATH=. python3 grader/student/tests/test_hints_cli.py
"""
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from scripts import labs_manifest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "grader" / "student" / "hints.py"
# Each lab's parts, as its lab.json lists them: every lab must have hints for each.
EXPECTED_PARTS = {lab["name"]: [p["id"] for p in lab["parts"]] for lab in labs_manifest.labs()}

sys.dont_write_bytecode = True  # keep grader/student free of __pycache__
spec = importlib.util.spec_from_file_location("course_hints", SCRIPT)
hints = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hints)

FIXTURE = {
    "lab1": {"lab": "lab1", "parts": ["A"], "hints": [
        {"id": "one", "for": "all", "text": "Lab one, first."},
        {"id": "two", "for": ["A"], "text": "Lab one, second."},
    ]},
    "lab3": {"lab": "lab3", "parts": ["A", "B", "C"], "hints": [
        {"id": "g1", "for": "all", "text": "General one."},
        {"id": "b1", "for": ["B"], "text": "Only B, with `code` in it."},
        {"id": "bc", "for": ["B", "C"], "text": "For B and C."},
        {"id": "g2", "for": "all", "text": "General two."},
    ]},
}


class HintsCli(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="hints-test-"))
        self.addCleanup(shutil.rmtree, self.tmp)
        self.hints_dir = self.tmp / "hints-data"
        self.hints_dir.mkdir()
        for lab, data in FIXTURE.items():
            (self.hints_dir / f"{lab}.json").write_text(json.dumps(data, indent=2))
        self.build = self.tmp / "no" / "such" / "build"  # created on demand

    def hint(self, *args):
        cmd = [sys.executable, str(SCRIPT), "--build-dir", str(self.build),
               "--hints-dir", str(self.hints_dir), *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60)

    def expect(self, args, stdout, rc=0, stderr=""):
        r = self.hint(*args)
        self.assertEqual((r.returncode, r.stdout, r.stderr), (rc, stdout, stderr), f"args: {args}")

    def test_first_call_prints_hint_1_then_hint_2(self):
        self.expect(["lab3", "B"],
                    "lab3 B, hint 1 of 4:\n  General one.\n(3 more: run ./grade hint lab3 B again)\n")
        self.expect(["lab3", "B"],
                    "lab3 B, hint 2 of 4:\n  Only B, with `code` in it.\n"
                    "(2 more: run ./grade hint lab3 B again)\n")

    def test_missing_build_dir_is_created(self):
        self.assertFalse(self.build.exists())
        self.expect(["lab3", "B"],
                    "lab3 B, hint 1 of 4:\n  General one.\n(3 more: run ./grade hint lab3 B again)\n")
        state = self.build / "hints" / "lab3.json"
        self.assertEqual(json.loads(state.read_text()), {"lab": "lab3", "seen": ["g1"]})

    def test_end_of_the_list(self):
        for _ in range(3):
            self.assertEqual(self.hint("lab3", "B").returncode, 0)
        self.expect(["lab3", "B"],
                    "lab3 B, hint 4 of 4:\n  General two.\n(that was the last hint for lab3 B)\n")
        end = ("no more hints for lab3 B: you have seen all 4\n"
               "(./grade hint lab3 B --list shows them again)\n")
        self.expect(["lab3", "B"], end)
        self.expect(["lab3", "B"], end)

    def test_list_shows_the_seen_hints_again(self):
        self.expect(["lab3", "B", "--list"],
                    "you have not seen any hints for lab3 B yet (./grade hint lab3 B shows the first)\n")
        self.hint("lab3", "B")
        self.hint("lab3", "B")
        listing = ("lab3 B, hint 1 of 4:\n  General one.\n\n"
                   "lab3 B, hint 2 of 4:\n  Only B, with `code` in it.\n")
        self.expect(["lab3", "B", "--list"], listing)
        self.expect(["lab3", "B", "--list"], listing)  # listing shows nothing new
        self.expect(["lab3", "B"],
                    "lab3 B, hint 3 of 4:\n  For B and C.\n(1 more: run ./grade hint lab3 B again)\n")

    def test_list_without_part_covers_the_whole_lab(self):
        self.hint("lab3", "B")
        self.hint("lab3", "B")
        self.expect(["lab3", "--list"],
                    "lab3, hint 1 of 2 (for every part):\n  General one.\n\n"
                    "lab3 B, hint 2 of 4:\n  Only B, with `code` in it.\n")

    def test_reset(self):
        self.hint("lab3", "B")
        self.hint("lab3", "B")
        self.expect(["lab3", "B", "--reset"],
                    "forgot the 2 hints you had seen for lab3 B; "
                    "./grade hint lab3 B starts again at the first\n")
        self.expect(["lab3", "B", "--reset"],
                    "you had not seen any hints for lab3 B: nothing to forget\n")
        self.expect(["lab3", "B"],
                    "lab3 B, hint 1 of 4:\n  General one.\n(3 more: run ./grade hint lab3 B again)\n")

    def test_reset_without_part_forgets_the_whole_lab(self):
        self.hint("lab3", "A")
        self.hint("lab3", "C")
        self.expect(["lab3", "--reset"],
                    "forgot the 2 hints you had seen for lab3; "
                    "./grade hint lab3 starts again at the first\n")
        self.expect(["lab3", "--list"],
                    "you have not seen any hints for lab3 yet (./grade hint lab3 shows the first)\n")

    def test_a_hint_seen_for_one_list_is_not_shown_again(self):
        self.expect(["lab3"],
                    "lab3, hint 1 of 2 (for every part):\n  General one.\n"
                    "(1 more: run ./grade hint lab3 again)\n")
        self.expect(["lab3", "C"],
                    "lab3 C, hint 2 of 3:\n  For B and C.\n(1 more: run ./grade hint lab3 C again)\n")
        self.expect(["lab3", "B"],
                    "lab3 B, hint 2 of 4:\n  Only B, with `code` in it.\n"
                    "(1 more: run ./grade hint lab3 B again)\n")

    def test_without_part_the_hints_for_every_part(self):
        self.hint("lab3")
        self.expect(["lab3"],
                    "lab3, hint 2 of 2 (for every part):\n  General two.\n"
                    "(that was the last hint for lab3)\n")
        self.expect(["lab3"],
                    "no more hints for lab3: you have seen all 2\n"
                    "(./grade hint lab3 --list shows them again)\n"
                    "more hints, for one part: ./grade hint lab3 B (or C)\n")

    def test_a_lab_with_one_part(self):
        self.expect(["lab1"],
                    "lab1, hint 1 of 2:\n  Lab one, first.\n(1 more: run ./grade hint lab1 again)\n")
        self.expect(["lab1", "a"],
                    "lab1, hint 2 of 2:\n  Lab one, second.\n(that was the last hint for lab1)\n")
        self.expect(["lab1"],
                    "no more hints for lab1: you have seen all 2\n"
                    "(./grade hint lab1 --list shows them again)\n")

    def test_part_is_case_insensitive(self):
        self.expect(["lab3", "b"],
                    "lab3 B, hint 1 of 4:\n  General one.\n(3 more: run ./grade hint lab3 B again)\n")

    def test_unknown_lab_exits_2(self):
        self.expect(["lab9"], "", rc=2,
                    stderr="grade hint: unknown lab 'lab9'. The labs are: lab1 lab3\n")
        self.expect(["lab9", "A"], "", rc=2,
                    stderr="grade hint: unknown lab 'lab9'. The labs are: lab1 lab3\n")
        self.assertFalse(self.build.exists())

    def test_unknown_part_exits_2(self):
        self.expect(["lab3", "D"], "", rc=2,
                    stderr="grade hint: lab3 has no part 'D'. Its parts are: A B C\n")
        self.expect(["lab1", "B", "--list"], "", rc=2,
                    stderr="grade hint: lab1 has no part 'B'. Its parts are: A\n")
        self.assertFalse(self.build.exists())

    def test_no_lab_exits_2(self):
        r = self.hint()
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stdout, "")
        self.assertIn("grade hint: which lab? The labs are: lab1 lab3\n", r.stderr)

    def test_list_and_reset_together_exit_2(self):
        r = self.hint("lab3", "--list", "--reset")
        self.assertEqual(r.returncode, 2)
        self.assertIn("not allowed with argument", r.stderr)

    def test_a_broken_hint_file_exits_2(self):
        data = json.loads(json.dumps(FIXTURE["lab3"]))
        data["hints"][1]["for"] = ["D"]
        (self.hints_dir / "lab3.json").write_text(json.dumps(data))
        r = self.hint("lab3", "B")
        self.assertEqual(r.returncode, 2)
        self.assertIn("is not a valid hint file: hint 2 (\"b1\"): \"for\" must be", r.stderr)

    def test_a_damaged_record_starts_over(self):
        state = self.build / "hints" / "lab3.json"
        state.parent.mkdir(parents=True)
        state.write_text("{not json")
        r = self.hint("lab3", "B")
        self.assertEqual(r.returncode, 0)
        self.assertEqual(r.stdout,
                         "lab3 B, hint 1 of 4:\n  General one.\n(3 more: run ./grade hint lab3 B again)\n")
        self.assertIn("could not be read", r.stderr)
        self.assertEqual(json.loads(state.read_text())["seen"], ["g1"])

    def test_wrapping_keeps_code_spans_whole(self):
        text = ("Let thread `t` of block `b` read `in[2*b*blockDim.x + t]` and "
                "`in[2*b*blockDim.x + t + blockDim.x]`. Consecutive threads then read "
                "consecutive addresses in both loads, and " + "more words " * 10)
        lines = hints.wrap(text).split("\n")
        self.assertTrue(all(len(line) <= 80 and line.startswith("  ") for line in lines), lines)
        for line in lines:
            self.assertEqual(line.count("`") % 2, 0, line)
        self.assertEqual(" ".join(line.strip() for line in lines), " ".join(text.split()))


class GradeDispatch(unittest.TestCase):
    def test_grade_hint_uses_the_course_build_dir(self):
        tmp = Path(tempfile.mkdtemp(prefix="hints-grade-"))
        self.addCleanup(shutil.rmtree, tmp)
        build = tmp / "fresh-build"
        env = dict(os.environ, COURSE_BUILD_DIR=str(build))
        r = subprocess.run([str(ROOT / "grade"), "hint", "lab3", "B"], capture_output=True,
                           text=True, env=env, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        lab = hints.parse_lab(hints.hint_file("lab3"), "lab3")
        first = lab.hints_for("B")[0]
        self.assertEqual(r.stdout.split("\n")[0], f"lab3 B, hint 1 of {len(lab.hints_for('B'))}:")
        self.assertIn(hints.wrap(first[2]), r.stdout)
        self.assertEqual(json.loads((build / "hints" / "lab3.json").read_text())["seen"], [first[0]])
        r = subprocess.run([str(ROOT / "grade"), "hint", "lab99"], capture_output=True,
                           text=True, env=env, timeout=60)
        self.assertEqual(r.returncode, 2)


class HintFiles(unittest.TestCase):
    def test_every_lab_has_a_hint_file_that_parses(self):
        self.assertEqual(list(EXPECTED_PARTS)[:5], ["lab1", "lab2", "lab3", "lab4", "lab5"])
        self.assertEqual(hints.known_labs(), list(EXPECTED_PARTS))
        self.assertEqual(hints.hint_file("lab3"), ROOT / "labs" / "lab3_unrolled" / "hints.json")
        for lab in EXPECTED_PARTS:
            with self.subTest(lab=lab):
                parsed = hints.parse_lab(hints.hint_file(lab), lab)  # raises if invalid
                self.assertEqual(parsed.parts, EXPECTED_PARTS[lab])

    def test_every_part_has_a_hint(self):
        for lab, parts in EXPECTED_PARTS.items():
            parsed = hints.parse_lab(hints.hint_file(lab), lab)
            for part in parts:
                with self.subTest(lab=lab, part=part):
                    self.assertGreaterEqual(len(parsed.hints_for(part)), 1)
            self.assertGreaterEqual(len(parsed.hints_for(None)), 1, lab)

    def test_handouts_say_how_to_ask_and_no_longer_list_the_hints(self):
        for folder in sorted((ROOT / "labs").glob("lab*_*")):
            lab = folder.name.split("_")[0]
            with self.subTest(lab=lab):
                text = (folder / "README.md").read_text()
                section = text.split("\n## Hints\n", 1)[1].split("\n## ", 1)[0]
                self.assertIn(f"./grade hint {lab}", section)
                self.assertIsNone(re.search(r"^\d+\. ", section, re.M), "a numbered hint list is left")
                flat = " ".join(text.split())
                for hint in hints.parse_lab(hints.hint_file(lab), lab).hints:
                    self.assertNotIn(hint[2], flat, f"hint {hint[0]} is still in the handout")


if __name__ == "__main__":
    unittest.main(verbosity=2)
