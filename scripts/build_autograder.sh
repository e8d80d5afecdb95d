#!/usr/bin/env bash
# Builds the CPU-emulation graders of LABs in a copy of the course whose reference kernels
# come compiled in prebuilt/ (a Gradescope package, a student release): what an autograder
# image runs once (Gradescope's setup.sh, PrairieLearn's Dockerfile), so that grading a
# submission compiles only its own file. The grader and the batch's template workers are
# built; the course's tests are not.
#
#   scripts/build_autograder.sh SOURCE BUILD LAB...
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: scripts/build_autograder.sh SOURCE BUILD LAB..." >&2
  exit 2
fi
source_dir=$1 build_dir=$2
shift 2
targets=()
for lab in "$@"; do targets+=("$lab" "batch_${lab}_emulated"); done
cmake -S "$source_dir" -B "$build_dir" -DCOURSE_GPU=OFF -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release \
      -DCOURSE_PREBUILT_DIR="$source_dir/prebuilt"
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"
