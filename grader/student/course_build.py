"""Bringing a lab's build up to date before it is graded (docs/grading.md, "Never a stale grade").

`./grade labN` and `./grade watch labN` run `cmake --build BUILD --target labN` first, so
the grade is always of the file as it is now. When that build fails, this module tells
whose failure it is: the student's file (a compile error, a refusal by course_cc_guard,
a kernel or constant missing at link time) or the course's infrastructure.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from grader import names
from grader.guard import verdict
from scripts import labs_manifest

ROOT = Path(__file__).resolve().parents[2]
SHOWN_LINES = 60  # compiler messages shown in a report; `make labN` shows them all


class Problem(Exception):
    """An infrastructure or usage problem: the message is printed and the exit code is 2."""


@dataclass
class Outcome:
    status: str  # "ok", "student" (the student's file failed) or "infra"
    kind: str = ""  # for "student": compile_error, rejected or link_error
    log: str = ""  # everything the build printed
    changed: bool = False  # something was compiled or linked
    seconds: float = 0.0


def lab_folders(root=ROOT):
    """{"lab1": "lab1_divergent", ...}, as the course's manifest (labs.json) lists them."""
    return labs_manifest.folders(labs_manifest.load(root / "labs.json"))


def lab_arguments(argv, prog, usage):
    """(build, lab, options) from `--build-dir BUILD LAB [options...]`, or None after saying
    what is wrong (the caller exits 2)."""
    if len(argv) < 3 or argv[0] != "--build-dir":
        print(f"usage: {usage}", file=sys.stderr)
        return None
    build, lab, options = argv[1], argv[2], argv[3:]
    folders = lab_folders()
    if lab not in folders:
        print(f"{prog}: unknown lab '{lab}'. The labs are: {' '.join(folders)}", file=sys.stderr)
        return None
    return build, lab, options


def read_cache(build):
    """The CMakeCache.txt entries of a build folder as {name: value}; {} when it has none."""
    entries = {}
    try:
        text = Path(build, "CMakeCache.txt").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return entries
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z_][\w.+-]*):[A-Z]+=(.*)$", line)
        if m:
            entries[m.group(1)] = m.group(2)
    return entries


def make_command(lab, build, root=ROOT):
    """What a student runs to make the build that ./grade lacks."""
    default = Path(root, "build").resolve()
    return f"make {lab}" if Path(build).resolve() == default else f"make {lab} BUILD={build}"


def configured_build(build, lab, root=ROOT):
    """The build's cache, after checking that it is a configured build of this course; raises Problem."""
    cache = read_cache(build)
    if not cache:
        raise Problem(f"{lab} has no build yet ({build} is not a configured build): run '{make_command(lab, build, root)}'"
                      " first")
    home = cache.get("CMAKE_HOME_DIRECTORY", "")
    if not home or Path(home).resolve() != Path(root).resolve():
        raise Problem(f"{build} is a build of {home or 'another folder'}, not of this course ({root}): "
                      f"run '{make_command(lab, build, root)}' to make one here")
    return cache


def student_source(cache, folder, root=ROOT):
    """The file the build compiles as the student's, as cmake/course_labs.cmake picks it."""
    source = cache.get("LAB_SOURCE", "labs") or "labs"
    if source in ("labs", "solutions"):
        return Path(root, source, folder, "kernels.cu")
    base = Path(source) if os.path.isabs(source) else Path(root, source)
    return Path(os.path.normpath(base / folder / "kernels.cu"))


ACTION = re.compile(r"^(\[\s*\d+%\]|\[\d+/\d+\]) (Building|Linking|Generating)")
MAKE_FAILED = re.compile(r"\*\*\* \[(?P<where>[^\]]*)\] Error (?P<code>\d+)")
NINJA_FAILED = re.compile(r"^FAILED: (?:\[code=(?P<code>\d+)\] )?(?P<where>.*)$")


def failures(log):
    """(where, exit code or None) of each failed build step, innermost first."""
    out = []
    for line in log.splitlines():
        m = MAKE_FAILED.search(line) or NINJA_FAILED.match(line)
        if m:
            out.append((m.group("where"), int(m.group("code")) if m.group("code") else None))
    return out


def verdict_files(build, lab):
    """The guard's verdict files of the student's file of LAB, one per backend built: each
    worker's record (build/bin/<lab>_worker_<backend>.json, cmake/course_labs.cmake) names it."""
    found = []
    for backend in ("gpu", "emulated"):
        try:
            with open(Path(build) / "bin" / f"{lab}_worker_{backend}.json") as f:
                path = json.load(f).get("guard_verdict", "")
        except (OSError, ValueError, AttributeError):
            continue
        if path:
            found.append(path)
    return found


def student_verdicts(build, lab):
    """The verdicts in LAB's verdict files: build_lab removes them before it builds, so these
    are the guard's on this build's compiles of the student's file."""
    return [word for word in map(verdict.read, verdict_files(build, lab)) if word]


