#!/usr/bin/env python3
"""Checks, and with --fix rewrites, the H200 figures that README.md and the handouts cite.

The one source is the benchmark output that `make bench` writes (bench/results/<device>.json,
Google Benchmark JSON, medians of 21 samples). A cited figure is marked in the Markdown with
an HTML comment, which GitHub does not show:

    lab 3 B reaches <!-- fig lab3.B x -->4.51<!-- /fig -->x the naive kernel

The words of a marker: BENCH FIELD [OTHER] [*FACTOR] [.Nf]

  BENCH    a benchmark key of the JSON, optionally with its size: lab3.B, cub, lab5.A.unpadded,
           memcpy, lab4.B@2^28, transpose_naive@1024. The default size is the graded one:
           2^25 floats (reduce), 2^24 records (records), 8192 x 8192 (transpose).
  FIELD    us | ms         the median time (1 and 3 decimals)
           gbps            GB/s as the benchmark counts bytes (no decimals)
           x               speedup over the group's baseline at the same size: lab1.A for the
                           reductions, lab5.A.unpadded for the records, transpose_naive for the
                           transposes (median time over median time, 2 decimals)
           over OTHER      speedup of BENCH over the benchmark OTHER (2 decimals)
           pct OTHER       BENCH's throughput as a percentage of OTHER's (1 decimal)
  *FACTOR  multiplies the value: a number, or a policy value of BENCH's lab (the default
           policy's lab_defaults with the lab's lab.json keys over them): *threshold, the
           performance target's fraction of the reference's speedup; *floor, the fraction of
           the target at which performance credit reaches 0
  .Nf      N decimals instead of the field's default

    python3 -m scripts.cite_figures                  # check README.md, labs/*/README.md, docs/*.md
    python3 -m scripts.cite_figures --fix            # rewrite the marked figures from the JSON
    python3 -m scripts.cite_figures --json bench/results/nvidia-h200.json labs/lab4_shuffle/README.md

Exit code: 0 every marked figure agrees (or was fixed); 1 some disagree; 2 a marker names an
unknown benchmark or is malformed, or a file cannot be read.
"""
import argparse
import os
import re
import sys

from scripts import bench_medians
from scripts import course_policy
from scripts import doc_markers
from scripts import labs_manifest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DEFAULT_JSON = os.path.join("bench", "results", "nvidia-h200.json")

MARKERS = doc_markers.Markers("fig", "<!-- fig BENCH FIELD ... -->TEXT<!-- /fig -->")
MARK = MARKERS.mark
# Per benchmark group, from labs.json: the key its speedups are over, and its graded size (the policy's).
BASELINE = {group: g["baseline"] for group, g in labs_manifest.bench_groups().items()}
GRADED_SIZE = {group: course_policy.graded_size(g["graded_size"]) for group, g in labs_manifest.bench_groups().items()}
DECIMALS = {"us": 1, "ms": 3, "gbps": 0, "x": 2, "over": 2, "pct": 1}
# The policy values a factor may name, by their key in the policy.
POLICY_FACTORS = {"threshold": "threshold_fraction", "floor": "floor_fraction"}


SpecError = doc_markers.SpecError


def load_results(path):
    """Returns {(key, size): {"group", "us", "gbps"}} from the median aggregates of PATH."""
    return {(key, size): {"group": group, "us": row["us"], "gbps": row["gbps"]}
            for group, key, size, row in bench_medians.load(path)[1]}


def _size(text):
    m = re.fullmatch(r"2\^(\d+)|(\d+)", text)
    if not m:
        raise SpecError(f"size '{text}' is neither 2^N nor a number")
    return 1 << int(m.group(1)) if m.group(1) else int(m.group(2))


