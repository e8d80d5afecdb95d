"""Unit tests of the student loop's Python (grader/student/): whose failure a failed build
is, what of its log a report shows, the progress table and watch's short report.

Run by ctest (the repository root on PYTHONPATH, as CMake's COURSE_PYTHON puts it): python3 test_student_units.py
"""
import json
import os
import sys
import tempfile
import unittest
from pathlib import Path

from grader.guard import verdict
from grader.student import course_build
from grader.student import progress
from grader.student import watch

HERE = os.path.dirname(os.path.abspath(__file__))

MAKE_COMPILE_ERROR = """\
[ 96%] Building CXX object grader/CMakeFiles/lab1_student_labs_emulated.dir/generated/lab1_student_labs_emulated.cpp.o
labs/lab1_divergent/kernels.cu: In function 'void lab1_student::reduce_divergent(const float*, float*, unsigned int)':
labs/lab1_divergent/kernels.cu:7:45: error: 'sdata' was not declared in this scope
    7 |     if (threadIdx.x == 0) out[blockIdx.x] = sdata[0];
      |                                             ^~~~~
/course/grader/supervisor/grade_lab.cpp:112:38: warning: missing initializer for member 'cpu_seconds'
  112 |     const worker_run run = run_worker(argv, {60, 120});
gmake[3]: *** [grader/CMakeFiles/lab1_student_labs_emulated.dir/build.make:76: grader/CMakeFiles/lab1_student_labs_emulated.dir/generated/lab1_student_labs_emulated.cpp.o] Error 1
gmake[2]: *** [CMakeFiles/Makefile2:1234: grader/CMakeFiles/lab1_student_labs_emulated.dir/all] Error 2
gmake[1]: *** [CMakeFiles/Makefile2:1300: grader/CMakeFiles/lab1.dir/rule] Error 2
gmake: *** [Makefile:719: lab1] Error 2
"""

MAKE_REFUSED = """\
[ 96%] Building CXX object grader/CMakeFiles/lab1_student_labs_emulated.dir/generated/lab1_student_labs_emulated.cpp.o
labs/lab1_divergent/kernels.cu:3: error: #include <cstdio> is not allowed
    #include <cstdio>
course_cc_guard: labs/lab1_divergent/kernels.cu was not compiled (docs/grading.md says what a lab file may hold)
gmake[3]: *** [grader/CMakeFiles/lab1_student_labs_emulated.dir/build.make:76: grader/CMakeFiles/lab1_student_labs_emulated.dir/generated/lab1_student_labs_emulated.cpp.o] Error 3
gmake: *** [Makefile:719: lab1] Error 2
"""

NINJA_REFUSED = """\
[3/5] Building CUDA object grader/CMakeFiles/lab3_student_labs_gpu.dir/generated/lab3_student_labs_gpu.cu.o
FAILED: [code=3] grader/CMakeFiles/lab3_student_labs_gpu.dir/generated/lab3_student_labs_gpu.cu.o
/build/bin/course_cc_guard --lab lab3 --backend gpu -- /usr/local/cuda/bin/nvcc -o x.o -c x.cu
labs/lab3_unrolled/kernels.cu:9: error: inline assembly is not allowed
ninja: build stopped: subcommand failed.
"""

MAKE_LINK_ERROR = """\
[ 96%] Linking CXX executable ../bin/lab1_worker_emulated
/usr/bin/ld: CMakeFiles/lab1_student_binding_emulated.dir/__/generated/lab1_student_binding_emulated.cpp.o: in function `lab1_student::parts()':
lab1_student_binding_emulated.cpp:(.text+0x248): undefined reference to `lab1_student::reduce_divergent(float const*, float*, unsigned int)'
collect2: error: ld returned 1 exit status
gmake[3]: *** [grader/CMakeFiles/lab1_worker_emulated.dir/build.make:120: bin/lab1_worker_emulated] Error 1
gmake: *** [Makefile:719: lab1] Error 2
"""

MAKE_COURSE_BROKEN = """\
[ 12%] Building CXX object grader/CMakeFiles/grader_core.dir/core/stats.cpp.o
/course/grader/core/stats.cpp:3:10: fatal error: fmt/format.h: No such file or directory
gmake[2]: *** [grader/CMakeFiles/grader_core.dir/build.make:90: grader/CMakeFiles/grader_core.dir/core/stats.cpp.o] Error 1
gmake: *** [Makefile:719: lab1] Error 2
"""


