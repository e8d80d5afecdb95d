"""Tests of scripts/plot_class.py on a gradebook the test writes itself."""
import json
import os
import sys
import tempfile
import unittest


from scripts import plot_class


def rows():
    return [
        {"submission": "a", "status": "graded", "score": 100.0, "speedups": {"A": 3.5, "B": 4.6, "C": 4.7},
         "target": 3.99},
        {"submission": "b", "status": "graded", "score": 80.0, "speedups": {"A": 3.4, "B": 3.9, "C": 3.1},
         "target": 4.01},
        # C crashed, so it was not timed: B is the headline.
        {"submission": "e", "status": "crashed", "score": 40.0, "speedups": {"A": 2.0, "B": 2.5, "C": None},
         "target": 3.0},
        {"submission": "c", "status": "compile_error", "score": 0.0, "speedups": {}, "target": None},
        {"submission": "d", "status": "timeout", "score": 20.0, "speedups": {"A": None, "B": None, "C": None},
         "target": None},
    ]


class PlotClassTest(unittest.TestCase):
    def test_extract(self):
        d = plot_class.extract(rows())
        self.assertEqual(d["speedups"], [4.70, 3.10, 2.5])
        self.assertAlmostEqual(d["target"], 3.99)
        self.assertEqual(d["counts"]["graded"], 2)
        self.assertEqual(d["counts"]["compile_error"], 1)
        self.assertEqual(d["scores"]["timeout"], [20.0])
        self.assertEqual(d["scores"]["crashed"], [40.0])

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
