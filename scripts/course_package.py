"""What leaves the instructor's checkout: the Gradescope package (make_gradescope.py) and the
student release (make_release.py) hold the course's files without its answers, and the
reference kernels the grader needs compiled, stripped of debug information and of this
machine's paths.

Answers are everything under ANSWER_DIRS: the reference solutions; the grader's own test
submissions (independently written solutions, honest variants, attacks built on the
references); the emulator's tests and the benchmarks, whose kernels use the labs'
techniques (a corrected warp tail, a padded tile, sequential addressing, warp shuffles).
What remains defines no kernel but the stubs' and the labs' baselines (and a probe of the
GPU's memory, scripts/hmm_probe.cu); scripts/tests/packaging/test_release.py checks it.
"""
import glob
import os
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANSWER_DIRS = ("solutions/", "grader/tests/", "common/tests/", "bench/")
PREBUILT = "prebuilt"  # the folder of compiled references, which CMake picks up (cmake/course_labs.cmake)
SKIP_DIRS = {".git", ".device", ".whl", ".gl", "__pycache__"}
# What a GPU reference object is built for when it leaves this machine: the real code of
# each recent architecture, and PTX of the newest for the GPUs after it.
RELEASE_CUDA_ARCHITECTURES = "75-real;80-real;86-real;89-real;90-real;100-real;120"


def course_files():
    """The files git tracks, and new ones it does not ignore (what a commit would hold, so an
    instructor's uncommitted course file is not silently left out); outside a git checkout,
    the tree without build output."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        files = [f for f in out.decode().split("\0") if f and os.path.isfile(os.path.join(ROOT, f))]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for root, dirs, names in os.walk(ROOT):
        rel = os.path.relpath(root, ROOT)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not (rel == "." and d.startswith("build")))
        files += [os.path.normpath(os.path.join(rel, n)) for n in sorted(names) if ".tmp." not in n]
    return files


def is_answer(path):
    return path.replace(os.sep, "/").startswith(ANSWER_DIRS)


def shipped_files():
    """course_files() without the answers."""
    return [f for f in course_files() if not is_answer(f) and not f.startswith(PREBUILT + "/")]


def has_nvcc():
    return shutil.which("nvcc") is not None or os.access("/usr/local/cuda/bin/nvcc", os.X_OK)


def reference_objects(labs, backends, dest, jobs=None):
    """Compiles the reference kernels of `labs` (names like "lab3") for `backends` ("emulated",
    "gpu") in a scratch build and puts them in `dest`, each stripped of its debug information,
    with no path of this checkout in it; returns their file names."""
    # Built from a copy of the course at a neutral path: the sanitizers' source locations,
    # which no prefix map reaches, then name that copy, not this checkout.
    scratch = tempfile.mkdtemp(prefix="course-references-")
    src, build = os.path.join(scratch, "course"), os.path.join(scratch, "build")
    for f in course_files():
        os.makedirs(os.path.dirname(os.path.join(src, f)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(src, f))
    prefix_map = f"-ffile-prefix-map={src}=course -ffile-prefix-map={build}=build"
    args = ["cmake", "-S", src, "-B", build, "-DBUILD_TESTING=OFF", "-DCMAKE_BUILD_TYPE=Release",
            f"-DCOURSE_GPU={'ON' if 'gpu' in backends else 'OFF'}", f"-DCMAKE_CXX_FLAGS={prefix_map}"]
    if "gpu" in backends:
        args += [f"-DCMAKE_CUDA_FLAGS=-Xcompiler={prefix_map.replace(' ', ',')}",
                 f"-DCMAKE_CUDA_ARCHITECTURES={RELEASE_CUDA_ARCHITECTURES}"]
    try:
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError):
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    targets = [f"{lab}_reference_solutions_{b}" for lab in sorted(labs) for b in backends]
    try:
        subprocess.run(["cmake", "--build", build, "-j", str(jobs or os.cpu_count() or 2), "--target", *targets],
                       check=True, stdout=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError):
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    os.makedirs(dest, exist_ok=True)
    names = []
    try:
        for t in targets:
            found = glob.glob(os.path.join(build, "**", f"{t}.dir", "**", "*.o"), recursive=True)
            if len(found) != 1:
                raise RuntimeError(f"expected one object for {t}, found {found}")
            names.append(f"{t}.o")
            subprocess.run(["objcopy", "--strip-debug", found[0], os.path.join(dest, names[-1])], check=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return names
