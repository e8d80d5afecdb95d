"""Unit tests of grader/batch/intake.py: where the lab file may be, and what is rejected."""
import io
import os
import sys
import tarfile
import tempfile
import unittest
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import intake  # noqa: E402

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
        for name in ("kernels.cu", f"{LAB}/kernels.cu", f"labs/{LAB}/kernels.cu", f"bob/{LAB}/kernels.cu"):
            inner, data = intake.student_file(self.zip_with({name: "// ok\n"}), LAB)
            self.assertEqual((inner, data), (name, b"// ok\n"))

    def test_ambiguous_and_missing(self):
        with self.assertRaisesRegex(intake.InvalidSubmission, "more than one kernels.cu"):
            intake.student_file(self.zip_with({"kernels.cu": "a", f"{LAB}/kernels.cu": "b"}), LAB)
        with self.assertRaisesRegex(intake.InvalidSubmission, "no kernels.cu for lab3_unrolled .*found: main.cu"):
            intake.student_file(self.zip_with({"main.cu": "a"}), LAB)

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

    def test_discover_and_duplicates(self):
        os.makedirs(os.path.join(self.dir, "ann"))
        open(os.path.join(self.dir, "ann.zip"), "w").close()
        open(os.path.join(self.dir, "bob.tar.gz"), "w").close()
        open(os.path.join(self.dir, "notes.pdf"), "w").close()
        open(os.path.join(self.dir, ".DS_Store"), "w").close()
        subs = intake.discover(self.dir)
        self.assertEqual([(s.name, s.kind, s.student_id) for s in subs],
                         [("ann", "dir", "ann"), ("ann.zip", "zip", "ann"), ("bob.tar.gz", "tar", "bob"),
                          ("notes.pdf", "other", "notes")])
        self.assertEqual(intake.duplicates(subs), {"ann.zip": "ann"})
        with self.assertRaisesRegex(intake.InvalidSubmission, "neither a folder nor"):
            intake.student_file(subs[3], LAB)


if __name__ == "__main__":
    unittest.main()
