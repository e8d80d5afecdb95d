# The labs, from labs.json at the repository root (their names and folders, in course order)
# and each folder's lab.json (its title, parts, hints, baseline and policy keys): what the
# build, the grader, the tests, the bench and the scripts know of the labs
# (scripts/labs_manifest.py for Python). Sets:
#   COURSE_LABS                 the lab names in course order (lab1 ...)
#   COURSE_LAB_FOLDER_<lab>     its folder under labs/ and solutions/
#   COURSE_LAB_DIR_<lab>        the absolute path of labs/<folder>/
#   COURSE_LAB_BASELINE_<lab>   the absolute path of its baseline's course file, or ""
#                               (then the reference of COURSE_NAIVE_LAB is its baseline)
#   COURSE_NAIVE_LAB            the lab whose reference is the default baseline
#   COURSE_CONTRACTS_INCLUDE_DIR  where contracts/<lab>.cuh is each lab's contract.cuh, the
#                               name lab files include it by
# and generates, under ${PROJECT_BINARY_DIR}/generated/manifest/, the C++ the grader and
# the bindings take the same facts from (COURSE_MANIFEST_INCLUDE_DIR is the folder above).
set(COURSE_MANIFEST ${PROJECT_SOURCE_DIR}/labs.json)
set(COURSE_MANIFEST_INCLUDE_DIR ${PROJECT_BINARY_DIR}/generated)
set(COURSE_CONTRACTS_INCLUDE_DIR ${PROJECT_BINARY_DIR}/generated/lab_contracts)
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${COURSE_MANIFEST})
file(READ ${COURSE_MANIFEST} COURSE_MANIFEST_JSON)