class Classify(unittest.TestCase):
    """Whose failure a failed build is: the guard's verdict files say it for the student's
    compile, never the log's words or exit codes; the log only for the worker's link."""

    def test_the_guards_verdict_decides_a_compile(self):
        self.assertEqual(course_build.classify(MAKE_COMPILE_ERROR, "lab1", [verdict.COMPILE_ERROR]),
                         ("student", "compile_error"))
        self.assertEqual(course_build.classify(MAKE_REFUSED, "lab1", [verdict.REFUSED]), ("student", "rejected"))
        self.assertEqual(course_build.classify(NINJA_REFUSED, "lab3", [verdict.COMPILED, verdict.REFUSED]),
                         ("student", "rejected"))
        # A log that reads like a refusal with the verdict of a compile error is a compile error.
        self.assertEqual(course_build.classify(MAKE_REFUSED, "lab1", [verdict.COMPILE_ERROR]),
                         ("student", "compile_error"))

    def test_a_missing_kernel_at_link_time_is_the_students(self):
        self.assertEqual(course_build.classify(MAKE_LINK_ERROR, "lab1", [verdict.COMPILED]), ("student", "link_error"))
        # The object was up to date, so the guard did not run in this build.
        self.assertEqual(course_build.classify(MAKE_LINK_ERROR, "lab1", []), ("student", "link_error"))

    def test_anything_else_is_infrastructure(self):
        self.assertEqual(course_build.classify(MAKE_COURSE_BROKEN, "lab1", []), ("infra", ""))
        self.assertEqual(course_build.classify("Error: could not find CMAKE_GENERATOR in Cache\n", "lab1", []),
                         ("infra", ""))
        # Without a verdict of this build, a failed student object of the log is not this file's fault.
        self.assertEqual(course_build.classify(MAKE_COMPILE_ERROR, "lab1", []), ("infra", ""))
        self.assertEqual(course_build.classify(MAKE_REFUSED, "lab1", [verdict.ERROR]), ("infra", ""))

    def test_verdicts_are_read_from_the_workers_records(self):
        with tempfile.TemporaryDirectory() as tmp:
            build = Path(tmp)
            (build / "bin").mkdir()
            (build / "guard").mkdir()
            file = build / "guard" / "lab1_student_labs_emulated.json"
            (build / "bin" / "lab1_worker_emulated.json").write_text(json.dumps({"guard_verdict": str(file)}))
            self.assertEqual(course_build.verdict_files(build, "lab1"), [str(file)])
            self.assertEqual(course_build.student_verdicts(build, "lab1"), [])
            file.write_text(json.dumps({"verdict": "refused", "source": "labs/lab1_divergent/kernels.cu"}))
            self.assertEqual(course_build.student_verdicts(build, "lab1"), ["refused"])
            file.write_text(json.dumps({"verdict": "maybe"}))
            self.assertEqual(course_build.student_verdicts(build, "lab1"), [])
            file.write_text("{not json")
            self.assertEqual(course_build.student_verdicts(build, "lab1"), [])
            self.assertEqual(course_build.student_verdicts(build, "lab2"), [])

class Messages(unittest.TestCase):
    def test_only_the_lines_about_the_file_without_build_chatter(self):
        shown = course_build.student_messages(MAKE_COMPILE_ERROR, "lab1", "compile_error",
                                              "labs/lab1_divergent/kernels.cu")
        self.assertEqual(shown.splitlines(), [
            "labs/lab1_divergent/kernels.cu: In function 'void lab1_student::reduce_divergent(const float*, float*, "
            "unsigned int)':",
            "labs/lab1_divergent/kernels.cu:7:45: error: 'sdata' was not declared in this scope",
            "    7 |     if (threadIdx.x == 0) out[blockIdx.x] = sdata[0];",
            "      |                                             ^~~~~",
        ])

    def test_the_guards_refusal_keeps_its_last_line(self):
        shown = course_build.student_messages(MAKE_REFUSED, "lab1", "rejected", "labs/lab1_divergent/kernels.cu")
        self.assertEqual(shown.splitlines()[-1], "course_cc_guard: labs/lab1_divergent/kernels.cu was not compiled "
                                                 "(docs/grading.md says what a lab file may hold)")
        self.assertEqual(len(shown.splitlines()), 3)

    def test_a_link_error_names_the_missing_kernel_and_the_contract(self):
        shown = course_build.student_messages(MAKE_LINK_ERROR, "lab1", "link_error", "labs/lab1_divergent/kernels.cu")
        lines = shown.splitlines()
        self.assertEqual(len(lines), 3)
        self.assertIn("undefined reference to `lab1_student::reduce_divergent", lines[1])
        self.assertTrue(lines[2].startswith("hint: the file must define every kernel and constant that "
                                            "labs/lab1_divergent/contract.cuh declares"))

    def test_without_a_line_naming_the_file_the_log_is_shown_without_chatter(self):
        shown = course_build.student_messages(NINJA_REFUSED, "lab3", "rejected", "elsewhere/kernels.cu")
        self.assertEqual(shown.splitlines(), ["labs/lab3_unrolled/kernels.cu:9: error: inline assembly is not allowed"])

    def test_long_logs_are_cut_with_the_command_that_shows_them_all(self):
        log = "".join(f"labs/lab1_divergent/kernels.cu:{i}: error: e{i}\n" for i in range(100))
        lines = course_build.student_messages(log, "lab1", "compile_error", "labs/lab1_divergent/kernels.cu",
                                              limit=5).splitlines()
        self.assertEqual(lines[-1], "... and 95 more line(s): 'make lab1' shows them all")
        self.assertEqual(len(lines), 6)


