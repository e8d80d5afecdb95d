#!/usr/bin/env python3
"""Checks, and with --fix rewrites, what README.md, the handouts and docs/ say each backend checks.

The one source is the grader itself: `grader --describe-grading` prints, for every lab and
both backends, the correctness cases, the points, and each part's checks with what judges
them and what a failure costs (grader/core/grading_plan.cpp, the same code the grade runs).
A cited statement is marked in the Markdown with an HTML comment, which GitHub does not show:

    a failed check costs the part <!-- grading lab2 emulated cost no_divergence -->all its points<!-- /grading -->

The words of a marker: LAB BACKEND WHAT [ARG], LAB a lab or `all` (every lab, which must
agree), BACKEND gpu or emulated, WHAT one of

  KIND                       the correctness cases of a problem kind of the policy's
                             "problems" (reduction, record_sums, transpose), its sizes then
                             its large ones ("1, 31, ..., 2^24+7 and 2^25"; counts from 2^20 on
                             are written as a power of two and a small offset)
  max | correctness | performance   the lab's points on that backend ("60")
  technique [PART]           the part's technique checks, those a lab adds to the checks
                             every part has ("`no_divergence` and `bank_wavefronts`", or "none");
                             without PART, those of every part, which must agree
  cost CHECK [PART]          what a failed CHECK costs (of PART; by default of every part
                             that has it, which must agree): "its performance points", "all
                             its points", or for a check of the whole file "every part all
                             its points"; CHECK `technique` stands for every technique check
  racecheck                  (gpu) the parts compute-sanitizer racecheck runs on ("B and C")
  threshold [fraction]       (gpu) the performance target, as a share of the reference's
                             speedup: "85%", or with `fraction` "0.85"
  floor [fraction]           (gpu) where performance credit reaches 0, as a share of the
                             target: "50%", or "0.5"
  weight [performance]       (gpu) the share of a part's points for correctness ("60%"), or
                             with `performance` for performance ("40%")
  rounds | max_rounds | confidence   (gpu) the timing's interleaved rounds ("21"), the most
                             it measures when undecided ("63"), the confidence of its
                             interval ("95%")

    python3 -m scripts.cite_grading                        # check README.md, labs/*/README.md, docs/*.md
    python3 -m scripts.cite_grading --fix                  # rewrite the marked statements
    python3 -m scripts.cite_grading --grader build/bin/grader --policy my_policy.jsonc labs/lab2_interleaved/README.md
    python3 -m scripts.cite_grading --plan plan.json       # a saved `grader --describe-grading`

Exit code: 0 every marked statement agrees (or was fixed); 1 some disagree; 2 a marker is
malformed or names what the grader does not have, or the grader or a file cannot be read.
"""
import argparse
import json
import os
import subprocess
import sys

from scripts import course_policy
from scripts import doc_markers

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DEFAULT_GRADER = os.path.join("build", "bin", "grader")
MARKERS = doc_markers.Markers("grading", "<!-- grading LAB BACKEND WHAT ... -->TEXT<!-- /grading -->")
SpecError = doc_markers.SpecError
# The checks every part has on every backend; "technique" lists the others.
COMMON_CHECKS = {"no_libraries", "traced_run", "races", "initcheck", "ncu_wavefronts"}
COST_WORDS = {"performance": "its performance points", "everything": "all its points", "none": "no points"}


