"""Tests of scripts/plot_results.py on a small Google Benchmark JSON the test writes itself."""
import json
import os
import sys
import tempfile
import unittest


from scripts import plot_results

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def fixture():
    """Median aggregates in Google Benchmark's format, with made-up but plausible times."""
    times_us = {"lab1.A": 334.0, "lab2.A": 211.0, "lab2.B": 167.0, "lab3.A": 94.0, "lab3.B": 76.0, "lab3.C": 71.0,
                "lab4.A": 69.0, "lab4.B": 45.0, "cub": 45.4, "read_only": 43.0}
    benches = []
    for lg in (20, 25, 28):
        n = 1 << lg
        scale = n / (1 << 25)
        for key, us in times_us.items():
            t = us * scale
            gb = f"reduce/{key}/{n}/iterations:1/repeats:21/manual_time"  # Google Benchmark's naming
            benches.append({"name": f"{gb}_median", "run_name": gb,
                            "aggregate_name": "median", "real_time": t, "time_unit": "us",
                            "bytes_per_second": 4.0 * n / (t * 1e-6), "x_naive": times_us["lab1.A"] / us,
                            "pct_of_copy_roof": 50.0, "label": key})
            # A mean aggregate that the script must ignore.
            benches.append({"name": f"{gb}_mean", "run_name": gb,
                            "aggregate_name": "mean", "real_time": 1e9, "time_unit": "us"})
    for side, gbps in ((1024, 2000.0), (8192, 3600.0)):
        for key, g in (("transpose_naive", gbps / 7), ("lab5.B.unpadded", gbps / 2.2), ("lab5.B", gbps),
                       ("memcpy", 4185.0)):
            gb = f"transpose/{key}/{side}/iterations:1/repeats:21/manual_time"
            benches.append({"name": f"{gb}_median", "run_name": gb,
                            "aggregate_name": "median", "real_time": 10.0, "time_unit": "us",
                            "bytes_per_second": g * 1e9, "x_naive": 1.0, "pct_of_copy_roof": 1.0})
    return {"context": {"device": "Test GPU", "copy_roof_gbps": "4185"}, "benchmarks": benches}


class PlotResultsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.json = os.path.join(self.dir, "test-gpu.json")
        with open(self.json, "w") as f:
            json.dump(fixture(), f)

    def test_images_are_written_and_not_empty(self):
        out = os.path.join(self.dir, "images")
        self.assertEqual(plot_results.main([self.json, "--out", out]), 0)
        for name in ("ladder", "bandwidth", "transpose"):
            png = os.path.join(out, name + ".png")
            svg = os.path.join(out, name + ".svg")
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), PNG_MAGIC)
            self.assertGreater(os.path.getsize(png), 10000)
            with open(svg) as f:
                self.assertIn("<svg", f.read(2000))

    def test_extracted_numbers(self):
        context, results = plot_results.load(self.json)
        summary = plot_results.extract(context, results)
        self.assertEqual(summary["device"], "Test GPU")
        self.assertEqual(summary["copy_roof_gbps"], 4185.0)
        self.assertEqual([k for k, _, _ in summary["ladder"]],
                         ["lab1.A", "lab2.A", "lab2.B", "lab3.A", "lab3.B", "lab3.C", "lab4.A", "lab4.B", "cub"])
        self.assertAlmostEqual(summary["ladder"][0][1], 334.0)  # the median, not the mean
        self.assertAlmostEqual(summary["ladder"][7][2], 334.0 / 45.0)
        self.assertAlmostEqual(summary["lab4_vs_cub_pct"][25], 100.0 * 45.4 / 45.0)
        self.assertAlmostEqual(summary["lab4_vs_cub_pct"][28], 100.0 * 45.4 / 45.0)
        self.assertAlmostEqual(summary["transpose_gbps"][8192]["lab5.B"], 3600.0)

    def test_bad_input_is_a_clear_error(self):
        missing = os.path.join(self.dir, "missing.json")
        self.assertEqual(plot_results.main([missing, "--out", self.dir]), 2)
        empty = os.path.join(self.dir, "empty.json")
        with open(empty, "w") as f:
            json.dump({"benchmarks": []}, f)
        self.assertEqual(plot_results.main([empty, "--out", self.dir]), 2)


class RealResultsTest(unittest.TestCase):
    """The committed H200 results: the numbers docs/results.md quotes come from here."""

    PATH = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "results", "nvidia-h200.json")

    @unittest.skipUnless(os.path.exists(PATH), "no committed H200 results")
    def test_committed_h200_results(self):
        context, results = plot_results.load(self.PATH)
        summary = plot_results.extract(context, results)
        self.assertEqual(summary["device"], "NVIDIA H200")
        self.assertEqual(len(summary["ladder"]), 9)
        self.assertGreaterEqual(summary["lab4_vs_cub_pct"][28], 100.0)
        self.assertGreaterEqual(summary["lab4_vs_cub_pct"][25], 95.0)
        self.assertEqual(sorted(summary["transpose_gbps"]), [1024, 4096, 8192])


if __name__ == "__main__":
    unittest.main()
