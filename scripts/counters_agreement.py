#!/usr/bin/env python3
"""The CPU emulator's memory counters beside Nsight Compute's, kernel by kernel.

For every lab, it grades the built references (selfcheck/solution) and the alternative
kernels (testsub/alt) on the emulator, whose report holds each part's counters for the
student's, the reference's and the naive baseline's version (docs/emulator.md), on the
input Nsight Compute profiles on a GPU (the worker's `profile` job at each problem kind's
`profiled` size in the policy: 2^22 floats, 2^18 records, a 2048x2048 matrix). With --ncu,
it runs each version once under ncu on the GPU worker and reads the same quantities:

    shared wavefronts per conflict-free wavefront
                                   l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum /
                                   (that - l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum)
    global sectors per request     l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum
                                   / l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}.sum

    python3 -m scripts.counters_agreement BUILD --out bench/results/counters_agreement_<device>.json [--ncu]
    python3 -m scripts.counters_agreement --table FILE.json      # the markdown table of docs/emulator.md

Exit 0 when every pair agrees within 10% (or only the emulator ran), 1 otherwise.
"""
import argparse
import csv
import io
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

from scripts import course_policy
from scripts import labs_manifest

ROOT = pathlib.Path(__file__).resolve().parent.parent

# What the GPU worker's profile job runs, by problem kind: the policy's "profiled" sizes.
PROFILE_SIZE = {kind: block["profiled"] for kind, block in course_policy.value("problems").items()}
# Shared memory: ncu's instruction count includes instructions every lane of which was
# predicated off (a tree step's `if (tid < s)` compiled without a branch), which move no
# data and which the emulator, seeing only accesses, cannot count. So the comparison is on
# wavefronts per conflict-free wavefront, wavefronts / (wavefronts - bank conflicts), which
# no such instruction changes; for the 4-byte accesses of every course kernel that is the
# emulator's wavefronts per request. The per-instruction figure is kept beside it.
QUANTITIES = [  # (key, emulator numerator, emulator denominator, ncu numerator, ncu denominator)
    ("shared_ld", "shared_load_wavefronts", "shared_load_requests",
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    ("shared_st", "shared_store_wavefronts", "shared_store_requests",
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
    ("global_ld", "global_load_sectors", "global_load_requests",
     "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
    ("global_st", "global_store_sectors", "global_store_requests",
     "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
]
PER_INSTRUCTION = ["smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum"]
TOLERANCE = 0.10


def ncu_ratio(key, sums, num, den):
    """ncu's figure for `key` from the summed metrics."""
    if not sums:
        return None
    if key.startswith("shared"):
        wavefronts, conflicts = sums.get(num, 0.0), sums.get(den, 0.0)
        return ratio(wavefronts, wavefronts - conflicts)
    return ratio(sums.get(num, 0), sums.get(den, 0))


def ratio(a, b):
    return a / b if b else None


def emulated_counters(build, lab, worker_dir, policy):
    """{part id: [version counters]} from the emulator's report."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        subprocess.run([str(build / "bin" / "grader"), lab, "--worker-dir", str(worker_dir), "--emulate", "--seed", "1",
                        "--policy", policy, "--json", report, "--quiet"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=1800)
        with open(report) as f:
            parts = json.load(f)["parts"]
    return {p["id"]: p.get("counters", {}).get("versions", []) for p in parts}


def profiled_size(word):
    """A counted problem's size word ("n=4194304", "2048x2048") as the protocol writes the size."""
    return int(word[2:]) if word.startswith("n=") else word


def ncu_metrics(worker, part, version, size):
    """{metric: sum over the launches} of one profiled run at SIZE, or None."""
    metrics = ",".join([m for q in QUANTITIES for m in q[3:]] + PER_INSTRUCTION)
    job = {"command": "profile", "sandbox": "relaxed", "correctness": None, "timing": None,
           "profile": {"part": part, "version": version, "seed": 1, "size": size}}
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    run = subprocess.run([ncu, "--csv", "--metrics", metrics, str(worker), "--events-fd", "1", "--job",
                          json.dumps(job)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    sums = {}
    header = None
    for row in csv.reader(io.StringIO(run.stdout.decode("utf-8", "replace"))):
        if not row or not row[0].startswith("ID") and header is None:
            continue
        if header is None:
            header = {name: i for i, name in enumerate(row)}
            continue
        try:
            name, value = row[header["Metric Name"]], float(row[header["Metric Value"]].replace(",", ""))
        except (KeyError, IndexError, ValueError):
            continue
        sums[name] = sums.get(name, 0.0) + value
    return sums or None


def collect(build, use_ncu):
    policy = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    # One case of each kind at the profiled size, drawn for the counters whatever the seed.
    json.dump({"problems": {kind: {"sizes_emulated": [size], "large_sizes_emulated": [], "counted_from": 1}
                            for kind, size in PROFILE_SIZE.items()},
               "emulated_counters": {"draws": 1}}, policy)
    policy.close()
    rows = []
    try:
        for lab in labs_manifest.lab_names():
            sources = [("reference", build / "selfcheck" / "solution", ["reference", "baseline"]),
                       ("alternative", build / "testsub" / "alt", ["student"])]
            for origin, folder, versions in sources:
                if not (folder / f"{lab}_worker_emulated").exists():
                    continue
                counted = emulated_counters(build, lab, folder, policy.name)
                for part, entries in counted.items():
                    for v in entries:
                        if v["version"] not in versions:
                            continue
                        if v["version"] == "baseline" and not lab_has_own_baseline(lab):
                            continue  # lab 1's naive kernel: its reference row already counts it
                        row = {"lab": lab, "part": part, "kernel": v["kernel"],
                               "origin": "baseline" if v["version"] == "baseline" else origin, "emulator": {},
                               "ncu": {}}
                        for key, num, den, _, _ in QUANTITIES:
                            row["emulator"][key] = ratio(v[num], v[den])
                        gpu = folder / f"{lab}_worker_gpu"
                        if use_ncu and gpu.exists():
                            sums = ncu_metrics(gpu, part, v["version"], profiled_size(v["problem"]))
                            for key, _, _, num, den in QUANTITIES:
                                row["ncu"][key] = ncu_ratio(key, sums, num, den)
                            if sums:
                                row["ncu_per_instruction"] = {
                                    "shared_ld": ratio(sums.get(QUANTITIES[0][3], 0), sums.get(PER_INSTRUCTION[0], 0)),
                                    "shared_st": ratio(sums.get(QUANTITIES[1][3], 0), sums.get(PER_INSTRUCTION[1], 0))}
                        rows.append(row)
                        print(f"{lab} {part} {row['origin']:11} {row['kernel']:28} {row['emulator']} {row['ncu']}",
                              flush=True)
    finally:
        os.unlink(policy.name)
    return rows


def lab_has_own_baseline(lab):
    return any(l["name"] == lab and l.get("baseline") for l in labs_manifest.labs())


def disagreements(rows):
    bad = []
    for r in rows:
        for key, _, _, _, _ in QUANTITIES:
            e, n = r["emulator"].get(key), r["ncu"].get(key)
            if e is None or n is None:
                continue
            if abs(e - n) > TOLERANCE * n:
                bad.append(f"{r['lab']} {r['part']} {r['kernel']} {key}: emulator {e:.2f}, ncu {n:.2f}")
    return bad


def table(rows):
    def cell(x):
        return "-" if x is None else f"{x:.2f}"
    out = ["| lab | part | kernel | version | shared ld wf/req (emu / ncu) | shared st wf/req | "
           "global ld sectors/req | global st sectors/req |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        cells = [f"{cell(r['emulator'].get(k))} / {cell(r['ncu'].get(k))}" for k, _, _, _, _ in QUANTITIES]
        out.append(f"| {r['lab']} | {r['part']} | `{r['kernel']}` | {r['origin']} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build", nargs="?")
    p.add_argument("--out")
    p.add_argument("--ncu", action="store_true")
    p.add_argument("--table")
    args = p.parse_args()
    if args.table:
        rows = json.loads(pathlib.Path(args.table).read_text())["rows"]
        print(table(rows))
        return 0
    if not args.build or not args.out:
        p.error("BUILD and --out are needed")
    rows = collect(pathlib.Path(args.build).resolve(), args.ncu)
    bad = disagreements(rows)
    pathlib.Path(args.out).write_text(json.dumps({"size": PROFILE_SIZE, "tolerance": TOLERANCE, "rows": rows,
                                                  "disagreements": bad}, indent=1) + "\n")
    print(table(rows))
    for line in bad:
        print("DISAGREES:", line)
    print(f"counters_agreement: {len(rows)} kernels, {len(bad)} disagreement(s) over {TOLERANCE:.0%}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
