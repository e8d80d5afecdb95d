"""Grading one submission, the same way wherever it runs: in the local batch
(grade_batch.py), in a Slurm array task (slurm_task.py), and alone (grade_alone) in
Gradescope's autograder (grader/gradescope/run_autograder.py) and PrairieLearn's
(grader/prairielearn/run_grader.py).

prepare() takes the lab file out of the submission and builds it (on the submitting
node); grade() runs the grader on a built submission, in its own process, with the
time limit, and reads back only its --json report. Every outcome ends in record(),
which writes the submission's folder and, last, its row.json: a submission with a
row.json is done, and a rerun skips it.
"""
import datetime
import hashlib
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time

from grader import names
from grader.batch import children
from grader.html import report_page
from grader.batch import grader_command
from grader.batch import gradebook
from grader.batch import intake
from grader.batch.build_recipe import BuildResult, Recipe, RecipeError


def file_sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# A SHA-256 as the grader writes it (sha256_hex) and reads a pin (--*-sha256).
SHA256_DIGITS = re.compile(r"[0-9a-f]{64}")


def said_sha256(said):
    """The SHA-256 that `grader --count-references` or `--describe-lab` printed of the bytes
    it wrote (its last line, 64 hex digits), or None: the batch pins the file by what the
    grader wrote, never by reading back what may have been written over since."""
    lines = [line.strip() for line in said.splitlines() if line.strip()]
    return lines[-1] if lines and SHA256_DIGITS.fullmatch(lines[-1]) else None


def pinned_file(value):
    """A (path, sha256) pair from a manifest's JSON, or None for anything else (an older
    run's plain path, say): a file not pinned is not handed to the grades."""
    if (isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, str) for v in value)
            and SHA256_DIGITS.fullmatch(value[1])):
        return value[0], value[1]
    return None


