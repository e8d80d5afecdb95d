#!/usr/bin/env python3
"""The last step of a Slurm run: the class's gradebook and plots from every
submission's row.json.

    merge.py RUN_DIR          (RUN_DIR: RESULTS/.slurm/run-<n>)

Run by the dependent merge job (after every array task ended, however it ended), or by
`./grade batch --slurm --wait` itself. A submission whose task ended before grading it
gets a row with Slurm's account of that task (slurm_status.py) in the gradebook only,
never a row.json: the same command run again grades it.
"""
import os
import shutil
import subprocess
import sys
import time


from grader import names
from grader import course_python
from grader.batch import gradebook
from grader.batch import shard
from grader.batch import slurm_status
from grader.batch import throughput

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_row(out, name):
    try:
        return shard.read_json(os.path.join(out, name, names.ROW))
    except (OSError, ValueError):
        return None


def class_rows(manifest, array_id, env=None):
    """One row per submission of the class; (rows, how many Slurm left ungraded)."""
    out = manifest["out"]
    tasks = shard.task_of(manifest)
    rows, missing, states, source = [], 0, None, None
    for s in manifest["class"]:
        r = read_row(out, s["name"])
        if r is not None:  # who and when as this run's intake says (a rerun keeps older rows)
            r = dict(r, **s.get("identity", {}))
        if r is None:
            missing += 1
            if s["name"] in tasks:
                if states is None:  # ask Slurm once, and only when something is missing
                    states, source = slurm_status.task_states(array_id, env) if array_id else ({}, None)
                task = tasks[s["name"]]
                status, message = slurm_status.status_for(states.get(task), source, f"{array_id}_{task}")
            else:
                status, message = names.CRASHED, "batch error: no result, and not in this run's array"
            r = dict(gradebook.row(s["name"], s["student_id"], status, message=message), **s.get("identity", {}))
        rows.append(r)
    return rows, missing


def figures(run_dir, manifest, count):
    """The run's throughput, as the local batch prints it (throughput.py works out both):
    the whole run since the intake began, and the grading alone, from the first task's
    start to the last one's end."""
    elapsed = time.time() - manifest["started"]
    tasks = []
    for i in range(len(manifest["shards"])):
        try:
            tasks.append(shard.read_json(os.path.join(run_dir, f"task-{i}.json")))
        except (OSError, ValueError):
            pass
    builds = manifest.get("builds", {})
    span = max(t["end"] for t in tasks) - min(t["start"] for t in tasks) if tasks else None
    fig = throughput.figures(manifest["todo"], elapsed, builds.get("count", 0),
                             builds.get("seconds", 0.0), count, span)
    lines = []
    if fig["submissions"]:
        lines.append(f"processed {fig['submissions']} submission(s) in {fig['elapsed_s']:.1f} s "
                     f"({fig['per_minute']:.1f} per minute) through Slurm, "
                     f"{len(manifest['shards'])} array task(s) (queue waits included)")
    if fig["builds"]:
        lines.append(f"  builds: {fig['builds']} compiled and linked on the submitting node, {fig['build_s']:.1f} s "
                     f"of build time ({fig['build_s'] / fig['builds']:.1f} s each)")
    if fig["per_minute_once_built"] is not None:
        lines.append(f"  grading: {fig['graded']} graded by {len(tasks)} array task(s) in {fig['grade_span_s']:.1f} s "
                     f"from the first task's start to the last one's end ({fig['per_minute_once_built']:.1f} per "
                     f"minute once built)")
    return lines


def merge(run_dir, env=None, quiet=False):
    manifest = shard.read_manifest(run_dir)
    try:
        array_id = shard.read_json(os.path.join(run_dir, "jobs.json"))["array"]
    except (OSError, ValueError, KeyError):
        array_id = None
    out = manifest["out"]
    rows, missing = class_rows(manifest, array_id, env)
    gradebook.write(out, rows, manifest.get("review"))
    graded_here = sum(1 for name in shard.task_of(manifest) if read_row(out, name) is not None)
    print(gradebook.summary(rows))
    for line in figures(run_dir, manifest, graded_here):
        print(line)
    if missing:
        print(f"{missing} submission(s) without a result: run the same command again to grade them")
    # Every task of this run has ended: its built workers are not needed any more (a rerun
    # builds again, into its own run folder).
    shutil.rmtree(os.path.join(run_dir, "scratch"), ignore_errors=True)
    print(f"gradebook: {os.path.join(out, 'gradebook.csv')}")
    if os.path.exists(course_python.module_file("scripts.plot_class")):
        subprocess.run(course_python.command("scripts.plot_class", os.path.join(out, names.GRADEBOOK_JSON), "--out", out,
                                             "--title", manifest["lab"]),
                       stdout=subprocess.DEVNULL if quiet else None, env=course_python.env())
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr if len(argv) != 1 else sys.stdout)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    if not os.path.isfile(os.path.join(argv[0], names.RUN_MANIFEST)):
        print(f"merge: {argv[0]} is not a Slurm run folder (no manifest.json)", file=sys.stderr)
        return 2
    return merge(argv[0])


if __name__ == "__main__":
    sys.exit(main())
