"""Unit tests of grader/batch/gradebook.py and grader_command.py on literal reports: the row
takes the grader's verdict, speedups stay numbers, the CSV has one numeric column per part,
and the grader is told the student's files and a failed build explicitly."""
import csv
import json
import os
import sys
import tempfile
import unittest
from types import SimpleNamespace


from grader.batch import class_review
from grader.batch import gradebook
from grader.batch import grader_command


def part(pid, correctness="passed", timing="measured", speedup=0.0, target=0.0, faults=0):
    return {"id": pid, "correctness": {"status": correctness, "faults": faults},
            "timing": {"status": timing, "speedup": speedup, "target": target}}


def report(parts, score=100.0, max_score=100.0, summary="lab3: 100/100", **extra):
    r = {"parts": parts, "score": score, "max_score": max_score, "summary": summary, "infrastructure_error": "",
         "build": None, "passed": True, "exit_code": 0, "outcome": "graded"}
    r.update(extra)
    return r


TIMED = report([part("A", speedup=3.55, target=3.0), part("B", speedup=4.51, target=4.0),
                part("C", speedup=4.671, target=4.2)])


class RowTest(unittest.TestCase):
    def test_timed_row_keeps_numbers(self):
        r = gradebook.row_from_report("alice", "alice", TIMED)
        self.assertEqual(r["status"], "graded")
        self.assertEqual((r["score"], r["max_score"], r["correctness"]), (100.0, 100.0, "3/3 parts"))
        self.assertEqual(r["speedups"], {"A": 3.55, "B": 4.51, "C": 4.671})
        self.assertEqual(r["target"], 4.2)
        self.assertEqual(gradebook.headline_speedup(r), 4.671)

    def test_untimed_parts_are_none(self):
        rep = report([part("A", timing="not_measured"), part("B", "failed", "not_measured")], 30.0, 60.0)
        r = gradebook.row_from_report("bob", "bob", rep)
        self.assertEqual(r["speedups"], {"A": None, "B": None})
        self.assertIsNone(r["target"])
        self.assertIsNone(gradebook.headline_speedup(r))
        self.assertEqual(r["correctness"], "1/2 parts")

    def test_status_is_the_graders_outcome(self):
        # The grader decides (grader/core/lab_scoring.hpp, unit-tested there); the row
        # copies it, even where the parts alone would suggest something else.
        for outcome in ["graded", "timeout", "crashed", "compile_error", "rejected"]:
            rep = report([part("A"), part("B")], outcome=outcome)
            self.assertEqual(gradebook.status_from_report(rep), outcome)
            self.assertEqual(gradebook.row_from_report("s", "s", rep)["status"], outcome)

    def test_infrastructure_error_is_no_grade(self):
        r = gradebook.row_from_report("c", "c", report([], 0.0, 0.0, infrastructure_error="worker missing", outcome="crashed"))
        self.assertEqual((r["status"], r["score"], r["max_score"]), ("crashed", 0.0, 0.0))
        self.assertEqual(r["message"], "infrastructure: worker missing")


class ReasonTest(unittest.TestCase):
    """The reason column says what the report knows, where the summary says "not correct"."""

    def test_each_kind_of_failure_in_words(self):
        hang = part("A", "timed_out", "not_measured")
        oob = part("B", "failed", "not_measured")
        oob["correctness"]["failures"] = [{"fault": True, "input": "random", "size": "n=33",
                                           "detail": "kernel 'k': out-of-bounds write: index 40"}]
        wrong = part("C", "failed", "not_measured")
        wrong["correctness"]["failures"] = [{"fault": False, "input": "ones", "size": "n=257", "detail": "off by 1"}]
        rep = report([hang, oob, wrong], 0.0, summary="lab3: 0/100 (not correct: part A, part B, part C)")
        self.assertEqual(gradebook.row_from_report("s", "s", rep)["reason"],
                         "A: hang; B: out-of-bounds write; C: wrong result (ones input, n=257)")

    def test_failed_checks_and_a_missed_target(self):
        checked = part("A", speedup=3.0, target=3.0)
        checked["checks"] = [{"name": "no_divergence", "status": "failed"}, {"name": "races", "status": "passed"}]
        slow = part("B", speedup=1.0, target=3.0)
        slow["timing"]["credit"] = 0.0
        rep = report([checked, slow], 40.0, checks=[{"name": "no_libraries", "status": "failed"}])
        self.assertEqual(gradebook.row_from_report("s", "s", rep)["reason"],
                         "no_libraries failed; A: no_divergence failed; B: below the speed target")
        self.assertEqual(gradebook.row_from_report("alice", "alice", TIMED)["reason"], "")

    def test_rows_without_a_report_say_their_status(self):
        self.assertEqual(gradebook.row("x", "x", "rejected", message="refused")["reason"], "refused by the guard")
        self.assertEqual(gradebook.row("x", "x", "crashed", message="the grader exited")["reason"], "the grading crashed")


