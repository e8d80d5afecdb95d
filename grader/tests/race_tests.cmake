# The races check on a GPU (compute-sanitizer racecheck, on by default for lab 3 B and C),
# which starts beside the correctness cases (grader/supervisor/phases.hpp).
if(NOT COURSE_GPU)
  return()
endif()
# Every part correct: the run begun beside the correctness cases is the verdict, and every
# part is timed. The volatile tail of B is racy.
add_test(NAME robust.racy_tail.races.gpu
         COMMAND expect_grade --grader $<TARGET_FILE:grader> --worker-dir ${CMAKE_BINARY_DIR}/testsub/racy_tail
                 --lab lab3 --backend gpu --expect any --out ${CMAKE_CURRENT_BINARY_DIR}/robust.racy_tail.races.gpu
                 --expect-part A=passed --expect-part C=passed --expect-timed A=measured --expect-timed B=measured
                 --expect-timed C=measured --expect-check B:races=failed
                 --expect-check C:races=passed --expect-message "racecheck found")
set_tests_properties(robust.racy_tail.races.gpu PROPERTIES LABELS "robustness;gpu" SKIP_RETURN_CODE 77
                                                           RESOURCE_LOCK gpu)
# C hangs: the run begun on B and C is stopped once C is known to have timed out, and B is
# checked again on its own, as if racecheck had waited; A and B are timed, C is not.
# Racecheck's own limit (300 s) is past the test's, so a run left hanging in C fails the
# test rather than passing late.
course_add_test_submission(NAME racy_tail_hang LAB lab3)
course_add_robustness(racy_tail_hang.races.gpu racy_tail_hang gpu LAB lab3 --expect-part A=passed
                      --expect-part B=passed --expect-part C=timed_out --expect-timed A=measured --expect-timed B=measured
                      --expect-timed C=not_measured --expect-check B:races=failed --expect-check C:races=skipped
                      --expect-message "racecheck found")
set_tests_properties(robust.racy_tail_hang.races.gpu PROPERTIES TIMEOUT 240)
