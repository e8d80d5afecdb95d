# Helpers that build the labs: one object per (lab file, role, backend), one binding
# object per (lab, role, backend) and one worker executable per (lab, backend, variant).

# The compiler launcher that guards every student file's compile (grader/guard/), and the
# folder of its verdicts: <student object target>.json, which the build scripts read.
set(COURSE_GUARD ${CMAKE_BINARY_DIR}/bin/course_cc_guard)
set(COURSE_GUARD_VERDICTS ${CMAKE_BINARY_DIR}/guard)
# Where a Gradescope package keeps the reference kernels, compiled (<target>.o).
# A Gradescope package or a student release (scripts/make_release.py) holds the reference
# kernels compiled, in prebuilt/, and no solutions/.
if(EXISTS ${PROJECT_SOURCE_DIR}/prebuilt)
  set(_course_prebuilt_default ${PROJECT_SOURCE_DIR}/prebuilt)
else()
  set(_course_prebuilt_default "")
endif()
set(COURSE_PREBUILT_DIR "${_course_prebuilt_default}" CACHE PATH
    "Folder of prebuilt reference kernel objects (Gradescope packages, student releases)")
# The reference answers, where this copy of the course has them (an instructor's checkout).
if(EXISTS ${PROJECT_SOURCE_DIR}/solutions)
  set(COURSE_HAS_SOLUTIONS ON)
else()
  set(COURSE_HAS_SOLUTIONS OFF)
endif()

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

# Every helper below takes keyword arguments (cmake_parse_arguments); one that is required
# and missing stops the configure with the helper's name.
macro(course_require_args fn)
  foreach(_course_key ${ARGN})
    if("${ARG_${_course_key}}" STREQUAL "")
      message(FATAL_ERROR "${fn}: ${_course_key} is required")
    endif()
  endforeach()
endmacro()

# course_lab_file(<out> LAB <lab> SOURCE <labs|solutions|folder>): the lab's student file
# when taken from SOURCE (the stubs, the reference answers, or a folder laid out like labs/).
function(course_lab_file out)
  cmake_parse_arguments(ARG "" "LAB;SOURCE" "" ${ARGN})
  course_require_args(course_lab_file LAB SOURCE)
  set(folder ${COURSE_LAB_FOLDER_${ARG_LAB}})
  if(ARG_SOURCE STREQUAL "labs" OR ARG_SOURCE STREQUAL "solutions")
    set(path ${PROJECT_SOURCE_DIR}/${ARG_SOURCE}/${folder}/kernels.cu)
  else()
    get_filename_component(root "${ARG_SOURCE}" ABSOLUTE BASE_DIR ${PROJECT_SOURCE_DIR})
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

# course_guard_args(<out> LAB <lab> FILE <file> BACKEND <backend> VERDICT <file>): the
# arguments of course_cc_guard (grader/guard/) for a student's file of LAB: what the file
# may include besides CUDA and standard headers, its display name, where its verdict goes.
function(course_guard_args out)
  cmake_parse_arguments(ARG "" "LAB;FILE;BACKEND;VERDICT" "" ${ARGN})
  course_require_args(course_guard_args LAB FILE BACKEND VERDICT)
  set(lab ${ARG_LAB})
  set(file ${ARG_FILE})
  set(backend ${ARG_BACKEND})
  set(common ${PROJECT_SOURCE_DIR}/common)
  file(RELATIVE_PATH shown ${PROJECT_SOURCE_DIR} ${file})
  if(shown MATCHES "^\\.\\./")
    get_filename_component(parent ${file} DIRECTORY)
    get_filename_component(parent ${parent} NAME)
    set(shown ${parent}/kernels.cu)
  endif()
  set(args --lab ${lab} --backend ${backend} --source ${file} --namespace ${lab}_student --display-name ${shown}
           --verdict ${ARG_VERDICT}
           # The toolchain probe's answer, kept for every student file compiled the same way.
           --toolchain-cache ${CMAKE_BINARY_DIR}/guard/toolchain
           --allow ${common}/contracts/lab_impl.hpp --allow ${COURSE_CONTRACTS_INCLUDE_DIR}/contracts/${lab}.cuh
           --allow ${common}/course/cuda_compat.hpp
           # The GPU build's bounded printf, included before the lab file (cmake/lab_kernels.in).
           --allow ${common}/course/bounded_printf.cuh --allow ${common}/course/printf_bound.hpp
           # Of the emulator, only what kernel code compiles against: its CUDA header and
           # the headers that stand in for CUDA's (cooperative groups); never its internals.
           --allow ${common}/emu/cuda_emu.hpp --allow ${common}/emu/emu_runtime_api.hpp
           --allow ${common}/emu/emu_types.hpp --allow ${common}/emu/include/)
  if(COURSE_GPU)
    foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
      list(APPEND args --system ${dir})
    endforeach()
  endif()
  set(${out} ${args} PARENT_SCOPE)
