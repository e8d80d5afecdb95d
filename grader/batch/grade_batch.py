#!/usr/bin/env python3
"""Grades a class: ./grade batch LAB SUBMISSIONS/ --out RESULTS/

Every entry of SUBMISSIONS (a folder, a .zip or a .tar.gz per student) gets a gradebook
row, whatever it holds. Only the lab's kernels.cu is taken from it; it is built in its own
scratch folder against the course's prebuilt objects, and graded by the grader in its own
process. The grader's --json report (report.json) is the only thing read back from it.
See docs/instructor-guide.md.
"""
import argparse
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import grader_command  # noqa: E402
import gradebook  # noqa: E402
import intake  # noqa: E402
from build_recipe import Recipe, RecipeError  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Progress:
    """A bar with an ETA on a terminal; one log line per submission otherwise."""

    def __init__(self, total, quiet=False):
        self.total, self.done, self.start = total, 0, time.time()
        self.tty = sys.stderr.isatty() and not quiet
        self.quiet = quiet
        self.lock = threading.Lock()

    def finished(self, r):
        with self.lock:
            self.done += 1
            if self.tty:
                elapsed = time.time() - self.start
                eta = elapsed / self.done * (self.total - self.done)
                width = 30
                filled = int(width * self.done / max(1, self.total))
                sys.stderr.write(f"\r[{'=' * filled}{' ' * (width - filled)}] {self.done}/{self.total} "
                                 f"ETA {int(eta // 60)}m{int(eta % 60):02d}s  {r['submission'][:30]:<30}")
                if self.done == self.total:
                    sys.stderr.write("\n")
                sys.stderr.flush()
            elif not self.quiet:
                print(f"[batch] {self.done}/{self.total} {r['submission']}: {r['status']} "
                      f"{r['score']}/{r['max_score']}", file=sys.stderr, flush=True)


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