def _bench(term, results):
    """The result named by KEY or KEY@SIZE."""
    key, _, size = term.partition("@")
    groups = {r["group"] for (k, _), r in results.items() if k == key}
    if not groups:
        raise SpecError(f"no benchmark '{key}' in the JSON")
    n = _size(size) if size else GRADED_SIZE.get(next(iter(groups)))
    if (key, n) not in results:
        raise SpecError(f"no benchmark '{key}' at size {n} in the JSON")
    return key, n, results[(key, n)]


def _policy_value(spec, key, name):
    """The policy's NAME for the lab of benchmark KEY (lab3.B: lab3)."""
    lab = key.split(".")[0]
    try:
        return course_policy.lab(lab)[name]
    except KeyError:
        raise SpecError(f"'{spec}': '{key}' is no lab's benchmark, so it has no {name}") from None


def value(spec, results):
    """Returns (value, decimals) for the words of a marker."""
    words = spec.split()
    if len(words) < 2:
        raise SpecError(f"'{spec}': expected BENCH FIELD")
    key, n, r = _bench(words[0], results)
    field, rest = words[1], words[2:]
    if field not in DECIMALS:
        raise SpecError(f"'{spec}': unknown field '{field}' (one of {', '.join(DECIMALS)})")
    if field in ("us", "ms"):
        v = r["us"] if field == "us" else r["us"] / 1e3
    elif field == "gbps":
        v = r["gbps"]
    elif field == "x":
        base = BASELINE.get(r["group"])
        if (base, n) not in results:
            raise SpecError(f"'{spec}': no baseline '{base}' at size {n} in the JSON")
        v = results[(base, n)]["us"] / r["us"]
    else:
        if not rest:
            raise SpecError(f"'{spec}': '{field}' needs another benchmark")
        other_term = rest.pop(0)
        # OTHER is taken at BENCH's size unless it names its own.
        _, _, other = _bench(other_term if "@" in other_term else f"{other_term}@{n}", results)
        v = other["us"] / r["us"] if field == "over" else 100.0 * r["gbps"] / other["gbps"]
    decimals = DECIMALS[field]
    for word in rest:
        if word.startswith("*") and word[1:] in POLICY_FACTORS:
            v *= _policy_value(spec, key, POLICY_FACTORS[word[1:]])
        elif word.startswith("*"):
            try:
                v *= float(word[1:])
            except ValueError:
                raise SpecError(f"'{spec}': bad factor '{word}' (a number, or one of "
                                f"{', '.join('*' + f for f in POLICY_FACTORS)})") from None
        elif re.fullmatch(r"\.\d+f", word):
            decimals = int(word[1:-1])
        else:
            raise SpecError(f"'{spec}': unexpected word '{word}'")
    return v, decimals


def render(spec, results):
    """The text a marker must hold: its value, rounded."""
    v, decimals = value(spec, results)
    return f"{v:.{decimals}f}"


def scan(text, results):
    """Returns (figures, errors): figures as (line, spec, cited, expected), errors as (line, message)."""
    return MARKERS.scan(text, lambda spec: render(spec, results))


def fix_text(text, results):
    """Returns TEXT with every marker's figure taken from RESULTS (markers with errors are left)."""
    return MARKERS.fix_text(text, lambda spec: render(spec, results))


def main(argv=None, root=ROOT, out=sys.stdout):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", help="Markdown files (default: README.md, labs/*/README.md, docs/*.md)")
    parser.add_argument("--json", default=os.path.join(root, DEFAULT_JSON),
                        help=f"benchmark results (default: {DEFAULT_JSON})")
    parser.add_argument("--fix", action="store_true", help="rewrite the marked figures from the JSON")
    args = parser.parse_args(argv)
    try:
        results = load_results(args.json)
    except (OSError, ValueError, KeyError) as e:
        print(f"cite_figures: cannot read {args.json}: {e}", file=out)
        return 2
    files = args.files or doc_markers.default_files(root)
    return MARKERS.check_files(files, lambda spec: render(spec, results), args.fix, "cite_figures",
                               os.path.relpath(args.json, root), root, out, noun="cited figures", gives="the JSON")


if __name__ == "__main__":
    sys.exit(main())
