# Batch grading (grader/batch/): per lab and backend, a template worker whose student
# object is compiled from a copy of the stub, and build/batch/recipe.json, which tells
# grader/batch/build_recipe.py how to build each submission the same way, so the course's
# objects and the reference kernels are built once for a whole class.
#
# The recipe is written by CMake (file(GENERATE)), from target properties and generator
# expressions, and so does not depend on the generator (Makefiles or Ninja):
#   guard    course_cc_guard's arguments for the submission's file, ending in "--", with
#            "{verdict}" for the file its verdict goes to
#   wrapper  the kernels translation unit (cmake/lab_kernels.in) including "{source}"
#   link     the worker's link command, "{object}" for the submission's object and
#            "{worker}" for the worker it writes
# The compile command itself is the template's entry of compile_commands.json (CMake
# writes it for both generators), with the submission's wrapper and object swapped in:
# CMake composes a compile line from more than target properties (the language standard
# flag, the CUDA architecture flags, nvcc's host-compiler forwarding, the Makefile
# generator's response files), which no generator expression yields, so rebuilding it
# here would drift from what the template was really compiled with.
#
# Placeholders: {source} the submission's kernels.cu (absolute), {wrapper} its wrapper,
# {object} its object, {worker} the worker executable to link, {verdict} the guard's verdict.

# The link items of `item` and of everything it links, in link order: a library before
# the libraries it needs (static libraries need that), each where it is last needed.
function(course_link_items out item)
  set(items "")
  if(item MATCHES "^\\$<LINK_ONLY:(.*)>$")
    set(item "${CMAKE_MATCH_1}")
  endif()
  if(TARGET "${item}")
    get_target_property(aliased ${item} ALIASED_TARGET)
    if(aliased)
      set(item ${aliased})
    endif()
    get_target_property(type ${item} TYPE)
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      list(APPEND items "$<TARGET_LINKER_FILE:${item}>")
      get_target_property(imported ${item} IMPORTED)
      if(imported AND NOT type STREQUAL "STATIC_LIBRARY")
        # A shared library outside the system's folders (libcudart.so) must be found at run time.
        list(APPEND items "-Wl,-rpath,$<TARGET_LINKER_FILE_DIR:${item}>")
      endif()
    endif()
    get_target_property(options ${item} INTERFACE_LINK_OPTIONS)
    if(options)
      list(APPEND items ${options})
    endif()
    get_target_property(deps ${item} INTERFACE_LINK_LIBRARIES)
    if(deps)
      foreach(dep IN LISTS deps)
        course_link_items(dep_items "${dep}")
        list(APPEND items ${dep_items})
      endforeach()
    endif()
  elseif(item MATCHES "^-" OR IS_ABSOLUTE "${item}")
    list(APPEND items "${item}")
  elseif(item MATCHES "^\\$<")
    message(FATAL_ERROR "course_link_items: cannot put '${item}' into the batch recipe's link command")
  elseif(NOT item STREQUAL "")
    list(APPEND items "-l${item}")
  endif()
  set(${out} ${items} PARENT_SCOPE)
endfunction()

# `list` as the items of a JSON array (no brackets); a $<TARGET_OBJECTS:...> item may
# expand to several objects, each its own string.
function(course_json_items out)
  set(items "")
  foreach(item IN LISTS ARGN)
    if(item MATCHES "^\\$<TARGET_OBJECTS:(.*)>$")
      list(APPEND items "\"$<JOIN:${item},\"$<COMMA> \">\"")
    else()
      course_json_string(quoted "${item}")
      list(APPEND items "${quoted}")
    endif()
  endforeach()
  string(JOIN ", " json ${items})
  set(${out} "${json}" PARENT_SCOPE)
endfunction()

