#!/usr/bin/env python3
"""Grades every built worker of a build tree (the selfcheck stubs and solutions, the test
submissions) with one fixed seed, and keeps what a refactor of the grader must not change:
each report's verdict, score, and per part the points, the penalty, the checks' statuses and
the correctness failures.  `compare` then tells two snapshots apart.

    python3 -m scripts.report_snapshot take BUILD_DIR OUT.json [--backend emulated|gpu|both] [--seed N]
    python3 -m scripts.report_snapshot compare BEFORE.json AFTER.json

Run `take` before and after a change (on the emulator here, on the GPU on a GPU machine)
and `compare` the two: it exits 1 and names every difference.  Timing figures are left out
(they differ from run to run); the points they earn are kept.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

from scripts import labs_manifest

LABS = labs_manifest.lab_names()


def worker_dirs(build: pathlib.Path):
    for root in ["selfcheck", "testsub"]:
        base = build / root
        if base.is_dir():
            for folder in sorted(p for p in base.iterdir() if p.is_dir()):
                yield folder


def essentials(report: dict) -> dict:
    def part(p):
        correctness = p.get("correctness") or {}
        return {
            "score": p.get("score"),
            "correctness_points": p.get("correctness_points"),
            "performance_points": p.get("performance_points"),
            "penalty": p.get("penalty"),
            "correctness": correctness.get("status"),
            "failed_cases": correctness.get("failed"),
            "faults": correctness.get("faults"),
            "checks": {c["name"]: c["status"] for c in p.get("checks", [])},
        }

    return {
        "passed": report.get("passed"),
        "score": report.get("score"),
        "max_score": report.get("max_score"),
        "exit_code": report.get("exit_code"),
        "checks": {c["name"]: c["status"] for c in report.get("checks", [])},
        "parts": {p["id"]: part(p) for p in report.get("parts", [])},
    }


def take(args) -> int:
    build = pathlib.Path(args.build).resolve()
    grader = build / "bin" / "grader"
    if not grader.exists():
        print(f"report_snapshot: {grader} is missing: build first", file=sys.stderr)
        return 2
    backends = ["emulated", "gpu"] if args.backend == "both" else [args.backend]
    snapshot = {}
    with tempfile.TemporaryDirectory() as tmp:
        for folder in worker_dirs(build):
            for lab in LABS:
                for backend in backends:
                    if not (folder / f"{lab}_worker_{backend}").exists():
                        continue
                    name = f"{folder.parent.name}/{folder.name}/{lab}/{backend}"
                    json_path = pathlib.Path(tmp) / "report.json"
                    json_path.unlink(missing_ok=True)
                    command = [str(grader), lab, "--worker-dir", str(folder), "--seed", str(args.seed),
                               "--json", str(json_path), "--quiet", "--no-color"]
                    if backend == "emulated":
                        command.append("--emulate")
                    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    entry = {"returncode": done.returncode}
                    if json_path.exists():
                        entry.update(essentials(json.loads(json_path.read_text())))
                    snapshot[name] = entry
                    print(f"{name}: exit {done.returncode}, score {entry.get('score')}", flush=True)
    pathlib.Path(args.out).write_text(json.dumps(snapshot, indent=1, sort_keys=True) + "\n")
    return 0


def differences(before, after, where=""):
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            yield from differences(before.get(key), after.get(key), f"{where}/{key}")
    elif before != after:
        yield f"{where}: {before!r} -> {after!r}"


def compare(args) -> int:
    before = json.loads(pathlib.Path(args.before).read_text())
    after = json.loads(pathlib.Path(args.after).read_text())
    found = list(differences(before, after))
    for line in found:
        print(line)
    print(f"report_snapshot: {len(before)} reports before, {len(after)} after, {len(found)} difference(s)")
    return 1 if found else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    taking = commands.add_parser("take")
    taking.add_argument("build")
    taking.add_argument("out")
    taking.add_argument("--backend", choices=["emulated", "gpu", "both"], default="emulated")
    taking.add_argument("--seed", type=int, default=7)
    comparing = commands.add_parser("compare")
    comparing.add_argument("before")
    comparing.add_argument("after")
    args = parser.parse_args()
    return take(args) if args.command == "take" else compare(args)


if __name__ == "__main__":
    sys.exit(main())
