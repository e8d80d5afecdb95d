#!/usr/bin/env python3
"""./grade hint LAB [PART] [--list | --reset]: a lab's hints, one at a time, gentlest first.

The hints live in each lab's folder, labs/<folder>/hints.json (the format is in
grader/student/hint_files.md). Each
hint is for every part of its lab or for some parts; a part's list is the hints for that
part, in the file's order. Which hints a student has seen is kept in the build folder,
BUILD/hints/LAB.json, by hint id, so a hint seen through one list is not shown again
through another.

  ./grade hint lab3 B          the next hint for part B that you have not seen
  ./grade hint lab3            the next hint that applies to every part of lab 3
                               (in a lab with one part, the next hint of that part)
  ./grade hint lab3 B --list   the hints for part B you have seen, again
  ./grade hint lab3 --list     every hint of lab 3 you have seen
  ./grade hint lab3 B --reset  forget the hints seen for part B
  ./grade hint lab3 --reset    forget every hint seen for lab 3

Exit codes: 0 done (also when no hint is left), 2 usage or infrastructure problem.
"""
import argparse
import json
import os
import re
import sys
import tempfile
import textwrap
from pathlib import Path

from scripts import labs_manifest

ROOT = Path(__file__).resolve().parents[2]
PROG = "./grade hint"
WIDTH = 80
INDENT = "  "


class Problem(Exception):
    """A usage or infrastructure problem: the message is printed and the exit code is 2."""


class Lab:
    def __init__(self, name, parts, hints):
        self.name = name
        self.parts = parts  # ["A", "B", ...]
        self.hints = hints  # [(id, frozenset of parts, text)], gentle to specific

    def hints_for(self, part):
        """Part's list; None: the hints for every part."""
        if part is None:
            return [h for h in self.hints if h[1] == frozenset(self.parts)]
        return [h for h in self.hints if part in h[1]]

    def label(self, part):
        return self.name if part is None or len(self.parts) == 1 else f"{self.name} {part}"

    def command(self, part):
        return f"{PROG} {self.name}" if part is None or len(self.parts) == 1 \
            else f"{PROG} {self.name} {part}"


def known_labs(hints_dir=None):
    """The labs with hints, in course order: those of labs.json whose folder has a hints.json
    or, with HINTS_DIR (the tests' folder of LAB.json files), those there."""
    if hints_dir is not None:
        labs = [p.stem for p in Path(hints_dir).glob("lab*.json") if re.fullmatch(r"lab\d+", p.stem)]
        return sorted(labs, key=lambda name: int(name[3:]))
    return [lab for lab, folder in labs_manifest.folders().items() if (ROOT / "labs" / folder / "hints.json").is_file()]


def hint_file(lab, hints_dir=None):
    """LAB's hint file: labs/<folder>/hints.json, or HINTS_DIR/LAB.json."""
    if hints_dir is not None:
        return Path(hints_dir) / f"{lab}.json"
    return ROOT / "labs" / labs_manifest.folders().get(lab, lab) / "hints.json"


def parse_lab(path, name):
    """Reads and checks one hint file; raises Problem with the reason if it is not valid."""
    def bad(reason):
        return Problem(f"{path} is not a valid hint file: {reason}")

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise Problem(f"cannot read {path}: {e}")
    except json.JSONDecodeError as e:
        raise bad(f"not JSON ({e})")
    if not isinstance(data, dict):
        raise bad("the top level is not an object")
    if data.get("lab") != name:
        raise bad(f'"lab" is {data.get("lab")!r}, not {name!r}')
    parts = data.get("parts")
    if (not isinstance(parts, list) or not parts
            or not all(isinstance(p, str) and re.fullmatch(r"[A-Z]", p) for p in parts)
            or len(set(parts)) != len(parts)):
        raise bad('"parts" must be a list of distinct capital letters, such as ["A", "B"]')
    items = data.get("hints")
    if not isinstance(items, list) or not items:
        raise bad('"hints" must be a non-empty list')
    hints, ids = [], set()
    for number, item in enumerate(items, 1):
        where = f"hint {number}"
        if not isinstance(item, dict):
            raise bad(f"{where} is not an object")
        hint_id, scope, text = item.get("id"), item.get("for"), item.get("text")
        if not isinstance(hint_id, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", hint_id):
            raise bad(f'{where}: "id" must be lower-case letters, digits and dashes')
        if hint_id in ids:
            raise bad(f'{where}: the id "{hint_id}" is used twice')
        ids.add(hint_id)
        if scope == "all":
            scope = parts
        if (not isinstance(scope, list) or not scope
                or not all(isinstance(p, str) and p in parts for p in scope)):
            raise bad(f'{where} ("{hint_id}"): "for" must be "all" or a list of the lab\'s parts '
                      f'({", ".join(parts)})')
        if not isinstance(text, str) or not text.strip():
            raise bad(f'{where} ("{hint_id}"): "text" must be a non-empty string')
        hints.append((hint_id, frozenset(scope), " ".join(text.split())))
    return Lab(name, parts, hints)


def wrap(text):
    """Wraps a hint for the terminal without breaking a `code span` across lines."""
    kept = re.sub(r"`[^`]*`", lambda m: m.group(0).replace(" ", "\0"), text)
    lines = textwrap.wrap(kept, width=WIDTH, initial_indent=INDENT, subsequent_indent=INDENT,
                          break_long_words=False, break_on_hyphens=False)
    return "\n".join(line.replace("\0", " ") for line in lines)


def show(lab, part, hints, hint):
    position = hints.index(hint) + 1
    scope = " (for every part)" if part is None and len(lab.parts) > 1 else ""
    print(f"{lab.label(part)}, hint {position} of {len(hints)}{scope}:")
    print(wrap(hint[2]))


def plural(count, word):
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


class State:
    """The hints one student has seen for one lab: BUILD/hints/LAB.json."""

    def __init__(self, build_dir, lab):
        self.lab = lab
        self.path = Path(build_dir) / "hints" / f"{lab.name}.json"
        self.seen = set()
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            seen = data.get("seen", []) if isinstance(data, dict) else None
            if not isinstance(seen, list):
                raise ValueError('no "seen" list')
            self.seen = {s for s in seen if isinstance(s, str)}
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as e:  # JSONDecodeError is a ValueError
            print(f"grade hint: {self.path} could not be read ({e}); starting from the first hint",
                  file=sys.stderr)

    def save(self):
        order = [h[0] for h in self.lab.hints]
        seen = [i for i in order if i in self.seen] + sorted(self.seen - set(order))
        text = json.dumps({"lab": self.lab.name, "seen": seen}, indent=2) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, self.path)
        except OSError as e:
            raise Problem(f"cannot save which hints you have seen in {self.path}: {e}")


