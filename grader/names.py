"""The names the course's Python writes and reads, each written once: the files of a graded
submission's folder (RESULTS/<submission>/) and of a class's results folder, the statuses of
a gradebook row, and the kinds of a failed build. The grader's own words (a report's
"outcome") are the statuses a graded submission's row takes (grader/core/result.hpp).
"""

# A submission's folder.
REPORT = "report.json"          # the grader's --json report
GRADESCOPE = "results.json"     # its --gradescope results, in Gradescope's format
TEXT = "report.txt"             # its human report, without colours
PAGE = "report.html"            # the HTML report of the student's kernels
STUDENT_FILE = "kernels.cu"     # the one file a student writes: in the lab's folder, in a submission
GRADED_FILE = STUDENT_FILE      # the file intake took out of the submission, kept as it was graded
ROW = "row.json"                # the gradebook row, written last: the submission is done
BUILD_LOG = "build.log"         # a failed build's output
GRADER_LOG = "grader.log"       # the grader's output, kept when it could not grade
BUILD_FAILURE = "build_failure.json"  # what the grader is told of a failed build (grader --build-failure)

# Where PrairieLearn reads an external grader's results: /grade/results/results.json.
PRAIRIELEARN_RESULTS = "results/results.json"

# A class's results folder.
GRADEBOOK_JSON = "gradebook.json"
GRADEBOOK_CSV = "gradebook.csv"
STATS = "batch_stats.json"      # the batch's throughput figures (grader/batch/throughput.py)
RUN_MANIFEST = "manifest.json"  # a Slurm run's folder: what its tasks grade
REFERENCE_COUNTERS = "reference_counters.json"  # the references' counters, counted once a batch (grader --count-references)
DESCRIBED = ".described"  # the lab as its template worker described it, once a batch per GPU (grader --describe-lab)

# The statuses of a row: the grader's outcomes and the batch's own.
GRADED = "graded"
COMPILE_ERROR = "compile_error"
REJECTED = "rejected"           # the guard refused the file
TIMEOUT = "timeout"
CRASHED = "crashed"
INVALID_SUBMISSION = "invalid_submission"
STATUSES = (GRADED, COMPILE_ERROR, REJECTED, TIMEOUT, CRASHED, INVALID_SUBMISSION)
# A Slurm array task that ended without grading its submissions (grader/batch/slurm_status.py).
SLURM_TIMEOUT = "slurm_timeout"
SLURM_CANCELLED = "slurm_cancelled"
SLURM_NODE_FAIL = "slurm_node_fail"
SLURM_PREEMPTED = "slurm_preempted"
SLURM_OUT_OF_MEMORY = "slurm_out_of_memory"
SLURM_FAILED = "slurm_failed"
SLURM_UNKNOWN = "slurm_unknown"
SLURM_STATUSES = (SLURM_TIMEOUT, SLURM_CANCELLED, SLURM_NODE_FAIL, SLURM_PREEMPTED, SLURM_OUT_OF_MEMORY,
                  SLURM_FAILED, SLURM_UNKNOWN)

# The kinds of a failed build of the student's file (grader --build-failure's "kind").
LINK_ERROR = "link_error"
BUILD_KINDS = (COMPILE_ERROR, REJECTED, LINK_ERROR)
