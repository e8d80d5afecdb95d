# Tests of the course's scripts and of the paths a file takes through them (included by
# grader/tests/CMakeLists.txt).

# The plotting scripts, on small fixtures the tests write themselves (python3 with
# matplotlib, installed by scripts/install_deps.sh).
add_test(NAME plots COMMAND ${COURSE_PYTHON} -m unittest discover -s ${PROJECT_SOURCE_DIR}/scripts/tests
                             -t ${PROJECT_SOURCE_DIR} -v)
set_tests_properties(plots PROPERTIES LABELS plots)

# `make bench` on a machine without a GPU: a clear message and exit code 2, never a crash.
if(COURSE_GPU)
  add_test(NAME bench.no_gpu COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/expect_no_gpu.sh $<TARGET_FILE:course_bench>)
  set_tests_properties(bench.no_gpu PROPERTIES LABELS bench SKIP_RETURN_CODE 77)
endif()

# The guard's kept toolchain probe: probed once for the same compile, and probed again
# before kept folders refuse a file (grader/guard/tests/test_toolchain_cache.py).
add_test(NAME guard.toolchain_cache COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/guard/tests/test_toolchain_cache.py
                                            ${CMAKE_BINARY_DIR})
set_tests_properties(guard.toolchain_cache PROPERTIES LABELS student)

# A class's reference counters, counted once by each lab's template worker: every lab's
# solution grades as if it had counted them itself; a stale or foreign file is not read
# (grader/tests/test_reference_counters.py).
add_test(NAME batch.reference_counters COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/tests/test_reference_counters.py
                                               ${CMAKE_BINARY_DIR})
set_tests_properties(batch.reference_counters PROPERTIES LABELS batch TIMEOUT 900)
# The lab described once for a class by its template worker: every lab's solution grades
# as if its own worker had been asked; a foreign or broken file is not read
# (grader/tests/test_described.py).
add_test(NAME batch.described COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/tests/test_described.py
                                      ${CMAKE_BINARY_DIR})
set_tests_properties(batch.described PROPERTIES LABELS batch TIMEOUT 900)

add_test(NAME batch.intake COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/batch/tests/test_intake.py)
set_tests_properties(batch.intake PROPERTIES LABELS batch)
add_test(NAME batch.gradebook COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/batch/tests/test_gradebook.py)
set_tests_properties(batch.gradebook PROPERTIES LABELS batch)

# Batch grading of a generated class (grader/batch/tests/test_batch.py): every broken
# submission gets the right status and its row; an interrupted batch resumes.
add_test(NAME batch.emulated COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/batch/tests/test_batch.py
                                     ${CMAKE_BINARY_DIR} emulated)
set_tests_properties(batch.emulated PROPERTIES LABELS batch TIMEOUT 1200 RESOURCE_LOCK build_tree)
# Ctrl-C in the middle of a batch, to its process group and to its pid alone: no grader
# outlives it, no unfinished row, and the rerun gives the uninterrupted gradebook; the
# same class at --jobs 1 and 2 gives the same rows, a part that writes wild included.
add_test(NAME batch.reruns COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/batch/tests/test_reruns.py
                                   ${CMAKE_BINARY_DIR})
set_tests_properties(batch.reruns PROPERTIES LABELS batch TIMEOUT 1200 RESOURCE_LOCK build_tree)
# The same class through a real single-node Slurm cluster (grader/batch/tests/test_slurm.py,
# slurm_cluster.py): the job array's gradebook equals the local one, and a cancelled task
# costs only its unfinished submissions. Needs root and slurm-wlm + munge
# (scripts/install_deps.sh --instructor); skipped (77) with the reason otherwise.
add_test(NAME batch.slurm COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/batch/tests/test_slurm.py ${CMAKE_BINARY_DIR})
set_tests_properties(batch.slurm PROPERTIES LABELS batch SKIP_RETURN_CODE 77 TIMEOUT 900 RESOURCE_LOCK build_tree)
# A lab 3 class through the same cluster on real GPUs (gres.conf naming /dev/nvidia*), one per
# array task: the gradebook equals a local GPU batch's (test_slurm_gpu.py). Skipped without
# a GPU or Slurm; slurm_local.py runs it from unpacked packages where none are installed.
if(COURSE_GPU)
  add_test(NAME batch.slurm.gpu COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/batch/tests/test_slurm_gpu.py ${CMAKE_BINARY_DIR})
  set_tests_properties(batch.slurm.gpu PROPERTIES LABELS "batch;gpu" SKIP_RETURN_CODE 77 TIMEOUT 900
                                                  RESOURCE_LOCK "build_tree;gpu")
endif()
add_test(NAME batch.slurm_units COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/batch/tests/test_slurm_units.py
         ${CMAKE_BINARY_DIR})
set_tests_properties(batch.slurm_units PROPERTIES LABELS batch)
# scripts/batch_throughput.py on the CPU emulator: a 4-submission lab 1 class graded with
# K = 1 and 2, the same verdicts, batch_stats.json read back (the plots test runs only the
# same file's unit tests: it gives no build folder).
add_test(NAME batch.throughput COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/tests/test_batch_throughput.py
                                       ${CMAKE_BINARY_DIR})
