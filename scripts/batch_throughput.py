#!/usr/bin/env python3
"""Batch-grading throughput per GPU: grades one generated class once per K of
--graders-per-gpu and prints how many submissions a minute each run managed, and whether
its verdicts equal those of the first run (K = 1, one grader per GPU).

    python3 -m scripts.batch_throughput --lab lab3 --count 60 --graders 1,2,3,4 --gpus 0 --out tp.json
    python3 -m scripts.batch_throughput --emulate --lab lab1 --count 4 --graders 1,2    # on a CPU

The class: --count folders SUBMISSIONS/student_NNN/<lab folder>/kernels.cu, about 70%
copies of the lab's solution, 20% of the independently written one
(grader/tests/submissions/alt/, where the lab has one) and 10% the untouched stub, each
with its own first line (// student NNN). Each run grades the whole class into a fresh
results folder with `grader/batch/grade_batch.py` (what ./grade batch runs) and its
figures are read from RESULTS/batch_stats.json; verdicts are compared per submission
(gradebook status, score, maximum and parts passed; per part, from report.json, the
correctness outcome, the timing verdict, the points and any penalty), never speedups or
times. With --reference FILE (an earlier run's --out, which keeps each run's verdicts),
that file's first run is the reference of every run here instead: an A/B of two builds,
trees or policies on the same class. Exit status: 0 when every run graded the whole class
with the reference's verdicts, 1 otherwise (the work folder is then kept), 2 for bad
options.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

from grader import course_python
from grader import names
from scripts import labs_manifest
from scripts import throughput_load
# verdict is the tests' (scripts/tests/test_batch_throughput.py), through this module.
from scripts.throughput_verdicts import (PHASES, differences, equal_column, median_speedups,  # noqa: F401
                                         phase_medians, read_verdicts, verdict)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def lab_folder(lab):
    return next((entry["folder"] for entry in labs_manifest.labs() if entry["name"] == lab), None)


# ---- the class ----------------------------------------------------------------------

def class_kinds(count):
    """The kind of each of `count` submissions ("solution", "alt" or "stub"): about 70%,
    20% and 10%, at least one alt and one stub from 3 submissions on, spread through the
    class rather than in blocks."""
    stub = max(1, round(count / 10)) if count >= 3 else 0
    alt = max(1, round(count / 5)) if count >= 3 else 0
    kinds = {"solution": count - alt - stub, "alt": alt, "stub": stub}
    # Each kind's j-th of n submissions at (j + 0.5) / n of the way through the class.
    placed = sorted(((j + 0.5) / n, order, kind) for order, (kind, n) in enumerate(kinds.items())
                    for j in range(n))
    return [kind for _, _, kind in placed]


def kind_sources(folder):
    """{kind: (source text, where it came from)}; alt falls back to the solution."""
    paths = {"solution": os.path.join("solutions", folder, "kernels.cu"),
             "alt": os.path.join("grader", "tests", "submissions", "alt", folder, "kernels.cu"),
             "stub": os.path.join("labs", folder, "kernels.cu")}
    if not os.path.isfile(os.path.join(ROOT, paths["alt"])):
        paths["alt"] = paths["solution"]
    sources = {}
    for kind, rel in paths.items():
        with open(os.path.join(ROOT, rel)) as f:
            sources[kind] = (f.read(), rel)
    return sources


def make_class(subs, lab, count):
    """Writes the class into `subs` (emptied first); returns {submission name: kind}.

    The batch grades one entry per student (roster.newest_per_student), by student id, the
    entry name without an archive suffix, never by contents: student_001 ... are all
    distinct, so each is built and graded. The first line makes every file distinct all the
    same (the gradebook's same_file_as stays empty)."""
    folder = lab_folder(lab)
    sources = kind_sources(folder)
    shutil.rmtree(subs, ignore_errors=True)
    width = max(3, len(str(count)))
    made = {}
    for i, kind in enumerate(class_kinds(count), start=1):
        name = f"student_{i:0{width}d}"
        path = os.path.join(subs, name, folder)
        os.makedirs(path)
        with open(os.path.join(path, "kernels.cu"), "w") as f:
            f.write(f"// student {i:0{width}d}\n" + sources[kind][0])
        made[name] = kind
    return made


# ---- verdicts -----------------------------------------------------------------------

# ---- the runs -----------------------------------------------------------------------

def batch_command(args, subs, results, k):
    cmd = course_python.command("grader.batch.grade_batch", args.lab, subs, "--out", results, "--build-dir",
                                args.build_dir, "--jobs", args.jobs, "--graders-per-gpu", k)
    if args.policy:
        cmd += ["--policy", args.policy]
    # The batch takes no --gpus with --emulate (it has no GPU then).
    return cmd + (["--emulate"] if args.emulate else ["--gpus", args.gpus])


def tail(path, lines=30):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def run_batch(args, subs, results, k, log):
    """Grades the class with K graders per GPU; returns (batch_stats.json, error or None)."""
    shutil.rmtree(results, ignore_errors=True)
    process_log = log + ".processes.jsonl"
    if os.path.exists(process_log):
        os.remove(process_log)  # an interrupted earlier run's, in a reused --work folder
    env = dict(course_python.env(), **{throughput_load.PROCESS_LOG_VARIABLE: process_log})
    before = throughput_load.cpu_times()
    with open(log, "w") as f:
        code = subprocess.run(batch_command(args, subs, results, k), stdout=f, stderr=subprocess.STDOUT,
                              env=env).returncode
    load = {"cores": os.cpu_count(), "busy_cores": throughput_load.busy_cores(before, throughput_load.cpu_times()),
            "processes": throughput_load.process_summary(process_log)}
    if os.path.exists(process_log):
        os.remove(process_log)
    if code != 0:
        return None, f"the batch exited with {code}; its output ends:\n{tail(log)}"
    try:
        with open(os.path.join(results, names.STATS)) as f:
            stats = json.load(f)
    except (OSError, ValueError) as e:
        return None, f"no {names.STATS} from the batch ({e}); its output ends:\n{tail(log)}"
    stats["load"] = load
    if not (stats.get("submissions") == stats.get("builds") == stats.get("graded") == args.count):
        return stats, (f"not every submission was built and graded: {stats.get('submissions')} processed, "
                       f"{stats.get('builds')} built, {stats.get('graded')} graded, of {args.count} "
                       f"(see {log})")
    return stats, None


def gpu_names(gpus):
    """The names of the GPUs in --gpus, from nvidia-smi; None without one."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    names = [line.strip() for line in out.stdout.decode(errors="replace").splitlines() if line.strip()]
    if out.returncode != 0 or not names:
        return None
    picked = [names[int(g)] for g in gpus.split(",") if g.strip().isdigit() and int(g) < len(names)]
    return picked or names


def number(x, fmt="{:.1f}"):
    return "-" if x is None else fmt.format(x)


def table(runs, reference=None):
    head = ("K", "submissions", "elapsed s", "per minute (builds included)", "per minute once built",
            f"verdicts equal to {reference}" if reference else f"verdicts equal to K={runs[0]['graders_per_gpu']}")
    lines = [head]
    for r in runs:
        s = r["stats"] or {}
        lines.append((str(r["graders_per_gpu"]), number(s.get("submissions"), "{}"), number(s.get("elapsed_s")),
                      number(s.get("per_minute")), number(s.get("per_minute_once_built")), r["verdicts_equal_text"]))
    return format_table(lines)


def format_table(lines):
    """Rows of strings (the first is the head) as aligned text, a rule under the head."""
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    text = [" | ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines]
    text.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(text)


def phase_table(runs):
    """Median seconds per phase of one grading, a row per K: where the time goes as the
    graders share the GPU."""
    shown = [p for p in PHASES if any(p in (r.get("seconds") or {}) for r in runs)]
    if not shown:
        return ""
    lines = [("K",) + tuple(shown)]
    for r in runs:
        sec = r.get("seconds") or {}
        lines.append((str(r["graders_per_gpu"]),) + tuple(number(sec.get(p), "{:.2f}") for p in shown))
    return "median seconds of one grading, by phase (report.json \"seconds\"):\n" + format_table(lines)


def parse_graders(text, any_reference):
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        return None, f"--graders {text}: a list of whole numbers like 1,2,3,4"
    if not ks or min(ks) < 1:
        return None, f"--graders {text}: each K must be 1 or more"
    if ks[0] != 1 and not any_reference:
        return None, f"--graders {text}: the first run is the reference and must be K=1 (or add --any-reference)"
    return ks, None


def reference_verdicts(path, lab, count, emulate):
    """(the first run's verdicts of an earlier --out file, None), or (None, what is wrong)."""
    try:
        with open(path) as f:
            earlier = json.load(f)
        verdicts = earlier["runs"][0]["verdicts"]
        if not isinstance(verdicts, dict) or not all(isinstance(v, dict) for v in verdicts.values()):
            raise ValueError("its verdicts are not one object per submission")
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        return None, f"--reference {path}: not an --out file of this script with verdicts ({e})"
    if (earlier.get("lab"), earlier.get("count"), bool(earlier.get("emulate"))) != (lab, count, emulate):
        where = {True: "the CPU emulator", False: "a GPU"}
        return None, (f"--reference {path}: graded {earlier.get('count')} {earlier.get('lab')} submissions on "
                      f"{where[bool(earlier.get('emulate'))]}, not {count} {lab} on {where[emulate]}")
    return verdicts, None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lab", default="lab3")
    p.add_argument("--count", type=int, default=60, help="submissions in the class (default 60)")
    p.add_argument("--graders", default="1,2,3,4", help="the K of --graders-per-gpu, one run each; the first "
                   "is the reference (default 1,2,3,4)")
    p.add_argument("--any-reference", action="store_true", help="let the first K be other than 1")
    p.add_argument("--gpus", default="0", help="passed to the batch (default 0)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel builds (default: every core)")
    p.add_argument("--policy", help="policy file passed to the batch (default: the course's)")
    p.add_argument("--emulate", action="store_true", help="grade on the CPU emulator (K then changes nothing)")
    p.add_argument("--build-dir", default=os.environ.get("COURSE_BUILD_DIR", os.path.join(ROOT, "build")),
                   help="the course build (default build/, or $COURSE_BUILD_DIR)")
    p.add_argument("--work", help="folder for the class and the results (default: a temporary one)")
    p.add_argument("--out", help="write the results as JSON here")
    p.add_argument("--keep", action="store_true", help="keep the class and the results folders")
    p.add_argument("--reference", help="an earlier run's --out file: its first run's verdicts are the reference of "
                   "every run here (the same --lab and --count; an A/B of two builds or policies)")
    args = p.parse_args(argv)

    ks, problem = parse_graders(args.graders, args.any_reference or bool(args.reference))
    folder = lab_folder(args.lab)
    if problem is None and folder is None:
        problem = f"no lab {args.lab} in labs.json"
    if problem is None and args.count < 1:
        problem = "--count must be 1 or more"
    if problem is None and args.jobs < 1:
        problem = "--jobs must be 1 or more"
    if problem is None and args.policy and not os.path.isfile(args.policy):
        problem = f"policy file {args.policy} does not exist"
    reference = None
    if problem is None and args.reference:
        reference, problem = reference_verdicts(args.reference, args.lab, args.count, args.emulate)
    if problem:
        print(f"batch_throughput: {problem}", file=sys.stderr)
        return 2
    args.build_dir = os.path.abspath(args.build_dir)
    args.policy = os.path.abspath(args.policy) if args.policy else None

    temporary = args.work is None
    work = tempfile.mkdtemp(prefix="batch_throughput-") if temporary else os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    subs = os.path.join(work, "submissions")
    kinds = make_class(subs, args.lab, args.count)
    mix = {k: sum(v == k for v in kinds.values()) for k in ("solution", "alt", "stub")}
    print(f"batch_throughput: {args.count} {args.lab} submissions ({mix['solution']} solution, {mix['alt']} alt, "
          f"{mix['stub']} stub) in {subs}; K = {','.join(map(str, ks))}, --jobs {args.jobs}, "
          f"{'the CPU emulator' if args.emulate else 'GPU(s) ' + args.gpus}, "
          f"policy {args.policy or 'default'}", flush=True)

    runs, failed = [], False
    from_file = reference is not None
    for i, k in enumerate(ks):
        results = os.path.join(work, f"results-{i + 1}-k{k}")
        log = os.path.join(work, f"batch-{i + 1}-k{k}.log")
        print(f"  run {i + 1}/{len(ks)}: K={k} ... (log: {log})", flush=True)
        stats, error = run_batch(args, subs, results, k, log)
        run = {"graders_per_gpu": k, "results": results, "log": log, "stats": stats, "error": error,
               "differences": [], "verdicts_equal": None}
        if stats:
            run["load"] = stats.pop("load", None)
        if error is None:
            run["seconds"] = phase_medians(results)
            run["median_speedups"] = median_speedups(results)
            verdicts = read_verdicts(results)
            run["verdicts"] = verdicts
            if reference is None:
                reference = verdicts
            diffs = differences(reference, verdicts)
            run["differences"] = [{"submission": n, "what": w} for n, w in diffs]
            run["verdicts_equal"] = not diffs
            run["verdicts_equal_text"] = "yes (reference)" if i == 0 and not from_file else equal_column(diffs)
        else:
            run["verdicts_equal_text"] = "batch failed"
        failed = failed or error is not None or run["verdicts_equal"] is False
        runs.append(run)
        if stats:
            print(f"    {stats.get('submissions')} in {number(stats.get('elapsed_s'))} s: "
                  f"{number(stats.get('per_minute'))} per minute ({number(stats.get('per_minute_once_built'))} once "
                  f"built); verdicts: {run['verdicts_equal_text']}", flush=True)
        if run.get("median_speedups"):
            print("    median speedups: " + ", ".join(f"{p} {x:.2f}x" for p, x in run["median_speedups"].items()),
                  flush=True)
        if error is not None and reference is None:
            break  # no reference to compare the others with

    print()
    print(table(runs, args.reference and os.path.basename(args.reference)))
    phases = phase_table(runs)
    if phases:
        print()
        print(phases)
    load = throughput_load.summary_table(runs)
    if load:
        print()
        print(load)
    for r in runs:
        if r["error"]:
            print(f"\nK={r['graders_per_gpu']}: {r['error']}", file=sys.stderr)
        for d in r["differences"]:
            print(f"K={r['graders_per_gpu']}: {d['submission']}: {d['what']}", file=sys.stderr)

    keep = args.keep or failed
    result = {"host": socket.gethostname(), "gpu": None if args.emulate else gpu_names(args.gpus),
              "lab": args.lab, "policy": args.policy, "reference": args.reference, "count": args.count, "class": mix, "jobs": args.jobs,
              "gpus": args.gpus, "emulate": args.emulate, "ok": not failed,
              "runs": [{k: v for k, v in r.items() if keep or k not in ("results", "log")} for r in runs]}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
    if len(runs) < len(ks):
        print("batch_throughput: the reference run failed: the other runs were not started", file=sys.stderr)
    if failed:
        print(f"batch_throughput: FAILED (a batch failed or verdicts differ); everything is kept in {work}",
              file=sys.stderr)
        return 1
    if keep:
        print(f"batch_throughput: the class and the results are in {work}")
    elif temporary:
        shutil.rmtree(work, ignore_errors=True)
    else:
        shutil.rmtree(subs, ignore_errors=True)
        for r in runs:
            shutil.rmtree(r["results"], ignore_errors=True)
            os.remove(r["log"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
