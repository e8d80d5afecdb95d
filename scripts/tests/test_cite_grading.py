"""Tests of scripts/cite_grading.py on a small plan; the repository's own statements are
checked against the built grader by ctest's docs.grading."""
import io
import json
import os
import sys
import tempfile
import unittest


from scripts import cite_grading


def check(name, cost, whole_lab=False):
    return {"name": name, "judged_by": "", "cost": cost, "whole_lab": whole_lab}


def common(cost_races="everything"):
    return [check("no_libraries", "everything", True), check("traced_run", "everything"),
            check("races", cost_races), check("initcheck", "everything")]


PLAN = {
    "cases": {
        "gpu": {"problems": {"reduction": {"sizes": [1, 1000, 1048575, 1048576, 16777223, 33554432], "large": []},
                             "record_sums": {"sizes": [33, 4194311], "large": []},
                             "transpose": {"sizes": ["1x1", "4099x2050"], "large": []}},
                "inputs": ["random"]},
        "emulated": {"problems": {"reduction": {"sizes": [1, 65535, 131079], "large": [4194311]},
                                  "record_sums": {"sizes": [16383], "large": [524309]},
                                  "transpose": {"sizes": ["257x129"], "large": []}},
                     "inputs": ["random"]},
    },
    "timing": {"rounds": 21, "max_rounds": 63, "confidence": 0.95},
    "labs": {
        "lab2": {
            "race_check_parts": [],
            "target": {"threshold_fraction": 0.85, "floor_fraction": 0.5, "correctness_weight": 0.6},
            "points": {"gpu": {"max": 100.0, "correctness": 60.0, "performance": 40.0},
                       "emulated": {"max": 60.0, "correctness": 60.0, "performance": 0.0}},
            "parts": {
                "A": {"gpu": common() + [check("no_divergence", "performance")],
                      "emulated": common() + [check("no_divergence", "everything")]},
                "B": {"gpu": common() + [check("no_divergence", "performance"), check("bank_wavefronts", "performance")],
                      "emulated": common() + [check("no_divergence", "everything"),
                                              check("bank_wavefronts", "everything")]},
            },
        },
        "lab3": {
            "race_check_parts": ["B", "C"],
            "target": {"threshold_fraction": 0.9, "floor_fraction": 0.5, "correctness_weight": 0.7},
            "points": {"gpu": {"max": 100.0, "correctness": 60.0, "performance": 40.0},
                       "emulated": {"max": 60.0, "correctness": 60.0, "performance": 0.0}},
            "parts": {p: {"gpu": common() + [check("no_divergence", "performance")],
                          "emulated": common() + [check("no_divergence", "everything")]} for p in "ABC"},
        },
    },
}


def render(spec):
    return cite_grading.render(spec, PLAN)


