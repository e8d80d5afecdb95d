"""Finding a student's lab file in a submission: a folder, a .zip or a .tar(.gz) archive.

Only the one file the lab needs (kernels.cu) is ever taken out of a submission, and it is
read into memory, never extracted: nothing else a student sends reaches the disk or the
build. Anything suspicious is a reason to reject the submission, with a message for it.
"""
import datetime
import os
import re
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from typing import Optional

from grader import names
from grader.batch import roster

STUDENT_FILE = names.STUDENT_FILE
MAX_STUDENT_FILE = 1 << 20      # a lab file is a few KB
MAX_MEMBER = 64 << 20           # any one file in an archive
MAX_TOTAL = 256 << 20           # everything in an archive, uncompressed (zip bombs)
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")


class InvalidSubmission(Exception):
    """The submission cannot be graded; the message says why, for that student."""


@dataclass
class Submission:
    name: str        # the folder, archive or file name, unique in the batch
    path: str
    kind: str        # "dir", "zip", "tar", "file" (a bare .cu file) or "other"
    student_id: str  # who handed it in (roster.py): the name without its suffix, unless an export says
    full_name: str = ""
    email: str = ""
    lms_id: str = ""
    submitted_at: Optional[float] = None  # seconds since the epoch: the export's time, or the entry's mtime
    time_source: str = ""                 # "export" (the LMS's time), "file" (its mtime) or ""
    late_marked: bool = False             # Canvas marked the upload late
    order: tuple = ()                     # how new it is among one student's entries
    other_entries: str = ""               # that student's other entries, not graded
    known_identity: Optional[dict] = None  # identity() as the submitting node worked it out (Slurm)

    def identity(self):
        """What a gradebook row says of who handed it in (and what else they handed in)."""
        if self.known_identity is not None:
            return dict(self.known_identity)
        when = (datetime.datetime.fromtimestamp(self.submitted_at, datetime.timezone.utc).isoformat(timespec="seconds")
                if self.submitted_at else "")
        return {"full_name": self.full_name, "email": self.email, "lms_id": self.lms_id,
                "other_entries": self.other_entries, "submitted_at": when, "time_source": self.time_source,
                "late_marked": "yes" if self.late_marked else ""}


def kind_of(name, path):
    """(kind, name without its suffix) of an entry of the submissions folder."""
    if os.path.isdir(path) and not os.path.islink(path):
        return "dir", name
    lower = name.lower()
    for suffix in ARCHIVE_SUFFIXES:
        if lower.endswith(suffix):
            return ("zip" if suffix == ".zip" else "tar"), name[: -len(suffix)]
    stem = os.path.splitext(name)[0]
    return ("file" if lower.endswith(".cu") else "other"), stem


def discover(folder):
    """Every entry of the submissions folder, sorted, hidden files and an export's metadata
    left out, each with who handed it in (roster.py)."""
    metadata = roster.read_gradescope_metadata(folder)
    subs = []
    for name in sorted(os.listdir(folder)):
        if name.startswith(".") or (metadata is not None and name == roster.GRADESCOPE_METADATA):
            continue
        path = os.path.join(folder, name)
        kind, stem = kind_of(name, path)
        sub = Submission(name, path, kind, stem)
        roster.identify(sub, stem, metadata)
        subs.append(sub)
    return subs


def candidate_paths(lab_folder):
    """Where the file is looked for first: alone at the top, at the lab's path, or at labs/<lab>/."""
    return {STUDENT_FILE, f"{lab_folder}/{STUDENT_FILE}", f"labs/{lab_folder}/{STUDENT_FILE}"}


def check_member_name(name):
    """Rejects absolute paths and '..' components (path traversal)."""
    if name.startswith("/") or name.startswith("\\") or (len(name) > 1 and name[1] == ":"):
        raise InvalidSubmission(f"archive member '{name}' has an absolute path: rejected")
    parts = name.replace("\\", "/").split("/")
    if ".." in parts:
        raise InvalidSubmission(f"archive member '{name}' climbs out of the submission ('..'): rejected")


OTHER_LAB = re.compile(r"^lab\d+_\w+$")


def pick(files, lab_folder):
    """The student's kernels.cu among the regular files' relative paths, or an explanation:
    the one kernels.cu anywhere inside (beside a report, three folders down) that is not
    in another lab's folder; of several, the one at a place candidate_paths() names, alone
    or under one top folder."""
    files = [f for f in files if not f.startswith("__MACOSX/")]  # macOS zip metadata
    hits = [f for f in files if f.rsplit("/", 1)[-1].lower() == STUDENT_FILE
            and not any(OTHER_LAB.match(d) and d != lab_folder for d in f.split("/")[:-1])]
    if len(hits) > 1:
        wanted = candidate_paths(lab_folder)
        placed = [f for f in hits if f in wanted]
        if not placed:
            placed = [f for f in hits if "/" in f and f.split("/", 1)[1] in wanted]
        if len(placed) == 1:
            return placed[0]
        raise InvalidSubmission(f"more than one {STUDENT_FILE} for {lab_folder}: {', '.join(sorted(hits))} "
                                f"(keep only the one for {lab_folder})")
    if hits:
        return hits[0]
    shown = ", ".join(sorted(files)[:8]) if files else "nothing"
    raise InvalidSubmission(f"no {STUDENT_FILE} for {lab_folder} anywhere in the submission; found: {shown}")


