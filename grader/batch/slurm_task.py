#!/usr/bin/env python3
"""One Slurm array task: grades its shard of the class, exactly as the local batch
grades a submission (grade_one.SubmissionGrader: the same grader command, time limit
and reports), on the GPU(s) Slurm gave the task.

    slurm_task.py RUN_DIR [TASK]      TASK defaults to $SLURM_ARRAY_TASK_ID

The job script written by slurm_submit.py runs it; it is not meant to be run by hand,
except to grade a shard again while debugging.
"""
import os
import shutil
import signal
import socket
import sys
import tempfile
import time


from grader import names
from grader.batch import children
from grader.batch import grade_one
from grader.batch import intake
from grader.batch import shard
from grader.batch.progress import Progress


def task_slots(backend, graders_per_gpu, task_id):
    """(gpu, lock) per grading thread. On a GPU, Slurm's --gres=gpu:N set
    CUDA_VISIBLE_DEVICES to the task's GPUs, which no other job shares, so the only
    graders contending for one are this task's own: their lock lives in a node-local
    folder of the task (flock on a network filesystem is not to be relied on). On the
    emulator, one grader per CPU Slurm gave the task."""
    if backend == "emulated":
        return [(None, None)] * max(1, int(os.environ.get("SLURM_CPUS_PER_TASK", "1")))
    gpus = [g for g in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if g.strip()]
    if not gpus:
        raise SystemExit(f"slurm_task: task {task_id} has no GPU (CUDA_VISIBLE_DEVICES is not set): "
                         "submit with --gpus-per-task, or grade with --emulate")
    lock_dir = os.path.join(os.environ.get("TMPDIR", tempfile.gettempdir()), f"grade-batch-{task_id}.locks")
    return grade_one.gpu_slots(gpus, graders_per_gpu, lock_dir)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    run_dir = argv[0]
    index = argv[1] if len(argv) > 1 else os.environ.get("SLURM_ARRAY_TASK_ID")
    if index is None or not index.isdigit():
        print("slurm_task: no task index (give one, or run as a Slurm array task)", file=sys.stderr)
        return 2
    index = int(index)
    try:
        manifest = shard.read_manifest(run_dir)
        entries = shard.read_shard(run_dir, index)
    except (OSError, ValueError) as e:
        print(f"slurm_task: cannot read run {run_dir}, shard {index}: {e}", file=sys.stderr)
        return 2
    task_id = f"{os.environ.get('SLURM_ARRAY_JOB_ID', 'local')}_{index}"
    start = time.time()
    out = manifest["out"]
    # A requeued task keeps what it finished before.
    todo = [e for e in entries if not os.path.exists(os.path.join(out, e["name"], names.ROW))]
    print(f"slurm_task {task_id} on {socket.gethostname()}: {len(todo)} of {len(entries)} submission(s) to grade"
          f" (CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', 'unset')})", file=sys.stderr, flush=True)
    grader = grade_one.SubmissionGrader(out, manifest["lab"], manifest["grader"], manifest["backend"],
                                        manifest.get("policy"), manifest["grade_timeout"],
                                        progress=Progress(len(todo)))
    grader.reference_counters = grade_one.pinned_file(manifest.get("reference_counters"))
    # Described on this node, for its GPUs (start_graders), in the task's own folder.
    grader.template_worker = manifest.get("template_worker")
    # A folder of its own, made afresh (mkdtemp: a name no one could have guessed or made first).
    grader.describe_dir = tempfile.mkdtemp(prefix=f"grade-batch-{task_id}.", suffix=".described",
                                           dir=os.environ.get("TMPDIR") or None)
    # Slurm ends a task with SIGTERM (then SIGKILL): what is being graded then is
    # unfinished, not crashed; it gets no row.json and the merge asks Slurm why.
    signal.signal(signal.SIGTERM, lambda *_: children.stop())
    try:
        work, threads = grader.start_graders(task_slots(manifest["backend"], manifest["graders_per_gpu"], task_id))
        for e in todo:
            sub = intake.Submission(e["name"], "", "built", e["student_id"], known_identity=e.get("identity", {}))
            grader.file_sha256[e["name"]] = e.get("sha256", "")  # its row names the file intake took
            work.put((sub, grade_one.built_from_json(e["built"])))
        grade_one.finish_graders(work, threads)
    finally:
        shutil.rmtree(grader.describe_dir, ignore_errors=True)
    shard.write_json(os.path.join(run_dir, f"task-{index}.json"),
                     {"task": task_id, "host": socket.gethostname(), "start": start, "end": time.time(),
                      "graded": grader.stats["graded"], "threads": len(threads),
                      "stopped_by_slurm": children.stopping.is_set()})
    return 128 + signal.SIGTERM if children.stopping.is_set() else 0


if __name__ == "__main__":
    sys.exit(main())
