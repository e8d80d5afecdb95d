#!/usr/bin/env bash
# course_bench on a machine without a GPU must refuse with a clear message and exit 2.
# Where a GPU is present the check does not apply: exit 77, which ctest reports as skipped.
bench=$1
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q "^GPU "; then
  echo "a GPU is present: the no-GPU check does not apply"
  exit 77
fi
err=$("$bench" --out /dev/null 2>&1 >/dev/null)
rc=$?
echo "course_bench exited $rc: $err"
[ "$rc" -eq 2 ] && [[ "$err" == *"no NVIDIA GPU found"* ]]
