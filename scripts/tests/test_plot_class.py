"""Tests of scripts/plot_class.py on a gradebook the test writes itself."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import plot_class  # noqa: E402


def rows():
    return [
        {"submission": "a", "status": "graded", "score": 100.0, "speedup": "A:3.50x B:4.60x C:4.70x", "target": "3.99x"},
        {"submission": "b", "status": "graded", "score": 80.0, "speedup": "A:3.40x B:3.90x C:3.10x", "target": "4.01x"},
        {"submission": "c", "status": "compile_error", "score": 0.0, "speedup": "", "target": ""},
        {"submission": "d", "status": "timeout", "score": 20.0, "speedup": "", "target": ""},
    ]


class PlotClassTest(unittest.TestCase):
    def test_extract(self):
        d = plot_class.extract(rows())
        self.assertEqual(d["speedups"], [4.70, 3.10])
        self.assertAlmostEqual(d["target"], 4.00)
        self.assertEqual(d["counts"]["graded"], 2)
        self.assertEqual(d["counts"]["compile_error"], 1)
        self.assertEqual(d["scores"]["timeout"], [20.0])

    def test_images(self):
        out = tempfile.mkdtemp()
        path = os.path.join(out, "gradebook.json")
        with open(path, "w") as f:
            json.dump(rows(), f)
        self.assertEqual(plot_class.main([path, "--out", out, "--title", "lab3"]), 0)
        for name in ("class_speedups", "class_scores"):
            with open(os.path.join(out, name + ".png"), "rb") as f:
                self.assertEqual(f.read(4), b"\x89PNG")
            self.assertGreater(os.path.getsize(os.path.join(out, name + ".svg")), 1000)
        self.assertEqual(plot_class.main([os.path.join(out, "missing.json"), "--out", out]), 2)


if __name__ == "__main__":
    unittest.main()
