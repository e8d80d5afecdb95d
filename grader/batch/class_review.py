"""What only the whole class shows, added to its gradebook rows: files handed in twice
(byte-identical, or identical but for comments and spacing), copies of the reference
solution, and the late policy's penalty.

Flags are for the instructor to look at; they change no score. The late policy changes
`final_score` only: `score` stays the grader's.
"""
import datetime
import hashlib
import re

COLUMNS = ("same_file_as", "copy_of_reference", "late_days", "late_penalty_pct", "final_score")


def normalised_sha256(text):
    """The hash of a C++ file with its comments and all whitespace taken out, so that a
    copy re-indented or re-commented hashes the same."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)
    return hashlib.sha256(re.sub(r"\s+", "", text).encode()).hexdigest()


def parse_deadline(text):
    """A deadline in ISO 8601 ('2026-12-10T23:59', '2026-12-10 23:59:00-08:00'); UTC when no
    zone is given. ValueError with the reason otherwise."""
    try:
        t = datetime.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"--deadline {text!r} is not a date and time like 2026-12-10T23:59 or "
                         "2026-12-10T23:59-08:00")
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return t.timestamp()


def parse_penalties(text):
    """'10,25,50,100' -> [10.0, 25.0, 50.0, 100.0]: the percent taken off for a submission
    1, 2, 3, 4 or more (started) days late. ValueError with the reason otherwise."""
    try:
        curve = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        curve = []
    if not curve or any(not 0 <= x <= 100 for x in curve) or curve != sorted(curve):
        raise ValueError(f"--late-penalty {text!r} must be percentages from 0 to 100 that never decrease, one per day "
                         "late, like 10,25,50,100 (the last one applies to every later day)")
    return curve


def late_penalty(submitted_at, deadline, curve, grace_s=0.0):
    """(days late, started days; percent taken off) of a submission time in seconds."""
    late = submitted_at - deadline - grace_s
    if late <= 0:
        return 0, 0.0
    days = int(-(-late // 86400))  # every started day counts
    return days, curve[min(days, len(curve)) - 1]


def review(rows, texts, reference_texts=(), stub_texts=(), deadline=None, curve=None, grace_s=0.0,
           times_from_files=False):
    """rows: the gradebook's rows; texts: {submission: the kernels.cu graded}. Returns the
    rows with COLUMNS filled in. A file that is the lab's stub is no one's copy; a time that
    is only a file's modification time counts for the late policy when times_from_files."""
    stubs = {normalised_sha256(t) for t in stub_texts}
    exact, loose = {}, {}
    for name, text in texts.items():
        if normalised_sha256(text) in stubs:
            continue
        exact.setdefault(hashlib.sha256(text.encode()).hexdigest(), []).append(name)
        loose.setdefault(normalised_sha256(text), []).append(name)
    refs = {hashlib.sha256(t.encode()).hexdigest() for t in reference_texts}
    loose_refs = {normalised_sha256(t) for t in reference_texts}
    out = []
    for r in rows:
        r = dict(r, **{c: "" for c in COLUMNS})
        text = texts.get(r["submission"])
        if text is not None and normalised_sha256(text) not in stubs:
            h, n = hashlib.sha256(text.encode()).hexdigest(), normalised_sha256(text)
            same = sorted(set(exact[h] + loose[n]) - {r["submission"]})
            r["same_file_as"] = "; ".join(same)
            r["copy_of_reference"] = ("identical" if h in refs else
                                      "identical but for comments and spacing" if n in loose_refs else "")
        r["final_score"] = r["score"]
        trusted = r.get("time_source") == "export" or (times_from_files and r.get("time_source") == "file")
        if deadline is not None and r.get("submitted_at") and trusted:
            t = datetime.datetime.fromisoformat(r["submitted_at"]).timestamp()
            days, pct = late_penalty(t, deadline, curve, grace_s)
            r["late_days"], r["late_penalty_pct"] = days, pct
            r["final_score"] = round(r["score"] * (1 - pct / 100), 2)
        out.append(r)
    return out
