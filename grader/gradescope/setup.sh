#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image. It installs
# the course's dependencies and builds the lab's CPU-emulation grader, so that each
# submission only compiles its own file. Gradescope machines have no GPU.
set -euo pipefail
root=${AUTOGRADER_ROOT:-/autograder}
lab=$(cat "$root/source/gradescope_lab")
if [ "${COURSE_SKIP_DEPS:-0}" != "1" ]; then
  "$root/source/scripts/install_deps.sh"
fi
# The reference kernels come compiled in prebuilt/: the package holds no solutions/.
bash "$root/source/scripts/build_autograder.sh" "$root/source" "$root/build" "$lab"
