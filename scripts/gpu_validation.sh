#!/usr/bin/env bash
# Grades every lab's reference and stub N times on this machine's GPU, from an existing
# build (make), and prints one line per run: the verdict, the score and the wall time.
# Every reference must pass and every stub must fail, every time.
#
#   scripts/gpu_validation.sh [BUILD_DIR] [RUNS] [OUT_DIR]
#
# Exit 0 when every run gave the expected verdict, 1 otherwise.
set -uo pipefail
build=${1:-build}
runs=${2:-10}
out=${3:-$build/gpu_validation}
mkdir -p "$out"
grader="$build/bin/grader"
[ -x "$grader" ] || { echo "gpu_validation: $grader is missing: build the course first (make)" >&2; exit 2; }
bad=0
printf '%-5s %-9s %-4s %-8s %-8s %s\n' lab variant run verdict seconds score
for lab in lab1 lab2 lab3 lab4 lab5; do
  for variant in solution stub; do
    for run in $(seq 1 "$runs"); do
      json="$out/${lab}_${variant}_${run}.json"
      start=$(date +%s.%N)
      "$grader" "$lab" --worker-dir "$build/selfcheck/$variant" --quiet --no-color --json "$json" \
        >"$out/${lab}_${variant}_${run}.log" 2>&1
      code=$?
      end=$(date +%s.%N)
      seconds=$(python3 -c "print(f'{$end - $start:.1f}')")
      score=$(python3 -c "import json; r = json.load(open('$json')); print(f\"{r['score']:.1f}/{r['max_score']:.0f} {r['backend']}\")" 2>/dev/null || echo "no report")
      verdict=$([ "$code" = 0 ] && echo pass || echo "fail($code)")
      want=$([ "$variant" = solution ] && echo 0 || echo 1)
      [ "$code" = "$want" ] || { bad=$((bad + 1)); verdict="$verdict!"; }
      printf '%-5s %-9s %-4s %-8s %-8s %s\n' "$lab" "$variant" "$run" "$verdict" "$seconds" "$score"
    done
  done
done
echo "gpu_validation: $bad unexpected verdict(s)"
[ "$bad" = 0 ]
