# Helpers that build the labs: one object per (lab file, role, backend), one binding
# object per (lab, role, backend) and one worker executable per (lab, backend, variant).

# The compiler launcher that guards every student file's compile (grader/guard/).
set(COURSE_GUARD ${CMAKE_BINARY_DIR}/bin/course_cc_guard)
# Where a Gradescope package keeps the reference kernels, compiled (<target>.o).
set(COURSE_PREBUILT_DIR "" CACHE PATH "Folder of prebuilt reference kernel objects (Gradescope packages)")

function(course_warnings target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
endfunction()

set(ext_gpu cu)
set(ext_emulated cpp)

# The backends this build makes: the GPU one when nvcc is there, the CPU emulator always.
set(COURSE_BACKENDS "")
if(COURSE_GPU)
  list(APPEND COURSE_BACKENDS gpu)
endif()
list(APPEND COURSE_BACKENDS emulated)

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

# Flags of a lab file's own translation unit: the course's headers in common/ and, for
# the emulator, COURSE_EMULATE and its <cooperative_groups.h> (common/emu/include/);
# nothing of the grader. nvcc 12.8 and later give the host
# stubs of template kernels internal linkage by default, which would keep lab 3's
# template kernel from being launched by its binding, a separate translation unit.
add_library(course_kernel_env_gpu INTERFACE)
target_link_libraries(course_kernel_env_gpu INTERFACE course_headers)
if(COURSE_GPU AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.8)
  target_compile_options(course_kernel_env_gpu INTERFACE $<$<COMPILE_LANGUAGE:CUDA>:-static-global-template-stub=false>)
endif()
add_library(course_kernel_env_emulated INTERFACE)
target_link_libraries(course_kernel_env_emulated INTERFACE course_headers course_emu_cuda_headers)
target_compile_definitions(course_kernel_env_emulated INTERFACE COURSE_EMULATE)
# Line tables in the emulator's lab objects: a kernel's fault then names its line of the
# lab file (the grader reads them with addr2line; grader/core/code_place.hpp).
target_compile_options(course_kernel_env_emulated INTERFACE -g)

# The arguments of course_cc_guard (grader/guard/) for a student's file of `lab`: what the
# file may include besides CUDA and standard headers, and its display name.
function(course_guard_args out lab file backend)
  set(common ${PROJECT_SOURCE_DIR}/common)
  file(RELATIVE_PATH shown ${PROJECT_SOURCE_DIR} ${file})
  if(shown MATCHES "^\\.\\./")
    get_filename_component(parent ${file} DIRECTORY)
    get_filename_component(parent ${parent} NAME)
    set(shown ${parent}/kernels.cu)
  endif()
  set(args --lab ${lab} --backend ${backend} --source ${file} --namespace ${lab}_student --display-name ${shown}
           --allow ${common}/contracts/lab_impl.hpp --allow ${common}/contracts/${lab}.cuh
           --allow ${common}/course/cuda_compat.hpp --allow ${common}/emu/)
  if(COURSE_GPU)
    foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
      list(APPEND args --system ${dir})
    endforeach()
  endif()
  set(${out} ${args} PARENT_SCOPE)
endfunction()

# Compiles `file` as the `role` build of `lab` (its kernels in namespace <lab>_<role>), as
# its own translation unit; `tag` tells apart builds of different files in the same role.
# A student's file is compiled through course_cc_guard, which rejects includes, host code
# and symbols a lab file may not have. Sets `out` to the object targets to link: the
# kernels and the lab's binding for that role (compiled once per lab, role and backend).
function(course_lab_object out lab role tag file backend)
  set(name ${lab}_${role}_${tag}_${backend})
  set(ext ${ext_${backend}})
  if(NOT TARGET ${name} AND role STREQUAL "reference" AND EXISTS "${COURSE_PREBUILT_DIR}/${name}.o")
    # A Gradescope package ships the reference kernels compiled, not as source.
    add_library(${name} OBJECT IMPORTED)
    set_target_properties(${name} PROPERTIES IMPORTED_OBJECTS ${COURSE_PREBUILT_DIR}/${name}.o)
  elseif(NOT TARGET ${name})
    set(LAB ${lab})
    set(LAB_IMPL ${lab}_${role})
    set(LAB_FILE ${file})
    configure_file(${PROJECT_SOURCE_DIR}/cmake/lab_kernels.in
                   ${CMAKE_CURRENT_BINARY_DIR}/generated/${name}.${ext} @ONLY)
    add_library(${name} OBJECT ${CMAKE_CURRENT_BINARY_DIR}/generated/${name}.${ext})
    target_link_libraries(${name} PRIVATE course_kernel_env_${backend})
    if(role STREQUAL "student")
      course_guard_args(guard ${lab} ${file} ${backend})
      if(backend STREQUAL "gpu")
        set_target_properties(${name} PROPERTIES CUDA_COMPILER_LAUNCHER "${COURSE_GUARD};${guard};--")
      else()
        set_target_properties(${name} PROPERTIES CXX_COMPILER_LAUNCHER "${COURSE_GUARD};${guard};--")
      endif()
      add_dependencies(${name} course_cc_guard)
    endif()
  endif()
  set(binding ${lab}_${role}_binding_${backend})
  if(NOT TARGET ${binding})
    set(LAB ${lab})
    set(LAB_IMPL ${lab}_${role})
    configure_file(${PROJECT_SOURCE_DIR}/cmake/lab_binding.in
                   ${PROJECT_BINARY_DIR}/generated/${binding}.${ext} @ONLY)
    add_library(${binding} OBJECT ${PROJECT_BINARY_DIR}/generated/${binding}.${ext})
    target_link_libraries(${binding} PRIVATE worker_${backend} course_kernel_env_${backend})
    target_include_directories(${binding} PRIVATE ${PROJECT_SOURCE_DIR}/grader)
  endif()
  set(${out} ${name} ${binding} PARENT_SCOPE)
endfunction()

# `$<TARGET_OBJECTS:...>` of each object target in the list.
function(course_objects out)
  set(objects "")
  foreach(t IN LISTS ARGN)
    list(APPEND objects $<TARGET_OBJECTS:${t}>)
  endforeach()
  set(${out} ${objects} PARENT_SCOPE)
endfunction()

# Links a worker: the student's, the reference's and the baseline's objects (each a list
# from course_lab_object) with the worker library. DIR is where it lands; the grader finds
# it by name there. The generated main also records the student's source file and object
# file, which the grader's technique checks inspect.
function(course_lab_worker target)
  cmake_parse_arguments(ARG "" "DIR;LAB;BACKEND;STUDENT_FILE;BASELINE_NS;BY_ID" "STUDENT;REFERENCE;BASELINE" ${ARGN})
  list(GET ARG_STUDENT 0 student_kernels)
  set(LAB ${ARG_LAB})
  set(STUDENT_NS ${ARG_LAB}_student)
  set(REFERENCE_NS ${ARG_LAB}_reference)
  set(BASELINE_NS ${ARG_BASELINE_NS})
  set(BASELINE_BY_ID ${ARG_BY_ID})
  set(STUDENT_SOURCE ${ARG_STUDENT_FILE})
  set(STUDENT_OBJECT "$<TARGET_OBJECTS:${student_kernels}>")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/worker_main.cpp.in
                 ${CMAKE_CURRENT_BINARY_DIR}/generated/${target}_main.cpp.in @ONLY)
  file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/generated/${target}_main.cpp
                INPUT ${CMAKE_CURRENT_BINARY_DIR}/generated/${target}_main.cpp.in)
  set(parts ${ARG_STUDENT} ${ARG_REFERENCE})
  if(NOT "${ARG_BASELINE}" STREQUAL "${ARG_REFERENCE}")
    list(APPEND parts ${ARG_BASELINE})
  endif()
  course_objects(objects ${parts})
  add_executable(${target} ${CMAKE_CURRENT_BINARY_DIR}/generated/${target}_main.cpp ${objects})
  target_link_libraries(${target} PRIVATE worker_${ARG_BACKEND})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${ARG_LAB}_worker_${ARG_BACKEND}
                                             RUNTIME_OUTPUT_DIRECTORY ${ARG_DIR})
  # Beside the worker: the graded file and its object, which the grader's technique checks read.
  file(GENERATE OUTPUT ${ARG_DIR}/${ARG_LAB}_worker_${ARG_BACKEND}.json CONTENT
"{\"lab\": \"${ARG_LAB}\", \"backend\": \"${ARG_BACKEND}\", \"student_source\": \"${ARG_STUDENT_FILE}\", \"student_object\": \"${STUDENT_OBJECT}\"}\n")
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
      course_lab_worker(${lab}_worker_${backend} DIR ${CMAKE_BINARY_DIR}/bin LAB ${lab} BACKEND ${backend}
                        STUDENT ${student} STUDENT_FILE ${student_file} REFERENCE ${reference}
                        BASELINE ${naive} BASELINE_NS ${naive_ns} BY_ID ${by_id})
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
        course_lab_worker(selfcheck_${variant}_${lab}_${backend} DIR ${CMAKE_BINARY_DIR}/selfcheck/${variant}
                          LAB ${lab} BACKEND ${backend} STUDENT ${student} STUDENT_FILE ${variant_file}
                          REFERENCE ${reference} BASELINE ${naive} BASELINE_NS ${naive_ns} BY_ID ${by_id})
      endforeach()
    endif()
  endforeach()
  add_custom_target(${lab} DEPENDS ${lab_targets})

  # Batch grading: a template worker per backend whose student object is compiled from a
  # copy of the stub. grader/batch/grade_batch.py compiles each submission with the same
  # command (from compile_commands.json) and links it with the same line (link.txt), so
  # the course's objects and the reference kernels are built once for a whole class.
  # The copy is made when built, not configured: configure_file would make the stub, the
  # file a student edits, a dependency of the configuration, and every save a reconfigure.
  set(template_file ${CMAKE_BINARY_DIR}/batch/template/${folder}/kernels.cu)
  add_custom_command(OUTPUT ${template_file} COMMAND ${CMAKE_COMMAND} -E copy ${stub_file} ${template_file}
                     DEPENDS ${stub_file} VERBATIM)
  add_custom_target(batch_template_copy_${lab} DEPENDS ${template_file})
  foreach(backend IN LISTS COURSE_BACKENDS)
    course_lab_object(tpl ${lab} student batchtpl ${template_file} ${backend})
    list(GET tpl 0 tpl_kernels)
    add_dependencies(${tpl_kernels} batch_template_copy_${lab})
    course_lab_worker(batch_${lab}_${backend} DIR ${CMAKE_BINARY_DIR}/batch/template/bin LAB ${lab}
                      BACKEND ${backend} STUDENT ${tpl} STUDENT_FILE ${template_file}
                      REFERENCE ${reference_${backend}} BASELINE ${naive_${backend}} BASELINE_NS ${naive_ns}
                      BY_ID ${by_id})
    add_dependencies(batch_templates batch_${lab}_${backend})
    list(GET tpl 0 tpl)
    # The guard's arguments for the template's file; batch grading swaps in each
    # submission's file for --source and --display-name.
    course_guard_args(guard ${lab} ${template_file} ${backend})
    set(guard_json "\"${COURSE_GUARD}\"")
    foreach(arg IN LISTS guard)
      string(APPEND guard_json ", \"${arg}\"")
    endforeach()
    string(CONCAT entry
      "{\"lab\": \"${lab}\", \"folder\": \"${folder}\", \"backend\": \"${backend}\", "
      "\"wrapper\": \"${CMAKE_CURRENT_BINARY_DIR}/generated/${tpl}.${ext_${backend}}\", "
      "\"object\": \"$<TARGET_OBJECTS:${tpl}>\", "
      "\"guard\": [${guard_json}], "
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
# With ATTACK, an adversarial one under grader/tests/attacks/<name>/<folder>/: its objects
# and its worker `attack_<name>_<backend>` (in attacks/<name>/) are built only when a test
# asks, since most of them must be refused by the guard.
function(course_add_test_submission name lab folder)
  cmake_parse_arguments(ARG "ATTACK" "BASELINE" "" ${ARGN})
  if(ARG_ATTACK)
    set(file ${CMAKE_CURRENT_SOURCE_DIR}/attacks/${name}/${folder}/kernels.cu)
    string(REPLACE "_" "" tag "atk${name}")
    set(dir ${CMAKE_BINARY_DIR}/attacks/${name})
  else()
    set(file ${CMAKE_CURRENT_SOURCE_DIR}/submissions/${name}/${folder}/kernels.cu)
    string(REPLACE "_" "" tag "sub${name}")
    set(dir ${CMAKE_BINARY_DIR}/testsub/${name})
  endif()
  course_lab_file(solution_file solutions ${folder})
  foreach(backend IN LISTS COURSE_BACKENDS)
    course_lab_object(student ${lab} student ${tag} ${file} ${backend})
    course_lab_object(reference ${lab} reference solutions ${solution_file} ${backend})
    course_lab_baseline(${lab} ${backend} "${ARG_BASELINE}")
    if(ARG_ATTACK)
      set(worker attack_${name}_${backend})
    else()
      set(worker testsub_${name}_${lab}_${backend})
    endif()
    course_lab_worker(${worker} DIR ${dir} LAB ${lab} BACKEND ${backend} STUDENT ${student} STUDENT_FILE ${file}
                      REFERENCE ${reference} BASELINE ${naive} BASELINE_NS ${naive_ns} BY_ID ${by_id})
    if(ARG_ATTACK)
      list(GET student 0 kernels)
      set_target_properties(${kernels} ${worker} PROPERTIES EXCLUDE_FROM_ALL TRUE)
    endif()
  endforeach()
endfunction()
