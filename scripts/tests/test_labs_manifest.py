"""labs.json and the labs' lab.json against the scripts that draw and cite the labs: the same labs,
parts and plot names."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

from scripts import cite_figures
from scripts import course_policy
from scripts import draw_handout_figures
from scripts import labs_manifest
from scripts import plot_results
from scripts.tests.test_plot_results import fixture

ROOT = labs_manifest.ROOT


class ManifestTest(unittest.TestCase):
    def test_labs_have_their_folders(self):
        for lab in labs_manifest.labs():
            for tree in ("labs", "solutions"):
                self.assertTrue(os.path.isfile(os.path.join(ROOT, tree, lab["folder"], "kernels.cu")), lab["name"])
            for name in ("lab.json", "contract.cuh", "binding.cuh", "README.md"):
                self.assertTrue(os.path.isfile(os.path.join(ROOT, "labs", lab["folder"], name)), name)
            self.assertTrue(lab["title"])
            self.assertEqual(len({part["id"] for part in lab["parts"]}), len(lab["parts"]))
            if "baseline" in lab:
                self.assertTrue(os.path.isfile(os.path.join(ROOT, lab["baseline"])))

    def test_every_lab_folder_is_in_the_manifest(self):
        folders = sorted(d for d in os.listdir(os.path.join(ROOT, "labs")) if re.match(r"lab\d+_", d))
        self.assertEqual(folders, sorted(lab["folder"] for lab in labs_manifest.labs()))

    def test_a_lab_is_its_folder_and_one_line(self):
        # labs.json holds only the order; every other fact of a lab is in its folder.
        with open(labs_manifest.PATH) as f:
            raw = json.load(f)
        self.assertEqual([sorted(entry) for entry in raw["labs"]], [["folder", "name"]] * len(raw["labs"]))
        self.assertEqual(labs_manifest.labs()[2]["parts"][1]["kernel"], "reduce_warp_unrolled")

    def test_makefile_helper_prints_the_names(self):
        out = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "labs_manifest.py"), "names"],
                             stdout=subprocess.PIPE, check=True).stdout.decode().split()
        self.assertEqual(out[0], "lab1")
        self.assertEqual(out, labs_manifest.lab_names())

    def test_ladder_is_the_manifests_parts_then_cub(self):
        keys = [k for k, _ in plot_results.LADDER]
        self.assertEqual(keys[0], "lab1.A")
        self.assertEqual(keys[-1], "cub")
        self.assertEqual(keys[:-1], [k for k, _ in labs_manifest.ladder()])
        self.assertIn("lab3.C", keys)
        self.assertNotIn("lab5.A", keys)

    def test_graded_sizes_are_the_policys(self):
        self.assertEqual(course_policy.graded_size("problems.reduction.timed"), 1 << 25)
        self.assertEqual(course_policy.graded_size("problems.transpose.timed"), 8192)
        policy = {"problems": {"transpose": {"timed": "4096x8192"}}}
        with self.assertRaisesRegex(ValueError, "4096x8192: the transpose benchmarks are of square shapes"):
            course_policy.graded_size("problems.transpose.timed", policy)

    def test_cite_figures_takes_the_groups_from_the_manifest(self):
        self.assertEqual(cite_figures.BASELINE["reduce"], "lab1.A")
        self.assertEqual(cite_figures.BASELINE["records"], "lab5.A.unpadded")
        self.assertEqual(cite_figures.GRADED_SIZE, {"reduce": 1 << 25, "records": 1 << 24, "transpose": 8192})

    def test_plot_names(self):
        self.assertEqual(sorted(draw_handout_figures.FIGURES), sorted(labs_manifest.plot_names("handout")))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bench.json")
            with open(path, "w") as f:
                json.dump(fixture(), f)
            out = os.path.join(tmp, "images")
            self.assertEqual(plot_results.main([path, "--out", out]), 0)
            drawn = sorted({os.path.splitext(n)[0] for n in os.listdir(out)})
        self.assertEqual(drawn, sorted(labs_manifest.plot_names("bench")))
        text = open(os.path.join(ROOT, "scripts", "plot_class.py")).read()
        self.assertEqual(sorted(re.findall(r'save\(fig, out_dir, "(\w+)"\)', text)),
                         sorted(labs_manifest.plot_names("class")))


if __name__ == "__main__":
    unittest.main()