class Paths(unittest.TestCase):
    def test_the_student_file_follows_lab_source(self):
        root = Path("/home/ana/course")
        self.assertEqual(course_build.student_source({"LAB_SOURCE": "labs"}, "lab1_divergent", root),
                         Path("/home/ana/course/labs/lab1_divergent/kernels.cu"))
        self.assertEqual(course_build.student_source({}, "lab1_divergent", root),
                         Path("/home/ana/course/labs/lab1_divergent/kernels.cu"))
        self.assertEqual(course_build.student_source({"LAB_SOURCE": "solutions"}, "lab3_unrolled", root),
                         Path("/home/ana/course/solutions/lab3_unrolled/kernels.cu"))
        self.assertEqual(course_build.student_source({"LAB_SOURCE": "/tmp/sub"}, "lab3_unrolled", root),
                         Path("/tmp/sub/lab3_unrolled/kernels.cu"))
        self.assertEqual(course_build.student_source({"LAB_SOURCE": "../subs/ana"}, "lab3_unrolled", root),
                         Path("/home/ana/subs/ana/lab3_unrolled/kernels.cu"))

    def test_the_guards_display_name(self):
        root = Path("/home/ana/course")
        self.assertEqual(course_build.display_name("/home/ana/course/labs/lab1_divergent/kernels.cu", root),
                         "labs/lab1_divergent/kernels.cu")
        self.assertEqual(course_build.display_name("/tmp/sub/lab1_divergent/kernels.cu", root),
                         "lab1_divergent/kernels.cu")

    def test_the_command_to_make_a_build(self):
        root = Path("/home/ana/course")
        self.assertEqual(course_build.make_command("lab2", "/home/ana/course/build", root), "make lab2")
        self.assertEqual(course_build.make_command("lab2", "/tmp/b", root), "make lab2 BUILD=/tmp/b")

    def test_a_folder_without_a_cache_is_not_a_build(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(course_build.Problem) as e:
                course_build.configured_build(d, "lab1", Path("/home/ana/course"))
            self.assertIn(f"run 'make lab1 BUILD={d}' first", str(e.exception))
            Path(d, "CMakeCache.txt").write_text("CMAKE_HOME_DIRECTORY:INTERNAL=/elsewhere\nLAB_SOURCE:STRING=labs\n")
            with self.assertRaises(course_build.Problem) as e:
                course_build.configured_build(d, "lab1", Path("/home/ana/course"))
            self.assertIn("is a build of /elsewhere, not of this course", str(e.exception))
            Path(d, "CMakeCache.txt").write_text("CMAKE_HOME_DIRECTORY:INTERNAL=/home/ana/course\n"
                                                 "LAB_SOURCE:STRING=solutions\n")
            self.assertEqual(course_build.configured_build(d, "lab1", Path("/home/ana/course"))["LAB_SOURCE"],
                             "solutions")


def saved(**over):
    r = {"lab": "lab2", "backend": "gpu", "started_at": "2025-03-01T10:00:00Z", "score": 42, "max_score": 100,
         "passed": False, "build": None, "source": {},
         "parts": [
             {"id": "A", "score": 50, "max_points": 50, "penalty": "none",
              "correctness": {"status": "passed"},
              "timing": {"status": "measured", "speedup": 1.571, "verdict": "meets_target"}},
             {"id": "B", "score": 0, "max_points": 50, "penalty": "none",
              "correctness": {"status": "failed"}, "timing": {"status": "not_measured"}}]}
    r.update(over)
    return r


class Progress(unittest.TestCase):
    def setUp(self):
        os.environ["TZ"] = "UTC"
        if hasattr(__import__("time"), "tzset"):
            __import__("time").tzset()

    def test_rows_of_a_graded_lab(self):
        self.assertEqual(progress.rows_of("lab2", saved(), False), [
            ("lab2", "A", "passed", "1.57x", "50/50", "2025-03-01 10:00", "gpu"),
            ("lab2", "B", "FAILED", "-", "0/50", "2025-03-01 10:00", "gpu"),
            ("lab2", "all", "not yet", "-", "42/100", "2025-03-01 10:00", "gpu"),
        ])

    def test_an_emulated_grade_is_correct_without_a_speedup(self):
        r = saved(backend="emulated", score=30, max_score=30, passed=True,
                  parts=[{"id": "A", "score": 30, "max_points": 30, "correctness": {"status": "passed"},
                          "timing": {"status": "not_measured"}}])
        self.assertEqual(progress.rows_of("lab1", r, True),
                         [("lab1", "A", "correct", "-", "30/30", "2025-03-01 10:00*", "emulated")])

    def test_a_file_that_did_not_build(self):
        r = saved(backend="", score=0, max_score=60, parts=[], build={"kind": "compile_error", "log": "x"})
        self.assertEqual(progress.rows_of("lab1", r, False),
                         [("lab1", "-", "does not compile", "-", "0/60", "2025-03-01 10:00", "-")])

    def test_the_table_shows_labs_never_graded_and_unreadable_files(self):
        with tempfile.TemporaryDirectory() as build:
            Path(build, "progress").mkdir()
            Path(build, "progress", "lab2.json").write_text(json.dumps(saved()))
            Path(build, "progress", "lab3.json").write_text("{not json")
            rows, changed = progress.table(build, {"lab1": "lab1_divergent", "lab2": "lab2_interleaved",
                                                   "lab3": "lab3_unrolled"})
        self.assertFalse(changed)
        self.assertEqual(rows[0], ("lab1", "-", "not graded yet", "-", "-", "-", "-"))
        self.assertEqual(rows[1][:3], ("lab2", "A", "passed"))
        self.assertTrue(rows[-1][2].startswith("unreadable progress file ("))
        text = progress.render(rows, False)
        self.assertEqual(text.splitlines()[0].split(), ["lab", "part", "result", "x", "naive", "score", "date",
                                                        "backend"])

    def test_extra_arguments_are_refused(self):
        self.assertEqual(progress.main(["--build-dir", "/tmp", "lab1"]), 2)


class Watch(unittest.TestCase):
    def test_the_json_option_the_student_gave(self):
        self.assertEqual(watch.json_option(["--emulate", "--json", "r.json"]), "r.json")
        self.assertEqual(watch.json_option(["--json=r.json"]), "r.json")
        self.assertIsNone(watch.json_option(["--emulate"]))

    def test_the_short_report_is_the_summary_and_the_failures(self):
        r = saved(summary="lab2: 42/100 (not correct: part B)", notes=["Sandbox: Landlock ABI 7."])
        r["parts"][1]["kernel"] = "reduce_sequential"
        r["parts"][1]["correctness"] = {"status": "failed", "cases": 51, "failed": 2, "hint": "check the bounds",
                                        "failures": [{"input": "ones", "size": "n=257", "expected": 257.0,
                                                      "got": 256.0}]}
        self.assertEqual(watch.short_report(r, watch.Painter(False)).splitlines(), [
            "B reduce_sequential: FAILED (49 of 51 cases right)",
            "    ones input, n=257: expected 257, got 256",
            "    hint: check the bounds",
            "lab2: 42/100 (not correct: part B)",
        ])

    def test_the_short_report_of_a_compile_error_is_its_messages(self):
        r = saved(build={"kind": "compile_error", "log": "kernels.cu:3: error: x"}, parts=[],
                  summary="lab1: 0/60 (labs/lab1_divergent/kernels.cu does not compile; nothing was graded)")
        self.assertEqual(watch.short_report(r, watch.Painter(False)).splitlines(), [
            "kernels.cu:3: error: x",
            "lab1: 0/60 (labs/lab1_divergent/kernels.cu does not compile; nothing was graded)",
        ])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
