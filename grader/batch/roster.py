"""Who handed in what: the students behind a submissions folder, as LMS exports lay it out,
and the one entry of each student that is graded (the newest; the others are listed in
that student's row).

- Gradescope's "Export Submissions": submission_<id>/ folders beside submission_metadata.yml,
  which names each folder's submitters (name, sid, email) and its time.
- Canvas's "Download Submissions": bare files and archives named
  <login>[_LATE]_<user id>_<attachment id>_<original name>, e.g.
  smithjane_12345_67890_kernels.cu; a later upload has a larger attachment id.
- Anything else: one folder, archive or .cu file per student, named after the student; with
  several of one name (ann/ and ann.zip), the one modified last.
"""
import datetime
import os
import re

GRADESCOPE_METADATA = "submission_metadata.yml"
CANVAS_NAME = re.compile(r"^(?P<login>[^_]+)(?P<late>_late)?_(?P<uid>\d+)_(?P<aid>\d+)_(?P<orig>.+)$", re.IGNORECASE)


def _scalar(text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1].replace("''", "'") if text[0] == "'" else text[1:-1]
    return text


def parse_gradescope_metadata(text):
    """{folder: {"submitters": [{"name", "sid", "email"}], "created_at": str}} from the
    export's YAML (the part of it that says who and when; the rest is skipped)."""
    subs, current, key, person = {}, None, None, None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        body = line.strip()
        if indent == 0 and body.endswith(":"):
            current = subs.setdefault(_scalar(body[:-1]), {"submitters": [], "created_at": ""})
            key = person = None
        elif current is None:
            continue
        elif indent == 2 and body.startswith(":") and not body.startswith("- "):
            name, _, value = body[1:].partition(":")
            key, person = name, None
            if name == "created_at":
                current["created_at"] = _scalar(value)
        elif key == "submitters" and body.startswith("- :"):
            person = {"name": "", "sid": "", "email": ""}
            current["submitters"].append(person)
            body = body[2:]
        if key == "submitters" and person is not None and body.startswith(":") and indent >= 2:
            name, _, value = body[1:].partition(":")
            if name in person:
                person[name] = _scalar(value)
    return subs


def gradescope_time(text):
    """Seconds since the epoch of a time as Gradescope writes it ('2026-11-20 10:00:00.123 -08:00')."""
    m = re.match(r"(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.\d+)?\s*(Z|[+-]\d\d:?\d\d)?", text.strip())
    if not m:
        return 0.0
    zone = (m.group(3) or "+00:00").replace("Z", "+00:00")
    if ":" not in zone:
        zone = zone[:3] + ":" + zone[3:]
    return datetime.datetime.fromisoformat(f"{m.group(1)}T{m.group(2)}{zone}").timestamp()


def read_gradescope_metadata(folder):
    path = os.path.join(folder, GRADESCOPE_METADATA)
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_gradescope_metadata(f.read())


def matches(sub, name):
    """Whether `name` (an instructor's --regrade) names this entry or one of its students."""
    return name in (sub.name, sub.student_id) or name in sub.student_id.split("+")


def identify(sub, stem, metadata):
    """Fills in who `sub` is and how new it is, from the export's metadata or its name."""
    entry = (metadata or {}).get(stem)
    if entry and entry["submitters"]:
        people = entry["submitters"]
        sub.student_id = "+".join(p["email"] or p["sid"] or p["name"] for p in people)
        sub.full_name = "; ".join(p["name"] for p in people)
        sub.email = "; ".join(p["email"] for p in people)
        sub.lms_id = "; ".join(p["sid"] for p in people)
        sub.submitted_at = gradescope_time(entry["created_at"]) or None
        sub.time_source = "export" if sub.submitted_at else ""
        sub.order = (sub.submitted_at or 0.0, 0, sub.name)
        return
    # All a folder or a Canvas download says of when: a copy or an unpacked download may have
    # reset it, so the late policy uses it only when told to (grade_batch.py --times-from-files).
    sub.submitted_at, sub.time_source = os.lstat(sub.path).st_mtime, "file"
    m = CANVAS_NAME.match(sub.name)
    if m:
        sub.student_id, sub.lms_id = m.group("login"), m.group("uid")
        sub.late_marked = m.group("late") is not None
        sub.order = (0.0, int(m.group("aid")), sub.name)
        return
    sub.order = (sub.submitted_at, 0, sub.name)


def newest_per_student(subs):
    """The newest entry of each student that can hold a lab file (a folder, an archive, a
    .cu file: not the report.pdf Canvas downloads beside it), sorted by name; each lists
    the others in other_entries."""
    by_student = {}
    for s in subs:
        by_student.setdefault(s.student_id, []).append(s)
    chosen = []
    for entries in by_student.values():
        entries.sort(key=lambda s: (s.kind != "other", s.order))
        newest = entries[-1]
        newest.other_entries = "; ".join(s.name for s in entries[:-1])
        chosen.append(newest)
    return sorted(chosen, key=lambda s: s.name)
