#!/usr/bin/env python3
"""Grades a class: ./grade batch LAB SUBMISSIONS/ --out RESULTS/

Every entry of SUBMISSIONS (a folder, a .zip or a .tar.gz per student) gets a gradebook
row, whatever it holds. Only the lab's kernels.cu is taken from it; it is built in its own
scratch folder against the course's prebuilt objects, and graded by the grader in its own
process. The grader's --json report (report.json) is the only thing read back from it.
See docs/instructor-guide.md.
"""
import argparse
import hashlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor


from grader import names
from grader import course_python
from grader.batch import children
from grader.batch import class_review
from grader.batch import grade_one
from grader.batch import gradebook
from grader.batch import intake
from grader.batch import merge
from grader.batch import roster
from grader.batch import shard
from grader.batch import slurm_submit
from grader.batch import throughput
from grader.batch.build_recipe import Recipe, RecipeError
from grader.batch.progress import Progress

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def gpu_ids(spec):
    if spec in (None, "", "none"):
        return []
    if spec == "all":
        try:
            out = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 timeout=60).stdout.decode()
        except (OSError, subprocess.TimeoutExpired):
            return []
        return [str(i) for i, line in enumerate(l for l in out.splitlines() if l.startswith("GPU "))]
    return [g.strip() for g in spec.split(",") if g.strip()]


def unwritable(out, create):
    """Why RESULTS cannot be written, or None. It is made (and a file written and removed
    there) when `create`; a dry run writes nothing, so there the folder, or the nearest
    folder above it that exists, must be writable."""
    if create:
        try:
            os.makedirs(out, exist_ok=True)
            probe = os.path.join(out, ".write-test")
            open(probe, "w").close()
            os.remove(probe)
        except OSError as e:
            return str(e)
        return None
    path = os.path.abspath(out)
    while not os.path.exists(path):
        path = os.path.dirname(path)
    if not os.path.isdir(path):
        return f"{path} is not a folder"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"{path} is not writable"
    return None


def grade_on_slurm(args, grader, todo, subs, folder, t0):
    """Intake and builds here, on all cores (the build tree and the course's objects are
    here, and building is CPU work the GPU nodes need not do), into the run's own scratch
    folder on the shared filesystem (RESULTS/.slurm/run-<n>/scratch: a later run, or its
    merge, never touches another's); then one Slurm array grades what was built."""
    run_dir = shard.new_run_dir(args.out)
    scratch_root = os.path.join(run_dir, "scratch")
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        built = list(pool.map(lambda s: (s, prepare_or_none(grader, s, folder, scratch_root)), todo))
    if children.stopping.is_set():
        return interrupted(args, subs, todo, grader.recorded, "nothing was submitted to Slurm")
    built = [{"name": s.name, "student_id": s.student_id, "identity": s.identity(), "built": grade_one.built_to_json(b),
              "sha256": grader.file_sha256.get(s.name, "")} for s, b in built if b]
    manifest = {"lab": args.lab, "backend": grader.backend, "grader": grader.grader, "policy": grader.policy,
                "reference_counters": grader.reference_counters,
                "template_worker": grader.recipe.template_worker(args.lab, grader.backend),
                "grade_timeout": args.grade_timeout, "out": os.path.abspath(args.out),
                "graders_per_gpu": args.graders_per_gpu, "started": t0, "todo": len(todo), "review": args.review,
                "builds": {"count": grader.stats["builds"], "seconds": grader.stats["build_s"]},
                "class": [{"name": s.name, "student_id": s.student_id, "identity": s.identity()} for s in subs]}
    # Built: from here a Ctrl-C ends the submitting or the waiting as Python's does
    # (slurm_submit.py), and leaves the jobs to Slurm.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    shards = shard.split(built, args.tasks or shard.default_tasks(len(built))) if built else []
    shard.write_run(run_dir, manifest, shards)
    if not shards:  # nothing built: every row is already here
        return merge.merge(run_dir, quiet=args.quiet)
    return slurm_submit.submit(run_dir, args.lab, args, quiet=args.quiet)


def prepare_or_none(grader, sub, folder, scratch_root):
    """grader.prepare, or None once the batch is interrupted (the submission keeps no row)."""
    try:
        return grader.prepare(sub, folder, scratch_root)
    except children.Stopped:
        return None