def load_plan(grader=None, policy=None, plan_file=None):
    """The grader's plan: from PLAN_FILE, or by running GRADER --describe-grading [POLICY]."""
    if plan_file:
        with open(plan_file, encoding="utf-8") as f:
            return json.load(f)
    run = subprocess.run([grader, "--describe-grading"] + ([policy] if policy else []),
                         capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        raise ValueError(f"{grader} --describe-grading failed: {run.stderr.strip()}")
    return json.loads(run.stdout)


def size_words(n):
    """1000 -> '1000'; 1048575 -> '2^20-1'; 16777223 -> '2^24+7'; 33554432 -> '2^25'."""
    if isinstance(n, str) or n < (1 << 20) - 64:
        return str(n)
    k = round(n).bit_length() - 1
    for power in (k, k + 1):
        offset = n - (1 << power)
        if abs(offset) < 64:
            return f"2^{power}" + (f"{offset:+d}" if offset else "")
    return str(n)


def listing(words):
    """['a'] -> 'a'; ['a', 'b', 'c'] -> 'a, b and c'; [] -> 'none'."""
    words = list(words)
    if not words:
        return "none"
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _checks(lab, backend, part):
    if part not in lab["parts"]:
        raise SpecError(f"no part '{part}' (the lab has {', '.join(lab['parts'])})")
    return lab["parts"][part][backend]


def _cost(lab, backend, check, part):
    parts = [part] if part else list(lab["parts"])
    found = [c for p in parts for c in _checks(lab, backend, p)
             if c["name"] == check or (check == "technique" and c["name"] not in COMMON_CHECKS)]
    if not found:
        raise SpecError(f"no check '{check}' in part(s) {', '.join(parts)} on {backend}")
    words = {"every part all its points" if c["whole_lab"] and c["cost"] == "everything" else COST_WORDS[c["cost"]]
             for c in found}
    if len(words) > 1:
        raise SpecError(f"'{check}' costs the parts differently on {backend}: name the part")
    return words.pop()


def _target(lab, what, args):
    if "target" not in lab:
        raise SpecError("the plan has no performance target (a grader older than the marker)")
    if what == "weight":
        if args and args != ["performance"]:
            raise SpecError(f"'weight' takes 'performance' or nothing, not '{args[0]}'")
        weight = lab["target"]["correctness_weight"]
        return f"{100 * (1 - weight if args else weight):g}%"
    fraction = lab["target"][f"{what}_fraction"]
    if args and args != ["fraction"]:
        raise SpecError(f"'{what}' takes 'fraction' or nothing, not '{args[0]}'")
    return f"{fraction:g}" if args else f"{100 * fraction:g}%"


def policy_disagreements(plan):
    """Where the scripts' reading of the default policy (course_policy.py, which cite_figures'
    *threshold and *floor use) differs from the grader's plan: [] when they agree."""
    wrong = []
    for name, lab in plan["labs"].items():
        mine = course_policy.lab(name)
        for key, value in lab.get("target", {}).items():
            if mine[key] != value:
                wrong.append(f"{name}.{key}: the grader has {value}, scripts/course_policy.py reads {mine[key]}")
    return wrong


def render(spec, plan):
    """The text a marker must hold."""
    words = spec.split()
    if len(words) < 3:
        raise SpecError(f"'{spec}': expected LAB BACKEND WHAT")
    lab_name, backend, what, args = words[0], words[1], words[2], words[3:]
    if lab_name == "all":
        texts = {render(" ".join([name] + words[1:]), plan) for name in plan["labs"]}
        if len(texts) > 1:
            raise SpecError(f"'{spec}': the labs differ ({', '.join(sorted(texts))}): name the lab")
        return texts.pop()
    if lab_name not in plan["labs"]:
        raise SpecError(f"'{spec}': no lab '{lab_name}'")
    if backend not in ("gpu", "emulated"):
        raise SpecError(f"'{spec}': the backend is gpu or emulated, not '{backend}'")
    lab = plan["labs"][lab_name]
    kinds = plan["cases"][backend]["problems"]
    wanted = {**{kind: 0 for kind in kinds}, "max": 0, "correctness": 0, "performance": 0,
              "technique": (0, 1), "cost": (1, 2), "racecheck": 0, "threshold": (0, 1), "floor": (0, 1),
              "weight": (0, 1), "rounds": 0, "max_rounds": 0, "confidence": 0}
    if what not in wanted:
        raise SpecError(f"'{spec}': unknown WHAT '{what}' (one of {', '.join(wanted)})")
    counts = wanted[what] if isinstance(wanted[what], tuple) else (wanted[what],)
    if len(args) not in counts:
        raise SpecError(f"'{spec}': '{what}' takes {' or '.join(map(str, counts))} more word(s)")
    try:
        if what in kinds:
            return listing(size_words(n) for key in ("sizes", "large") for n in kinds[what][key])
        if what in ("max", "correctness", "performance"):
            return f"{lab['points'][backend][what]:g}"
        if what == "technique":
            lists = {listing(f"`{c['name']}`" for c in _checks(lab, backend, p) if c["name"] not in COMMON_CHECKS)
                     for p in (args or list(lab["parts"]))}
            if len(lists) > 1:
                raise SpecError("the parts' technique checks differ: name the part")
            return lists.pop()
        if what == "cost":
            return _cost(lab, backend, args[0], args[1] if len(args) > 1 else None)
        if backend != "gpu":
            raise SpecError(f"{what} is of the timing, which runs on a GPU only: write 'gpu'")
        if what == "racecheck":
            return listing(lab["race_check_parts"])
        if what in ("rounds", "max_rounds"):
            return str(plan["timing"][what])
        if what == "confidence":
            return f"{100 * plan['timing'][what]:g}%"
        return _target(lab, what, args)
    except SpecError as e:
        raise SpecError(f"'{spec}': {e}") from None


def main(argv=None, root=ROOT, out=sys.stdout):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", help="Markdown files (default: README.md, labs/*/README.md, docs/*.md)")
    parser.add_argument("--grader", default=os.path.join(root, DEFAULT_GRADER),
                        help=f"the built grader (default: {DEFAULT_GRADER}; `make` builds it)")
    parser.add_argument("--policy", help="a policy file merged over the defaults, as the grader takes it")
    parser.add_argument("--plan", help="a saved `grader --describe-grading` instead of running the grader")
    parser.add_argument("--fix", action="store_true", help="rewrite the marked statements from the grader")
    args = parser.parse_args(argv)
    try:
        plan = load_plan(args.grader, args.policy, args.plan)
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        print(f"cite_grading: cannot read the grader's plan: {e}", file=out)
        return 2
    # A plan of the defaults from the grader itself: the scripts must read the same policy.
    wrong = [] if args.policy or args.plan else policy_disagreements(plan)
    for line in wrong:
        print(f"cite_grading: {line}", file=out)
    if wrong:
        return 2
    files = args.files or doc_markers.default_files(root)
    return MARKERS.check_files(files, lambda spec: render(spec, plan), args.fix, "cite_grading", "the grader",
                               root, out, noun="cited statements")


if __name__ == "__main__":
    sys.exit(main())
