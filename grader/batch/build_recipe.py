"""Building one submission against the course's template build.

`make` builds, per lab and backend, a template worker whose student object comes from a
copy of the stub (build/batch/manifest.json lists them). A submission is built with the
very same compile command (from compile_commands.json), behind the same guard
(course_cc_guard, with the submission's file as its source), on its own translation
unit, in its own scratch folder, and linked with the template's link line (link.txt)
against the course's objects, which are compiled once for the whole class.
"""
import json
import os
import shlex
import subprocess
from dataclasses import dataclass


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


class Recipe:
    def __init__(self, build_dir):
        manifest = os.path.join(build_dir, "batch", "manifest.json")
        if not os.path.exists(manifest):
            raise RecipeError(f"{manifest} is missing: configure and build the course first (make)")
        with open(manifest) as f:
            self.manifest = json.load(f)
        with open(self.manifest["compile_commands"]) as f:
            self.commands = {os.path.realpath(e["file"]): e for e in json.load(f)}
        self.templates = {(t["lab"], t["backend"]): t for t in self.manifest["templates"]}

    @property
    def grader(self):
        return self.manifest["grader"]

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
        t = self.templates[(lab, backend)]
        entry = self.commands.get(os.path.realpath(t["wrapper"]))
        if entry is None:
            raise RecipeError(f"no compile command for {t['wrapper']} in compile_commands.json")
        if not os.path.exists(t["link_txt"]):
            raise RecipeError(f"{t['link_txt']} is missing: batch grading needs CMake's Unix Makefiles generator")
        return t, entry

    def build(self, lab, backend, student_source, scratch, timeout):
        """Compiles the student's file and links a worker in `scratch`."""
        t, entry = self._template(lab, backend)
        os.makedirs(os.path.join(scratch, "bin"), exist_ok=True)
        ext = os.path.splitext(t["wrapper"])[1]
        wrapper = os.path.join(scratch, f"{lab}_student_{backend}{ext}")
        obj = os.path.join(scratch, f"{lab}_student_{backend}{ext}.o")
        worker = os.path.join(scratch, "bin", f"{lab}_worker_{backend}")

        # The template wrapper includes the template's copy of the stub; point it at the
        # submission's file instead. Everything else about the translation unit is the same.
        with open(t["wrapper"]) as f:
            text = f.read()
        template_file = os.path.join(self.manifest["build_dir"], "batch", "template", t["folder"], "kernels.cu")
        if template_file not in text:
            raise RecipeError(f"{t['wrapper']} does not include {template_file}")
        with open(wrapper, "w") as f:
            f.write(text.replace(template_file, os.path.abspath(student_source)))

        cwd = entry["directory"]
        old_obj = os.path.relpath(t["object"], cwd)
        args = [wrapper if os.path.realpath(os.path.join(cwd, a)) == os.path.realpath(t["wrapper"]) else a
                for a in shlex.split(entry["command"])]
        args = [obj if a in (old_obj, t["object"]) else a for a in args]
        args = self._guard(t, student_source) + ["--"] + args
        log, code, timed_out = run(args, cwd, timeout)
        if code != 0:
            return BuildResult(False, log, "", student_source, obj, timed_out, code == GUARD_REJECTED)

        link_dir = t["link_dir"]
        with open(t["link_txt"]) as f:
            link = shlex.split(f.read())
        old_obj = os.path.relpath(t["object"], link_dir)
        old_worker = os.path.relpath(t["worker"], link_dir)
        link = [obj if a in (old_obj, t["object"]) else worker if a in (old_worker, t["worker"]) else a for a in link]
        link_log, code, timed_out = run(link, link_dir, timeout)
        ok = code == 0
        return BuildResult(ok, log + link_log, os.path.join(scratch, "bin") if ok else "", student_source, obj,
                           timed_out)

    def _guard(self, t, student_source):
        """The template's guard command, pointed at the submission's file."""
        guard = list(t["guard"])
        for i, a in enumerate(guard[:-1]):
            if a == "--source":
                guard[i + 1] = os.path.abspath(student_source)
            elif a == "--display-name":
                guard[i + 1] = f"{t['folder']}/kernels.cu"
        return guard


# course_cc_guard's exit code for a file it refuses to compile (grader/guard/).
GUARD_REJECTED = 3


def run(args, cwd, timeout):
    """(output, exit code, timed out)."""
    try:
        p = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return p.stdout.decode("utf-8", "replace"), p.returncode, False
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        return out + f"\n(stopped after {timeout} s)", -1, True
