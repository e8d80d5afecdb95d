# Planted bugs (grader/tests/planted_hints.json): each submission's parts must get exactly
# the hint the file names, or none where it names "". With the default policy: the hints
# read the pattern over all its sizes, of which the fast one keeps four. The bugs new to
# this list are built here; the others are built where their robustness tests are.
foreach(sub short_tree clamped_load half_strides late_steps unsynced_combine short_rows)
  string(JSON sub_lab GET [=[{"short_tree": "lab1", "clamped_load": "lab1", "half_strides": "lab2",
                             "late_steps": "lab3", "unsynced_combine": "lab4", "short_rows": "lab5"}]=] ${sub})
  course_add_test_submission(NAME ${sub} LAB ${sub_lab})
endforeach()
foreach(backend IN LISTS COURSE_BACKENDS)
  add_test(NAME hints.planted.${backend}
           COMMAND ${COURSE_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_planted_hints.py --grader $<TARGET_FILE:grader>
                   --testsub ${CMAKE_BINARY_DIR}/testsub --backend ${backend}
                   --out ${CMAKE_CURRENT_BINARY_DIR}/hints.planted.${backend})
  set_tests_properties(hints.planted.${backend} PROPERTIES LABELS "hints;${backend}" SKIP_RETURN_CODE 77)
  if(backend STREQUAL "gpu")
    set_tests_properties(hints.planted.${backend} PROPERTIES RESOURCE_LOCK gpu)
  endif()
endforeach()
