"""How the course runs one of its Python programs in a child process: `python3 -m MODULE`
with the repository root on PYTHONPATH, where its packages (grader, scripts, bench) import
from, whatever the child's working folder (docs/architecture.md, "The Python")."""
import os
import shlex
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module_file(module):
    """The file of MODULE ("scripts.plot_class"), which a course without it (a student
    release has no scripts of the bench) does not have."""
    return os.path.join(ROOT, *module.split(".")) + ".py"


def command(module, *args):
    return [sys.executable, "-m", module, *map(str, args)]


def env(base=None):
    """BASE (default: this process's environment) with the root first on PYTHONPATH."""
    out = dict(os.environ if base is None else base)
    out["PYTHONPATH"] = ROOT + (os.pathsep + out["PYTHONPATH"] if out.get("PYTHONPATH") else "")
    return out


def shell_line(module, *args):
    """command() as one line of a shell script (a Slurm job's), the root on PYTHONPATH."""
    return " ".join(shlex.quote(a) for a in ["env", f"PYTHONPATH={ROOT}", *command(module, *args)])