def next_hint(lab, part, state):
    hints = lab.hints_for(part)
    for hint in hints:
        if hint[0] not in state.seen:
            state.seen.add(hint[0])
            state.save()
            show(lab, part, hints, hint)
            left = sum(1 for h in hints if h[0] not in state.seen)
            if left:
                print(f"({left} more: run {lab.command(part)} again)")
            else:
                print(f"(that was the last hint for {lab.label(part)})")
            return 0
    print(f"no more hints for {lab.label(part)}: you have seen all {len(hints)}")
    print(f"({lab.command(part)} --list shows them again)")
    if part is None and len(lab.parts) > 1:
        parts = [p for p in lab.parts if any(h[0] not in state.seen for h in lab.hints_for(p))]
        if parts:
            others = f" (or {', '.join(parts[1:])})" if len(parts) > 1 else ""
            print(f"more hints, for one part: {PROG} {lab.name} {parts[0]}{others}")
    return 0


def list_seen(lab, part, state):
    # Without a part (in a lab with several): the hints for every part, then each part's own.
    lists = [part] if part is not None or len(lab.parts) == 1 else [None] + lab.parts
    shown = set()
    for which in lists:
        hints = lab.hints_for(which)
        for hint in hints:
            if hint[0] in state.seen and hint[0] not in shown:
                if shown:
                    print()
                show(lab, which, hints, hint)
                shown.add(hint[0])
    if not shown:
        print(f"you have not seen any hints for {lab.label(part)} yet "
              f"({lab.command(part)} shows the first)")
    return 0


def reset(lab, part, state):
    # Without a part: the whole lab, ids of hints no longer in the file included.
    forgotten = set(state.seen) if part is None else {h[0] for h in lab.hints_for(part)} & state.seen
    if not forgotten:
        print(f"you had not seen any hints for {lab.label(part)}: nothing to forget")
        return 0
    state.seen -= forgotten
    state.save()
    print(f"forgot the {plural(len(forgotten), 'hint')} you had seen for {lab.label(part)}; "
          f"{lab.command(part)} starts again at the first")
    return 0


def main(argv):
    parser = argparse.ArgumentParser(
        prog=PROG, usage=f"{PROG} LAB [PART] [--list | --reset]",
        description="The next hint for a lab, one at a time, gentlest first. Without PART: "
                    "the hints that apply to every part of the lab (in a lab with one part, "
                    "that part's). --list and --reset without PART cover the whole lab.",
        epilog="Exit codes: 0 done (also when no hint is left), 2 usage or infrastructure problem.")
    parser.add_argument("lab", nargs="?", help="lab1 .. lab5")
    parser.add_argument("part", nargs="?", help="A, B or C, as the lab's handout names its parts")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--list", action="store_true", help="show the hints you have seen again")
    action.add_argument("--reset", action="store_true", help="forget the hints you have seen")
    parser.add_argument("--build-dir", default=os.environ.get("COURSE_BUILD_DIR") or str(ROOT / "build"),
                        help="where to keep which hints you have seen (default: build)")
    parser.add_argument("--hints-dir", help=argparse.SUPPRESS)  # the tests' hint files
    args = parser.parse_args(argv)

    hints_dir = args.hints_dir
    labs = known_labs(hints_dir)
    if args.lab is None:
        parser.print_usage(sys.stderr)
        raise Problem(f"which lab? The labs are: {' '.join(labs)}")
    if args.lab not in labs:
        raise Problem(f"unknown lab '{args.lab}'. The labs are: {' '.join(labs)}")
    lab = parse_lab(hint_file(args.lab, hints_dir), args.lab)
    part = None
    if args.part is not None:
        part = args.part.upper()
        if part not in lab.parts:
            raise Problem(f"{lab.name} has no part '{args.part}'. Its parts are: {' '.join(lab.parts)}")
    if part is None and len(lab.parts) == 1:
        part = lab.parts[0]

    state = State(args.build_dir, lab)
    if args.list:
        return list_seen(lab, part, state)
    if args.reset:
        return reset(lab, part, state)
    return next_hint(lab, part, state)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Problem as e:
        print(f"grade hint: {e}", file=sys.stderr)
        sys.exit(2)
