#!/usr/bin/env bash
# Installs everything the course needs on Debian or Ubuntu. Safe to run again:
# apt-get skips what is already there.
#
#   scripts/install_deps.sh            # build tools, test and report libraries, matplotlib
#   scripts/install_deps.sh --instructor   # and Slurm + munge, for the batch's Slurm test,
#                                          # CMake 3.22, for the Gradescope package's test, and
#                                          # Chromium, for the HTML report's test
#                                          # (docs/instructor-guide.md; students need none)
#
# The CUDA Toolkit (nvcc) is not a Debian package we can rely on, so this script
# only checks for it and explains how to get it.
set -euo pipefail

packages=(
  build-essential cmake make git
  ninja-build            # cmake -G Ninja (the build and batch grading work with either generator)
  doctest-dev            # correctness suites and unit tests
  libbenchmark-dev       # GPU timing harness
  nlohmann-json3-dev     # JSON reports, policy files, worker protocol
  libcli11-dev           # command-line parsing
  libfmt-dev             # report formatting
  python3 python3-matplotlib   # plots
  zip unzip              # Gradescope package, batch archives
)

instructor=0
for arg in "$@"; do
  case "$arg" in
    --instructor) instructor=1 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "install_deps: unknown option '$arg' (--instructor is the only one)" >&2; exit 2 ;;
  esac
done
if [ "$instructor" = 1 ]; then
  # A single-node Slurm cluster for grader/batch/tests/test_slurm.py, which starts and
  # stops its own daemons; the packages' services are not needed.
  packages+=(slurm-wlm munge)
  # Headless Chromium draws the HTML report in grader/html/tests/test_report_chromium.py.
  # Debian packages it as chromium; Ubuntu's chromium-browser is only a snap's stub, so
  # there the test reports skipped unless a browser is installed another way.
  if grep -qs '^ID=debian' /etc/os-release; then packages+=(chromium); fi
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo_cmd=(sudo); else
    echo "install_deps: run as root or install sudo" >&2; exit 2
  fi
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install_deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install_deps: all Debian packages already installed"
fi

# matplotlib must be importable by the python3 that `make plots` uses. A python3 from
# pyenv or a venv does not see Debian's dist-packages, so fall back to PyPI for it.
if ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
  echo "install_deps: $(command -v python3) cannot import matplotlib; installing it from PyPI"
  python3 -m pip install --quiet matplotlib
fi

# The oldest CMake the course supports (3.22: Ubuntu 22.04's, which Gradescope's images
# have), for the Gradescope package's test, which builds the package with it. From PyPI,
# into its own folder: the system's CMake stays what it is.
if [ "$instructor" = 1 ]; then
  oldest="${COURSE_OLDEST_CMAKE_DIR:-$HOME/.cache/course/cmake-3.22}"
  if [ ! -x "$oldest/cmake/data/bin/cmake" ]; then
    echo "install_deps: installing CMake 3.22 into $oldest (the Gradescope package's test builds with it)"
    python3 -m pip install --quiet --target "$oldest" cmake==3.22.6
  fi
fi

nvcc_path=$(command -v nvcc || true)
[ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_path=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc_path" ]; then
  cat >&2 <<'MSG'
install_deps: nvcc (the CUDA Toolkit) was not found.
  The CPU emulation backend works without it: `make lab1 && ./grade lab1` grades
  correctness on the CPU. To build the GPU graders, install the CUDA Toolkit 12.4 or
  newer from https://developer.nvidia.com/cuda-downloads (choose the deb (network)
  installer for your distribution), then put /usr/local/cuda/bin on your PATH.
MSG
else
  echo "install_deps: found $("$nvcc_path" --version | tail -n 2 | head -n 1)"
fi
echo "install_deps: done"
