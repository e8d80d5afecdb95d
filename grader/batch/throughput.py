"""A batch's throughput figures, worked out in one place for the local batch
(grade_batch.py, which also writes them to RESULTS/batch_stats.json) and for a Slurm
run's merge (merge.py); each prints them in its own words.

  submissions            processed by this run (submissions already graded are not counted)
  elapsed_s, per_minute  the whole run, builds included
  builds, build_s        submissions compiled and linked, and their build time added up
  graded, grade_span_s   submissions graded, and the time from the first grading's start
                         to the last one's end
  per_minute_once_built  graded / grade_span_s: the grading alone
"""
import json
import os

from grader import names



def per_minute(count, seconds):
    return 60 * count / max(seconds, 1e-9)


def figures(submissions, elapsed_s, builds=0, build_s=0.0, graded=0, grade_span_s=None):
    """The figures as a dict; a rate that cannot be worked out (nothing processed, nothing
    graded) is None."""
    have_span = bool(graded) and grade_span_s is not None
    # Rounded as batch_stats.json stores them, so that what a batch prints is what it stores
    # (80.7499 would print 80.7 and be stored as 80.750, which prints 80.8).
    return _rounded({
        "submissions": submissions,
        "elapsed_s": elapsed_s,
        "per_minute": per_minute(submissions, elapsed_s) if submissions else None,
        "builds": builds,
        "build_s": build_s,
        "graded": graded,
        "grade_span_s": grade_span_s if have_span else None,
        "per_minute_once_built": per_minute(graded, grade_span_s) if have_span else None,
    })


def _rounded(stats):
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in stats.items()}


def write(out_dir, stats):
    """RESULTS/batch_stats.json (times to the millisecond), through a temporary file and a rename."""
    stats = _rounded(stats)
    tmp = os.path.join(out_dir, "." + names.STATS + ".tmp")
    with open(tmp, "w") as f:
        json.dump(stats, f, indent=2)
        f.write("\n")
    os.replace(tmp, os.path.join(out_dir, names.STATS))
