# What kernels print (printf) while graded: never shown without --show-output, bounded on
# both backends (common/course/printf_bound.hpp), and the report says so.
course_add_test_submission(NAME chatty LAB lab1)
add_test(NAME robust.chatty.emulated
         COMMAND sh -c "\"$1\" lab1 --worker-dir \"$2\" --emulate --quiet --no-color | grep -F 'Your kernels printed'"
                 sh $<TARGET_FILE:grader> ${CMAKE_BINARY_DIR}/testsub/chatty)
set_tests_properties(robust.chatty.emulated PROPERTIES LABELS "robustness;emulated")
# A printf in every thread: graded like the reference it is (correct, never a timeout), its
# output cut and the report saying so. On an H200, before the bound, it timed out at its
# 2^20 - 1 case after 30 s and about 110,000 lines.
course_add_test_submission(NAME chatty_threads LAB lab1)
foreach(backend IN LISTS COURSE_BACKENDS)
  set(name robust.chatty_threads.${backend})
  set(text ${CMAKE_CURRENT_BINARY_DIR}/${name}.txt)
  add_test(NAME ${name}
           COMMAND sh -c "rm -f \"$1\"; shift; \"$@\"; rc=$?; [ $rc -eq 0 ] || exit $rc; \
                          grep -F \"Your kernels' printf output was cut\" \"${text}\""
                   sh ${text} $<TARGET_FILE:expect_grade> --grader $<TARGET_FILE:grader>
                   --worker-dir ${CMAKE_BINARY_DIR}/testsub/chatty_threads --lab lab1 --backend ${backend}
                   --expect any --expect-part A=passed --out ${CMAKE_CURRENT_BINARY_DIR}/${name}
                   --extra=--text --extra=${text})
  set_tests_properties(${name} PROPERTIES LABELS "robustness;${backend}" SKIP_RETURN_CODE 77)
  if(backend STREQUAL "gpu")
    set_tests_properties(${name} PROPERTIES RESOURCE_LOCK gpu)
  endif()
endforeach()
