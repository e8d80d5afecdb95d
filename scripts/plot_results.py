#!/usr/bin/env python3
"""Draws the course's benchmark results (`make plots`).

Reads the Google Benchmark JSON that `make bench` writes (bench/results/<device>.json)
and draws, as PNG and SVG:
  ladder      time per lab step at 2^25 floats, with the speedup over naive and CUB
  bandwidth   GB/s of every reduction kernel over n, with the measured copy roof
  transpose   GB/s of the naive, unpadded and padded transposes at each size

    python3 -m scripts.plot_results bench/results/nvidia-h200.json --out docs/images
"""
import argparse
import math
import sys

from scripts import bench_medians
from scripts import labs_manifest
from scripts.plot_style import PALETTE, plt, save

# The parts of labs.json with a ladder label, in course order, then the library's sum.
LADDER = labs_manifest.ladder() + [("cub", "CUB\nDeviceReduce")]
TRANSPOSES = [("transpose_naive", "naive"), ("lab5.B.unpadded", "tile[32][32]"),
              ("lab5.B.input_order", "tile[32][33], blocks in input order"), ("lab5.B", "tile[32][33]"),
              ("memcpy", "cudaMemcpy (roof)")]


def load(path):
    """Returns (context, {(group, key, size): {"us", "gbps", "x_naive", "pct_roof", "label"}})."""
    context, rows = bench_medians.load(path)
    results = {(group, key, size): {"us": row["us"], "gbps": row["gbps"],
                                    "x_naive": row.get("x_naive", float("nan")),
                                    "pct_roof": row.get("pct_of_copy_roof", float("nan")),
                                    "label": row.get("label", key)}
               for group, key, size, row in rows}
    return context, results


def extract(context, results):
    """The numbers the docs quote: the ladder at 2^25, and lab4's reference against CUB."""
    n25 = 1 << 25
    ladder = [(key, results[("reduce", key, n25)]) for key, _ in LADDER if ("reduce", key, n25) in results]
    vs_cub = {}
    for lg in (25, 28):
        n = 1 << lg
        if ("reduce", "lab4.B", n) in results and ("reduce", "cub", n) in results:
            vs_cub[lg] = 100.0 * results[("reduce", "cub", n)]["us"] / results[("reduce", "lab4.B", n)]["us"]
    transpose = {}
    for (group, key, size), r in results.items():
        if group == "transpose":
            transpose.setdefault(size, {})[key] = r["gbps"]
    return {
        "device": context.get("device", "unknown device"),
        "copy_roof_gbps": float(context.get("copy_roof_gbps", "nan")),
        "ladder": [(key, r["us"], r["x_naive"]) for key, r in ladder],
        "lab4_vs_cub_pct": vs_cub,
        "transpose_gbps": transpose,
    }


def plot_ladder(context, results, out_dir):
    n25 = 1 << 25
    rows = [(label, results[("reduce", key, n25)], key) for key, label in LADDER if ("reduce", key, n25) in results]
    fig, ax = plt.subplots(figsize=(10, 4.2))
    colors = [PALETTE[3] if key == "cub" else PALETTE[0] for _, _, key in rows]
    bars = ax.bar([r[0] for r in rows], [r[1]["us"] for r in rows], color=colors)
    for bar, (_, r, _) in zip(bars, rows):
        ax.annotate(f"{r['x_naive']:.2f}x", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center", va="bottom", fontsize=9, xytext=(0, 2), textcoords="offset points")
    ax.set_ylabel("time per reduction (µs, median)")
    ax.set_title(f"The reduction ladder: 2^25 floats (134 MB) on {context.get('device', '?')}; "
                 "labels: speedup over the naive kernel")
    ax.tick_params(axis="x", labelsize=8)
    return save(fig, out_dir, "ladder")


def plot_bandwidth(context, results, out_dir):
    keys = [k for k, _ in LADDER] + ["read_only"]
    names = dict(LADDER)
    names["read_only"] = "float4 read-only"
    fig, ax = plt.subplots(figsize=(8, 4.8))
    markers = "osD^v<>p"
    for i, key in enumerate(keys):
        pts = sorted((size, r["gbps"]) for (g, k, size), r in results.items() if g == "reduce" and k == key)
        if not pts:
            continue
        # Ten series, eight colours: the marker tells the repeats apart; dashed lines are
        # the references that are not a lab's.
        style = "--" if key in ("cub", "read_only") else "-"
        ax.plot([math.log2(p[0]) for p in pts], [p[1] for p in pts], style, marker=markers[i % len(markers)],
                color=PALETTE[i % len(PALETTE)], label=names[key].replace("\n", " "))
    roof = float(context.get("copy_roof_gbps", "nan"))
    if not math.isnan(roof):
        ax.axhline(roof, color="black", linewidth=1,
                   label=f"cudaMemcpy, read + write ({roof:.0f} GB/s)")
    ax.set_xlabel("n (log2 of the number of floats)")
    ax.set_ylabel("GB/s (bytes read / time)")
    ax.set_title(f"Reduction bandwidth over size, {context.get('device', '?')}")
    ax.legend(fontsize=7, ncol=2, loc="upper left")
    return save(fig, out_dir, "bandwidth")


def plot_transpose(context, results, out_dir):
    sizes = sorted({size for (g, _, size) in results if g == "transpose"})
    # Results from before a series existed simply lack it.
    series = [(key, label) for key, label in TRANSPOSES if any(("transpose", key, s) in results for s in sizes)]
    if not series:
        return []
    fig, ax = plt.subplots(figsize=(8, 4.2))
    width = 0.8 / len(series)
    for i, (key, label) in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(sizes))]
        ys = [results.get(("transpose", key, s), {}).get("gbps", 0.0) for s in sizes]
        ax.bar(xs, ys, width, label=label, color=PALETTE[TRANSPOSES.index((key, label))])
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels([f"{s}x{s}" for s in sizes])
    ax.set_ylabel("GB/s (read + write)")
    ax.set_title(f"Matrix transpose, {context.get('device', '?')}")
    ax.legend(fontsize=8)
    return save(fig, out_dir, "transpose")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", help="Google Benchmark JSON from make bench")
    parser.add_argument("--out", default="docs/images", help="folder for the images (default: docs/images)")
    args = parser.parse_args(argv)
    try:
        context, results = load(args.json)
    except (OSError, ValueError, KeyError) as e:
        print(f"plot_results: cannot read {args.json}: {e}", file=sys.stderr)
        return 2
    if not results:
        print(f"plot_results: {args.json} holds no course benchmarks", file=sys.stderr)
        return 2
    try:
        paths = plot_ladder(context, results, args.out) + plot_bandwidth(context, results, args.out)
        paths += plot_transpose(context, results, args.out)
    except OSError as e:
        print(f"plot_results: cannot write to {args.out}: {e}", file=sys.stderr)
        return 2
    summary = extract(context, results)
    for lg, pct in sorted(summary["lab4_vs_cub_pct"].items()):
        print(f"lab4 reference at 2^{lg}: {pct:.1f}% of cub::DeviceReduce::Sum")
    for p in paths:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
