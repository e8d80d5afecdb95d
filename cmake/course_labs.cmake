# Helpers that build the labs: one object per (lab file, role, backend) and one worker
# executable per (lab, backend, variant).

function(course_warnings target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
endfunction()

set(ext_gpu cu)
set(ext_emu cpp)

# The backends this build makes: the GPU one when nvcc is there, the CPU emulator always.
set(COURSE_BACKENDS "")
if(COURSE_GPU)
  list(APPEND COURSE_BACKENDS gpu)
endif()
list(APPEND COURSE_BACKENDS emu)

# The student file of `folder` when taken from `source` (labs, solutions or a folder).
function(course_lab_file out source folder)
  if(source STREQUAL "labs" OR source STREQUAL "solutions")
    set(path ${PROJECT_SOURCE_DIR}/${source}/${folder}/kernels.cu)
  else()
    get_filename_component(root "${source}" ABSOLUTE BASE_DIR ${PROJECT_SOURCE_DIR})
    set(path ${root}/${folder}/kernels.cu)
  endif()
  set(${out} ${path} PARENT_SCOPE)
endfunction()

# Compiles `file` as the `role` build of `lab` (its kernels in namespace <lab>_<role>)
# together with the lab's binding. `tag` tells apart builds of different files in the
# same role. The generated translation unit includes the lab file unchanged.
function(course_lab_object out lab role tag file backend)
  set(name ${lab}_${role}_${tag}_${backend})
  if(NOT TARGET ${name})
    set(LAB_IMPL ${lab}_${role})
    set(LAB_FILE ${file})
    set(LAB_BINDING bindings/${lab}_binding.cuh)
    if(backend STREQUAL "gpu")
      set(ext cu)
    else()
      set(ext cpp)
    endif()
    configure_file(${PROJECT_SOURCE_DIR}/cmake/lab_object.in
                   ${CMAKE_CURRENT_BINARY_DIR}/generated/${name}.${ext} @ONLY)
    add_library(${name} OBJECT ${CMAKE_CURRENT_BINARY_DIR}/generated/${name}.${ext})
    target_link_libraries(${name} PRIVATE worker_${backend})
  endif()
  set(${out} ${name} PARENT_SCOPE)
endfunction()

# Links a worker: the student's, the reference's and the baseline's objects with the
# worker library. `dir` is where it lands; the grader finds it by name there. The
# generated main also records the student's source file and object file, which the
# grader's technique checks inspect.
function(course_lab_worker target dir lab backend student student_file reference baseline baseline_ns baseline_by_id)
  set(LAB ${lab})
  set(STUDENT_NS ${lab}_student)
  set(REFERENCE_NS ${lab}_reference)
  set(BASELINE_NS ${baseline_ns})
  set(BASELINE_BY_ID ${baseline_by_id})
  set(STUDENT_SOURCE ${student_file})
  set(STUDENT_OBJECT "$<TARGET_OBJECTS:${student}>")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/worker_main.cpp.in
                 ${CMAKE_CURRENT_BINARY_DIR}/generated/${target}_main.cpp.in @ONLY)
  file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/generated/${target}_main.cpp
                INPUT ${CMAKE_CURRENT_BINARY_DIR}/generated/${target}_main.cpp.in)
  set(objects $<TARGET_OBJECTS:${student}> $<TARGET_OBJECTS:${reference}>)
  if(NOT baseline STREQUAL reference)
    list(APPEND objects $<TARGET_OBJECTS:${baseline}>)
  endif()
  add_executable(${target} ${CMAKE_CURRENT_BINARY_DIR}/generated/${target}_main.cpp ${objects})
  target_link_libraries(${target} PRIVATE worker_${backend})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${lab}_worker_${backend} RUNTIME_OUTPUT_DIRECTORY ${dir})
endfunction()

# The object a lab's speedups are measured against, in the caller's `naive`, with its
# namespace in `naive_ns` and, in `by_id`, whether it pairs with the parts by id: the lab1
# reference, or the kernels of a course file (`baseline`, e.g. lab 5's unpadded kernels).
macro(course_lab_baseline lab backend baseline)
  if(NOT "${baseline}" STREQUAL "")
    course_lab_object(naive ${lab} baseline course ${baseline} ${backend})
    set(naive_ns ${lab}_baseline)
    set(by_id true)
  else()
    course_lab_file(naive_file solutions lab1_divergent)
    course_lab_object(naive lab1 reference solutions ${naive_file} ${backend})
    set(naive_ns lab1_reference)
    set(by_id false)
  endif()
endmacro()