def classify(log, lab, verdicts):
    """Whose failure a failed build of `lab` is: ("student", kind) or ("infra", ""). VERDICTS:
    the guard's verdicts on the student's file from this build (student_verdicts)."""
    if verdict.REFUSED in verdicts:
        return "student", names.REJECTED
    if verdict.COMPILE_ERROR in verdicts:
        return "student", names.COMPILE_ERROR
    # A kernel or constant the binding needs that the file lacks (or defines twice) fails the
    # worker's link, naming the student's namespace.
    worker = re.compile(rf"(CMakeFiles/{lab}_worker_(gpu|emulated)\.dir/|bin/{lab}_worker_(gpu|emulated)$)")
    if any(worker.search(where) for where, _ in failures(log)):
        if re.search(rf"(undefined reference|multiple definition)[^\n]*{lab}_student", log):
            return "student", names.LINK_ERROR
    return "infra", ""


NOISE = [re.compile(p) for p in (
    r"^\[\s*\d+%\] ",  # make's progress
    r"^\[\d+/\d+\] ",  # ninja's progress
    r"^g?make(\[\d+\])?: ",  # make's own messages
    r"^ninja: ",
    r"^FAILED: ",
    r"^Consolidate compiler generated dependencies",
)]


def display_name(source, root=ROOT):
    """How course_cc_guard names the file in its messages (course_guard_args in cmake/course_labs.cmake)."""
    source, root = Path(source), Path(root)
    if source.is_relative_to(root):
        return str(source.relative_to(root))
    return f"{source.parent.name}/{source.name}"


def about_the_file(log, lab, kind, display):
    """The lines of the log about the student's file: the guard's and compiler's diagnostics
    (a line that starts with its name, and the indented lines after it) or, for a link
    error, the linker's lines that name the student's namespace. Other compiles of the same
    build (course code after an update) can print warnings that are not the student's."""
    if kind == "link_error":
        kept = [line for line in without_chatter(log)
                if f"{lab}_student" in line or re.search(r"undefined reference|multiple definition", line)]
        contract = f"labs/{lab_folders().get(lab, '<folder>')}/contract.cuh"
        return kept + [f"hint: the file must define every kernel and constant that {contract} "
                       "declares, with the same names and parameters, each once"] if kept else []
    kept, keep = [], False
    for line in log.splitlines():
        if not line.startswith((" ", "\t")):
            keep = line.startswith(display) or line.startswith("course_cc_guard:")
        if keep:
            kept.append(line.rstrip())
    return kept


def student_messages(log, lab="", kind="", display="", limit=SHOWN_LINES):
    """The compiler's and the guard's messages about the file, at most `limit` lines; all
    of the log but the build tool's chatter when none names the file."""
    lines = about_the_file(log, lab, kind, display) if display or kind == "link_error" else []
    if not lines:
        lines = without_chatter(log)
    while lines and not lines[-1]:
        lines.pop()
    if len(lines) > limit:
        more = len(lines) - limit
        lines = lines[:limit] + [f"... and {more} more line(s): 'make {lab or 'LAB'}' shows them all"]
    return "\n".join(lines)


def without_chatter(log):
    """The log without make's and ninja's own lines."""
    lines, skip_command = [], False
    for line in log.splitlines():
        if skip_command:  # ninja prints the failed command after FAILED:
            skip_command = False
            if line.startswith("/") or " -o " in line:
                continue
        if line.startswith("FAILED: "):
            skip_command = True
        if any(p.match(line) for p in NOISE):
            continue
        lines.append(line.rstrip())
    return lines


def build_lab(build, lab, say=None):
    """Runs `cmake --build BUILD --target LAB` (LAB: a lab, or another target such as
    grader); `say(line)` hears what is being rebuilt.

    Raises Problem when cmake is missing. Only what changed is rebuilt, so an unchanged
    lab costs the build tool's dependency check and prints nothing."""
    cmake = shutil.which("cmake")
    if cmake is None:
        raise Problem(f"cmake is not installed, so {lab} cannot be brought up to date "
                      "(scripts/install_deps.sh installs it; --no-build grades the last build as it is)")
    cmd = [cmake, "--build", str(build), "--target", lab]
    if "CMAKE_BUILD_PARALLEL_LEVEL" not in os.environ:
        cmd += ["--parallel", str(os.cpu_count() or 2)]
    start = time.monotonic()
    lines, changed = [], False
    for path in verdict_files(build, lab):  # only this build's verdicts may speak
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    except OSError as e:
        raise Problem(f"cannot run {cmake}: {e}")
    with proc:
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace")
            lines.append(line)
            if ACTION.match(line):
                changed = True
                if say:
                    say(line.strip())
    log = "".join(lines)
    outcome = Outcome("ok", log=log, changed=changed, seconds=time.monotonic() - start)
    if proc.returncode != 0:
        outcome.status, outcome.kind = classify(log, lab, student_verdicts(build, lab))
    return outcome


def status_printer(lab, quiet, first):
    """A `say` for build_lab that prints one line when a (first) build starts, or nothing when quiet."""
    if quiet:
        return None
    started = []

    def say(line):
        if not started:
            started.append(line)
            what = f"building {lab} for the first time (a few minutes)" if first else \
                f"rebuilding {lab} (only what changed)"
            print(f"[grade] {what}", file=sys.stderr, flush=True)

    return say