# course_batch_link_command(<out> WORKER <target> BACKEND <backend> STUDENT_KERNELS <target>
#                           OBJECTS <object targets>)
# The link command of WORKER, as CMake links it (compare its link.txt under Makefiles or
# build.ninja): the C++ compiler as linker, the build type's flags, the worker's objects
# with "{object}" for STUDENT_KERNELS', the problem kinds' objects, the worker library and
# what it needs and, on the
# GPU, the CUDA runtime CMake adds to a target with CUDA objects. No device-link step: the
# lab objects are not compiled with CUDA_SEPARABLE_COMPILATION (checked below).
function(course_batch_link_command out)
  cmake_parse_arguments(ARG "" "WORKER;BACKEND;STUDENT_KERNELS" "OBJECTS" ${ARGN})
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  separate_arguments(flags UNIX_COMMAND "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${config}} ${CMAKE_EXE_LINKER_FLAGS} ${CMAKE_EXE_LINKER_FLAGS_${config}}")
  # The problem kinds' objects, which register themselves, linked whole as course_lab_worker links them.
  set(command ${CMAKE_CXX_COMPILER} ${flags} "$<TARGET_OBJECTS:${ARG_WORKER}>"
              "$<TARGET_OBJECTS:worker_kinds_${ARG_BACKEND}>")
  foreach(t IN LISTS ARG_OBJECTS)
    get_target_property(separable ${t} CUDA_SEPARABLE_COMPILATION)
    if(separable)
      message(FATAL_ERROR "${t}: the batch recipe has no device-link step for CUDA_SEPARABLE_COMPILATION")
    endif()
    if(t STREQUAL ARG_STUDENT_KERNELS)
      list(APPEND command "{object}")
    else()
      list(APPEND command "$<TARGET_OBJECTS:${t}>")
    endif()
  endforeach()
  list(APPEND command -o "{worker}")
  course_link_items(libraries worker_${ARG_BACKEND})
  if(ARG_BACKEND STREQUAL "gpu")
    # The folders of the CUDA libraries that the C++ linker does not search by itself.
    set(cxx_dirs "")
    foreach(dir IN LISTS CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
      file(REAL_PATH "${dir}" real)
      list(APPEND cxx_dirs "${real}")
    endforeach()
    foreach(dir IN LISTS CMAKE_CUDA_HOST_IMPLICIT_LINK_DIRECTORIES)
      file(REAL_PATH "${dir}" real)
      if(NOT real IN_LIST cxx_dirs)
        list(APPEND command "-L${dir}")
      endif()
    endforeach()
    get_target_property(runtime ${ARG_WORKER} CUDA_RUNTIME_LIBRARY)
    if(NOT runtime)
      set(runtime ${CMAKE_CUDA_RUNTIME_LIBRARY_DEFAULT})
    endif()
    string(TOUPPER "${runtime}" runtime)
    foreach(lib IN LISTS CMAKE_CUDA_RUNTIME_LIBRARY_LINK_OPTIONS_${runtime})
      list(APPEND libraries "-l${lib}")
    endforeach()
  endif()
  # Each library where it is last needed.
  list(REVERSE libraries)
  list(REMOVE_DUPLICATES libraries)
  list(REVERSE libraries)
  list(APPEND command ${libraries})
  set(${out} ${command} PARENT_SCOPE)
endfunction()

# In the list `var`, the item after `key` becomes `value`.
macro(course_replace_after var key value)
  list(FIND ${var} ${key} _course_at)
  math(EXPR _course_at "${_course_at} + 1")
  list(REMOVE_AT ${var} ${_course_at})
  list(INSERT ${var} ${_course_at} "${value}")
endmacro()

# course_batch_template(LAB <lab> BACKEND <backend> REFERENCE ... BASELINE ... BASELINE_NS ...
#                       BY_ID ...)
# The template worker batch_<lab>_<backend> and its entry in the recipe. The stub's copy is
# made when built, not configured: configure_file would make the stub, the file a student
# edits, a dependency of the configuration, and every save a reconfigure.
function(course_batch_template)
  cmake_parse_arguments(ARG "" "LAB;BACKEND;BASELINE_NS;BY_ID" "REFERENCE;BASELINE" ${ARGN})
  course_require_args(course_batch_template LAB BACKEND REFERENCE BASELINE BASELINE_NS BY_ID)
  set(lab ${ARG_LAB})
  set(backend ${ARG_BACKEND})
  set(folder ${COURSE_LAB_FOLDER_${lab}})
  set(ext ${ext_${backend}})
  course_lab_file(stub_file LAB ${lab} SOURCE labs)
  set(template_file ${CMAKE_BINARY_DIR}/batch/template/${folder}/kernels.cu)
  if(NOT TARGET batch_template_copy_${lab})
    add_custom_command(OUTPUT ${template_file} COMMAND ${CMAKE_COMMAND} -E copy ${stub_file} ${template_file}
                       DEPENDS ${stub_file} VERBATIM)
    add_custom_target(batch_template_copy_${lab} DEPENDS ${template_file})
  endif()
  course_lab_object(tpl LAB ${lab} ROLE student TAG batchtpl FILE ${template_file} BACKEND ${backend})
  list(GET tpl 0 tpl_kernels)
  add_dependencies(${tpl_kernels} batch_template_copy_${lab})
  set(worker batch_${lab}_${backend})
  course_lab_worker(${worker} DIR ${CMAKE_BINARY_DIR}/batch/template/bin LAB ${lab} BACKEND ${backend}
                    STUDENT ${tpl} STUDENT_FILE ${template_file} REFERENCE ${ARG_REFERENCE}
                    BASELINE ${ARG_BASELINE} BASELINE_NS ${ARG_BASELINE_NS} BY_ID ${ARG_BY_ID})
  add_dependencies(batch_templates ${worker})

  # A submission's wrapper: the template's translation unit, including the submission.
  set(LAB ${lab})
  set(LAB_IMPL ${lab}_student)
  set(LAB_FILE "{source}")
  set(wrapper_in ${CMAKE_BINARY_DIR}/batch/recipe/${lab}_student_${backend}.${ext}.in)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/lab_kernels.in ${wrapper_in} @ONLY)

  # The guard as for the template's file, pointed at the submission's, shown as a student's.
  course_guard_args(guard LAB ${lab} FILE ${template_file} BACKEND ${backend} VERDICT "{verdict}")
  course_replace_after(guard --source "{source}")
  course_replace_after(guard --display-name "${folder}/kernels.cu")
  course_json_items(guard_json ${COURSE_GUARD} ${guard} --)

  set(objects ${tpl} ${ARG_REFERENCE})
  if(NOT "${ARG_BASELINE}" STREQUAL "${ARG_REFERENCE}")
    list(APPEND objects ${ARG_BASELINE})
  endif()
  course_batch_link_command(link WORKER ${worker} BACKEND ${backend} STUDENT_KERNELS ${tpl_kernels}
                            OBJECTS ${objects})
  course_json_items(link_json ${link})
  get_target_property(tpl_dir ${tpl_kernels} BINARY_DIR)
  string(CONCAT entry
    "    {\"lab\": \"${lab}\", \"folder\": \"${folder}\", \"backend\": \"${backend}\",\n"
    "     \"wrapper\": \"${wrapper_in}\",\n"
    "     \"template_wrapper\": \"${tpl_dir}/generated/${tpl_kernels}.${ext}\",\n"
    "     \"template_object\": \"$<TARGET_OBJECTS:${tpl_kernels}>\",\n"
    "     \"template_worker\": \"$<TARGET_FILE:${worker}>\",\n"
    "     \"guard\": [${guard_json}],\n"
    "     \"link\": [${link_json}]},\n")
  set_property(GLOBAL APPEND_STRING PROPERTY COURSE_BATCH_RECIPE "${entry}")
endfunction()

# Writes build/batch/recipe.json (grader/batch/build_recipe.py reads it).
function(course_write_batch_recipe)
  get_property(entries GLOBAL PROPERTY COURSE_BATCH_RECIPE)
  string(REGEX REPLACE ",\n$" "\n" entries "${entries}")
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/batch/recipe.json CONTENT
"{
  \"about\": \"Written by CMake (cmake/course_batch.cmake): how to build a submission's worker. Placeholders: {source}, {wrapper}, {object}, {worker}.\",
  \"source_dir\": \"${PROJECT_SOURCE_DIR}\",
  \"build_dir\": \"${CMAKE_BINARY_DIR}\",
  \"grader\": \"$<TARGET_FILE:grader>\",
  \"compile_commands\": \"${CMAKE_BINARY_DIR}/compile_commands.json\",
  \"templates\": [
${entries}  ]
}
")
endfunction()