class WriteTest(unittest.TestCase):
    def test_csv_and_json(self):
        out = tempfile.mkdtemp()
        rows = [gradebook.row_from_report("alice", "alice", TIMED),
                gradebook.row("bob", "bob", "compile_error", message="kernels.cu does not compile:\n  x")]
        gradebook.write(out, rows)
        with open(os.path.join(out, "gradebook.csv")) as f:
            reader = csv.DictReader(f)
            self.assertEqual(reader.fieldnames, ["submission", "student_id", "full_name", "email", "lms_id", "status",
                                                 "score", "max_score", "final_score", "correctness", "speedup_A",
                                                 "speedup_B", "speedup_C", "target", "reason", "message",
                                                 "same_file_as", "copy_of_reference", "submitted_at", "late_days",
                                                 "late_penalty_pct", "other_entries", "sha256", "policy_sha256",
                                                 "backend", "graded_at"])
            alice, bob = list(reader)
        self.assertEqual([float(alice[f"speedup_{p}"]) for p in "ABC"], [3.55, 4.51, 4.671])
        self.assertEqual(float(alice["target"]), 4.2)
        self.assertEqual((bob["speedup_A"], bob["target"], bob["max_score"]), ("", "", "100.0"))
        self.assertEqual(bob["message"], "kernels.cu does not compile: x")
        self.assertEqual(bob["reason"], "does not compile")
        with open(os.path.join(out, "gradebook.json")) as f:
            alice, bob = json.load(f)
        self.assertEqual(alice["speedups"], {"A": 3.55, "B": 4.51, "C": 4.671})
        self.assertEqual((bob["speedups"], bob["target"], bob["max_score"]), ({}, None, 100.0))

    def test_summary_median_speedup(self):
        rows = [gradebook.row_from_report(n, n, report([part("A", speedup=s, target=2.0)])) for n, s in
                (("a", 1.0), ("b", 2.0), ("c", 4.0))]
        self.assertIn("median speedup vs naive (last part): 2.00x over 3 timed submission(s)",
                      gradebook.summary(rows))


class GraderCommandTest(unittest.TestCase):
    BUILT = SimpleNamespace(ok=True, log="", worker_dir="/s/bin", source="/s/lab3_unrolled/kernels.cu",
                            object="/s/lab3_student_emulated.cpp.o", timed_out=False, rejected=False)

    def test_graded_submission_names_its_files(self):
        cmd = grader_command.command("/b/grader", "lab3", self.BUILT, True, json_out="/o/report.json")
        self.assertEqual(cmd, ["/b/grader", "lab3", "--quiet", "--no-color", "--worker-dir", "/s/bin",
                               "--student-source", "/s/lab3_unrolled/kernels.cu", "--student-object",
                               "/s/lab3_student_emulated.cpp.o", "--emulate", "--json", "/o/report.json"])

    def test_failed_build_goes_to_the_grader(self):
        tmp = tempfile.mkdtemp()
        for rejected, kind in ((False, "compile_error"), (True, "rejected")):
            built = SimpleNamespace(**dict(vars(self.BUILT), ok=False, log="error: x", worker_dir="",
                                           rejected=rejected))
            path = os.path.join(tmp, "build_failure.json")
            grader_command.write_build_failure(path, built)
            with open(path) as f:
                self.assertEqual(json.load(f), {"kind": kind, "log": "error: x", "source": built.source})
            cmd = grader_command.command("/b/grader", "lab3", built, False, build_failure=path,
                                         gradescope="/o/results.json")
            self.assertEqual(cmd, ["/b/grader", "lab3", "--quiet", "--no-color", "--build-failure", path,
                                   "--gradescope", "/o/results.json"])


class ClassReviewTest(unittest.TestCase):
    def rows(self, **when):
        return [dict(gradebook.row(n, n, "graded", 60.0, 60.0), submitted_at=t, time_source="export")
                for n, t in when.items()]

    def test_late_curve(self):
        deadline = class_review.parse_deadline("2026-12-10T23:59:00-08:00")
        curve = class_review.parse_penalties("10,25,100")
        rows = class_review.review(self.rows(ontime="2026-12-11T07:59:00+00:00", hour="2026-12-11T09:00:00+00:00",
                                             two_days="2026-12-12T08:00:00+00:00", week="2026-12-18T00:00:00+00:00",
                                             unknown=""), {}, deadline=deadline, curve=curve)
        self.assertEqual({r["submission"]: (r["late_days"], r["late_penalty_pct"], r["final_score"]) for r in rows},
                         {"ontime": (0, 0.0, 60.0), "hour": (1, 10.0, 54.0), "two_days": (2, 25.0, 45.0),
                          "week": (7, 100.0, 0.0), "unknown": ("", "", 60.0)})
        grace = class_review.review(self.rows(hour="2026-12-11T09:00:00+00:00"), {}, deadline=deadline, curve=curve,
                                    grace_s=3600 * 2)
        self.assertEqual(grace[0]["final_score"], 60.0)
        # A file's modification time counts only when the instructor says it can be trusted.
        mtime = [dict(self.rows(hour="2026-12-11T09:00:00+00:00")[0], time_source="file")]
        self.assertEqual(class_review.review(mtime, {}, deadline=deadline, curve=curve)[0]["final_score"], 60.0)
        self.assertEqual(class_review.review(mtime, {}, deadline=deadline, curve=curve,
                                             times_from_files=True)[0]["final_score"], 54.0)

    def test_bad_late_options(self):
        with self.assertRaisesRegex(ValueError, "--deadline 'friday' is not a date"):
            class_review.parse_deadline("friday")
        for bad in ("", "ten", "50,10", "120"):
            with self.assertRaisesRegex(ValueError, "never decrease"):
                class_review.parse_penalties(bad)
        self.assertEqual(class_review.parse_penalties("100"), [100.0])

    def test_copies(self):
        ref = "__global__ void k() { /* the reference */ }\n"
        stub = "// TODO(lab1): write it\n__global__ void k() { return; }\n"
        texts = {"a": ref, "b": "__global__  void k()\n{ // mine\n}\n", "c": "int other;\n", "d": stub, "e": stub}
        rows = class_review.review(self.rows(a="", b="", c="", d="", e=""), texts, reference_texts=[ref],
                                   stub_texts=[stub])
        self.assertEqual({r["submission"]: (r["same_file_as"], r["copy_of_reference"]) for r in rows},
                         {"a": ("b", "identical"), "b": ("a", "identical but for comments and spacing"),
                          "c": ("", ""), "d": ("", ""), "e": ("", "")})


if __name__ == "__main__":
    unittest.main()