endfunction()

# course_lab_object(<out> LAB <lab> ROLE <student|reference|baseline> TAG <tag> FILE <file>
#                   BACKEND <gpu|emulated>)
# Compiles FILE as the ROLE build of LAB (its kernels in namespace <lab>_<role>), as its
# own translation unit; TAG tells apart builds of different files in the same role.
# A student's file is compiled through course_cc_guard, which rejects includes, host code
# and symbols a lab file may not have. Sets `out` to the object targets to link: the
# kernels and the lab's binding for that role (compiled once per lab, role and backend).
function(course_lab_object out)
  cmake_parse_arguments(ARG "" "LAB;ROLE;TAG;FILE;BACKEND" "" ${ARGN})
  course_require_args(course_lab_object LAB ROLE TAG FILE BACKEND)
  set(lab ${ARG_LAB})
  set(role ${ARG_ROLE})
  set(tag ${ARG_TAG})
  set(file ${ARG_FILE})
  set(backend ${ARG_BACKEND})
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
    if(backend STREQUAL "emulated")
      # Only the lab file's own object: its loads and stores are traced (common/emu/trace.hpp).
      target_compile_options(${name} PRIVATE ${COURSE_EMU_TRACE_FLAGS})
    endif()
    if(role STREQUAL "student")
      course_guard_args(guard LAB ${lab} FILE ${file} BACKEND ${backend} VERDICT ${COURSE_GUARD_VERDICTS}/${name}.json)
      if(backend STREQUAL "gpu")
        set_target_properties(${name} PROPERTIES CUDA_COMPILER_LAUNCHER "${COURSE_GUARD};${guard};--")
      else()
        set_target_properties(${name} PROPERTIES CXX_COMPILER_LAUNCHER "${COURSE_GUARD};${guard};--")
      endif()
      add_dependencies(${name} course_cc_guard)
    elseif(backend STREQUAL "emulated")
      set_target_properties(${name} PROPERTIES CXX_COMPILER_LAUNCHER "${COURSE_EMU_OBJECT_LAUNCHER}")
      add_dependencies(${name} course_emu_object)
    endif()
  endif()
  set(binding ${lab}_${role}_binding_${backend})
  if(NOT TARGET ${binding})
    set(LAB ${lab})
    set(LAB_IMPL ${lab}_${role})
    set(LAB_BINDING_FILE ${COURSE_LAB_DIR_${lab}}/binding.cuh)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/lab_binding.in
                   ${PROJECT_BINARY_DIR}/generated/${binding}.${ext} @ONLY)
    add_library(${binding} OBJECT ${PROJECT_BINARY_DIR}/generated/${binding}.${ext})
    target_link_libraries(${binding} PRIVATE worker_${backend} course_kernel_env_${backend})
    # manifest/<lab>_parts.hpp: the part names of the lab's lab.json (cmake/course_manifest.cmake).
    target_include_directories(${binding} PRIVATE ${PROJECT_SOURCE_DIR}/grader ${COURSE_MANIFEST_INCLUDE_DIR})
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

