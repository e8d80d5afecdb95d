"""Building one submission against the course's template build.

`make` builds, per lab and backend, a template worker whose student object comes from a
copy of the stub, and CMake writes build/batch/recipe.json (cmake/course_batch.cmake): how
to build a submission the same way, under either generator (Makefiles or Ninja). A
submission's file is compiled behind the same guard (course_cc_guard, with the
submission's file as its source), with the template's compile command (its entry of
compile_commands.json: the recipe says why), on its own translation unit, in its own
scratch folder, and linked with the recipe's link command against the course's objects,
which are compiled once for the whole class. Beside the worker, <worker>.json records
the submission's source and object, as the build does beside every worker it links.
"""
import json
import os
import shlex
import subprocess
from dataclasses import dataclass

from grader.batch import children
from grader.guard import verdict


class RecipeError(Exception):
    """The course build is missing or stale: an infrastructure problem, not a student's."""


@dataclass
class BuildResult:
    ok: bool
    log: str          # the guard's, compiler's and linker's output
    worker_dir: str   # holds <lab>_worker_<backend> when ok
    source: str       # the student's own file (what the technique checks read)
    object: str       # the object compiled from it
    timed_out: bool = False
    rejected: bool = False  # the guard refused the file (forbidden include, host code, symbol)


def fill(args, values):
    """`args` with each placeholder ("{source}", "{object}", ...) replaced by its value."""
    return [values.get(a, a) for a in args]


class Recipe:
    def __init__(self, build_dir):
        path = os.path.join(build_dir, "batch", "recipe.json")
        if not os.path.exists(path):
            raise RecipeError(f"{path} is missing: configure and build the course first (make)")
        with open(path) as f:
            self.recipe = json.load(f)
        self.templates = {(t["lab"], t["backend"]): t for t in self.recipe["templates"]}
        self._commands = None

    @property
    def grader(self):
        return self.recipe["grader"]

    def has(self, lab, backend):
        return (lab, backend) in self.templates

    def folder(self, lab):
        for (l, _), t in self.templates.items():
            if l == lab:
                return t["folder"]
        raise RecipeError(f"the course build has no {lab}")

    def _template(self, lab, backend):
        if (lab, backend) not in self.templates:
            raise RecipeError(f"the course build has no {backend} template for {lab}")
        return self.templates[(lab, backend)]

    def template_worker(self, lab, backend):
        """The worker linked with the stub for `backend`, or None: no submission's code is in it."""
        return self.templates[(lab, backend)]["template_worker"] if self.has(lab, backend) else None

    def compile_command(self, lab, backend):
        """(directory, arguments) compiling the lab's kernels wrapper, with "{wrapper}" and
        "{object}" for the submission's: the template's entry of compile_commands.json."""
        t = self._template(lab, backend)
        if self._commands is None:
            with open(self.recipe["compile_commands"]) as f:
                self._commands = {os.path.realpath(os.path.join(e["directory"], e["file"])): e for e in json.load(f)}
        entry = self._commands.get(os.path.realpath(t["template_wrapper"]))
        if entry is None:
            raise RecipeError(f"no compile command for {t['template_wrapper']} in {self.recipe['compile_commands']}")
        cwd = entry["directory"]
        args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])

        def same(a, path):
            return os.path.realpath(os.path.join(cwd, a)) == os.path.realpath(path)

        out = ["{wrapper}" if same(a, t["template_wrapper"]) else "{object}" if same(a, t["template_object"]) else a
               for a in args]
        if "{wrapper}" not in out or "{object}" not in out:
            raise RecipeError(f"the compile command of {t['template_wrapper']} names neither it nor its object")
        return cwd, out

    def build(self, lab, backend, student_source, scratch, timeout):
        """Compiles the student's file and links a worker in `scratch`."""
        t = self._template(lab, backend)
        cwd, compile_args = self.compile_command(lab, backend)
        os.makedirs(os.path.join(scratch, "bin"), exist_ok=True)
        source = os.path.abspath(student_source)
        ext = os.path.splitext(t["wrapper"][:-len(".in")])[1]
        wrapper = os.path.join(scratch, f"{lab}_student_{backend}{ext}")
        obj = os.path.join(scratch, f"{lab}_student_{backend}{ext}.o")
        worker = os.path.join(scratch, "bin", f"{lab}_worker_{backend}")
        guard_verdict = obj + ".guard.json"
        values = {"{source}": source, "{wrapper}": wrapper, "{object}": obj, "{worker}": worker,
                  "{verdict}": guard_verdict}

        # The template's translation unit, including the submission's file.
        with open(t["wrapper"]) as f:
            text = f.read()
        if "{source}" not in text:
            raise RecipeError(f"{t['wrapper']} does not include {{source}}")
        with open(wrapper, "w") as f:
            f.write(text.replace("{source}", source))

        log, code, timed_out = run(fill(t["guard"], values) + fill(compile_args, values), cwd, timeout)
        if code != 0:
            word = verdict.read(guard_verdict)
            if not timed_out and word in (None, verdict.ERROR):
                # The guard could not check the file (a tool missing, the guard itself broken):
                # the course's failure, never the student's compile error.
                raise RecipeError(f"course_cc_guard could not check the file: {log.strip()[-500:]}")
            return BuildResult(False, log, "", source, obj, timed_out, word == verdict.REFUSED)
        link_log, code, timed_out = run(fill(t["link"], values), self.recipe["build_dir"], timeout)
        ok = code == 0
        if ok:
            # What the build records beside every worker (cmake/course_labs.cmake).
            with open(worker + ".json", "w") as f:
                json.dump({"lab": lab, "backend": backend, "student_source": source, "student_object": obj}, f)
        return BuildResult(ok, log + link_log, os.path.join(scratch, "bin") if ok else "", source, obj, timed_out)


def run(args, cwd, timeout):
    """(output, exit code, timed out); children.Stopped when the batch is interrupted."""
    try:
        out, code = children.run(args, timeout, cwd=cwd)
        return out.decode("utf-8", "replace"), code, False
    except subprocess.TimeoutExpired as e:
        out = (e.output or b"").decode("utf-8", "replace")
        return out + f"\n(stopped after {timeout} s)", -1, True
