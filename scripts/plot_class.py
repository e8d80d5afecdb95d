#!/usr/bin/env python3
"""Draws a class's results from a batch gradebook (`./grade batch` runs it at the end).

  class_speedups   histogram of the speedup over naive (the lab's last part), with the
                   speedup target marked
  class_scores     scores, stacked by status (graded, compile_error, timeout, ...)

    python3 -m scripts.plot_class results/gradebook.json --out results/
"""
import argparse
import json
import statistics
import sys

from grader import names
from scripts.plot_style import PALETTE, plt, save

STATUSES = names.STATUSES + ("slurm",)  # every Slurm status counts as one


def group(status):
    """A status's bar: every slurm_* status (a Slurm task ended before grading) is one."""
    return "slurm" if status.startswith("slurm_") else status


def headline(r):
    """The last timed part's speedup and the target, as the gradebook holds them: numbers,
    None when the submission was not timed."""
    timed = [x for x in r.get("speedups", {}).values() if x is not None]
    if not timed:
        return None, None
    return timed[-1], r.get("target")


def extract(rows):
    speeds, targets = [], []
    for r in rows:
        s, t = headline(r)
        if s is not None:
            speeds.append(s)
        if t is not None:
            targets.append(t)
    return {
        "counts": {s: sum(group(r["status"]) == s for r in rows) for s in STATUSES},
        "speedups": speeds,
        "target": statistics.median(targets) if targets else None,
        "scores": {s: [r["score"] for r in rows if group(r["status"]) == s] for s in STATUSES},
    }


def plot_speedups(data, title, out_dir):
    fig, ax = plt.subplots(figsize=(7, 4))
    if data["speedups"]:
        ax.hist(data["speedups"], bins=min(30, max(5, len(data["speedups"]) // 3)), color=PALETTE[0])
    else:
        ax.text(0.5, 0.5, "no timed submissions (CPU emulator, or none correct)", ha="center",
                transform=ax.transAxes)
    if data["target"] is not None:
        ax.axvline(data["target"], color=PALETTE[3], linestyle="--", label=f"target {data['target']:.2f}x")
        ax.legend()
    ax.set_xlabel("speedup over the naive kernel (last part)")
    ax.set_ylabel("submissions")
    ax.set_title(f"{title}: speedups of the class")
    return save(fig, out_dir, "class_speedups")


def plot_scores(data, title, out_dir):
    fig, ax = plt.subplots(figsize=(7, 4))
    groups = [(s, v) for s, v in data["scores"].items() if v]
    if groups:
        ax.hist([v for _, v in groups], bins=10, stacked=True, label=[f"{s} ({len(v)})" for s, v in groups],
                color=[PALETTE[STATUSES.index(s)] for s, _ in groups])
        ax.legend(fontsize=8)
    ax.set_xlabel("score")
    ax.set_ylabel("submissions")
    ax.set_title(f"{title}: scores by status")
    return save(fig, out_dir, "class_scores")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("gradebook", help="gradebook.json from ./grade batch")
    p.add_argument("--out", default=".", help="folder for the images")
    p.add_argument("--title", default="class", help="title prefix, e.g. the lab")
    args = p.parse_args(argv)
    try:
        with open(args.gradebook) as f:
            rows = json.load(f)
    except (OSError, ValueError) as e:
        print(f"plot_class: cannot read {args.gradebook}: {e}", file=sys.stderr)
        return 2
    data = extract(rows)
    try:
        paths = plot_speedups(data, args.title, args.out) + plot_scores(data, args.title, args.out)
    except OSError as e:
        print(f"plot_class: cannot write to {args.out}: {e}", file=sys.stderr)
        return 2
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
