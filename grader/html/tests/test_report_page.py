"""The HTML report (grader/html/report_page.py) of real emulated grades: lab 1's and lab 5's
reference (every picture of the student's own kernel, each beside the reference's), lab 5's
unpadded tile (its conflicts beside the padded tile's), the untouched lab 1 stub (a failing
part, no pictures), and a hostile source file (shown as text, never as markup).

Run by ctest with the build folder (the repository root on PYTHONPATH, as CMake's COURSE_PYTHON puts it): python3 test_report_page.py BUILD_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from html.parser import HTMLParser

from grader.html import report_page

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")


class Dom(HTMLParser):
    """The elements a reader checks: parts, verdicts, pictures, tags seen."""

    def __init__(self):
        super().__init__()
        self.parts, self.verdicts, self.pictures, self.tags = [], [], [], set()
        self.reference_pictures, self.captions = [], []
        # The cells drawn in the student's pictures and in the reference's beside them.
        self.rects = {"hit": 0, "on": 0, "sector": 0}
        self.reference_rects = {"hit": 0, "on": 0, "sector": 0}
        self._verdict, self._figure, self._caption = None, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if tag == "section" and "data-part" in a:
            self.parts.append(a["data-part"])
        if tag == "figure":
            self._figure = a.get("data-version")
            mine = self._figure == "student"
            (self.pictures if mine else self.reference_pictures).append((self.parts[-1], a.get("data-kind")))
        if tag == "figcaption":
            self._caption = ""
        if tag == "span" and "data-check" in a:
            self._verdict = (self.parts[-1] if self.parts else "", a["data-check"])
        if tag == "rect" and a.get("class") in self.rects:
            (self.rects if self._figure == "student" else self.reference_rects)[a["class"]] += 1

    def handle_endtag(self, tag):
        if tag == "figure":
            self._figure = None
        if tag == "figcaption" and self._caption is not None:
            self.captions.append((self.parts[-1], self._caption))
            self._caption = None

    def handle_data(self, data):
        if self._caption is not None:
            self._caption += data
        if self._verdict is not None:
            self.verdicts.append(self._verdict + (data,))
            self._verdict = None


def grade(lab, worker_dir):
    out = os.path.join(tempfile.mkdtemp(), "report.json")
    subprocess.run([os.path.join(BUILD, "bin", "grader"), lab, "--worker-dir", worker_dir, "--emulate", "--seed", "1",
                    "--quiet", "--json", out, "--course-root", ROOT], stdout=subprocess.DEVNULL, check=False)
    with open(out) as f:
        return json.load(f)


def page(report, source):
    dom = Dom()
    text = report_page.render(report, report_page.read_source(source))
    dom.feed(text)
    return dom, text


class ReportPage(unittest.TestCase):
    def test_reference_lab1(self):
        rep = grade("lab1", os.path.join(BUILD, "selfcheck", "solution"))
        dom, text = page(rep, os.path.join(ROOT, "solutions", "lab1_divergent", "kernels.cu"))
        self.assertEqual(dom.parts, ["A"])
        self.assertIn(("A", "correctness", "passed"), dom.verdicts)
        self.assertIn(("A", "races", "passed"), dom.verdicts)
        self.assertEqual(sorted(k for _, k in dom.pictures), ["banks", "lanes", "sectors"])
        self.assertEqual(dom.reference_pictures, dom.pictures)
        # The tree's costliest line, its first request: the even lanes of stride 1, a bank each.
        self.assertEqual(dom.rects["hit"], 16)
        self.assertGreater(dom.rects["on"], 0)
        self.assertGreater(dom.rects["sector"], 0)
        self.assertIn("wavefronts (ideal", text)  # a counted line's note
        self.assertIn("On the ladder, from your counters: behaves like interleaved addressing with a divergent "
                      "branch (lab 1); next: give each step&#x27;s working threads contiguous indices (lab 2 A).", text)
        self.assertNotIn("<script", text)

    def test_reference_lab5(self):
        rep = grade("lab5", os.path.join(BUILD, "selfcheck", "solution"))
        dom, _ = page(rep, os.path.join(ROOT, "solutions", "lab5_padding", "kernels.cu"))
        self.assertEqual(dom.parts, ["A", "B"])
        self.assertIn(("B", "correctness", "passed"), dom.verdicts)
        self.assertIn(("B", "banks"), dom.pictures)

    def test_unpadded_tile_beside_the_reference(self):
        # Where the kernel loses and what the reference does instead: the unpadded tile's
        # column read, 32 lanes on one bank, beside the [32][33] tile's one wavefront.
        rep = grade("lab5", os.path.join(BUILD, "testsub", "unpadded"))
        dom, _ = page(rep, os.path.join(ROOT, "common", "baselines", "lab5_unpadded.cu"))
        self.assertEqual(dom.reference_pictures, dom.pictures)
        banks = [c for p, c in dom.captions if p == "B" and "shared-memory request" in c]
        self.assertEqual(len(banks), 2)
        self.assertTrue(banks[0].startswith("Your kernel: "), banks[0])
        self.assertIn("(red: 32 wavefronts for this request)", banks[0])
        self.assertTrue(banks[1].startswith("The reference: "), banks[1])
        self.assertIn("at a line of its kernel", banks[1])  # the reference's source is never placed
        self.assertIn("(red: 1 wavefront for this request)", banks[1])

    def test_stub_fails_without_pictures(self):
        rep = grade("lab1", os.path.join(BUILD, "selfcheck", "stub"))
        dom, text = page(rep, os.path.join(ROOT, "labs", "lab1_divergent", "kernels.cu"))
        self.assertIn(("A", "correctness", "failed"), dom.verdicts)
        self.assertEqual(dom.pictures, [])
        self.assertEqual(dom.reference_pictures, [])
        self.assertIn('id="outcome">failed', text)
        self.assertIn("TODO(lab1)", text)  # the student's own source is on the page

    def test_hostile_source_is_text(self):
        rep = grade("lab1", os.path.join(BUILD, "selfcheck", "stub"))
        with tempfile.NamedTemporaryFile("w", suffix=".cu", delete=False) as f:
            f.write('// </pre><script>alert(1)</script><img src=x onerror=alert(2)>\n')
        dom, text = page(rep, f.name)
        self.assertNotIn("script", dom.tags)
        self.assertNotIn("img", dom.tags)
        self.assertIn("&lt;script&gt;", text)

    def test_unreadable_source(self):
        rep = grade("lab1", os.path.join(BUILD, "selfcheck", "stub"))
        _, text = page(rep, "/nonexistent/kernels.cu")
        self.assertIn("The source file could not be read.", text)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