set_tests_properties(batch.throughput PROPERTIES LABELS batch TIMEOUT 300 RESOURCE_LOCK build_tree)
if(COURSE_GPU)
  add_test(NAME batch.gpu COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/batch/tests/test_batch.py ${CMAKE_BINARY_DIR} gpu)
  set_tests_properties(batch.gpu PROPERTIES LABELS "batch;gpu" SKIP_RETURN_CODE 77 RESOURCE_LOCK "build_tree;gpu" TIMEOUT 1800)
endif()

# The course under the Ninja generator, in its own emulator-only build: build, ctest, batch.
add_test(NAME ninja.emulated COMMAND ${COURSE_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_ninja.py ${CMAKE_BINARY_DIR}/ninja_check)
set_tests_properties(ninja.emulated PROPERTIES LABELS ninja TIMEOUT 2400 SKIP_RETURN_CODE 77)

# The student release and the Gradescope package hold no answers, and the release grades
# (scripts/tests/packaging/test_release.py; `unittest discover` of the plots test skips it).
add_test(NAME release.emulated COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/tests/packaging/test_release.py emulated)
set_tests_properties(release.emulated PROPERTIES LABELS release TIMEOUT 2400)
if(COURSE_GPU)
  add_test(NAME release.gpu COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/tests/packaging/test_release.py gpu)
  set_tests_properties(release.gpu PROPERTIES LABELS "release;gpu" TIMEOUT 2400 SKIP_RETURN_CODE 77 RESOURCE_LOCK gpu)
endif()
# The Gradescope package against a fake /autograder tree (builds the course once, CPU only).
add_test(NAME gradescope.package COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/gradescope/tests/test_gradescope.py)
set_tests_properties(gradescope.package PROPERTIES LABELS gradescope TIMEOUT 2400)
# GitHub Classroom's workflow is the grader's plan (grader/classroom/); the release test runs
# its lab 1 command in a release. PrairieLearn's external grader against a fake /grade tree
# and this build (grader/prairielearn/: results.json in PrairieLearn's documented format).
add_test(NAME classroom.workflow COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/classroom/tests/test_workflow.py ${CMAKE_BINARY_DIR})
set_tests_properties(classroom.workflow PROPERTIES LABELS classroom TIMEOUT 60)
add_test(NAME prairielearn.grader COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/prairielearn/tests/test_prairielearn.py ${CMAKE_BINARY_DIR})
set_tests_properties(prairielearn.grader PROPERTIES LABELS "prairielearn;emulated" TIMEOUT 600 RESOURCE_LOCK build_tree)

# ./grade hint: one hint at a time, kept in the build folder; every lab's hint file parses.
add_test(NAME student.hints COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/student/tests/test_hints_cli.py)
set_tests_properties(student.hints PROPERTIES LABELS student)

# The student's loop (grader/student/): whose failure a failed build is, the progress table,
# watch's short report; and end to end in a copy of the course with its own CPU-only build
# (never this one): ./grade rebuilds an edited file, a compile error is the student's, progress, watch.
add_test(NAME student.units COMMAND ${COURSE_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_student_units.py)
add_test(NAME student.loop COMMAND ${COURSE_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_student_loop.py)
set_tests_properties(student.units student.loop PROPERTIES LABELS student)
set_tests_properties(student.loop PROPERTIES TIMEOUT 900)
# A lab is its folder and one line of labs.json: lab 3 copied as lab6 in a copy of the
# course, which builds, whose stub fails and whose solution passes (docs/architecture.md).
add_test(NAME course.new_lab COMMAND ${COURSE_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_new_lab.py)
set_tests_properties(course.new_lab PROPERTIES LABELS "emulated;student" TIMEOUT 1800)
add_test(NAME course.new_kind COMMAND ${COURSE_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_new_kind.py)
set_tests_properties(course.new_kind PROPERTIES LABELS "emulated" TIMEOUT 1800)

# The HTML report (grader/html/report_page.py) of real emulated grades of lab 1's and
# lab 5's references and stub, and of a hostile source file.
add_test(NAME report.html COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/html/tests/test_report_page.py ${CMAKE_BINARY_DIR})
set_tests_properties(report.html PROPERTIES LABELS "emulated;report")
# The ladder rung read from the counters, on the ladder's kernels and honest variants.
add_test(NAME ladder.emulated COMMAND ${COURSE_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_ladder.py ${CMAKE_BINARY_DIR})
set_tests_properties(ladder.emulated PROPERTIES LABELS "emulated;report" TIMEOUT 900)
# Every lab's page, passing and failing, drawn by headless Chromium (DOM and screenshot).
add_test(NAME report.chromium COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/grader/html/tests/test_report_chromium.py ${CMAKE_BINARY_DIR})
set_tests_properties(report.chromium PROPERTIES LABELS "emulated;report" SKIP_RETURN_CODE 77 TIMEOUT 900)
