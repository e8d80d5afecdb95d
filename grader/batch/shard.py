"""A Slurm run's files under RESULTS/.slurm/run-<n>/ (RESULTS is on a shared filesystem,
so the submitting node, every array task and the merge read the same files):

  manifest.json     the run: lab, backend, grader, policy, time limit, the whole class
                    (every submission, graded before or not) and which shard holds what
  shard-<i>.json    array task i's submissions: [{name, student_id, built, sha256}], built
                    on the submitting node
  jobs.json         the Slurm job ids, once submitted: {"array": id, "merge": id or null}
  task-<i>.json     what task i did (its start, end and count), for the merge's figures
  array.sh, merge.sh, task-<i>.out, merge.out   the job scripts and their logs

Each run has its own folder, so a rerun's shards never mix with an earlier run's.
"""
import json
import os
import re

from grader import names

RUN = re.compile(r"^run-(\d+)$")


def default_tasks(n, per_task=8):
    """One array task per ~per_task submissions, at least one."""
    return max(1, -(-n // per_task))


def split(items, tasks):
    """items cut into `tasks` contiguous shards whose sizes differ by at most one
    (none empty: never more shards than items)."""
    tasks = max(1, min(tasks, len(items)))
    size, extra = divmod(len(items), tasks)
    shards, start = [], 0
    for i in range(tasks):
        end = start + size + (1 if i < extra else 0)
        shards.append(items[start:end])
        start = end
    return shards


def slurm_dir(out):
    return os.path.join(os.path.abspath(out), ".slurm")


def next_run_dir(out):
    """RESULTS/.slurm/run-<n>, n one more than any run there (not created)."""
    base = slurm_dir(out)
    runs = [int(m.group(1)) for m in (RUN.match(n) for n in os.listdir(base)) if m] if os.path.isdir(base) else []
    return os.path.join(base, f"run-{max(runs, default=0) + 1}")


def new_run_dir(out):
    path = next_run_dir(out)
    os.makedirs(path)  # fails if another submission took the same number meanwhile
    return path


def write_json(path, data):
    """Through a temporary file and a rename: a reader on another node never sees half."""
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    with open(tmp, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def read_json(path):
    with open(path) as f:
        return json.load(f)


def shard_path(run_dir, i):
    return os.path.join(run_dir, f"shard-{i}.json")


def write_run(run_dir, manifest, shards):
    """shards: lists of {"name", "student_id", "built", "sha256"}; the manifest gets their names."""
    for i, shard in enumerate(shards):
        write_json(shard_path(run_dir, i), shard)
    manifest = dict(manifest, shards=[[e["name"] for e in shard] for shard in shards])
    write_json(os.path.join(run_dir, names.RUN_MANIFEST), manifest)
    return manifest


def read_manifest(run_dir):
    return read_json(os.path.join(run_dir, names.RUN_MANIFEST))


def read_shard(run_dir, i):
    return read_json(shard_path(run_dir, i))


def task_of(manifest):
    """{submission name: index of the array task that grades it}."""
    return {name: i for i, shard in enumerate(manifest["shards"]) for name in shard}