def check_member(name, size, total):
    """Name and size checks every archive member passes; returns the new running total."""
    check_member_name(name)
    if size > MAX_MEMBER:
        raise InvalidSubmission(f"archive member '{name}' is {size} bytes: too large")
    total += size
    if total > MAX_TOTAL:
        raise InvalidSubmission(f"the archive unpacks to more than {MAX_TOTAL} bytes: rejected")
    return total


def check_text(data, where):
    """The file as UTF-8, which the compiler reads. A UTF-8 or UTF-16 file with its byte
    order mark, or a Latin-1/Windows-1252 one (an accented name in a comment, from an
    editor set to a Western code page), is converted: its code means the same."""
    if len(data) > MAX_STUDENT_FILE:
        raise InvalidSubmission(f"{where} is {len(data)} bytes; a lab file must be under {MAX_STUDENT_FILE} bytes")
    for boms, codec in (((b"\xff\xfe\0\0", b"\0\0\xfe\xff"), "utf-32"), ((b"\xff\xfe", b"\xfe\xff"), "utf-16")):
        if data.startswith(boms):
            try:
                data = data.decode(codec).encode("utf-8")
            except UnicodeDecodeError:
                raise InvalidSubmission(f"{where} starts like {codec.upper()} text but is not")
            if len(data) > MAX_STUDENT_FILE:
                raise InvalidSubmission(f"{where} is over {MAX_STUDENT_FILE} bytes as UTF-8")
            break
    if b"\0" in data:
        raise InvalidSubmission(f"{where} is not a text file")
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        data.decode("utf-8")
        return data
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252").encode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1").encode("utf-8")


def from_dir(path, lab_folder):
    files = []
    for root, dirs, names in os.walk(path, followlinks=False):
        for name in dirs + names:
            full = os.path.join(root, name)
            if os.path.islink(full):
                raise InvalidSubmission(f"'{os.path.relpath(full, path)}' is a symbolic link: rejected")
        for name in names:
            full = os.path.join(root, name)
            if not stat.S_ISREG(os.lstat(full).st_mode):
                raise InvalidSubmission(f"'{os.path.relpath(full, path)}' is not a regular file: rejected")
            files.append(os.path.relpath(full, path).replace(os.sep, "/"))
    chosen = pick(files, lab_folder)
    return chosen, read_lab_file(os.path.join(path, chosen), chosen)


def from_zip(path, lab_folder):
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            total = 0
            files = []
            for info in infos:
                total = check_member(info.filename, info.file_size, total)
                if stat.S_ISLNK(info.external_attr >> 16):
                    raise InvalidSubmission(f"archive member '{info.filename}' is a symbolic link: rejected")
                if not info.is_dir():
                    files.append(info.filename)
            chosen = pick(files, lab_folder)
            return chosen, check_text(zf.read(chosen), chosen)
    except zipfile.BadZipFile as e:
        raise InvalidSubmission(f"corrupt zip archive: {e}")
    except (zipfile.LargeZipFile, NotImplementedError, RuntimeError, OSError, EOFError) as e:
        raise InvalidSubmission(f"unreadable zip archive: {e}")


def from_tar(path, lab_folder):
    try:
        with tarfile.open(path, "r:*") as tf:
            total = 0
            files = {}
            for m in tf.getmembers():
                total = check_member(m.name, m.size, total)
                if m.issym() or m.islnk():
                    raise InvalidSubmission(f"archive member '{m.name}' is a link: rejected")
                if not (m.isfile() or m.isdir()):
                    raise InvalidSubmission(f"archive member '{m.name}' is not a regular file: rejected")
                if m.isfile():
                    files[m.name[2:] if m.name.startswith("./") else m.name] = m
            chosen = pick(list(files), lab_folder)
            member = tf.extractfile(files[chosen])
            return chosen, check_text(member.read(MAX_STUDENT_FILE + 1), chosen)
    except (tarfile.TarError, EOFError, OSError) as e:
        raise InvalidSubmission(f"corrupt tar archive: {e}")


def read_lab_file(full, shown):
    """The file at `full` (called `shown` in messages) as check_text returns it, never read
    whole when it is too large."""
    if os.path.getsize(full) > MAX_STUDENT_FILE:
        raise InvalidSubmission(f"{shown} is {os.path.getsize(full)} bytes; a lab file must be under "
                                f"{MAX_STUDENT_FILE} bytes")
    with open(full, "rb") as f:
        return check_text(f.read(), shown)


def from_file(path):
    return os.path.basename(path), read_lab_file(path, os.path.basename(path))


def student_file(sub, lab_folder):
    """(path inside the submission, file contents as UTF-8) of the lab file, or InvalidSubmission."""
    if sub.kind == "file":
        return from_file(sub.path)
    if sub.kind == "dir":
        return from_dir(sub.path, lab_folder)
    if sub.kind == "zip":
        return from_zip(sub.path, lab_folder)
    if sub.kind == "tar":
        return from_tar(sub.path, lab_folder)
    raise InvalidSubmission(f"'{sub.name}' is neither a folder, a .zip, .tar.gz or .tar archive, nor a .cu file")
