"""Markers in the course's Markdown that hold a cited value, checked and rewritten from its source.

A marker is an HTML comment pair on one line, which GitHub does not show:

    <!-- TAG SPEC -->TEXT<!-- /TAG -->

cite_figures.py (TAG fig: the H200 benchmark) and cite_grading.py (TAG grading: what the
grader checks on each backend) each give a function that renders SPEC's TEXT; this module
finds the markers, compares, rewrites with --fix, and reports.
"""
import glob
import os
import re
import shutil

DEFAULT_FILES = ["README.md", os.path.join("labs", "*", "README.md"), os.path.join("docs", "*.md")]


class SpecError(ValueError):
    """A marker whose SPEC names nothing its source holds, or cannot be parsed."""


class Markers:
    def __init__(self, tag, usage):
        self.tag = tag
        self.usage = usage  # the marker's form, for the malformed-marker message
        self.mark = re.compile(rf"<!-- {tag} (?P<spec>[^<>\n]*?) -->(?P<text>[^<\n]*)<!-- /{tag} -->")
        self.opening = re.compile(rf"<!--\s*{tag}\b")

    def scan(self, text, render):
        """Returns (cited, errors): cited as (line, spec, text, expected), errors as (line, message)."""
        cited, errors = [], []
        starts = {m.start() for m in self.mark.finditer(text)}
        for m in self.opening.finditer(text):
            if m.start() not in starts:
                errors.append((text.count("\n", 0, m.start()) + 1,
                               f"malformed marker: expected {self.usage} on one line"))
        for m in self.mark.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            try:
                cited.append((line, m.group("spec"), m.group("text"), render(m.group("spec"))))
            except SpecError as e:
                errors.append((line, str(e)))
        return cited, errors

    def fix_text(self, text, render):
        """TEXT with every marker's text rendered afresh (markers with errors are left)."""

        def replace(m):
            try:
                return f"<!-- {self.tag} {m.group('spec')} -->{render(m.group('spec'))}<!-- /{self.tag} -->"
            except SpecError:
                return m.group(0)

        return self.mark.sub(replace, text)

    def check_files(self, files, render, fix, tool, source, root, out, noun="cited values", gives=None):
        """Checks (or fixes) FILES; prints per marker ('GIVES gives ...') and a summary. Exit code 0, 1 or 2."""
        gives = gives or source
        wrong = bad = total = 0
        for path in files:
            name = os.path.relpath(path, root)
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except OSError as e:
                print(f"{tool}: cannot read {name}: {e}", file=out)
                bad += 1
                continue
            cited, errors = self.scan(text, render)
            total += len(cited)
            for line, message in errors:
                print(f"{name}:{line}: {message}", file=out)
            bad += len(errors)
            differ = [c for c in cited if c[2] != c[3]]
            for line, spec, text_now, expected in differ:
                verb = "fixed" if fix else "cites"
                print(f"{name}:{line}: {self.tag} {spec}: {verb} {text_now}, {gives} gives {expected}", file=out)
            if differ and fix:
                tmp = path + f".{tool}.tmp"
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write(self.fix_text(text, render))
                shutil.copymode(path, tmp)
                os.replace(tmp, path)
            elif differ:
                wrong += len(differ)
        if bad:
            print(f"{tool}: {bad} marker(s) or file(s) could not be checked", file=out)
            return 2
        if wrong:
            print(f"{tool}: {wrong} of {total} {noun} disagree with {source}; run python3 -m scripts.{tool} --fix", file=out)
            return 1
        print(f"{tool}: {total} {noun} in {len(files)} files agree with {source}", file=out)
        return 0


def default_files(root):
    files = []
    for pattern in DEFAULT_FILES:
        files.extend(sorted(glob.glob(os.path.join(root, pattern))))
    return files
