"""The course's default policy as the scripts read it: grader/policy/default_policy.jsonc, with
each lab's `policy` keys from its lab.json over `lab_defaults`, as the grader reads them
(grader/core/policy.cpp; cite_grading.py checks that the two agree on every lab's target).

    course_policy.lab("lab3")["threshold_fraction"]   # 0.85
"""
import json
import os

from scripts import labs_manifest

PATH = os.path.join(labs_manifest.ROOT, "grader", "policy", "default_policy.jsonc")


def strip_comments(text):
    """JSONC's text without its // comments (a // inside a string stays)."""
    out, i, in_string = [], 0, False
    while i < len(text):
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\":
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def load(path=PATH):
    with open(path, encoding="utf-8") as f:
        return json.loads(strip_comments(f.read()))


def value(key, policy=None):
    """The default policy's value at KEY, a dotted path ("problems.reduction.timed")."""
    node = policy or load()
    for word in key.split("."):
        node = node[word]
    return node


def graded_size(key, policy=None):
    """The size a benchmark group's figures are quoted at, from the policy's KEY: a count,
    or a square shape's side ("8192x8192": 8192)."""
    size = value(key, policy)
    if isinstance(size, str):
        rows, _, cols = size.partition("x")
        if rows != cols:
            raise ValueError(f"{key} is {size}: the transpose benchmarks are of square shapes")
        return int(rows)
    return int(size)


def lab(name, policy=None, manifest=None):
    """The keys of lab NAME: lab_defaults, then the lab's own (a KeyError names an unknown lab)."""
    keys = dict((policy or load())["lab_defaults"])
    entry = next((entry for entry in labs_manifest.labs(manifest) if entry["name"] == name), None)
    if entry is None:
        raise KeyError(f"no lab '{name}' in labs.json")
    keys.update(entry.get("policy", {}))
    return keys
