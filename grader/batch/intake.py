"""Finding a student's lab file in a submission: a folder, a .zip or a .tar(.gz) archive.

Only the one file the lab needs (kernels.cu) is ever taken out of a submission, and it is
read into memory, never extracted: nothing else a student sends reaches the disk or the
build. Anything suspicious is a reason to reject the submission, with a message for it.
"""
import os
import stat
import tarfile
import zipfile
from dataclasses import dataclass

STUDENT_FILE = "kernels.cu"
MAX_STUDENT_FILE = 1 << 20      # a lab file is a few KB
MAX_MEMBER = 64 << 20           # any one file in an archive
MAX_TOTAL = 256 << 20           # everything in an archive, uncompressed (zip bombs)
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")


class InvalidSubmission(Exception):
    """The submission cannot be graded; the message says why, for that student."""


@dataclass
class Submission:
    name: str        # the folder or archive name, unique in the batch
    path: str
    kind: str        # "dir", "zip", "tar", or "other"
    student_id: str  # the name without its archive suffix


def discover(folder):
    """Every entry of the submissions folder, sorted, hidden files left out."""
    subs = []
    for name in sorted(os.listdir(folder)):
        if name.startswith("."):
            continue
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            subs.append(Submission(name, path, "dir", name))
            continue
        lower = name.lower()
        for suffix in ARCHIVE_SUFFIXES:
            if lower.endswith(suffix):
                kind = "zip" if suffix == ".zip" else "tar"
                subs.append(Submission(name, path, kind, name[: -len(suffix)]))
                break
        else:
            subs.append(Submission(name, path, "other", os.path.splitext(name)[0]))
    return subs


def candidate_paths(lab_folder):
    """Where the file may be: alone at the top, at the lab's path, or at labs/<lab>/."""
    return {STUDENT_FILE, f"{lab_folder}/{STUDENT_FILE}", f"labs/{lab_folder}/{STUDENT_FILE}"}


def check_member_name(name):
    """Rejects absolute paths and '..' components (path traversal)."""
    if name.startswith("/") or name.startswith("\\") or (len(name) > 1 and name[1] == ":"):
        raise InvalidSubmission(f"archive member '{name}' has an absolute path: rejected")
    parts = name.replace("\\", "/").split("/")
    if ".." in parts:
        raise InvalidSubmission(f"archive member '{name}' climbs out of the submission ('..'): rejected")


def pick(files, lab_folder):
    """The one candidate among the regular files' relative paths, or an explanation."""
    wanted = candidate_paths(lab_folder)
    files = [f for f in files if not f.startswith("__MACOSX/")]  # macOS zip metadata
    hits = [f for f in files if f in wanted]
    if not hits:
        # A submission zipped with its folder: everything under one top-level directory.
        tops = {f.split("/", 1)[0] for f in files if "/" in f}
        if len(tops) == 1 and all("/" in f for f in files):
            hits = [f for f in files if f.split("/", 1)[1] in wanted]
            if len(hits) == 1:
                return hits[0]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise InvalidSubmission(f"more than one {STUDENT_FILE} for {lab_folder}: {', '.join(sorted(hits))}")
    shown = ", ".join(sorted(files)[:8]) if files else "nothing"
    raise InvalidSubmission(
        f"no {STUDENT_FILE} for {lab_folder} (expected {STUDENT_FILE}, {lab_folder}/{STUDENT_FILE} or "
        f"labs/{lab_folder}/{STUDENT_FILE}); found: {shown}")


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
    if len(data) > MAX_STUDENT_FILE:
        raise InvalidSubmission(f"{where} is {len(data)} bytes; a lab file must be under {MAX_STUDENT_FILE} bytes")
    if b"\0" in data:
        raise InvalidSubmission(f"{where} is not a text file")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidSubmission(f"{where} is not UTF-8 text")
    return data


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
    full = os.path.join(path, chosen)
    if os.path.getsize(full) > MAX_STUDENT_FILE:
        raise InvalidSubmission(f"{chosen} is {os.path.getsize(full)} bytes; a lab file must be under "
                                f"{MAX_STUDENT_FILE} bytes")
    with open(full, "rb") as f:
        return chosen, check_text(f.read(), chosen)


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


def student_file(sub, lab_folder):
    """(path inside the submission, file contents) of the lab file, or InvalidSubmission."""
    if sub.kind == "dir":
        return from_dir(sub.path, lab_folder)
    if sub.kind == "zip":
        return from_zip(sub.path, lab_folder)
    if sub.kind == "tar":
        return from_tar(sub.path, lab_folder)
    raise InvalidSubmission(f"'{sub.name}' is neither a folder nor a .zip, .tar.gz or .tar archive")


def duplicates(subs):
    """{submission name: the name it duplicates} for every later entry of a student id."""
    first = {}
    dup = {}
    for s in subs:
        if s.student_id in first:
            dup[s.name] = first[s.student_id]
        else:
            first[s.student_id] = s.name
    return dup