class SubmissionGrader:
    """out: the results folder; grader: the grader program; backend: "gpu" or "emulated".
    recipe is needed only to build (prepare); on_row(row) is called after each row.json
    (the local batch rewrites its gradebook there; a Slurm task leaves that to the merge)."""

    def __init__(self, out, lab, grader, backend, policy=None, grade_timeout=1800.0, recipe=None,
                 compile_timeout=300.0, progress=None, on_row=None, invalid_hint=""):
        self.out, self.lab, self.grader, self.backend = out, lab, grader, backend
        self.policy = os.path.abspath(policy) if policy else None
        self.grade_timeout, self.compile_timeout = grade_timeout, compile_timeout
        self.recipe, self.progress, self.on_row = recipe, progress, on_row
        self.invalid_hint = invalid_hint  # said after why a submission is unusable (Gradescope's upload advice)
        self.lock = threading.Lock()
        self.stats = {"build_s": 0.0, "builds": 0, "graded": 0, "grade_start": None, "grade_end": None}
        self.policy_sha256 = file_sha256(self.policy) if self.policy else "default"
        self.file_sha256 = {}  # by submission name: the kernels.cu intake took out of it
        self.recorded = set()  # the submissions whose rows this run wrote
        self.emu_cores = None  # COURSE_EMU_CORES for each grader: set by start_graders
        # The class's file of them (count_references) and its bytes' SHA-256, or None.
        self.reference_counters = None
        # The lab's template worker of the backend: when set, start_graders has it describe
        # the lab once per GPU into describe_dir (describe_lab), and `described` holds the
        # (file, SHA-256) pairs by GPU (None on the emulator) for every grade to read.
        self.template_worker = None
        self.describe_dir = os.path.join(out, names.DESCRIBED)
        self.described = {}

    @property
    def emulate(self):
        return self.backend == "emulated"

    def folder_of(self, sub):
        return os.path.join(self.out, sub.name)

    def record(self, sub, r, extra=None):
        if children.stopping.is_set():
            raise children.Stopped()  # whatever ended it was the interrupt: no row, a rerun grades it
        r = dict(r, **sub.identity(), sha256=self.file_sha256.get(sub.name, ""), policy_sha256=self.policy_sha256,
                 backend=self.backend, graded_at=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
        d = self.folder_of(sub)
        os.makedirs(d, exist_ok=True)
        extra = dict(extra or {})
        if not os.path.exists(os.path.join(d, names.REPORT)):
            # Never graded: its report is the reason, in every format the graded ones have.
            extra[names.TEXT] = f"{sub.name}: {r['status']}\n{r['message']}\n"
            extra[names.GRADESCOPE] = json.dumps(gradebook.never_graded_results(r), indent=2) + "\n"
        for name, text in extra.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        tmp = os.path.join(d, "." + names.ROW + ".tmp")
        with open(tmp, "w") as f:
            json.dump(r, f, indent=2)
        os.replace(tmp, os.path.join(d, names.ROW))  # written last: the submission is done
        with self.lock:
            self.recorded.add(sub.name)
            if self.on_row:
                try:
                    self.on_row(r)
                except OSError as e:  # the row stands; the gradebook is written again at the end
                    print(f"grade batch: could not rewrite the gradebook after {sub.name}: {e}", file=sys.stderr)
        if self.progress:
            self.progress.finished(r)

    def prepare(self, sub, lab_folder, scratch_root):
        """Intake and build. Returns the BuildResult of a built submission, to be graded;
        records the row (and returns None) of one that cannot be. Raises children.Stopped
        when the batch is interrupted: the submission keeps no row."""
        if children.stopping.is_set():
            raise children.Stopped()
        shutil.rmtree(self.folder_of(sub), ignore_errors=True)  # --force or a rerun: start clean
        try:
            inner, data = intake.student_file(sub, lab_folder)
            self.file_sha256[sub.name] = hashlib.sha256(data).hexdigest()
            os.makedirs(self.folder_of(sub), exist_ok=True)
            with open(os.path.join(self.folder_of(sub), names.GRADED_FILE), "wb") as f:
                f.write(data)
        except intake.InvalidSubmission as e:
            message = f"{e}. {self.invalid_hint}" if self.invalid_hint else str(e)
            self.record(sub, gradebook.row(sub.name, sub.student_id, names.INVALID_SUBMISSION, message=message))
            return None
        scratch = os.path.join(scratch_root, sub.name)
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(os.path.join(scratch, lab_folder))
        source = os.path.join(scratch, lab_folder, "kernels.cu")
        with open(source, "wb") as f:
            f.write(data)
        try:
            t_build = time.time()
            built = self.recipe.build(self.lab, self.backend, source, scratch, self.compile_timeout)
            with self.lock:
                self.stats["build_s"] += time.time() - t_build
                self.stats["builds"] += 1
        except RecipeError as e:
            self.record(sub, gradebook.row(sub.name, sub.student_id, names.CRASHED, message=f"infrastructure: {e}"))
            return None
        if built.ok and self.backend == "gpu" and self.recipe.has(self.lab, "emulated"):
            # A GPU grade reads the emulator's counters for its technique checks too (docs/
            # grading.md, "One verdict on both backends"): the emulated worker beside the GPU
            # one, as `make` builds both. Without it the grader uses the GPU's own checks.
            try:
                self.recipe.build(self.lab, "emulated", source, scratch, self.compile_timeout)
            except RecipeError:
                pass
        if built.ok:
            return built
        status = names.TIMEOUT if built.timed_out else names.REJECTED if built.rejected else names.COMPILE_ERROR
        msg = ("the build ran too long" if built.timed_out else
               f"{inner} was refused before compiling" if built.rejected else f"{inner} does not compile")
        tail = "\n".join(built.log.strip().splitlines()[-12:])
        self.report_build_failure(sub, built, scratch)
        self.record(sub, gradebook.row(sub.name, sub.student_id, status, message=f"{msg}: {tail}"),
                    {"build.log": built.log})
        return None

    def report_build_failure(self, sub, built, scratch):
        """The grader's reports of a build that failed (it runs nothing); without them,
        record() writes the reason in their place."""
        d = self.folder_of(sub)
        os.makedirs(d, exist_ok=True)
        failure = os.path.join(scratch, names.BUILD_FAILURE)
        grader_command.write_build_failure(failure, built)
        cmd = grader_command.command(self.grader, self.lab, built, self.emulate, self.policy, failure,
                                     os.path.join(d, names.REPORT), os.path.join(d, names.GRADESCOPE),
                                     os.path.join(d, names.TEXT))
        try:
            children.run(cmd, self.grade_timeout)
        except subprocess.TimeoutExpired:
            pass

    def grade(self, sub, built, gpu=None, gpu_lock=None):
        """Runs the grader on a built submission, on `gpu` (a CUDA_VISIBLE_DEVICES value)
        when given; gpu_lock: the lock file it shares with the other graders of that GPU."""
        d = self.folder_of(sub)
        os.makedirs(d, exist_ok=True)
        report = os.path.join(d, names.REPORT)
        cmd = grader_command.command(self.grader, self.lab, built, self.emulate, self.policy,
                                     json_out=report, gradescope=os.path.join(d, names.GRADESCOPE),
                                     text=os.path.join(d, names.TEXT), gpu_lock=gpu_lock,
                                     reference_counters=self.reference_counters,
                                     described=self.described.get(gpu))
        env = dict(os.environ)
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpu
        if self.emu_cores is not None and "COURSE_EMU_CORES" not in os.environ:
            env["COURSE_EMU_CORES"] = str(self.emu_cores)
        try:
            # Its output is kept for the record, never read: report.json is the verdict.
            raw, code = children.run(cmd, self.grade_timeout, env=env)
            out = raw.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            self.record(sub, gradebook.row(sub.name, sub.student_id, names.TIMEOUT,
                                           message=f"grading ran longer than {self.grade_timeout:.0f} s"))
            return
        try:
            with open(report) as f:
                rep = json.load(f)
        except (OSError, ValueError):
            self.record(sub, gradebook.row(sub.name, sub.student_id, names.CRASHED,
                                           message=f"the grader exited with {code} and no report: {out[-400:]}"),
                        {"grader.log": out})
            return
        extra = {"grader.log": out} if rep.get("infrastructure_error") else None
        graded = os.path.join(d, names.GRADED_FILE)
        report_page.write_beside(rep, os.path.join(d, names.PAGE),
                                 graded if os.path.exists(graded) else (rep.get("source") or {}).get("path"))
        self.record(sub, gradebook.row_from_report(sub.name, sub.student_id, rep), extra)

    def grader_loop(self, work, gpu, gpu_lock):
        """Grades (sub, built) items from the queue `work` until it hands out None."""
        while True:
            item = work.get()
            if item is None:
                return
            if children.stopping.is_set():
                continue  # interrupted (Ctrl-C, or Slurm ending the task): start nothing more
            with self.lock:
                self.stats["grade_start"] = self.stats["grade_start"] or time.time()
            try:
                self.grade(*item, gpu, gpu_lock)
                with self.lock:
                    self.stats["graded"] += 1
                    self.stats["grade_end"] = time.time()
            except children.Stopped:
                continue
            except Exception as e:  # a bug here must not lose the other submissions
                sub = item[0]
                try:
                    self.record(sub, gradebook.row(sub.name, sub.student_id, names.CRASHED, message=f"batch error: {e}"))
                except children.Stopped:
                    continue

    def start_graders(self, slots, work=None):
        """One grading thread per slot, a (gpu, gpu_lock) pair; returns (queue, threads):
        put (sub, built) items on the queue (`work`, or a new one), then finish_graders()."""
        work = queue.Queue() if work is None else work
        # The emulator spreads a launch's blocks over the cores it is given
        # (common/emu/block_pool.hpp): graders running side by side share them out.
        self.emu_cores = max(1, len(os.sched_getaffinity(0)) // max(1, len(slots)))
        if self.template_worker:
            for gpu in dict.fromkeys(g for g, _ in slots):
                self.described[gpu] = describe_lab(self.grader, self.lab, self.template_worker, self.describe_dir, gpu)
        threads = [threading.Thread(target=self.grader_loop, args=(work, gpu, lock), daemon=True)
                   for gpu, lock in slots]
        for t in threads:
            t.start()
        return work, threads


def count_references(recipe, lab, out, policy=None, quiet=False, seconds=600.0):
    """The references' counters of the class (`grader --count-references`), counted once by
    the lab's emulated template worker, whose student is the course's stub (no submission's
    code runs there), so that each grade counts only its student's kernels on the problems it
    draws: (the file's absolute path (Slurm's tasks run in folders of their own), the
    SHA-256 the grader printed of the bytes it wrote, which each grade checks), or None when
    they could not be counted within `seconds` (each grade then counts them itself, as one
    ./grade does), with the reason said. children.Stopped when the batch is stopping."""
    if not recipe.has(lab, "emulated"):
        return None
    path = os.path.abspath(os.path.join(out, names.REFERENCE_COUNTERS))
    cmd = [recipe.grader, "--count-references", lab, recipe.templates[(lab, "emulated")]["template_worker"], path]
    if policy:
        cmd.append(os.path.abspath(policy))
    try:
        raw, code = children.run(cmd, seconds)
        said = raw.decode("utf-8", "replace").strip()
    except subprocess.TimeoutExpired:
        code, said = None, f"they took longer than {seconds:.0f} s"
    except OSError as e:
        code, said = None, f"the grader could not be run: {e}"
    if code != 0:
        print("grade batch: the references' counters were not counted once for the class, so every grade counts "
              "them itself: " + said[-600:], file=sys.stderr)
        return None
    sha = said_sha256(said)
    if sha is None:
        print("grade batch: the references' counters were counted, but the grader did not say the SHA-256 of what "
              "it wrote, so every grade counts them itself: " + said[-600:], file=sys.stderr)
        return None
    if not quiet:
        print(f"grade batch: the references' counters counted once for the class: {path}", file=sys.stderr)
    return path, sha


def describe_lab(grader, lab, worker, folder, gpu=None, seconds=120.0):
    """The lab as `worker`, its template worker (the course's stub, no submission's code),
    describes it on `gpu` (a CUDA_VISIBLE_DEVICES value; None on the emulator): its parts,
    device and sandbox (`grader --describe-lab`), so that each grade reads them rather than
    starting its own worker, and on a GPU making a CUDA context, to ask: (the file's absolute
    path, the SHA-256 of its bytes). A grade that reads it does not try the GPU itself before
    its cases, so a GPU lost after this gives that grade an infrastructure error. None when
    the worker could not say, with the reason said: each grade then asks its own worker, and
    where the GPU cannot be used, grades on the emulator, as one ./grade does; also when the
    batch is stopping, whose graders then start nothing."""
    path = os.path.abspath(os.path.join(folder, f"{lab}_{'emulated' if gpu is None else 'gpu' + str(gpu)}.json"))
    env = dict(os.environ)
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = str(gpu)
    try:
        os.makedirs(folder, exist_ok=True)
        raw, code = children.run([grader, "--describe-lab", lab, worker, path], seconds, env=env)
        said = raw.decode("utf-8", "replace").strip()
    except subprocess.TimeoutExpired:
        code, said = None, f"it took longer than {seconds:.0f} s"
    except OSError as e:
        code, said = None, f"the grader could not be run: {e}"
    except children.Stopped:
        return None
    sha = said_sha256(said) if code == 0 else None
    if sha is None:
        why = said[-600:] if code != 0 else "the grader did not say the SHA-256 of what it wrote: " + said[-600:]
        print(f"grade batch: the lab was not described once{'' if gpu is None else ' for GPU ' + str(gpu)}, so every "
              "grade asks its own worker: " + why, file=sys.stderr)
        return None
    return path, sha


def grade_alone(build_dir, lab, submission_dir, out, policy=None, compile_timeout=600.0, seconds=2400.0):
    """Grades an LMS's one submission, the folder SUBMISSION_DIR, on the emulator of the
    course built in BUILD_DIR, as the batch grades each of a class's, into the results
    folder OUT, within about SECONDS: the build gets at most COMPILE_TIMEOUT of them, the
    grading what is left. Returns (the submission's folder of reports, whether the grader
    ran its kernels); raises RecipeError when the course build cannot build it."""
    recipe = Recipe(build_dir)
    folder = recipe.folder(lab)
    sub = intake.Submission("submission", submission_dir, "dir", "submission")
    grader = SubmissionGrader(out, lab, recipe.grader, "emulated", policy, grade_timeout=seconds, recipe=recipe,
                              compile_timeout=compile_timeout,
                              invalid_hint=f"Upload {folder}/kernels.cu (or kernels.cu alone).")
    start = time.time()
    built = grader.prepare(sub, folder, os.path.join(out, ".scratch"))
    if built is not None:
        grader.grade_timeout = max(1.0, seconds - (time.time() - start))
        grader.grade(sub, built)
    return grader.folder_of(sub), built is not None


def finish_graders(work, threads):
    for _ in threads:
        work.put(None)
    for t in threads:
        t.join()


def gpu_slots(gpus, graders_per_gpu, lock_dir):
    """(gpu, lock) for each grading thread: graders_per_gpu per GPU. With more than one
    on a GPU they pass the grader a lock file of that GPU (grader --gpu-lock), which keeps
    timing exclusive; alone on its GPU a grader needs none (today's behaviour)."""
    slots = []
    for g in gpus:
        lock = os.path.join(lock_dir, f"gpu{g}") if graders_per_gpu > 1 else None
        slots += [(g, lock)] * graders_per_gpu
    if any(lock for _, lock in slots):
        os.makedirs(lock_dir, exist_ok=True)
    return slots


def built_to_json(built):
    """What a shard file holds of a built submission (all a grader needs to grade it)."""
    return {"worker_dir": built.worker_dir, "source": built.source, "object": built.object}


def built_from_json(d):
    return BuildResult(True, "", d["worker_dir"], d["source"], d["object"])