def on_interrupt(signum, _frame):
    """The first signal stops every build and grader (children.py); a second one, to an
    impatient instructor, kills them outright and leaves at once."""
    if children.stopping.is_set():
        children.kill_all()
        os._exit(130)
    n = children.stop()
    try:
        print(f"\ngrade batch: {signal.Signals(signum).name}: stopping {n} running build(s) and grader(s)",
              file=sys.stderr, flush=True)
    except OSError:  # the terminal is gone (SIGHUP)
        pass


def interrupted(args, subs, todo, recorded, extra=""):
    """What an interrupted batch says, writes and returns: the gradebook holds every row on
    disk (what this run finished and what it had not reached), none for what it stopped."""
    rows = []
    for s in subs:
        try:
            with open(os.path.join(args.out, s.name, names.ROW)) as f:
                rows.append(dict(json.load(f), **s.identity()))
        except (OSError, ValueError):
            pass
    try:
        gradebook.write(args.out, rows, args.review)
    except OSError:
        pass
    done = len(recorded & {s.name for s in todo})
    again = ("run the same command again to grade them all again" if args.force
             else "run the same command again to finish")
    tail = f" ({extra})" if extra else ""
    try:
        print(f"grade batch: interrupted: {done} graded, {len(todo) - done} left; {again}{tail}", file=sys.stderr)
    except OSError:
        pass
    return 130


def unchanged(old, sub, lab_folder, policy_hash, backend):
    """Whether a submission's row still stands: the same file (its kernels.cu's hash, or no
    usable file, as before), the same policy and the same backend, written by this batch's
    row format (an older batch's rows, such as its "duplicate" rows, are graded again)."""
    try:
        current = hashlib.sha256(intake.student_file(sub, lab_folder)[1]).hexdigest()
    except intake.InvalidSubmission:
        current = ""
    return (old.get("row_format") == gradebook.ROW_FORMAT and old.get("sha256") == current and
            old.get("policy_sha256") == policy_hash and old.get("backend") == backend)


def main(argv=None):
    try:
        return grade(argv)
    except KeyboardInterrupt:  # before any grading began: nothing was recorded
        print("\ngrade batch: interrupted before grading began; nothing was recorded", file=sys.stderr)
        return 130


