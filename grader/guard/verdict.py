"""The guard's verdict file: what course_cc_guard decided about one compile of a student's
file, which it writes to its --verdict FILE as {"verdict": WORD, "source": ..., "exit_code": N}.
The build scripts read it (grader/student/course_build.py, grader/batch/build_recipe.py) to
tell a refused file from one that does not compile; the words are guard_run.hpp's.
"""
import json

COMPILED = "compiled"            # accepted: the object is there
REFUSED = "refused"              # the file breaks a rule: no object
COMPILE_ERROR = "compile_error"  # the compiler failed or hit a limit
ERROR = "error"                  # the guard could not do its work (the course's problem)
WORDS = (COMPILED, REFUSED, COMPILE_ERROR, ERROR)


def read(path):
    """The verdict word in PATH, or None when there is none (the guard did not run) or it
    cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            word = json.load(f).get("verdict")
    except (OSError, ValueError, AttributeError):
        return None
    return word if word in WORDS else None
