#pragma once
// Mangled C++ names: which namespace a symbol of the object belongs to, and its readable
// form for messages. Part of 5. (the object); a header of its own so that the allowlists
// can use it without the whole object check.
#include <string>

namespace course::rules {

// The first component of a mangled C++ name's scope: "lab3_student", "std", "" for the
// global namespace (or a C name), "?" when it cannot tell. `global_name` is set to the
// unqualified name of a global entity ("__ldg", "nvtxMarkA_impl_init_v3").
std::string symbol_scope(const std::string& mangled, std::string* global_name = nullptr);
// abi::__cxa_demangle, or the name itself when it is not a C++ name.
std::string demangle(const std::string& mangled);

}  // namespace course::rules
