"""The median rows of the course bench's Google Benchmark JSON (bench/results/<device>.json),
read once for the plots and for the figures the docs cite."""
import json

TIME_SCALE_TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def load(path):
    """(context, [(group, key, size, row)]): each median aggregate, its name split from
    "group/key/size" (Google Benchmark appends its own settings after it), and a row with
    "us" and "gbps" added to the benchmark's own fields."""
    with open(path) as f:
        doc = json.load(f)
    rows = []
    for b in doc.get("benchmarks", []):
        if b.get("aggregate_name", "median") != "median":
            continue
        parts = b.get("run_name", b.get("name", "")).split("/")
        if len(parts) < 3 or not parts[2].isdigit():
            continue
        row = dict(b)
        row["us"] = b["real_time"] * TIME_SCALE_TO_US[b.get("time_unit", "us")]
        row["gbps"] = b.get("bytes_per_second", 0.0) / 1e9
        rows.append((parts[0], parts[1], int(parts[2]), row))
    return doc.get("context", {}), rows
