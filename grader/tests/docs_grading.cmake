# The handouts' statements of what each backend checks (scripts/cite_grading.py), against
# the grader's plan; and the plan against real grades on each backend.
add_test(NAME docs.grading COMMAND ${COURSE_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/cite_grading.py --grader $<TARGET_FILE:grader>)
set_tests_properties(docs.grading PROPERTIES LABELS docs)
foreach(backend IN LISTS COURSE_BACKENDS)
  add_test(NAME grading.plan.${backend}
           COMMAND ${COURSE_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_grading_plan.py --grader $<TARGET_FILE:grader>
                   --build ${CMAKE_BINARY_DIR} --backend ${backend} --out ${CMAKE_CURRENT_BINARY_DIR}/grading.plan.${backend})
  set_tests_properties(grading.plan.${backend} PROPERTIES LABELS "grading;${backend}" SKIP_RETURN_CODE 77)
  if(backend STREQUAL "gpu")
    set_tests_properties(grading.plan.${backend} PROPERTIES RESOURCE_LOCK gpu TIMEOUT 900)
  endif()
endforeach()
