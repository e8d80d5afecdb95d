"""The small part of YAML a GitHub Actions workflow needs, written and read without a YAML
library (the course installs none): block mappings and sequences whose scalars are JSON
(strings in double quotes, numbers, true, false, null). A JSON string is a valid YAML
double-quoted scalar, so what dump() writes any YAML reader reads the same; load() reads
only what dump() writes and refuses the rest, so a test can take values back out of the
committed file instead of trusting it.
"""
import json
import re

PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
# Words YAML 1.1 reads as booleans or null: a key spelled so is quoted ('on' is the one a
# workflow has).
YAML11_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def _key(k):
    return k if PLAIN_KEY.fullmatch(k) and k.lower() not in YAML11_WORDS else json.dumps(k)


def _scalar(v):
    if isinstance(v, (dict, list)):
        return "{}" if isinstance(v, dict) else "[]"
    return json.dumps(v)


def _lines(value, indent):
    pad = " " * indent
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                out.append(f"{pad}{_key(k)}:")
                out += _lines(v, indent + 2)
            else:
                out.append(f"{pad}{_key(k)}: {_scalar(v)}")
    else:
        for v in value:
            if isinstance(v, (dict, list)) and v:
                inner = _lines(v, indent + 2)
                out.append(f"{pad}- {inner[0][indent + 2:]}")
                out += inner[1:]
            else:
                out.append(f"{pad}- {_scalar(v)}")
    return out


def dump(value, comment=""):
    """VALUE (a dict) as block YAML, after COMMENT's lines as # comments."""
    head = [f"# {line}".rstrip() for line in comment.splitlines()]
    return "\n".join(head + _lines(value, 0)) + "\n"


def _parse_scalar(text, where):
    if text in ("{}", "[]"):
        return {} if text == "{}" else []
    try:
        return json.loads(text)
    except ValueError:
        raise ValueError(f"line {where}: '{text}' is not a JSON scalar")


def _split_key(text, where):
    """(key, rest after the colon) of a mapping line, or None when TEXT is no 'key: ...'."""
    if text.startswith('"'):
        try:
            key, end = json.JSONDecoder().raw_decode(text)
        except ValueError:
            return None
    else:
        m = PLAIN_KEY.match(text)
        if not m:
            return None
        key, end = m.group(0), m.end()
    if not text[end:].startswith(":") or text[end + 1:end + 2] not in ("", " "):
        return None
    return key, text[end + 1:].strip()


def _block(lines, i, indent):
    """(the value of the block at LINES[i], indented INDENT, the index after it)."""
    if lines[i][1] == "-" or lines[i][1].startswith("- "):
        out = []
        while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("-"):
            no, text = lines[i][2], lines[i][1][2:]
            if _split_key(text, no) is None:
                out.append(_parse_scalar(text, no))
                i += 1
            else:  # a mapping item: its first key shares the dash's line
                lines[i] = (indent + 2, text, no)
                value, i = _block(lines, i, indent + 2)
                out.append(value)
        return out, i
    out = {}
    while i < len(lines) and lines[i][0] == indent and not lines[i][1].startswith("-"):
        split = _split_key(lines[i][1], lines[i][2])
        if split is None:
            raise ValueError(f"line {lines[i][2]}: expected 'key: value', found '{lines[i][1]}'")
        key, rest = split
        if rest:
            out[key], i = _parse_scalar(rest, lines[i][2]), i + 1
        elif i + 1 < len(lines) and lines[i + 1][0] > indent:
            out[key], i = _block(lines, i + 1, lines[i + 1][0])
        else:
            raise ValueError(f"line {lines[i][2]}: '{key}' has no value")
    return out, i


def load(text):
    """The value dump() wrote; ValueError for anything else."""
    lines = [(len(raw) - len(raw.lstrip(" ")), raw.strip(), no) for no, raw in enumerate(text.splitlines(), 1)
             if raw.strip() and not raw.lstrip().startswith("#")]
    if not lines:
        raise ValueError("empty document")
    value, i = _block(lines, 0, lines[0][0])
    if i != len(lines):
        raise ValueError(f"line {lines[i][2]}: unexpected indentation")
    return value