def grade(argv):
    p = argparse.ArgumentParser(prog="./grade batch", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("lab", help="the lab, as labs.json names it (lab1 ...)")
    p.add_argument("submissions", help="folder with one folder or archive per student")
    p.add_argument("--out", required=True, help="results folder (created; re-running resumes)")
    p.add_argument("--gpus", default=None, help="'all' or a list like 0,1: one grading worker per GPU")
    p.add_argument("--emulate", action="store_true", help="grade correctness on the CPU emulator")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel builds (and emulated grading)")
    p.add_argument("--force", action="store_true", help="grade again submissions already graded")
    p.add_argument("--regrade", action="append", default=[], metavar="NAME",
                   help="grade this student again (their entry's name, or their id: an email for a Gradescope "
                        "export, the login for Canvas; may be given more than once)")
    p.add_argument("--policy", help="policy file merged over the defaults")
    p.add_argument("--build-dir", default=os.environ.get("COURSE_BUILD_DIR", os.path.join(ROOT, "build")))
    p.add_argument("--compile-timeout", type=float, default=300)
    p.add_argument("--grade-timeout", type=float, default=1800)
    p.add_argument("--graders-per-gpu", type=int, default=1, metavar="K",
                   help="grade K submissions at once per GPU, timing still one at a time (grader --gpu-lock)")
    p.add_argument("--deadline", help="the due time (ISO 8601, UTC unless a zone is given): late submissions get "
                   "final_score with --late-penalty taken off")
    p.add_argument("--late-penalty", default="100", metavar="PCT[,PCT...]",
                   help="percent taken off for 1, 2, ... started days late, the last for every later day "
                        "(default 100: no credit after the deadline)")
    p.add_argument("--late-grace", type=float, default=0.0, metavar="MINUTES", help="minutes past the deadline "
                   "that still count as on time")
    p.add_argument("--times-from-files", action="store_true", help="for the late policy, trust the entries' "
                   "modification times where no export says when (a collection that kept them)")
    p.add_argument("--quiet", action="store_true")
    slurm_submit.add_options(p)
    args = p.parse_args(argv)
    problem = slurm_submit.check_options(args)
    if args.graders_per_gpu < 1:
        problem = "--graders-per-gpu must be 1 or more"
    try:
        args.review = {"deadline": class_review.parse_deadline(args.deadline) if args.deadline else None,
                       "curve": class_review.parse_penalties(args.late_penalty), "grace_s": 60 * args.late_grace,
                       "times_from_files": args.times_from_files}
    except ValueError as e:
        problem = str(e)
    if problem:
        print(f"grade batch: {problem}", file=sys.stderr)
        return 2

    try:
        recipe = Recipe(args.build_dir)
        folder = recipe.folder(args.lab)
    except (RecipeError, OSError, ValueError) as e:
        print(f"grade batch: {e}", file=sys.stderr)
        return 2
    for key, where in (("reference_texts", "solutions"), ("stub_texts", "labs")):
        path = os.path.join(ROOT, where, folder, intake.STUDENT_FILE)
        if os.path.isfile(path):  # no solutions/ in a course copy without answers
            with open(path, encoding="utf-8") as f:
                args.review[key] = [f.read()]
    if not os.path.isdir(args.submissions):
        print(f"grade batch: {args.submissions} is not a folder", file=sys.stderr)
        return 2
    problem = unwritable(args.out, create=not args.dry_run)
    if problem:
        print(f"grade batch: cannot write to {args.out}: {problem}", file=sys.stderr)
        return 2
    if args.policy and not os.path.isfile(args.policy):
        print(f"grade batch: policy file {args.policy} does not exist", file=sys.stderr)
        return 2

    if args.slurm:
        # The GPUs are the cluster's, not this node's: the GPU grader must have been built.
        gpus, backend = [], "emulated" if args.emulate else "gpu"
        if backend == "gpu" and not recipe.has(args.lab, "gpu"):
            print(f"grade batch: the course build in {args.build_dir} has no GPU grader for {args.lab} (no nvcc when "
                  "it was configured): build it where nvcc is, or grade with --emulate", file=sys.stderr)
            return 2
    else:
        gpus = [] if args.emulate else gpu_ids(args.gpus if args.gpus else "all")
        if args.gpus and args.gpus != "all" and not gpus:
            print(f"grade batch: no GPUs in '{args.gpus}'", file=sys.stderr)
            return 2
        backend = "gpu" if gpus and recipe.has(args.lab, "gpu") else "emulated"
        if backend == "emulated" and not args.emulate:
            print("grade batch: no GPU: grading on the CPU emulator (correctness and its counters; no timing)", file=sys.stderr)
    entries = intake.discover(args.submissions)
    # One row per student: the newest of their entries is graded, the others are named in its row.
    subs = roster.newest_per_student(entries)
    by_student = {s.student_id: s.name for s in subs}
    regrade = {by_student.get(e.student_id) for e in entries if any(roster.matches(e, n) for n in args.regrade)}
    unknown = sorted(n for n in args.regrade if not any(roster.matches(e, n) for e in entries))
    if unknown:
        print(f"grade batch: --regrade {', '.join(unknown)}: no such submission in {args.submissions}", file=sys.stderr)
        return 2
    rows = {}
    todo = []
    changed = 0
    policy_hash = grade_one.file_sha256(args.policy) if args.policy else "default"
    for s in subs:
        row_path = os.path.join(args.out, s.name, names.ROW)
        if os.path.exists(row_path) and not args.force and s.name not in regrade:
            with open(row_path) as f:
                old = json.load(f)
            # A row stands for the file and the policy it was graded with: a replaced
            # archive, or another policy, is graded again.
            if unchanged(old, s, folder, policy_hash, backend):
                rows[s.name] = dict(old, **s.identity())  # who and when as the export says now
                continue
            changed += 1
        todo.append(s)
    if args.dry_run:
        return slurm_submit.dry_run(args.out, args.lab, len(todo), args)

    # Make sure the course's objects are built (a no-op when they are).
    build = subprocess.run(["cmake", "--build", args.build_dir, "--target", "batch_templates", "grader",
                            "-j", str(args.jobs)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if build.returncode != 0:
        print("grade batch: building the course failed:\n" + build.stdout.decode()[-3000:], file=sys.stderr)
        return 2

    # The policy once, before any submission is built with it: a typo is the instructor's
    # to fix, not every row's to record.
    if args.policy:
        check = subprocess.run([recipe.grader, "--check-policy", os.path.abspath(args.policy)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if check.returncode != 0:
            print("grade batch: " + check.stdout.decode().strip().removeprefix("grader: "), file=sys.stderr)
            return 2

    skipped = len(subs) - len(todo)
    if skipped and not args.quiet:
        print(f"grade batch: {skipped} submission(s) already graded and unchanged (use --force, or --regrade NAME, "
              "to grade them again)", file=sys.stderr)
    if changed and not args.quiet:
        print(f"grade batch: {changed} submission(s) changed since they were graded (their file, the policy or the "
              "backend): graded again", file=sys.stderr)

    def on_row(r):  # the gradebook is rewritten after every submission: nothing finished is lost
        rows[r["submission"]] = r
        gradebook.write(args.out, rows.values(), args.review)

    # A Ctrl-C (or SIGTERM) stops every build and grader this batch started; what had not
    # finished keeps no row, so the same command again grades exactly what is left.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_interrupt)
    grader = grade_one.SubmissionGrader(args.out, args.lab, recipe.grader, backend, args.policy, args.grade_timeout,
                                        recipe, args.compile_timeout, Progress(len(todo), args.quiet), on_row)
    scratch_root = os.path.join(args.out, ".scratch")
    t0 = time.time()

    def count_references():
        """False once the batch is interrupted."""
        try:
            if todo:
                grader.reference_counters = grade_one.count_references(recipe, args.lab, args.out, args.policy,
                                                                       args.quiet)
            return True
        except children.Stopped:
            return False

    if args.slurm:
        if not count_references():
            return interrupted(args, subs, todo, grader.recorded)
        return grade_on_slurm(args, grader, todo, subs, folder, t0)

    # One grading thread per GPU (performance is never measured by two workers on one GPU),
    # or --graders-per-gpu of them sharing its lock; emulated grading uses every core.
    slots = (grade_one.gpu_slots(gpus, args.graders_per_gpu, os.path.join(args.out, ".locks"))
             if backend == "gpu" else [(None, None)] * max(1, args.jobs))
    grader.template_worker = recipe.template_worker(args.lab, backend)
    work, threads = queue.Queue(), []

    def prepare(sub):
        built = prepare_or_none(grader, sub, folder, scratch_root)
        if built:
            work.put((sub, built))

    # The builds are queued at once (map submits every one; --jobs of them run together):
    # the class's reference counters and the lab's description, which every grade reads, are
    # made while the first builds run, not before them. The graders start once both have been
    # tried (a grade counts or asks by itself where one failed); what was built waits queued.
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        builds = pool.map(prepare, todo)
        try:
            if count_references():
                _, threads = grader.start_graders(slots, work)
        except BaseException:
            children.stop()  # the builds too: the batch ends here, not after building the class
            raise
        list(builds)
    grade_one.finish_graders(work, threads)
    stats = grader.stats

    gradebook.write(args.out, rows.values(), args.review)
    shutil.rmtree(scratch_root, ignore_errors=True)
    if children.stopping.is_set():
        return interrupted(args, subs, todo, grader.recorded)
    span = stats["grade_end"] - stats["grade_start"] if stats["grade_end"] else None
    fig = throughput.figures(len(todo), time.time() - t0, stats["builds"], stats["build_s"], stats["graded"], span)
    all_rows = list(rows.values())
    print(gradebook.summary(all_rows))
    if todo:
        # The same figures for scripts (scripts/batch_throughput.py), of this run's work only.
        throughput.write(args.out, dict(fig, backend=backend, gpus=gpus, graders_per_gpu=args.graders_per_gpu,
                                        jobs=args.jobs))
        where = "GPU(s) " + ",".join(gpus) if backend == "gpu" else "the CPU emulator"
        print(f"processed {fig['submissions']} submission(s) in {fig['elapsed_s']:.1f} s ({fig['per_minute']:.1f} per "
              f"minute) on {where}")
        if fig["builds"]:
            print(f"  builds: {fig['builds']} compiled and linked, {fig['build_s']:.1f} s of build time "
                  f"({fig['build_s'] / fig['builds']:.1f} s each, {args.jobs} in parallel)")
        if fig["per_minute_once_built"] is not None:
            print(f"  grading: {fig['graded']} graded in {fig['grade_span_s']:.1f} s from the first to the last "
                  f"({fig['per_minute_once_built']:.1f} per minute once built)")
    print(f"gradebook: {os.path.join(args.out, 'gradebook.csv')}")
    if os.path.exists(course_python.module_file("scripts.plot_class")):
        subprocess.run(course_python.command("scripts.plot_class", os.path.join(args.out, names.GRADEBOOK_JSON),
                                             "--out", args.out, "--title", args.lab), env=course_python.env())
    return 0


if __name__ == "__main__":
    sys.exit(main())
