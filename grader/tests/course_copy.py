"""A copy of the course's sources, for the tests that configure and build one of their own
(the student's loop, a lab added as its folder and one line), so the build the other tests
use is never touched."""
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def copy_course(dest):
    """The course's sources at DEST, without its builds and its git history."""
    def ignore(folder, names):
        skip = {n for n in names if n in (".git", "__pycache__")}
        if Path(folder).resolve() == ROOT:
            skip |= {n for n in names if n.startswith("build")}
        skip |= {n for n in names if (Path(folder, n) / "CMakeCache.txt").exists()}
        return skip
    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)
