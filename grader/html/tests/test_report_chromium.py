"""The HTML report as a browser draws it: every lab's page, for a passing submission (the
reference) and a failing one, is opened in headless Chromium. The DOM Chromium built must
hold each part's verdicts and, where the part ran correctly, its pictures; a screenshot of
the page must not be blank.

Run by ctest with the build folder (the repository root on PYTHONPATH, as CMake's COURSE_PYTHON puts it): python3 test_report_chromium.py BUILD_DIR. Exit 77
(ctest: skipped) when no Chromium is installed (scripts/install_deps.sh --instructor
installs Debian's).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import matplotlib

matplotlib.use("Agg")
import matplotlib.image  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
from grader.html.tests.test_report_page import BUILD, ROOT, Dom, grade, report_page

SKIPPED = 77
BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
FOLDERS = {"lab1": "lab1_divergent", "lab2": "lab2_interleaved", "lab3": "lab3_unrolled", "lab4": "lab4_shuffle",
           "lab5": "lab5_padding"}
# A failing submission per lab, the source it was built from, and what each part must show:
# (correctness verdict, the check that failed or None, whether it has pictures). The stub
# never ran right, so it has no counters to draw; lab 3's racy tail is wrong, and its
# traced cases still drew it.
FAILING = {
    "lab1": ("selfcheck/stub", "labs/lab1_divergent/kernels.cu", {"A": ("failed", None, False)}),
    "lab2": ("testsub/lab1_as_lab2", "grader/tests/submissions/lab1_as_lab2/lab2_interleaved/kernels.cu",
             {"A": ("passed", "no_divergence", True), "B": ("passed", "no_divergence", True)}),
    "lab3": ("testsub/racy_tail", "grader/tests/submissions/racy_tail/lab3_unrolled/kernels.cu",
             {"A": ("passed", None, True), "B": ("failed", "races", True), "C": ("passed", None, True)}),
    "lab4": ("testsub/shared_tree", "grader/tests/submissions/shared_tree/lab4_shuffle/kernels.cu",
             {"A": ("passed", "uses_shuffle", True), "B": ("passed", "uses_shuffle", True)}),
    "lab5": ("testsub/unpadded", "common/baselines/lab5_unpadded.cu",
             {"A": ("passed", "bank_wavefronts", True), "B": ("passed", "bank_wavefronts", True)}),
}
PARTS = {lab: sorted(expect) for lab, (_, _, expect) in FAILING.items()}


def chromium(args, page):
    """Chromium's headless output for a page file; a fresh profile, no network."""
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    try:
        run = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                              f"--user-data-dir={profile}", "--proxy-server=127.0.0.1:9", *args,
                              "file://" + page], capture_output=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return run


class ChromiumPage(unittest.TestCase):
    def render(self, lab, worker_dir, source):
        report = grade(lab, os.path.join(BUILD, worker_dir))
        folder = tempfile.mkdtemp(prefix=f"report-{lab}-")
        path = os.path.join(folder, "report.html")
        self.assertTrue(report_page.write_beside(report, path, os.path.join(ROOT, source)))
        dom_run = chromium(["--dump-dom"], path)
        self.assertEqual(dom_run.returncode, 0, dom_run.stderr.decode(errors="replace")[-2000:])
        dom = Dom()
        dom.feed(dom_run.stdout.decode("utf-8"))
        shot = os.path.join(folder, "shot.png")
        shot_run = chromium([f"--screenshot={shot}", "--window-size=1200,1600", "--hide-scrollbars"], path)
        self.assertEqual(shot_run.returncode, 0, shot_run.stderr.decode(errors="replace")[-2000:])
        pixels = matplotlib.image.imread(shot)[:, :, :3]
        # Not blank: a page of text, tables and pictures leaves well over 1% of its pixels
        # off white, and in more than one colour.
        marked = (pixels.sum(axis=2) < 2.9).mean()
        self.assertGreater(marked, 0.01, f"{lab}: {marked:.4f} of the screenshot is not white")
        self.assertGreater(len({tuple(p) for p in pixels.reshape(-1, 3)[::97].round(2).tolist()}), 8)
        return dom

    def check_parts(self, lab, dom, expect):
        self.assertEqual(dom.parts, PARTS[lab])
        for part, (correctness, failed_check, pictures) in expect.items():
            self.assertIn((part, "correctness", correctness), dom.verdicts, f"{lab} {part}")
            if failed_check:
                self.assertIn((part, failed_check, "failed"), dom.verdicts, f"{lab} {part}")
            drawn = [kind for p, kind in dom.pictures if p == part]
            if pictures:
                self.assertTrue(drawn, f"{lab} {part}: no pictures")
            else:
                self.assertEqual(drawn, [], f"{lab} {part}")

    def test_every_lab_passing_and_failing(self):
        for lab, folder in FOLDERS.items():
            with self.subTest(lab=lab, submission="reference"):
                dom = self.render(lab, "selfcheck/solution", f"solutions/{folder}/kernels.cu")
                self.check_parts(lab, dom, {p: ("passed", None, True) for p in PARTS[lab]})
                self.assertEqual(dom.rects["on"] + dom.rects["hit"] + dom.rects["sector"] > 0, True)
            with self.subTest(lab=lab, submission="failing"):
                worker_dir, source, expect = FAILING[lab]
                dom = self.render(lab, worker_dir, source)
                self.check_parts(lab, dom, expect)


if __name__ == "__main__":
    if BROWSER is None:
        print("skipped: no Chromium (scripts/install_deps.sh --instructor installs it)")
        sys.exit(SKIPPED)
    unittest.main(argv=[sys.argv[0], "-v"])