# Declares a lab: `make <lab>` builds the grader and the lab's workers from LAB_SOURCE.
# With BUILD_TESTING, self-check workers built from the stub and from the solution land
# in selfcheck/stub and selfcheck/solution. The naive baseline is the lab1 reference,
# unless BASELINE names a course file whose kernels are the baseline of the parts with
# the same id (lab 5's unpadded kernels).
function(course_add_lab lab folder)
  cmake_parse_arguments(ARG "" "BASELINE" "" ${ARGN})
  course_lab_file(student_file "${LAB_SOURCE}" ${folder})
  course_lab_file(stub_file labs ${folder})
  course_lab_file(solution_file solutions ${folder})
  if(LAB_SOURCE STREQUAL "labs" OR LAB_SOURCE STREQUAL "solutions")
    set(tag ${LAB_SOURCE})
  else()
    set(tag custom)
  endif()

  set(lab_targets grader)
  foreach(backend IN LISTS COURSE_BACKENDS)
    course_lab_object(reference ${lab} reference solutions ${solution_file} ${backend})
    course_lab_baseline(${lab} ${backend} "${ARG_BASELINE}")
    set(reference_${backend} ${reference})
    set(naive_${backend} ${naive})
    if(EXISTS ${student_file})
      course_lab_object(student ${lab} student ${tag} ${student_file} ${backend})
      course_lab_worker(${lab}_worker_${backend} ${CMAKE_BINARY_DIR}/bin ${lab} ${backend}
                        ${student} ${student_file} ${reference} ${naive} ${naive_ns} ${by_id})
      list(APPEND lab_targets ${lab}_worker_${backend})
    else()
      message(WARNING "${lab}: ${student_file} does not exist, so ${lab} is not built from ${LAB_SOURCE}")
    endif()
    if(BUILD_TESTING)
      foreach(variant stub solution)
        if(variant STREQUAL "stub")
          set(variant_file ${stub_file})
          course_lab_object(student ${lab} student labs ${stub_file} ${backend})
        else()
          set(variant_file ${solution_file})
          course_lab_object(student ${lab} student solutions ${solution_file} ${backend})
        endif()
        course_lab_worker(selfcheck_${variant}_${lab}_${backend} ${CMAKE_BINARY_DIR}/selfcheck/${variant}
                          ${lab} ${backend} ${student} ${variant_file} ${reference} ${naive} ${naive_ns} ${by_id})
      endforeach()
    endif()
  endforeach()
  add_custom_target(${lab} DEPENDS ${lab_targets})

  # Batch grading: a template worker per backend whose student object is compiled from a
  # copy of the stub. grader/batch/grade_batch.py compiles each submission with the same
  # command (from compile_commands.json) and links it with the same line (link.txt), so
  # the course's objects and the reference kernels are built once for a whole class.
  set(template_file ${CMAKE_BINARY_DIR}/batch/template/${folder}/kernels.cu)
  configure_file(${stub_file} ${template_file} COPYONLY)
  foreach(backend IN LISTS COURSE_BACKENDS)
    course_lab_object(tpl ${lab} student batchtpl ${template_file} ${backend})
    course_lab_worker(batch_${lab}_${backend} ${CMAKE_BINARY_DIR}/batch/template/bin ${lab} ${backend}
                      ${tpl} ${template_file} ${reference_${backend}} ${naive_${backend}} ${naive_ns} ${by_id})
    add_dependencies(batch_templates batch_${lab}_${backend})
    string(CONCAT entry
      "{\"lab\": \"${lab}\", \"folder\": \"${folder}\", \"backend\": \"${backend}\", "
      "\"wrapper\": \"${CMAKE_CURRENT_BINARY_DIR}/generated/${tpl}.${ext_${backend}}\", "
      "\"object\": \"$<TARGET_OBJECTS:${tpl}>\", "
      "\"link_dir\": \"${CMAKE_CURRENT_BINARY_DIR}\", "
      "\"link_txt\": \"${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/batch_${lab}_${backend}.dir/link.txt\", "
      "\"worker\": \"$<TARGET_FILE:batch_${lab}_${backend}>\"},\n")
    set_property(GLOBAL APPEND_STRING PROPERTY COURSE_BATCH_MANIFEST "${entry}")
  endforeach()
endfunction()

# Writes build/batch/manifest.json: where grade_batch.py finds each lab's template build.
function(course_write_batch_manifest)
  get_property(entries GLOBAL PROPERTY COURSE_BATCH_MANIFEST)
  string(REGEX REPLACE ",\n$" "\n" entries "${entries}")
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/batch/manifest.json CONTENT
"{
\"source_dir\": \"${PROJECT_SOURCE_DIR}\",
\"build_dir\": \"${CMAKE_BINARY_DIR}\",
\"grader\": \"$<TARGET_FILE:grader>\",
\"compile_commands\": \"${CMAKE_BINARY_DIR}/compile_commands.json\",
\"templates\": [
${entries}]
}
")
endfunction()

# A test submission: a student file under grader/tests/submissions/<name>/<folder>/,
# graded by the grader's robustness and batch tests. Its workers land in testsub/<name>.
function(course_add_test_submission name lab folder)
  cmake_parse_arguments(ARG "" "BASELINE" "" ${ARGN})
  set(file ${CMAKE_CURRENT_SOURCE_DIR}/submissions/${name}/${folder}/kernels.cu)
  course_lab_file(solution_file solutions ${folder})
  string(REPLACE "_" "" tag "sub${name}")
  foreach(backend IN LISTS COURSE_BACKENDS)
    course_lab_object(student ${lab} student ${tag} ${file} ${backend})
    course_lab_object(reference ${lab} reference solutions ${solution_file} ${backend})
    course_lab_baseline(${lab} ${backend} "${ARG_BASELINE}")
    course_lab_worker(testsub_${name}_${lab}_${backend} ${CMAKE_BINARY_DIR}/testsub/${name} ${lab} ${backend}
                      ${student} ${file} ${reference} ${naive} ${naive_ns} ${by_id})
  endforeach()
endfunction()