# `text` as a JSON string, quotes included.
function(course_json_string out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

# course_lab_worker(<target> DIR <dir> LAB <lab> BACKEND <backend> STUDENT <objects>
#                   STUDENT_FILE <file> REFERENCE <objects> BASELINE <objects>
#                   BASELINE_NS <namespace> BY_ID <true|false>)
# Links a worker: the student's, the reference's and the baseline's objects (each a list
# from course_lab_object) with the worker library. DIR is where it lands; the grader finds
# it by name there, and its record beside it: <worker>.json names its lab, its backend, the
# student's source and object files, which the grader's technique checks inspect, and the
# guard's verdict on that source, which the student's build script reads.
function(course_lab_worker target)
  cmake_parse_arguments(ARG "" "DIR;LAB;BACKEND;STUDENT_FILE;BASELINE_NS;BY_ID" "STUDENT;REFERENCE;BASELINE" ${ARGN})
  course_require_args(course_lab_worker DIR LAB BACKEND STUDENT_FILE BASELINE_NS BY_ID STUDENT REFERENCE BASELINE)
  list(GET ARG_STUDENT 0 student_kernels)
  set(LAB ${ARG_LAB})
  set(STUDENT_NS ${ARG_LAB}_student)
  set(REFERENCE_NS ${ARG_LAB}_reference)
  set(BASELINE_NS ${ARG_BASELINE_NS})
  set(BASELINE_BY_ID ${ARG_BY_ID})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/worker_main.cpp.in
                 ${CMAKE_CURRENT_BINARY_DIR}/generated/${target}_main.cpp @ONLY)
  set(parts ${ARG_STUDENT} ${ARG_REFERENCE})
  if(NOT "${ARG_BASELINE}" STREQUAL "${ARG_REFERENCE}")
    list(APPEND parts ${ARG_BASELINE})
  endif()
  course_objects(objects ${parts})
  add_executable(${target} ${CMAKE_CURRENT_BINARY_DIR}/generated/${target}_main.cpp ${objects})
  target_link_libraries(${target} PRIVATE worker_kinds_${ARG_BACKEND})  # and worker_<backend>, through it
  set(name ${ARG_LAB}_worker_${ARG_BACKEND})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${name} RUNTIME_OUTPUT_DIRECTORY ${ARG_DIR})
  course_json_string(source "${ARG_STUDENT_FILE}")
  file(GENERATE OUTPUT ${ARG_DIR}/${name}.json CONTENT
       "{\"lab\": \"${ARG_LAB}\", \"backend\": \"${ARG_BACKEND}\", \"student_source\": ${source}, \"student_object\": \"$<TARGET_OBJECTS:${student_kernels}>\", \"guard_verdict\": \"${COURSE_GUARD_VERDICTS}/${student_kernels}.json\"}\n")
endfunction()

# course_lab_baseline(LAB <lab> BACKEND <backend> OBJECTS <var> NAMESPACE <var> BY_ID <var>)
# What LAB's speedups are measured against (its lab.json): the kernels of its "baseline"
# course file (lab 5's unpadded kernels), paired with its parts by id, or else the
# reference of the naive lab (lab 1 A). Sets the object targets to link, their namespace,
# and whether they pair by id.
function(course_lab_baseline)
  cmake_parse_arguments(ARG "" "LAB;BACKEND;OBJECTS;NAMESPACE;BY_ID" "" ${ARGN})
  course_require_args(course_lab_baseline LAB BACKEND OBJECTS NAMESPACE BY_ID)
  set(baseline "${COURSE_LAB_BASELINE_${ARG_LAB}}")
  if(NOT baseline STREQUAL "")
    course_lab_object(objects LAB ${ARG_LAB} ROLE baseline TAG course FILE ${baseline} BACKEND ${ARG_BACKEND})
    set(${ARG_NAMESPACE} ${ARG_LAB}_baseline PARENT_SCOPE)
    set(${ARG_BY_ID} true PARENT_SCOPE)
  else()
    course_lab_file(naive_file LAB ${COURSE_NAIVE_LAB} SOURCE solutions)
    course_lab_object(objects LAB ${COURSE_NAIVE_LAB} ROLE reference TAG solutions FILE ${naive_file}
                      BACKEND ${ARG_BACKEND})
    set(${ARG_NAMESPACE} ${COURSE_NAIVE_LAB}_reference PARENT_SCOPE)
    set(${ARG_BY_ID} false PARENT_SCOPE)
  endif()
  set(${ARG_OBJECTS} ${objects} PARENT_SCOPE)
endfunction()

# course_lab_links(<out> LAB <lab> BACKEND <backend>): the REFERENCE, BASELINE, BASELINE_NS
# and BY_ID arguments of course_lab_worker for LAB (its reference and its baseline).
function(course_lab_links out)
  cmake_parse_arguments(ARG "" "LAB;BACKEND" "" ${ARGN})
  course_require_args(course_lab_links LAB BACKEND)
  course_lab_file(solution_file LAB ${ARG_LAB} SOURCE solutions)
  course_lab_object(reference LAB ${ARG_LAB} ROLE reference TAG solutions FILE ${solution_file} BACKEND ${ARG_BACKEND})
  course_lab_baseline(LAB ${ARG_LAB} BACKEND ${ARG_BACKEND} OBJECTS naive NAMESPACE naive_ns BY_ID by_id)
  set(${out} REFERENCE ${reference} BASELINE ${naive} BASELINE_NS ${naive_ns} BY_ID ${by_id} PARENT_SCOPE)
endfunction()