class RenderTest(unittest.TestCase):
    def test_sizes_from_two_to_the_twenty_are_powers_of_two_and_an_offset(self):
        self.assertEqual(render("lab2 gpu reduction"), "1, 1000, 2^20-1, 2^20, 2^24+7 and 2^25")
        self.assertEqual(render("lab2 emulated reduction"), "1, 65535, 131079 and 2^22+7")
        self.assertEqual(render("lab2 gpu record_sums"), "33 and 2^22+7")
        self.assertEqual(render("lab2 emulated record_sums"), "16383 and 524309")
        self.assertEqual(render("lab2 emulated transpose"), "257x129")

    def test_points(self):
        self.assertEqual(render("lab2 gpu max"), "100")
        self.assertEqual(render("lab2 emulated max"), "60")
        self.assertEqual(render("lab2 gpu performance"), "40")

    def test_technique_checks_leave_out_those_every_part_has(self):
        self.assertEqual(render("lab2 gpu technique A"), "`no_divergence`")
        self.assertEqual(render("lab2 emulated technique B"), "`no_divergence` and `bank_wavefronts`")
        self.assertEqual(render("lab3 emulated technique"), "`no_divergence`")
        with self.assertRaisesRegex(cite_grading.SpecError, "differ: name the part"):
            render("lab2 gpu technique")

    def test_costs(self):
        self.assertEqual(render("lab2 gpu cost no_divergence"), "its performance points")
        self.assertEqual(render("lab2 emulated cost no_divergence"), "all its points")
        self.assertEqual(render("lab2 gpu cost bank_wavefronts B"), "its performance points")
        self.assertEqual(render("lab2 gpu cost technique"), "its performance points")
        self.assertEqual(render("lab2 emulated cost races"), "all its points")
        self.assertEqual(render("lab2 gpu cost no_libraries"), "every part all its points")

    def test_racecheck_parts(self):
        self.assertEqual(render("lab3 gpu racecheck"), "B and C")
        self.assertEqual(render("lab2 gpu racecheck"), "none")
        with self.assertRaisesRegex(cite_grading.SpecError, "GPU only"):
            render("lab3 emulated racecheck")

    def test_the_performance_rule(self):
        self.assertEqual(render("lab2 gpu threshold"), "85%")
        self.assertEqual(render("lab3 gpu threshold fraction"), "0.9")
        self.assertEqual(render("lab3 gpu floor"), "50%")
        self.assertEqual(render("lab2 gpu floor fraction"), "0.5")
        self.assertEqual(render("lab2 gpu weight"), "60%")
        self.assertEqual(render("lab3 gpu weight performance"), "30%")
        self.assertEqual((render("lab2 gpu rounds"), render("lab2 gpu max_rounds"), render("lab2 gpu confidence")),
                         ("21", "63", "95%"))
        # `all`: every lab, which must agree.
        self.assertEqual(render("all gpu floor"), "50%")
        with self.assertRaisesRegex(cite_grading.SpecError, r"the labs differ \(85%, 90%\): name the lab"):
            render("all gpu threshold")
        with self.assertRaisesRegex(cite_grading.SpecError, "GPU only"):
            render("lab2 emulated threshold")
        with self.assertRaisesRegex(cite_grading.SpecError, "'threshold' takes 'fraction' or nothing"):
            render("lab2 gpu threshold percent")

    def test_the_scripts_read_the_policy_as_the_grader_does(self):
        plan = {"labs": {"lab1": {"target": {"threshold_fraction": 0.85, "floor_fraction": 0.5,
                                             "correctness_weight": 0.6}}}}
        self.assertEqual(cite_grading.policy_disagreements(plan), [])
        plan["labs"]["lab1"]["target"]["threshold_fraction"] = 0.8
        self.assertEqual(cite_grading.policy_disagreements(plan),
                         ["lab1.threshold_fraction: the grader has 0.8, scripts/course_policy.py reads 0.85"])

    def test_bad_specs_name_what_is_wrong(self):
        for spec, message in (("lab9 gpu max", "no lab 'lab9'"), ("lab2 cpu max", "gpu or emulated"),
                              ("lab2 gpu speed", "unknown WHAT 'speed'"), ("lab2 gpu max 3", "takes 0"),
                              ("lab2 gpu cost uses_shuffle", "no check 'uses_shuffle'"),
                              ("lab2 gpu technique Z", "no part 'Z'"), ("lab2 gpu", "expected LAB BACKEND WHAT")):
            with self.assertRaisesRegex(cite_grading.SpecError, message, msg=spec):
                render(spec)


class FilesTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.plan = os.path.join(self.dir, "plan.json")
        with open(self.plan, "w") as f:
            json.dump(PLAN, f)
        self.doc = os.path.join(self.dir, "README.md")

    def write(self, text):
        with open(self.doc, "w") as f:
            f.write(text)

    def run_main(self, *extra):
        out = io.StringIO()
        rc = cite_grading.main(["--plan", self.plan, *extra, self.doc], root=self.dir, out=out)
        return rc, out.getvalue()

    def test_a_wrong_statement_fails_and_fix_rewrites_it(self):
        self.write("A failed check costs <!-- grading lab2 emulated cost technique -->its performance points"
                   "<!-- /grading --> on the emulator.\nMax <!-- grading lab2 emulated max -->60<!-- /grading -->.\n")
        rc, out = self.run_main()
        self.assertEqual(rc, 1)
        self.assertIn("README.md:1: grading lab2 emulated cost technique: cites its performance points, the grader "
                      "gives all its points", out)
        self.assertIn("1 of 2 cited statements disagree with the grader", out)
        self.assertEqual(self.run_main("--fix")[0], 0)
        with open(self.doc) as f:
            self.assertIn("costs <!-- grading lab2 emulated cost technique -->all its points<!-- /grading --> on",
                          f.read())
        rc, out = self.run_main()
        self.assertEqual(rc, 0)
        self.assertIn("2 cited statements in 1 files agree with the grader", out)

    def test_malformed_markers_and_a_missing_plan_exit_2(self):
        self.write("<!-- grading lab2 gpu max -->100\n<!-- grading lab2 gpu speed -->1<!-- /grading -->\n")
        rc, out = self.run_main()
        self.assertEqual(rc, 2)
        self.assertIn("README.md:1: malformed marker", out)
        self.assertIn("README.md:2: 'lab2 gpu speed': unknown WHAT", out)
        out = io.StringIO()
        self.assertEqual(cite_grading.main(["--grader", os.path.join(self.dir, "no_grader"), self.doc],
                                           root=self.dir, out=out), 2)
        self.assertIn("cannot read the grader's plan", out.getvalue())


if __name__ == "__main__":
    unittest.main()
