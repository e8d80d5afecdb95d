"""course_cc_guard's kept toolchain probe (grader/guard/toolchain_cache.hpp), on the
emulated build of lab 1's stub, through a compiler that logs its runs, with a folder of
headers that only the compile command reaches (as a toolchain's own, set by its flags):

- the first compile probes and keeps the folders; the next one does not probe;
- kept folders that lack the compiler's own never refuse an honest file: the guard
  probes again and keeps the new answer.

    python3 grader/guard/tests/test_toolchain_cache.py BUILD_DIR
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, ROOT)
from grader.batch.build_recipe import Recipe, fill  # noqa: E402
from grader.guard import verdict  # noqa: E402

BUILD = None
SHADOWED = ("cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "cmath", "climits", "cfloat", "utility",
            "type_traits", "algorithm", "limits")


class ToolchainCache(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="toolchain-cache-test-")
        self.cache = os.path.join(self.tmp, "cache")
        self.log = os.path.join(self.tmp, "runs.log")
        # Headers that only the compile command's flags reach: each forwards to the system's.
        self.own = os.path.join(self.tmp, "own_include")
        os.makedirs(self.own)
        for name in SHADOWED:
            with open(os.path.join(self.own, name), "w") as f:
                f.write(f"#pragma once\n#include_next <{name}>\n")
        recipe = Recipe(BUILD)
        self.template = recipe._template("lab1", "emulated")
        self.cwd, args = recipe.compile_command("lab1", "emulated")
        real = shutil.which(args[0])
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(bindir)
        self.compiler = os.path.join(bindir, os.path.basename(args[0]))
        with open(self.compiler, "w") as f:
            f.write(f'#!/bin/sh\necho "$*" >> {self.log}\nexec {real} "$@"\n')
        os.chmod(self.compiler, 0o755)
        self.compile_args = [self.compiler, "-isystem", self.own] + args[1:]
        guard = list(self.template["guard"])
        if "--toolchain-cache" in guard:  # the course build's own folder: not this test's
            i = guard.index("--toolchain-cache")
            del guard[i:i + 2]
        self.guard = guard[:-1] + ["--toolchain-cache", self.cache, "--"]
        self.source = os.path.join(ROOT, "labs", "lab1_divergent", "kernels.cu")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def compile(self, n):
        """Runs the guard once; (its verdict, how many compiler runs probed the toolchain)."""
        with open(self.template["wrapper"]) as f:
            wrapper_text = f.read().replace("{source}", self.source)
        scratch = os.path.join(self.tmp, f"sub{n}")
        os.makedirs(scratch)
        ext = os.path.splitext(self.template["wrapper"][:-len(".in")])[1]
        values = {"{source}": self.source, "{wrapper}": os.path.join(scratch, "w" + ext),
                  "{object}": os.path.join(scratch, "w.o"), "{verdict}": os.path.join(scratch, "verdict.json")}
        with open(values["{wrapper}"], "w") as f:
            f.write(wrapper_text)
        open(self.log, "w").close()
        run = subprocess.run(fill(self.guard, values) + fill(self.compile_args, values), cwd=self.cwd,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        with open(self.log) as f:
            probes = sum("toolchain_probe" in line for line in f)
        return verdict.read(values["{verdict}"]), probes, run.stdout.decode("utf-8", "replace")

    def kept(self):
        files = glob.glob(os.path.join(self.cache, "*.roots"))
        self.assertEqual(len(files), 1, files)
        with open(files[0]) as f:
            return files[0], f.read().splitlines()

    def test_the_probe_runs_once_for_the_same_compile(self):
        word, probes, out = self.compile(1)
        self.assertEqual((word, probes), (verdict.COMPILED, 1), out)
        path, roots = self.kept()
        self.assertIn(os.path.realpath(self.own), roots)
        word, probes, out = self.compile(2)
        self.assertEqual((word, probes), (verdict.COMPILED, 0), out)
        self.assertEqual(os.listdir(self.cache), [os.path.basename(path)])  # nothing beside it

    def test_a_kept_file_that_is_not_whole_is_not_read(self):
        self.compile(1)
        path, roots = self.kept()
        with open(path, "w") as f:
            f.write("\n".join(r for r in roots if not r.startswith("end ")) + "\n")  # cut before its end line
        word, probes, out = self.compile(2)
        self.assertEqual((word, probes), (verdict.COMPILED, 1), out)

    def test_kept_folders_that_hold_the_course_are_not_used(self):
        # They would let a file reach the emulator's internals, or anything of the course.
        self.compile(1)
        path, roots = self.kept()
        key = os.path.basename(path)[:-len(".roots")]
        with open(path, "w") as f:
            f.write("".join(r + "\n" for r in roots if not r.startswith("end ")) + os.path.realpath(ROOT) +
                    f"\nend {key}\n")
        word, probes, out = self.compile(2)
        self.assertEqual((word, probes), (verdict.COMPILED, 1), out)
        self.assertNotIn(os.path.realpath(ROOT), self.kept()[1])

    def test_kept_folders_without_the_compilers_own_are_probed_again(self):
        self.compile(1)
        path, _ = self.kept()
        key = os.path.basename(path)[:-len(".roots")]
        with open(path, "w") as f:
            f.write(f"/usr/include\nend {key}\n")  # whole, but a toolchain that has moved since
        word, probes, out = self.compile(2)
        self.assertEqual((word, probes), (verdict.COMPILED, 1), out)
        self.assertIn(os.path.realpath(self.own), self.kept()[1])


def main():
    global BUILD
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    BUILD = os.path.abspath(sys.argv.pop(1))
    if not os.path.exists(os.path.join(BUILD, "batch", "recipe.json")):
        print(f"{BUILD}/batch/recipe.json is missing: build the course first")
        return 2
    return 0 if unittest.main(exit=False, verbosity=2).result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
