"""How the course runs one of its Python programs in a child process: by the module's file,
with the repository root first on PYTHONPATH, where its packages (grader, scripts, bench)
import from. Never `python3 -m`, which would put the child's working folder (a Slurm job's,
an instructor's) first on its path, where another checkout's packages could stand
(docs/architecture.md, "The Python")."""
import os
import shlex
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module_file(module):
    """The file of MODULE ("scripts.plot_class"), which a course without it (a student
    release has no scripts of the bench) does not have."""
    return os.path.join(ROOT, *module.split(".")) + ".py"


def command(module, *args):
    return [sys.executable, module_file(module), *map(str, args)]


def env(base=None):
    """BASE (default: this process's environment) with the root first on PYTHONPATH."""
    out = dict(os.environ if base is None else base)
    out["PYTHONPATH"] = ROOT + (os.pathsep + out["PYTHONPATH"] if out.get("PYTHONPATH") else "")
    return out


def shell_env():
    """The line of a shell script (a Slurm job's) that puts the root first on PYTHONPATH."""
    return f'export PYTHONPATH={shlex.quote(ROOT)}"${{PYTHONPATH:+:$PYTHONPATH}}"'


def shell_command(module, *args):
    """command() as a shell script's words (after shell_env())."""
    return " ".join(shlex.quote(a) for a in command(module, *args))
