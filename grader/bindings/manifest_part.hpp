#pragma once
// What a lab's lab.json says of one of its parts: its id, title, kernel name and hint. CMake
// writes one constant per part into manifest/<lab>_parts.hpp (cmake/course_manifest.cmake); a binding
// names its parts with them, so the manifest is the only place these strings are written,
// and the checks below make a binding that disagrees with it fail to compile.
#include <cstddef>
#include <utility>

#include "worker/part.hpp"

namespace course::manifest {

struct part_names {
    const char* id;
    const char* title;
    const char* kernel;  // the kernel's name in the lab file
    const char* hint;    // the lab's advice when the kernel is wrong in no recognisable pattern, or ""
};

constexpr bool same_text(const char* a, const char* b) {
    while (*a != '\0' && *a == *b) ++a, ++b;
    return *a == *b;
}

// A part with the manifest's id, title, kernel name and hint; the rest is the binding's.
inline part named_part(const part_names& names) {
    part p;
    p.id = names.id;
    p.title = names.title;
    p.kernel = names.kernel;
    p.hint = names.hint;
    return p;
}

// The lab's parts, in the manifest's order: as many as it lists (checked when compiled).
template <std::size_t Count, class... Parts>
lab_parts all_parts(Parts&&... parts) {
    static_assert(sizeof...(Parts) == Count, "the binding has another number of parts than lab.json lists");
    return {std::forward<Parts>(parts)...};
}

}  // namespace course::manifest

// The binding launches `kernel` (an identifier of the lab file) for `names`: lab.json must
// name that kernel. Used at namespace scope, once per part.
#define COURSE_MANIFEST_KERNEL(part_names_, kernel_)                                  \
    static_assert(::course::manifest::same_text((part_names_).kernel, #kernel_), \
                  "lab.json names another kernel for this part than the binding launches")