# course_add_lab(LAB <lab>): `make <lab>` builds the grader and the lab's workers from
# LAB_SOURCE. With BUILD_TESTING, self-check workers built from the stub and from the
# solution land in selfcheck/stub and selfcheck/solution. Batch grading gets the lab's
# template workers (cmake/course_batch.cmake).
function(course_add_lab)
  cmake_parse_arguments(ARG "" "LAB" "" ${ARGN})
  course_require_args(course_add_lab LAB)
  set(lab ${ARG_LAB})
  course_lab_file(student_file LAB ${lab} SOURCE "${LAB_SOURCE}")
  if(LAB_SOURCE STREQUAL "labs" OR LAB_SOURCE STREQUAL "solutions")
    set(tag ${LAB_SOURCE})
  else()
    set(tag custom)
  endif()

  set(lab_targets grader)
  foreach(backend IN LISTS COURSE_BACKENDS)
    course_lab_links(links LAB ${lab} BACKEND ${backend})
    if(EXISTS ${student_file})
      course_lab_object(student LAB ${lab} ROLE student TAG ${tag} FILE ${student_file} BACKEND ${backend})
      course_lab_worker(${lab}_worker_${backend} DIR ${CMAKE_BINARY_DIR}/bin LAB ${lab} BACKEND ${backend}
                        STUDENT ${student} STUDENT_FILE ${student_file} ${links})
      list(APPEND lab_targets ${lab}_worker_${backend})
    else()
      message(WARNING "${lab}: ${student_file} does not exist, so ${lab} is not built from ${LAB_SOURCE}")
    endif()
    if(BUILD_TESTING AND COURSE_HAS_SOLUTIONS)
      foreach(variant stub solution)
        set(source labs)
        if(variant STREQUAL "solution")
          set(source solutions)
        endif()
        course_lab_file(variant_file LAB ${lab} SOURCE ${source})
        course_lab_object(student LAB ${lab} ROLE student TAG ${source} FILE ${variant_file} BACKEND ${backend})
        course_lab_worker(selfcheck_${variant}_${lab}_${backend} DIR ${CMAKE_BINARY_DIR}/selfcheck/${variant}
                          LAB ${lab} BACKEND ${backend} STUDENT ${student} STUDENT_FILE ${variant_file} ${links})
      endforeach()
    endif()
    course_batch_template(LAB ${lab} BACKEND ${backend} ${links})
  endforeach()
  add_custom_target(${lab} DEPENDS ${lab_targets})
endfunction()

# Every lab of labs.json, then the batch recipe that lists their templates.
function(course_add_labs)
  foreach(lab IN LISTS COURSE_LABS)
    course_add_lab(LAB ${lab})
  endforeach()
  course_write_batch_recipe()
endfunction()

# course_add_test_submission(NAME <name> LAB <lab> [ATTACK] [FILE <course file>])
# A test submission: a student file under grader/tests/submissions/<name>/<folder>/,
# graded by the grader's robustness and batch tests (FILE: a course file instead, handed in as it
# is). Its workers land in testsub/<name>.
# With ATTACK, an adversarial one under grader/tests/attacks/<name>/<folder>/: its objects
# and its worker `attack_<name>_<backend>` (in attacks/<name>/) are built only when a test
# asks, since most of them must be refused by the guard.
function(course_add_test_submission)
  cmake_parse_arguments(ARG "ATTACK" "NAME;LAB;FILE" "" ${ARGN})
  course_require_args(course_add_test_submission NAME LAB)
  set(name ${ARG_NAME})
  set(lab ${ARG_LAB})
  set(folder ${COURSE_LAB_FOLDER_${lab}})
  if(ARG_ATTACK)
    set(file ${CMAKE_CURRENT_SOURCE_DIR}/attacks/${name}/${folder}/kernels.cu)
    string(REPLACE "_" "" tag "atk${name}")
    set(dir ${CMAKE_BINARY_DIR}/attacks/${name})
  else()
    set(file ${CMAKE_CURRENT_SOURCE_DIR}/submissions/${name}/${folder}/kernels.cu)
    if(ARG_FILE)  # a course file handed in as it is (lab 5's unpadded baseline)
      set(file ${ARG_FILE})
    endif()
    string(REPLACE "_" "" tag "sub${name}")
    set(dir ${CMAKE_BINARY_DIR}/testsub/${name})
  endif()
  foreach(backend IN LISTS COURSE_BACKENDS)
    course_lab_object(student LAB ${lab} ROLE student TAG ${tag} FILE ${file} BACKEND ${backend})
    course_lab_links(links LAB ${lab} BACKEND ${backend})
    if(ARG_ATTACK)
      set(worker attack_${name}_${backend})
    else()
      set(worker testsub_${name}_${lab}_${backend})
    endif()
    course_lab_worker(${worker} DIR ${dir} LAB ${lab} BACKEND ${backend} STUDENT ${student} STUDENT_FILE ${file}
                      ${links})
    if(ARG_ATTACK)
      list(GET student 0 kernels)
      set_target_properties(${kernels} ${worker} PROPERTIES EXCLUDE_FROM_ALL TRUE)
    endif()
  endforeach()
endfunction()
