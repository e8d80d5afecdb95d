"""Grading a class's built submissions as one Slurm job array (./grade batch --slurm).

The submitting node has done the intake and the builds (grade_batch.py); here the
built submissions are cut into shards (shard.py), and one `sbatch --array` grades
shard i in task i (slurm_task.py). The gradebook is merged (merge.py) by a job that
depends on the array (afterany: it runs however the tasks ended), or, with --wait,
by this command once `squeue` no longer lists the array. Slurm does all the
scheduling; nothing here decides where or when a task runs.
"""
import os
import shlex
import shutil
import subprocess
import sys
import time

from grader import course_python
from grader.batch import merge
from grader.batch import shard

MARGIN_MINUTES = 5     # a task's start-up and its last report, beyond its submissions' time
POLL_SECONDS = 2.0     # how often --wait asks squeue


def add_options(p):
    g = p.add_argument_group("Slurm (docs/instructor-guide.md, 'Grading on a Slurm cluster')")
    g.add_argument("--slurm", action="store_true", help="grade through a Slurm job array (builds run here)")
    g.add_argument("--partition", help="sbatch --partition")
    g.add_argument("--account", help="sbatch --account")
    g.add_argument("--gpus-per-task", type=int, default=None,
                   help="GPUs per array task (--gres=gpu:N); default 1, none with --emulate")
    g.add_argument("--time-per-submission", type=float, default=2.0, metavar="MINUTES",
                   help="a task's --time is this times its shard's size, plus %d minutes (default 2)" % MARGIN_MINUTES)
    g.add_argument("--throttle", type=int, help="at most K array tasks at once (--array=...%%K)")
    g.add_argument("--tasks", type=int, help="array tasks (default: one per ~8 submissions)")
    g.add_argument("--sbatch-arg", action="append", default=[], metavar="ARG",
                   help="passed to sbatch for the array as it is (repeat it: --sbatch-arg=--qos=long, with the =)")
    g.add_argument("--merge-sbatch-arg", action="append", default=[], metavar="ARG",
                   help="passed to sbatch for the merge job as it is (a QOS or reservation every job needs, say)")
    g.add_argument("--wait", action="store_true", help="wait for the array, then merge and plot here")
    g.add_argument("--dry-run", action="store_true", help="print the job scripts; build and submit nothing")


def check_options(args):
    """None, or what is wrong with the Slurm options (they are errors without --slurm too)."""
    used = [o for o, v in (("--partition", args.partition), ("--account", args.account),
                           ("--gpus-per-task", args.gpus_per_task), ("--throttle", args.throttle),
                           ("--tasks", args.tasks), ("--sbatch-arg", args.sbatch_arg),
                           ("--merge-sbatch-arg", args.merge_sbatch_arg), ("--wait", args.wait),
                           ("--dry-run", args.dry_run)) if v]
    if used and not args.slurm:
        return f"{', '.join(used)}: Slurm options, to be used with --slurm"
    if args.slurm and getattr(args, "gpus", None):
        return "--gpus picks this machine's GPUs; with --slurm, Slurm gives each task its own (--gpus-per-task)"
    if args.gpus_per_task is not None and args.gpus_per_task < 0:
        return "--gpus-per-task must be 0 or more"
    if args.emulate and args.gpus_per_task:
        return "--gpus-per-task with --emulate: the emulator needs no GPU"
    if args.time_per_submission <= 0:
        return "--time-per-submission must be more than 0 minutes"
    if args.throttle is not None and args.throttle < 1:
        return "--throttle must be 1 or more"
    if args.tasks is not None and args.tasks < 1:
        return "--tasks must be 1 or more"
    if args.slurm:
        # #SBATCH lines are split on whitespace and read % as a pattern: no quoting helps there.
        path = getattr(args, "out", None) or ""
        bad = sorted(set(c for c in os.path.abspath(path) if c.isspace() or c in "%\"'\\"))
        if path and bad:
            return (f"--out {path}: with --slurm its path may not hold {' '.join(repr(c) for c in bad)} "
                    "(the #SBATCH lines of Slurm's job scripts cannot quote them); pick another folder")
    if args.wait and args.dry_run:
        return "--wait and --dry-run: a dry run submits nothing to wait for"
    if args.wait and args.merge_sbatch_arg:
        return "--merge-sbatch-arg with --wait: there is no merge job (this command merges when the array ends)"
    if args.slurm and not args.dry_run and shutil.which("sbatch") is None:
        return "--slurm needs Slurm's commands (sbatch, squeue, scontrol) on PATH"
    return None