def main(argv=None):
    p = argparse.ArgumentParser(prog="./grade batch", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("lab", help="lab1 ... lab5")
    p.add_argument("submissions", help="folder with one folder or archive per student")
    p.add_argument("--out", required=True, help="results folder (created; re-running resumes)")
    p.add_argument("--gpus", default=None, help="'all' or a list like 0,1: one grading worker per GPU")
    p.add_argument("--emulate", action="store_true", help="grade correctness on the CPU emulator")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel builds (and emulated grading)")
    p.add_argument("--force", action="store_true", help="grade again submissions already graded")
    p.add_argument("--policy", help="policy file merged over the defaults")
    p.add_argument("--build-dir", default=os.environ.get("COURSE_BUILD_DIR", os.path.join(ROOT, "build")))
    p.add_argument("--compile-timeout", type=float, default=300)
    p.add_argument("--grade-timeout", type=float, default=1800)
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)

    try:
        recipe = Recipe(args.build_dir)
        folder = recipe.folder(args.lab)
    except (RecipeError, OSError, ValueError) as e:
        print(f"grade batch: {e}", file=sys.stderr)
        return 2
    if not os.path.isdir(args.submissions):
        print(f"grade batch: {args.submissions} is not a folder", file=sys.stderr)
        return 2
    try:
        os.makedirs(args.out, exist_ok=True)
        probe = os.path.join(args.out, ".write-test")
        open(probe, "w").close()
        os.remove(probe)
    except OSError as e:
        print(f"grade batch: cannot write to {args.out}: {e}", file=sys.stderr)
        return 2
    if args.policy and not os.path.isfile(args.policy):
        print(f"grade batch: policy file {args.policy} does not exist", file=sys.stderr)
        return 2

    gpus = [] if args.emulate else gpu_ids(args.gpus if args.gpus else "all")
    if args.gpus and args.gpus != "all" and not gpus:
        print(f"grade batch: no GPUs in '{args.gpus}'", file=sys.stderr)
        return 2
    backend = "gpu" if gpus and recipe.has(args.lab, "gpu") else "emulated"
    if backend == "emulated" and not args.emulate:
        print("grade batch: no GPU: grading correctness only, on the CPU emulator", file=sys.stderr)

    # Make sure the course's objects are built (a no-op when they are).
    build = subprocess.run(["cmake", "--build", args.build_dir, "--target", "batch_templates", "grader",
                            "-j", str(args.jobs)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if build.returncode != 0:
        print("grade batch: building the course failed:\n" + build.stdout.decode()[-3000:], file=sys.stderr)
        return 2

    subs = intake.discover(args.submissions)
    dups = intake.duplicates(subs)
    rows = {}
    todo = []
    for s in subs:
        row_path = os.path.join(args.out, s.name, "row.json")
        if os.path.exists(row_path) and not args.force:
            with open(row_path) as f:
                rows[s.name] = json.load(f)
        else:
            todo.append(s)
    skipped = len(subs) - len(todo)
    if skipped and not args.quiet:
        print(f"grade batch: {skipped} submission(s) already graded (use --force to grade them again)",
              file=sys.stderr)

    progress = Progress(len(todo), args.quiet)
    lock = threading.Lock()

    def record(sub, r, extra=None):
        d = os.path.join(args.out, sub.name)
        os.makedirs(d, exist_ok=True)
        extra = dict(extra or {})
        if not os.path.exists(os.path.join(d, "report.json")):
            # Never graded: its report is the reason, in every format the graded ones have.
            extra["report.txt"] = f"{sub.name}: {r['status']}\n{r['message']}\n"
            extra["results.json"] = json.dumps(gradebook.never_graded_results(r), indent=2) + "\n"
        for name, text in extra.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        tmp = os.path.join(d, ".row.json.tmp")
        with open(tmp, "w") as f:
            json.dump(r, f, indent=2)
        os.replace(tmp, os.path.join(d, "row.json"))  # written last: the submission is done
        with lock:
            rows[sub.name] = r
            gradebook.write(args.out, rows.values())
        progress.finished(r)

    scratch_root = os.path.join(args.out, ".scratch")
    grade_queue = queue.Queue()
    stats = {"build_s": 0.0, "builds": 0, "graded": 0, "grade_start": None, "grade_end": None}

    def prepare(sub):
        """Intake and build; hands buildable submissions to the grading queue."""
        shutil.rmtree(os.path.join(args.out, sub.name), ignore_errors=True)  # --force: start clean
        try:
            if sub.name in dups:
                raise intake.InvalidSubmission(
                    f"duplicate submission for student '{sub.student_id}' (also {dups[sub.name]}): only one is graded")
            inner, data = intake.student_file(sub, folder)
        except intake.InvalidSubmission as e:
            record(sub, gradebook.row(sub.name, sub.student_id, "invalid_submission", message=str(e)))
            return
        scratch = os.path.join(scratch_root, sub.name)
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(os.path.join(scratch, folder))
        source = os.path.join(scratch, folder, "kernels.cu")
        with open(source, "wb") as f:
            f.write(data)
        try:
            t_build = time.time()
            built = recipe.build(args.lab, backend, source, scratch, args.compile_timeout)
            with lock:
                stats["build_s"] += time.time() - t_build
                stats["builds"] += 1
        except RecipeError as e:
            record(sub, gradebook.row(sub.name, sub.student_id, "crashed", message=f"infrastructure: {e}"))
            return
        if not built.ok:
            status = "timeout" if built.timed_out else "rejected" if built.rejected else "compile_error"
            msg = ("the build ran too long" if built.timed_out else
                   f"{inner} was refused before compiling" if built.rejected else f"{inner} does not compile")
            tail = "\n".join(built.log.strip().splitlines()[-12:])
            report_build_failure(sub, built, scratch)
            record(sub, gradebook.row(sub.name, sub.student_id, status, message=f"{msg}: {tail}"),
                   {"build.log": built.log})
            return
        grade_queue.put((sub, built))

    def report_build_failure(sub, built, scratch):
        """The grader's reports of a build that failed (it runs nothing); without them,
        record() writes the reason in their place."""
        d = os.path.join(args.out, sub.name)
        os.makedirs(d, exist_ok=True)
        failure = os.path.join(scratch, "build_failure.json")
        grader_command.write_build_failure(failure, built)
        cmd = grader_command.command(recipe.grader, args.lab, built, backend == "emulated", args.policy, failure,
                                     os.path.join(d, "report.json"), os.path.join(d, "results.json"),
                                     os.path.join(d, "report.txt"))
        try:
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=args.grade_timeout)
        except subprocess.TimeoutExpired:
            pass

    def grade(sub, built, gpu):
        d = os.path.join(args.out, sub.name)
        os.makedirs(d, exist_ok=True)
        report = os.path.join(d, "report.json")
        cmd = grader_command.command(recipe.grader, args.lab, built, backend == "emulated", args.policy,
                                     json_out=report, gradescope=os.path.join(d, "results.json"),
                                     text=os.path.join(d, "report.txt"))
        env = dict(os.environ)
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpu
        try:
            # Its output is kept for the record, never read: report.json is the verdict.
            proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=args.grade_timeout)
            out, code = proc.stdout.decode("utf-8", "replace"), proc.returncode
        except subprocess.TimeoutExpired:
            record(sub, gradebook.row(sub.name, sub.student_id, "timeout",
                                      message=f"grading ran longer than {args.grade_timeout:.0f} s"))
            return
        try:
            with open(report) as f:
                rep = json.load(f)
        except (OSError, ValueError):
            record(sub, gradebook.row(sub.name, sub.student_id, "crashed",
                                      message=f"the grader exited with {code} and no report: {out[-400:]}"),
                   {"grader.log": out})
            return
        extra = {"grader.log": out} if rep.get("infrastructure_error") else None
        record(sub, gradebook.row_from_report(sub.name, sub.student_id, rep), extra)

    def grader_loop(gpu):
        while True:
            item = grade_queue.get()
            if item is None:
                return
            with lock:
                stats["grade_start"] = stats["grade_start"] or time.time()
            try:
                grade(*item, gpu)
                with lock:
                    stats["graded"] += 1
                    stats["grade_end"] = time.time()
            except Exception as e:  # a bug here must not lose the other submissions
                sub = item[0]
                record(sub, gradebook.row(sub.name, sub.student_id, "crashed", message=f"batch error: {e}"))

    # One grading thread per GPU (performance is never measured by two workers on one GPU);
    # emulated grading uses every core.
    slots = gpus if backend == "gpu" else [None] * max(1, args.jobs)
    graders = [threading.Thread(target=grader_loop, args=(g,), daemon=True) for g in slots]
    for t in graders:
        t.start()
    t0 = time.time()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(prepare, todo))
    for _ in graders:
        grade_queue.put(None)
    for t in graders:
        t.join()

    gradebook.write(args.out, rows.values())
    shutil.rmtree(scratch_root, ignore_errors=True)
    elapsed = time.time() - t0
    all_rows = list(rows.values())
    print(gradebook.summary(all_rows))
    if todo:
        where = "GPU(s) " + ",".join(gpus) if backend == "gpu" else "the CPU emulator"
        print(f"processed {len(todo)} submission(s) in {elapsed:.1f} s ({60 * len(todo) / max(elapsed, 1e-9):.1f} per "
              f"minute) on {where}")
        if stats["builds"]:
            print(f"  builds: {stats['builds']} compiled and linked, {stats['build_s']:.1f} s of build time "
                  f"({stats['build_s'] / stats['builds']:.1f} s each, {args.jobs} in parallel)")
        if stats["graded"] and stats["grade_end"]:
            span = stats["grade_end"] - stats["grade_start"]
            print(f"  grading: {stats['graded']} graded in {span:.1f} s from the first to the last "
                  f"({60 * stats['graded'] / max(span, 1e-9):.1f} per minute once built)")
    print(f"gradebook: {os.path.join(args.out, 'gradebook.csv')}")
    plot = os.path.join(ROOT, "scripts", "plot_class.py")
    if os.path.exists(plot):
        subprocess.run([sys.executable, plot, os.path.join(args.out, "gradebook.json"), "--out", args.out,
                        "--title", args.lab])
    return 0


if __name__ == "__main__":
    sys.exit(main())
