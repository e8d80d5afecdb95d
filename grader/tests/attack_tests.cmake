# (Included by grader/tests/CMakeLists.txt.)
# Adversarial submissions (attacks/attacks.json, the threat model in docs/grading.md):
# each is refused by the guard, or builds and fails, through the build students run and
# `./grade`, and through batch grading. These tests run `cmake --build` and the batch in
# this build tree, so they take turns with the other tests that do.
file(READ ${CMAKE_CURRENT_SOURCE_DIR}/attacks/attacks.json attacks_json)
string(JSON attack_count LENGTH "${attacks_json}" attacks)
math(EXPR attack_last "${attack_count} - 1")
foreach(i RANGE ${attack_last})
  string(JSON attack_name GET "${attacks_json}" attacks ${i} name)
  string(JSON attack_lab GET "${attacks_json}" attacks ${i} lab)
  string(JSON attack_is_submission ERROR_VARIABLE no_such_key GET "${attacks_json}" attacks ${i} submission)
  if(attack_is_submission)
    continue()  # one of submissions/, built there
  endif()
  course_add_test_submission(NAME ${attack_name} LAB ${attack_lab} ATTACK)
endforeach()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS attacks/attacks.json)
add_test(NAME attacks.emulated COMMAND ${COURSE_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_attacks.py ${CMAKE_BINARY_DIR} emulated)
set_tests_properties(attacks.emulated PROPERTIES LABELS "attacks;emulated" TIMEOUT 1800 RESOURCE_LOCK build_tree)
if(COURSE_GPU)
  add_test(NAME attacks.gpu COMMAND ${COURSE_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_attacks.py ${CMAKE_BINARY_DIR} gpu)
  set_tests_properties(attacks.gpu PROPERTIES LABELS "attacks;gpu" TIMEOUT 1800 SKIP_RETURN_CODE 77
                                              RESOURCE_LOCK "build_tree;gpu")
endif()
