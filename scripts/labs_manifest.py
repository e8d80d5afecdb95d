#!/usr/bin/env python3
"""The course's labs: labs.json at the repository root lists them in course order (name and
folder), and each folder's lab.json holds the lab's title, parts, hints, baseline and policy
keys (CMake reads the same files: cmake/course_manifest.cmake).

    python3 -m scripts.labs_manifest names      # lab1 lab2 ...: the Makefile's list of labs
    python3 -m scripts.labs_manifest folders    # lab1_divergent lab2_interleaved ...
"""
import json
import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PATH = os.path.join(ROOT, "labs.json")


def load(path=PATH):
    """labs.json, each lab's entry completed with its folder's lab.json."""
    with open(path) as f:
        manifest = json.load(f)
    root = os.path.dirname(os.path.abspath(path))
    for lab in manifest["labs"]:
        lab_file = os.path.join(root, "labs", lab["folder"], "lab.json")
        with open(lab_file) as f:
            lab.update(json.load(f))
    return manifest


def labs(manifest=None):
    """The labs in course order, each {"name", "folder", "title", "parts", ["baseline"], ["hints"], "policy"}."""
    return (manifest or load())["labs"]


def folders(manifest=None):
    """{lab: its folder under labs/ and solutions/}, in course order."""
    return {lab["name"]: lab["folder"] for lab in labs(manifest)}


def lab_names(manifest=None):
    return [lab["name"] for lab in labs(manifest)]


def ladder(manifest=None):
    """[(bench key, label)] of the parts drawn in the ladder plot, in course order."""
    return [(f"{lab['name']}.{part['id']}", part["ladder_label"])
            for lab in labs(manifest) for part in lab["parts"] if "ladder_label" in part]


def bench_groups(manifest=None):
    """{group: {"baseline": key, "graded_size": the policy's key of it}} of the benchmark groups."""
    return (manifest or load())["bench"]["groups"]


def plot_names(kind, manifest=None):
    """The names (without extension) of the images one script draws: bench, class or handout."""
    return list((manifest or load())["plots"][kind])


def main(argv):
    if argv == ["names"]:
        print(" ".join(lab_names()))
    elif argv == ["folders"]:
        print(" ".join(lab["folder"] for lab in labs()))
    else:
        print("usage: labs_manifest.py names|folders", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
