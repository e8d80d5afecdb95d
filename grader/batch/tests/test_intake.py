"""Unit tests of grader/batch/intake.py: where the lab file may be, and what is rejected."""
import io
import os
import sys
import tarfile
import tempfile
import unittest
import zipfile


from grader.batch import intake
from grader.batch import roster

LAB = "lab3_unrolled"


class IntakeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def zip_with(self, members):
        path = os.path.join(self.dir, "s.zip")
        with zipfile.ZipFile(path, "w") as z:
            for name, data in members.items():
                z.writestr(name, data)
        return intake.Submission("s.zip", path, "zip", "s")

    def test_candidate_places(self):
        for name in ("kernels.cu", f"{LAB}/kernels.cu", f"labs/{LAB}/kernels.cu", f"bob/{LAB}/kernels.cu",
                     "home/bob/cuda/kernels.cu"):
            inner, data = intake.student_file(self.zip_with({name: "// ok\n", "report.pdf": "%PDF"}), LAB)
            self.assertEqual((inner, data), (name, b"// ok\n"))

    def test_ambiguous_and_missing(self):
        with self.assertRaisesRegex(intake.InvalidSubmission, "more than one kernels.cu"):
            intake.student_file(self.zip_with({"kernels.cu": "a", f"{LAB}/kernels.cu": "b"}), LAB)
        with self.assertRaisesRegex(intake.InvalidSubmission, "more than one kernels.cu .*a/kernels.cu, b/kernels.cu"):
            intake.student_file(self.zip_with({"a/kernels.cu": "a", "b/kernels.cu": "b"}), LAB)
        # The whole repository handed in: the lab's own file is the one.
        inner, _ = intake.student_file(self.zip_with({f"repo/labs/{LAB}/kernels.cu": "a",
                                                      "repo/labs/lab1_divergent/kernels.cu": "b"}), LAB)
        self.assertEqual(inner, f"repo/labs/{LAB}/kernels.cu")
        with self.assertRaisesRegex(intake.InvalidSubmission, "no kernels.cu for lab3_unrolled anywhere .*found: main.cu"):
            intake.student_file(self.zip_with({"main.cu": "a"}), LAB)

    def test_other_labs_and_old_copies(self):
        self.assertEqual(intake.student_file(self.zip_with({f"{LAB}/kernels.cu": "a", "lab2_interleaved/kernels.cu": "b"}),
                                             LAB)[0], f"{LAB}/kernels.cu")
        self.assertEqual(intake.student_file(self.zip_with({"kernels.cu": "a", "old/kernels.cu": "b"}), LAB)[0],
                         "kernels.cu")
        self.assertEqual(intake.student_file(self.zip_with({"Kernels.CU": "a"}), LAB)[0], "Kernels.CU")
        with self.assertRaisesRegex(intake.InvalidSubmission, "no kernels.cu for lab3_unrolled anywhere"):
            intake.student_file(self.zip_with({"labs/lab2_interleaved/kernels.cu": "b"}), LAB)

    def test_encodings_become_utf8(self):
        text = "// R\u00e9duction, \u00a9 Ren\u00e9e\nint x;\n"
        for raw in (text.encode("utf-8"), b"\xef\xbb\xbf" + text.encode("utf-8"), text.encode("cp1252"),
                    text.encode("latin-1"), text.encode("utf-16"), text.encode("utf-32")):
            _, data = intake.student_file(self.zip_with({"kernels.cu": raw}), LAB)
            self.assertEqual(data.decode("utf-8"), text)

    def test_hostile_members(self):
        with self.assertRaisesRegex(intake.InvalidSubmission, "climbs out"):
            intake.student_file(self.zip_with({"kernels.cu": "a", "x/../../etc/passwd": "b"}), LAB)
        with self.assertRaisesRegex(intake.InvalidSubmission, "absolute path"):
            intake.student_file(self.zip_with({"/etc/kernels.cu": "a"}), LAB)
        with self.assertRaisesRegex(intake.InvalidSubmission, "not a text file"):
            intake.student_file(self.zip_with({"kernels.cu": b"\x00\x01"}), LAB)
        with self.assertRaisesRegex(intake.InvalidSubmission, "must be under"):
            intake.student_file(self.zip_with({"kernels.cu": "x" * (intake.MAX_STUDENT_FILE + 1)}), LAB)

    def test_tar_links_are_rejected(self):
        path = os.path.join(self.dir, "s.tar.gz")
        with tarfile.open(path, "w:gz") as t:
            link = tarfile.TarInfo("kernels.cu")
            link.type = tarfile.SYMTYPE
            link.linkname = "/etc/passwd"
            t.addfile(link)
        with self.assertRaisesRegex(intake.InvalidSubmission, "is a link"):
            intake.student_file(intake.Submission("s.tar.gz", path, "tar", "s"), LAB)

    def touch(self, name, mtime=None, text=""):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        if mtime is not None:
            os.utime(path, (mtime, mtime))

    def test_discover_and_the_newest_entry(self):
        os.makedirs(os.path.join(self.dir, "ann"))
        os.utime(os.path.join(self.dir, "ann"), (1000, 1000))
        self.touch("ann.zip", 2000)
        self.touch("bob.tar.gz")
        self.touch("cat.cu")
        self.touch("notes.pdf")
        self.touch(".DS_Store")
        subs = intake.discover(self.dir)
        self.assertEqual([(s.name, s.kind, s.student_id) for s in subs],
                         [("ann", "dir", "ann"), ("ann.zip", "zip", "ann"), ("bob.tar.gz", "tar", "bob"),
                          ("cat.cu", "file", "cat"), ("notes.pdf", "other", "notes")])
        chosen = roster.newest_per_student(subs)
        self.assertEqual([(s.name, s.other_entries) for s in chosen],
                         [("ann.zip", "ann"), ("bob.tar.gz", ""), ("cat.cu", ""), ("notes.pdf", "")])
        self.assertEqual(chosen[0].identity()["submitted_at"], "1970-01-01T00:33:20+00:00")
        with self.assertRaisesRegex(intake.InvalidSubmission, "neither a folder, .* nor a .cu file"):
            intake.student_file(subs[4], LAB)

    def test_canvas_downloads(self):
        self.touch("smithjane_12345_67890_kernels.cu", 5000, "// first\n")
        self.touch("smithjane_LATE_12345_67999_kernels-1.cu", 100, "// second\n")
        self.touch("doejohn_222_70000_lab3.zip")
        self.touch("doejohn_222_70001_report.pdf")  # uploaded after the zip: not a lab file
        self.touch("leeann_333_70002_my_late_fix.cu")
        subs = roster.newest_per_student(intake.discover(self.dir))
        self.assertEqual([(s.name, s.student_id, s.lms_id, s.late_marked, s.other_entries) for s in subs],
                         [("doejohn_222_70000_lab3.zip", "doejohn", "222", False, "doejohn_222_70001_report.pdf"),
                          ("leeann_333_70002_my_late_fix.cu", "leeann", "333", False, ""),
                          ("smithjane_LATE_12345_67999_kernels-1.cu", "smithjane", "12345", True,
                           "smithjane_12345_67890_kernels.cu")])
        self.assertEqual(intake.student_file(subs[2], LAB), ("smithjane_LATE_12345_67999_kernels-1.cu",
                                                             b"// second\n"))

    def test_gradescope_export(self):
        self.touch(roster.GRADESCOPE_METADATA, text=GRADESCOPE_YML)
        for folder in ("submission_111", "submission_222", "submission_333"):
            os.makedirs(os.path.join(self.dir, folder))
        subs = roster.newest_per_student(intake.discover(self.dir))
        self.assertEqual([(s.name, s.student_id, s.full_name, s.email, s.lms_id) for s in subs],
                         [("submission_111", "ann@uni.edu", "Ann O'Neil", "ann@uni.edu", "1001"),
                          ("submission_222", "bo@uni.edu+cy@uni.edu", "Bo Li; Cy Ng", "bo@uni.edu; cy@uni.edu",
                           "1002; 1003"),
                          ("submission_333", "submission_333", "", "", "")])
        self.assertEqual((subs[0].identity()["submitted_at"], subs[0].time_source), ("2026-11-20T18:00:05+00:00", "export"))
        self.assertEqual([roster.matches(subs[1], n) for n in ("cy@uni.edu", "bo@uni.edu+cy@uni.edu", "submission_222",
                                                                "ann@uni.edu")], [True, True, True, False])


# As Gradescope's "Export Submissions" writes it (the keys the course reads, and others).
GRADESCOPE_YML = """submission_111:
  :submitters:
  - :name: Ann O'Neil
    :sid: '1001'
    :email: ann@uni.edu
  :created_at: 2026-11-20 10:00:05.123456000 -08:00
  :score: 60.0
  :history:
  - :id: 9
    :created_at: 2026-11-19 09:00:00.000000000 -08:00
submission_222:
  :submitters:
  - :name: Bo Li
    :sid: '1002'
    :email: bo@uni.edu
  - :name: Cy Ng
    :sid: "1003"
    :email: cy@uni.edu
  :created_at: 2026-11-21 10:00:00.000000000 +00:00
"""


if __name__ == "__main__":
    unittest.main()
