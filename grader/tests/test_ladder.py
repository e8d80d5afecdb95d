"""The ladder rung each part's counters behave like (core/ladder.cpp), on the ladder's own
kernels (the references), on honest variants that differ from them, and on files that
skip a rung. Each is graded on the CPU emulator; every part must read exactly as written.

  python3 test_ladder.py BUILD_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")

DIVERGENT = ("behaves like interleaved addressing with a divergent branch (lab 1); next: give each step's working "
             "threads contiguous indices (lab 2 A)")
STRIDED = ("behaves like a strided index: no divergence, bank conflicts left (lab 2 A); next: sequential addressing "
           "(lab 2 B)")
SEQUENTIAL = ("behaves like sequential addressing without the first add during the load (lab 2 B); next: add two "
              "elements during the load (lab 3 A)")
FIRST_ADD = ("behaves like two or more elements added during the load, then a tree with a barrier at every step down "
             "to the last (lab 3 A); next: unroll the last warp (lab 3 B)")
UNROLLED = ("behaves like the last warp unrolled (lab 3 B or C: a fully unrolled tree moves the same memory, so the "
            "counters cannot tell them apart); next: warp shuffles and a grid-stride loop (lab 4 A)")
SHUFFLES = "behaves like warp shuffles with 4-byte loads (lab 4 A); next: float4 loads, four elements per load (lab 4 B)"
WIDE = "behaves like warp shuffles and wide loads (lab 4 B); the top of this ladder"
PADDED = "behaves like a conflict-free shared array (padded, or otherwise arranged); the top of this ladder"
CONFLICTED = ("behaves like a shared array with bank conflicts: lanes of a warp hit one bank at different words; next: "
              "pad the array by one word per row (the [32][33] tile)")

# (worker folder under BUILD, lab): the reading of each part.
EXPECTED = {
    ("selfcheck/solution", "lab1"): {"A": DIVERGENT},
    ("selfcheck/solution", "lab2"): {"A": STRIDED, "B": SEQUENTIAL},
    ("selfcheck/solution", "lab3"): {"A": FIRST_ADD, "B": UNROLLED, "C": UNROLLED},
    ("selfcheck/solution", "lab4"): {"A": SHUFFLES, "B": WIDE},
    ("selfcheck/solution", "lab5"): {"A": PADDED, "B": PADDED},
    # Honest variants: written independently, a guarded last warp, more blocks, float2
    # loads, cooperative groups' tiles, an 8-byte shared array, 16-byte records, a swizzle.
    ("testsub/alt", "lab1"): {"A": DIVERGENT},
    ("testsub/alt", "lab2"): {"A": STRIDED, "B": SEQUENTIAL},
    ("testsub/alt", "lab3"): {"A": FIRST_ADD, "B": SHUFFLES, "C": SHUFFLES},  # its last warp shuffles
    ("testsub/alt", "lab4"): {"A": SHUFFLES, "B": WIDE},
    ("testsub/guarded_tail", "lab3"): {"A": FIRST_ADD, "B": UNROLLED, "C": UNROLLED},
    ("testsub/many_blocks", "lab4"): {"A": SHUFFLES, "B": WIDE},
    ("testsub/float2_loads", "lab4"): {"A": SHUFFLES, "B": WIDE},
    ("testsub/cg_tiles", "lab4"): {"A": SHUFFLES, "B": WIDE},
    ("testsub/double_shared", "lab2"): {"A": STRIDED, "B": SEQUENTIAL},
    ("testsub/wide_shared", "lab5"): {"A": PADDED, "B": PADDED},
    ("testsub/swizzled_tile", "lab5"): {"A": PADDED, "B": PADDED},
    # Files a rung below the part they hand in.
    ("testsub/lab1_as_lab2", "lab2"): {"A": DIVERGENT, "B": DIVERGENT},
    ("testsub/shared_tree", "lab4"): {"A": FIRST_ADD, "B": FIRST_ADD},
    ("testsub/scalar_loads", "lab4"): {"A": SHUFFLES, "B": SHUFFLES},
    ("testsub/unpadded", "lab5"): {"A": CONFLICTED, "B": CONFLICTED},
    # A wrong part has no reading: its counters are of a kernel that does not work.
    ("selfcheck/stub", "lab3"): {"A": None, "B": None, "C": None},
}


def main():
    out_dir = tempfile.mkdtemp(prefix="ladder-")
    wrong = 0
    for (worker, lab), parts in EXPECTED.items():
        out = os.path.join(out_dir, f"{worker.replace('/', '_')}_{lab}.json")
        subprocess.run([os.path.join(BUILD, "bin", "grader"), lab, "--worker-dir", os.path.join(BUILD, worker),
                        "--emulate", "--seed", "1", "--quiet", "--json", out], stdout=subprocess.DEVNULL, check=False)
        with open(out) as f:
            got = {p["id"]: p.get("ladder") for p in json.load(f)["parts"]}
        for part, want in parts.items():
            if got.get(part) != want:
                wrong += 1
                print(f"{worker} {lab} {part}:\n  expected: {want!r}\n  got:      {got.get(part)!r}")
        print(f"checked {worker} {lab}")
    print(f"{wrong} mismatch(es)")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
