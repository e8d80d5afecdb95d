"""Tests of scripts/cite_figures.py: a small fixture, then the repository's own README and handouts."""
import io
import json
import os
import re
import sys
import tempfile
import unittest


from scripts import cite_figures


def bench(group, key, size, us, nbytes, unit="us"):
    """One median aggregate (and a mean that must be ignored) in Google Benchmark's format."""
    run = f"{group}/{key}/{size}/iterations:1/repeats:21/manual_time"
    t = us / 1e3 if unit == "ms" else us
    return [{"name": run + "_median", "run_name": run, "aggregate_name": "median", "real_time": t,
             "time_unit": unit, "bytes_per_second": nbytes / (us * 1e-6)},
            {"name": run + "_mean", "run_name": run, "aggregate_name": "mean", "real_time": 1e9,
             "time_unit": unit, "bytes_per_second": 1.0}]


def fixture():
    n25, n28 = 1 << 25, 1 << 28
    b = []
    b += bench("reduce", "lab1.A", n25, 320.0, 4 * n25)
    b += bench("reduce", "lab3.B", n25, 80.0, 4 * n25)
    b += bench("reduce", "lab4.B", n25, 50.0, 4 * n25, unit="ms")  # stored in ms: 0.05
    b += bench("reduce", "cub", n25, 51.0, 4 * n25)
    b += bench("reduce", "lab1.A", n28, 2600.0, 4 * n28)
    b += bench("reduce", "lab4.B", n28, 250.0, 4 * n28)
    b += bench("records", "lab5.A.unpadded", 1 << 24, 840.0, 32 * (1 << 24))
    b += bench("records", "lab5.A", 1 << 24, 525.0, 32 * (1 << 24))
    b += bench("transpose", "transpose_naive", 8192, 1000.0, 8 * 8192 * 8192)
    b += bench("transpose", "lab5.B.unpadded", 8192, 300.0, 8 * 8192 * 8192)
    b += bench("transpose", "lab5.B", 8192, 140.0, 8 * 8192 * 8192)
    b += bench("transpose", "memcpy", 8192, 130.0, 8 * 8192 * 8192)
    return {"context": {"device": "Test GPU"}, "benchmarks": b}


HANDOUT = """# A handout

Part B takes <!-- fig lab3.B ms -->0.081<!-- /fig --> ms (<!-- fig lab3.B x -->4.00<!-- /fig -->x naive).

| n | time |
|---|---|
| 2^28 | <!-- fig lab4.B@2^28 us -->250.0<!-- /fig --> us, <!-- fig lab4.B@2^28 gbps -->4000<!-- /fig --> GB/s |

Target: about <!-- fig lab3.B x *0.85 -->3.50<!-- /fig -->x. Unmarked: 4.54x stays.
"""

FIXED = """# A handout

Part B takes <!-- fig lab3.B ms -->0.080<!-- /fig --> ms (<!-- fig lab3.B x -->4.00<!-- /fig -->x naive).

| n | time |
|---|---|
| 2^28 | <!-- fig lab4.B@2^28 us -->250.0<!-- /fig --> us, <!-- fig lab4.B@2^28 gbps -->4295<!-- /fig --> GB/s |

Target: about <!-- fig lab3.B x *0.85 -->3.40<!-- /fig -->x. Unmarked: 4.54x stays.
"""


class RenderTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.json = os.path.join(self.dir, "test-gpu.json")
        with open(self.json, "w") as f:
            json.dump(fixture(), f)
        self.results = cite_figures.load_results(self.json)

    def test_loads_medians_only_and_converts_units(self):
        self.assertEqual(len(self.results), 12)
        self.assertAlmostEqual(self.results[("lab4.B", 1 << 25)]["us"], 50.0)
        self.assertEqual(self.results[("lab5.B", 8192)]["group"], "transpose")

    def test_fields(self):
        r = self.results
        self.assertEqual(cite_figures.render("lab3.B us", r), "80.0")
        self.assertEqual(cite_figures.render("lab3.B ms", r), "0.080")
        self.assertEqual(cite_figures.render("lab3.B gbps", r), "1678")
        self.assertEqual(cite_figures.render("lab3.B x", r), "4.00")
        self.assertEqual(cite_figures.render("lab4.B x", r), "6.40")
        self.assertEqual(cite_figures.render("lab1.A x", r), "1.00")

    def test_sizes_default_to_the_graded_one(self):
        r = self.results
        self.assertEqual(cite_figures.render("lab4.B@2^28 x", r), "10.40")
        self.assertEqual(cite_figures.render("lab4.B@268435456 ms", r), "0.250")
        self.assertEqual(cite_figures.render("lab5.A x", r), "1.60")            # over lab5.A.unpadded, 2^24
        self.assertEqual(cite_figures.render("lab5.B x", r), "7.14")            # over transpose_naive, 8192
        self.assertEqual(cite_figures.render("memcpy@8192 us", r), "130.0")

    def test_over_pct_factor_and_decimals(self):
        r = self.results
        self.assertEqual(cite_figures.render("lab5.B over lab5.B.unpadded", r), "2.14")
        self.assertEqual(cite_figures.render("lab5.B pct memcpy", r), "92.9")
        self.assertEqual(cite_figures.render("lab4.B pct cub", r), "102.0")
        self.assertEqual(cite_figures.render("lab4.B@2^28 over lab1.A", r), "10.40")  # OTHER at BENCH's size
        self.assertEqual(cite_figures.render("lab3.B x *0.85", r), "3.40")
        self.assertEqual(cite_figures.render("lab5.A x .3f", r), "1.600")
        self.assertEqual(cite_figures.render("lab4.B x *0.85 .1f", r), "5.4")

    def test_policy_factors_are_the_labs_policy(self):
        r = self.results
        # The default policy's lab_defaults: threshold_fraction 0.85, floor_fraction 0.5.
        self.assertEqual(cite_figures.render("lab3.B x *threshold", r), "3.40")
        self.assertEqual(cite_figures.render("lab3.B x *threshold *floor", r), "1.70")
        with self.assertRaisesRegex(cite_figures.SpecError, "no lab's benchmark, so it has no threshold_fraction"):
            cite_figures.render("cub us *threshold", r)

    def test_unknown_names_are_errors(self):
        r = self.results
        for spec in ("lab9.A x", "lab3.B@2^20 x", "lab3.B speed", "lab3.B", "lab5.B over", "lab3.B x *two",
                     "lab3.B x extra", "lab3.B@2^x us"):
            with self.assertRaises(cite_figures.SpecError, msg=spec):
                cite_figures.render(spec, r)

    def test_scan_reports_lines_and_disagreements(self):
        figures, errors = cite_figures.scan(HANDOUT, self.results)
        self.assertEqual(errors, [])
        self.assertEqual([f for f in figures if f[2] != f[3]], [
            (3, "lab3.B ms", "0.081", "0.080"),
            (7, "lab4.B@2^28 gbps", "4000", "4295"),
            (9, "lab3.B x *0.85", "3.50", "3.40"),
        ])
        self.assertEqual(len(figures), 5)

    def test_fix_rewrites_only_the_marked_figures(self):
        self.assertEqual(cite_figures.fix_text(HANDOUT, self.results), FIXED)
        self.assertEqual(cite_figures.fix_text(FIXED, self.results), FIXED)

    def test_malformed_and_unknown_markers(self):
        text = ("a <!-- fig lab3.B x -->4.00\nb<!-- /fig -->\n"
                "c <!-- fig lab7.B x -->1.00<!-- /fig -->\n")
        figures, errors = cite_figures.scan(text, self.results)
        self.assertEqual(figures, [])
        self.assertEqual([line for line, _ in errors], [1, 3])
        self.assertIn("malformed", errors[0][1])
        self.assertIn("no benchmark 'lab7.B'", errors[1][1])
        self.assertEqual(cite_figures.fix_text(text, self.results), text)

    def test_main_checks_then_fixes(self):
        path = os.path.join(self.dir, "README.md")
        with open(path, "w") as f:
            f.write(HANDOUT)
        out = io.StringIO()
        self.assertEqual(cite_figures.main(["--json", self.json, path], root=self.dir, out=out), 1)
        self.assertIn("README.md:3: fig lab3.B ms: cites 0.081, the JSON gives 0.080", out.getvalue())
        self.assertIn("3 of 5 cited figures disagree", out.getvalue())
        with open(path) as f:
            self.assertEqual(f.read(), HANDOUT)  # a check writes nothing

        out = io.StringIO()
        self.assertEqual(cite_figures.main(["--json", self.json, "--fix", path], root=self.dir, out=out), 0)
        with open(path) as f:
            self.assertEqual(f.read(), FIXED)
        out = io.StringIO()
        self.assertEqual(cite_figures.main(["--json", self.json, path], root=self.dir, out=out), 0)
        self.assertIn("5 cited figures in 1 files agree", out.getvalue())

    def test_main_exit_2_on_bad_markers_or_json(self):
        path = os.path.join(self.dir, "bad.md")
        with open(path, "w") as f:
            f.write("<!-- fig nothing x -->1<!-- /fig -->\n")
        self.assertEqual(cite_figures.main(["--json", self.json, path], root=self.dir, out=io.StringIO()), 2)
        self.assertEqual(cite_figures.main(["--json", os.path.join(self.dir, "missing.json"), path],
                                           root=self.dir, out=io.StringIO()), 2)


class RepositoryFiguresTest(unittest.TestCase):
    """The README and the handouts must cite bench/results/nvidia-h200.json as it is."""

    def test_readme_and_handouts_agree_with_the_benchmark(self):
        out = io.StringIO()
        rc = cite_figures.main([], out=out)
        self.assertEqual(rc, 0, "\n" + out.getvalue())

    def test_the_lab_table_and_every_handout_cite_through_markers(self):
        root = cite_figures.ROOT
        with open(os.path.join(root, "README.md")) as f:
            readme = f.read()
        table = [line for line in readme.splitlines() if re.match(r"\| lab\d \|", line)]
        self.assertEqual(len(table), 5)
        for line in table:
            # The last column's figures are all marked: none left bare.
            last = line.rstrip(" |").rsplit("|", 1)[1]
            bare = re.sub(cite_figures.MARK, "", last)
            self.assertNotRegex(bare, r"\d\.\d", line)
        specs = {m.group("spec") for m in cite_figures.MARK.finditer(readme)}
        for part in ("lab1.A", "lab2.A", "lab2.B", "lab3.A", "lab3.B", "lab3.C", "lab4.A", "lab4.B", "lab5.A"):
            self.assertIn(f"{part} x", specs)
        self.assertIn("lab5.B over lab5.B.unpadded", specs)
        for lab in ("lab1_divergent", "lab2_interleaved", "lab3_unrolled", "lab4_shuffle", "lab5_padding"):
            with open(os.path.join(root, "labs", lab, "README.md")) as f:
                self.assertTrue(cite_figures.MARK.search(f.read()), lab)


if __name__ == "__main__":
    unittest.main()