def gpus_per_task(args):
    if args.emulate:
        return 0
    return 1 if args.gpus_per_task is None else args.gpus_per_task


def task_minutes(time_per_submission, shard_size, grade_timeout_seconds=0):
    """A task's --time in whole minutes: its submissions' time and a margin, and never less
    than one grading may take (--grade-timeout), or a slow submission would hit Slurm's
    limit on every rerun instead of its own."""
    planned = int(-(-time_per_submission * shard_size // 1))
    longest = int(-(-grade_timeout_seconds // 60))
    return max(planned, longest) + MARGIN_MINUTES


def array_script(run_dir, lab, shard_sizes, args):
    """The array's job script: every choice is an #SBATCH line, so --dry-run shows it all."""
    gpus = gpus_per_task(args)
    # Emulated grading is one CPU per grader; on a GPU, a grader and its worker per slot.
    cpus = 2 * args.graders_per_gpu * gpus if gpus else 1
    spec = f"0-{len(shard_sizes) - 1}" + (f"%{args.throttle}" if args.throttle else "")
    minutes = task_minutes(args.time_per_submission, max(shard_sizes), getattr(args, "grade_timeout", 0))
    lines = ["#!/bin/bash",
             f"#SBATCH --job-name=grade-{lab}",
             f"#SBATCH --array={spec}",
             f"#SBATCH --time={minutes}",
             f"#SBATCH --cpus-per-task={cpus}",
             f"#SBATCH --chdir={run_dir}",
             f"#SBATCH --output={run_dir}/task-%a.out"]
    if gpus:
        lines.append(f"#SBATCH --gres=gpu:{gpus}")  # Slurm sets CUDA_VISIBLE_DEVICES to them
    lines += where(args)
    lines += ["# Grades shard $SLURM_ARRAY_TASK_ID of the class (RESULTS is on a shared filesystem).",
              course_python.shell_env(),
              f"exec {course_python.shell_command('grader.batch.slurm_task', run_dir)} \"$SLURM_ARRAY_TASK_ID\""]
    return "\n".join(lines) + "\n"


def merge_script(run_dir, lab, args):
    lines = ["#!/bin/bash",
             f"#SBATCH --job-name=grade-{lab}-merge",
             "#SBATCH --time=30",
             "#SBATCH --cpus-per-task=1",
             f"#SBATCH --chdir={run_dir}",
             f"#SBATCH --output={run_dir}/merge.out"]
    lines += where(args)
    lines += ["# The gradebook and plots, after every array task ended (sbatch --dependency=afterany).",
              course_python.shell_env(),
              f"exec {course_python.shell_command('grader.batch.merge', run_dir)}"]
    return "\n".join(lines) + "\n"


def where(args):
    return ([f"#SBATCH --partition={args.partition}"] if args.partition else []) + \
           ([f"#SBATCH --account={args.account}"] if args.account else [])


def sbatch_commands(args, array_path, merge_path, array_id="<array job id>"):
    array = ["sbatch", "--parsable"] + list(args.sbatch_arg) + [array_path]
    merge = None if args.wait else (["sbatch", "--parsable", f"--dependency=afterany:{array_id}"] +
                                    list(args.merge_sbatch_arg) + [merge_path])
    return array, merge


def dry_run(out, lab, todo_count, args):
    """What --slurm would submit for todo_count submissions (before their builds, which
    take out the ones that fail to build)."""
    if not todo_count:
        print("grade batch: every submission already has a result: nothing to submit")
        return 0
    sizes = [len(s) for s in shard.split(list(range(todo_count)), args.tasks or shard.default_tasks(todo_count))]
    run_dir = shard.next_run_dir(out)
    array_cmd, merge_cmd = sbatch_commands(args, f"{run_dir}/array.sh", f"{run_dir}/merge.sh")
    print(f"# dry run: {todo_count} submission(s) without a result, in {len(sizes)} array task(s) of "
          f"{min(sizes)}-{max(sizes)}; nothing was built or submitted.\n# $ {shlex.join(array_cmd)}")
    print(array_script(run_dir, lab, sizes, args))
    if merge_cmd:
        print(f"# $ {shlex.join(merge_cmd)}")
        print(merge_script(run_dir, lab, args))
    else:
        print("# --wait: no merge job; this command waits for the array, then merges here.")
    return 0


def sbatch(cmd, env):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed ({p.returncode}): {p.stderr.decode().strip()}")
    return p.stdout.decode().strip().split(";")[0]  # --parsable: "id" or "id;cluster"


def active(job_id, env):
    """Whether squeue still lists a task of job_id as pending or running (its default
    states); a job it has forgotten is over."""
    p = subprocess.run(["squeue", "-h", "-j", str(job_id), "-o", "%i"], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        if b"Invalid job id" in p.stderr:
            return False
        print(f"grade batch: squeue failed, asking again: {p.stderr.decode().strip()}", file=sys.stderr)
        return True
    return bool(p.stdout.strip())


def submit(run_dir, lab, args, env=None, quiet=False):
    """Writes the job scripts, submits them; with --wait, waits and merges. Returns the
    exit code for the command."""
    manifest = shard.read_manifest(run_dir)
    sizes = [len(s) for s in manifest["shards"]]
    array_path, merge_path = os.path.join(run_dir, "array.sh"), os.path.join(run_dir, "merge.sh")
    with open(array_path, "w") as f:
        f.write(array_script(run_dir, lab, sizes, args))
    with open(merge_path, "w") as f:
        f.write(merge_script(run_dir, lab, args))
    merge_by_hand = f"PYTHONPATH={shlex.quote(course_python.ROOT)} {course_python.shell_command('grader.batch.merge', run_dir)}"
    try:
        array_id = sbatch(sbatch_commands(args, array_path, merge_path)[0], env)
    except (OSError, RuntimeError) as e:
        print(f"grade batch: {e}", file=sys.stderr)
        return 2
    shard.write_json(os.path.join(run_dir, "jobs.json"), {"array": array_id, "merge": None})
    try:
        merge_cmd = sbatch_commands(args, array_path, merge_path, array_id)[1]
        merge_id = sbatch(merge_cmd, env) if merge_cmd else None
    except (OSError, RuntimeError) as e:
        print(f"grade batch: array job {array_id} was submitted, but its merge job was not: {e}\n"
              f"  when the array has ended, merge with: {merge_by_hand}", file=sys.stderr)
        return 2
    shard.write_json(os.path.join(run_dir, "jobs.json"), {"array": array_id, "merge": merge_id})
    print(f"submitted array job {array_id}: {sum(sizes)} submission(s) in {len(sizes)} task(s); run folder {run_dir}",
          flush=True)
    if merge_id:
        print(f"merge job {merge_id} writes the gradebook when every task has ended (squeue -j {array_id},{merge_id}); "
              f"its log: {run_dir}/merge.out")
        return 0
    try:
        while active(array_id, env):
            time.sleep(POLL_SECONDS)
    except KeyboardInterrupt:
        print(f"\ngrade batch: stopped waiting; array job {array_id} goes on (scancel {array_id} stops it).\n"
              f"  When it has ended, merge with: {merge_by_hand}", file=sys.stderr)
        return 130
    return merge.merge(run_dir, env, quiet)