# A JSON string's text as a C++ string literal's contents.
function(course_cxx_escape out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n" text "${text}")
  string(REPLACE "\r" "\\r" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Writes `content` to `path` as it is, and only when it changed, so a reconfigure rebuilds
# nothing (file(CONFIGURE) would replace @NAME@ in a lab's hint or title).
function(course_write_generated path content)
  if(EXISTS ${path})
    file(READ ${path} old)
    if("${old}" STREQUAL "${content}")
      return()
    endif()
  endif()
  file(WRITE ${path} "${content}")
endfunction()

string(JSON COURSE_NAIVE_LAB GET "${COURSE_MANIFEST_JSON}" naive_baseline_lab)
string(JSON _course_lab_count LENGTH "${COURSE_MANIFEST_JSON}" labs)
math(EXPR _course_lab_last "${_course_lab_count} - 1")
set(COURSE_LABS "")
set(_course_known_labs "")
set(_course_bench_decls "")
set(_course_bench_table "")
set(_course_lab_policies "{}")
foreach(_i RANGE ${_course_lab_last})
  string(JSON _lab GET "${COURSE_MANIFEST_JSON}" labs ${_i} name)
  string(JSON _folder GET "${COURSE_MANIFEST_JSON}" labs ${_i} folder)
  set(_dir ${PROJECT_SOURCE_DIR}/labs/${_folder})
  set(_lab_json_file ${_dir}/lab.json)
  foreach(_file lab.json contract.cuh binding.cuh)
    if(NOT EXISTS ${_dir}/${_file})
      message(FATAL_ERROR "labs.json lists ${_lab} in labs/${_folder}/, which has no ${_file} "
                          "(docs/architecture.md, \"Adding a lab\", says what a lab's folder holds)")
    endif()
  endforeach()
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_lab_json_file})
  file(READ ${_lab_json_file} _lab_json)
  string(JSON _baseline ERROR_VARIABLE _no_baseline GET "${_lab_json}" baseline)
  if(_no_baseline)
    set(_baseline "")
  elseif(NOT _baseline STREQUAL "")
    set(_baseline ${PROJECT_SOURCE_DIR}/${_baseline})
  endif()
  list(APPEND COURSE_LABS ${_lab})
  set(COURSE_LAB_FOLDER_${_lab} ${_folder})
  set(COURSE_LAB_DIR_${_lab} ${_dir})
  set(COURSE_LAB_BASELINE_${_lab} "${_baseline}")
  # Lab files include their contract as "contracts/<lab>.cuh".
  configure_file(${_dir}/contract.cuh ${COURSE_CONTRACTS_INCLUDE_DIR}/contracts/${_lab}.cuh COPYONLY)

  # The hint of each part that lab.json gives one.
  string(JSON _hint_count ERROR_VARIABLE _no_hints LENGTH "${_lab_json}" hints)
  if(_no_hints)
    set(_hint_count 0)
  endif()
  set(_hint_of "")
  if(_hint_count GREATER 0)
    math(EXPR _hint_last "${_hint_count} - 1")
    foreach(_h RANGE ${_hint_last})
      string(JSON _text GET "${_lab_json}" hints ${_h} text)
      course_cxx_escape(_text "${_text}")
      string(JSON _hinted LENGTH "${_lab_json}" hints ${_h} parts)
      if(_hinted EQUAL 0)
        message(FATAL_ERROR "labs/${_folder}/lab.json: hint ${_h} names no part")
      endif()
      math(EXPR _hinted_last "${_hinted} - 1")
      foreach(_k RANGE ${_hinted_last})
        string(JSON _id GET "${_lab_json}" hints ${_h} parts ${_k})
        set(_hint_${_id} "${_text}")
        list(APPEND _hint_of ${_id})
      endforeach()
    endforeach()
  endif()

  # The part names the lab's binding uses (grader/bindings/manifest_part.hpp says how).
  string(JSON _part_count LENGTH "${_lab_json}" parts)
  math(EXPR _part_last "${_part_count} - 1")
  set(_part_ids "")
  set(_parts "")
  foreach(_j RANGE ${_part_last})
    string(JSON _id GET "${_lab_json}" parts ${_j} id)
    string(JSON _title GET "${_lab_json}" parts ${_j} title)
    string(JSON _kernel GET "${_lab_json}" parts ${_j} kernel)
    course_cxx_escape(_title "${_title}")
    set(_hint "")
    if(_id IN_LIST _hint_of)
      set(_hint "${_hint_${_id}}")
    endif()
    list(APPEND _part_ids ${_id})
    string(APPEND _parts "inline constexpr part_names ${_id}{\"${_id}\", \"${_title}\", \"${_kernel}\", \"${_hint}\"};\n")
  endforeach()
  foreach(_id IN LISTS _hint_of)
    unset(_hint_${_id})
    if(NOT _id IN_LIST _part_ids)
      message(FATAL_ERROR "labs/${_folder}/lab.json: a hint names part ${_id}, which the lab does not have")
    endif()
  endforeach()
  course_write_generated(${COURSE_MANIFEST_INCLUDE_DIR}/manifest/${_lab}_parts.hpp
"#pragma once
// Generated by CMake from labs/${_folder}/lab.json: the parts of ${_lab}. Do not edit; edit lab.json.
#include \"bindings/manifest_part.hpp\"

namespace course::manifest::${_lab} {
${_parts}inline constexpr std::size_t part_count = ${_part_count};
}  // namespace course::manifest::${_lab}
")

  # The lab's keys over the default policy's lab_defaults (grader/core/policy.cpp).
  string(JSON _policy ERROR_VARIABLE _no_policy GET "${_lab_json}" policy)
  if(_no_policy)
    set(_policy "{}")
  endif()
  string(JSON _course_lab_policies SET "${_course_lab_policies}" ${_lab} "${_policy}")

  list(JOIN _part_ids " " _part_words)
  string(APPEND _course_known_labs "{\"${_lab}\", \"${_folder}\", \"${_part_words}\"},\n")
  string(APPEND _course_bench_decls "namespace ${_lab}_reference { course::lab_parts parts(); }\n")
  string(APPEND _course_bench_table "{\"${_lab}\", ${_lab}_reference::parts()},\n")
  if(NOT _baseline STREQUAL "")
    string(APPEND _course_bench_decls "namespace ${_lab}_baseline { course::lab_parts parts(); }\n")
  endif()
endforeach()

# Every lab's policy keys, as JSON: the default policy's "labs" (grader/core/policy.cpp).
course_write_generated(${COURSE_MANIFEST_INCLUDE_DIR}/manifest/lab_policies.inc
"// Generated by CMake from each lab's lab.json: {lab: its policy keys}. Do not edit.
R\"course_labs(${_course_lab_policies})course_labs\"
")

# The grader's list of labs (grader/supervisor/known_labs.cpp includes it).
course_write_generated(${COURSE_MANIFEST_INCLUDE_DIR}/manifest/known_labs_table.inc
"// Generated by CMake from labs.json and each lab.json: {name, folder, part ids} of each lab, in course order. Do not edit.
${_course_known_labs}")

# The bench's references of every lab (bench/course_bench.cpp).
course_write_generated(${COURSE_MANIFEST_INCLUDE_DIR}/manifest/bench_labs.hpp
"#pragma once
// Generated by CMake from labs.json: every lab's reference parts, for the bench. Do not edit.
#include <string>
#include <utility>
#include <vector>

#include \"worker/part.hpp\"

${_course_bench_decls}
namespace course::manifest {
inline std::vector<std::pair<std::string, course::lab_parts>> reference_parts() {
    return {
${_course_bench_table}    };
}
}  // namespace course::manifest
")
