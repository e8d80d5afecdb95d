#include "rules/rules_object_allowlists.hpp"

#include <cctype>

#include "rules/rules_mangled.hpp"
#include "rules/rules_text.hpp"

namespace course::rules::detail {

namespace {

// The C math functions kernel code may call on the emulator.
const std::set<std::string>& math_calls() {
    static const std::set<std::string> names = [] {
        std::set<std::string> out;
        for (const char* base : {"sqrt", "cbrt", "hypot", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
                                 "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
                                 "asinh", "acosh", "atanh", "fabs", "fmin", "fmax", "fma", "fmod", "remainder",
                                 "floor", "ceil", "round", "trunc", "rint", "nearbyint", "lrint", "lround", "llrint",
                                 "llround", "copysign", "erf", "erfc", "tgamma", "lgamma", "ldexp", "frexp", "modf",
                                 "scalbn", "ilogb", "logb", "nextafter", "sincos", "fdim"}) {
            out.insert(base);
            out.insert(std::string(base) + "f");
        }
        return out;
    }();
    return names;
}

}  // namespace

const std::set<std::string>& tsan_calls() {
    // Exactly what g++ -fsanitize=thread --param=tsan-instrument-func-entry-exit=0 emits
    // for kernel code, and what common/emu/tsan_entry.cpp defines.
    static const std::set<std::string> names = [] {
        std::set<std::string> out = {"__tsan_init", "__tsan_read_range", "__tsan_write_range", "__tsan_vptr_update",
                                     "__tsan_vptr_read",
                                     // -fsanitize=bounds: an array index outside the array
                                     // (common/emu/bounds_check.cpp).
                                     "__ubsan_handle_out_of_bounds", "__ubsan_handle_out_of_bounds_abort"};
        for (const char* n : {"1", "2", "4", "8", "16"}) {
            out.insert(std::string("__tsan_read") + n);
            out.insert(std::string("__tsan_write") + n);
            if (std::string(n) != "1") {
                out.insert(std::string("__tsan_unaligned_read") + n);
                out.insert(std::string("__tsan_unaligned_write") + n);
            }
        }
        return out;
    }();
    return names;
}

const std::set<std::string>& gpu_calls() {
    static const std::set<std::string> names = {
        "__cudaGetKernel", "__cudaLaunchKernel", "__cudaPopCallConfiguration", "__cudaRegisterFatBinary",
        "__cudaRegisterFatBinaryEnd", "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaRegisterManagedVar",
        "__cudaInitModule", "__cudaUnregisterFatBinary", "__cxa_guard_abort", "__cxa_guard_acquire",
        "__cxa_guard_release", "__gxx_personality_v0", "_Unwind_Resume", "atexit", "exit",
        // What a hardened host compiler adds on its own (Ubuntu's GCC: stack protector, PIE).
        "__stack_chk_fail", "_GLOBAL_OFFSET_TABLE_"};
    return names;
}

bool emu_call_allowed(const std::string& mangled) {
    static const std::set<std::string> c_names = {
        "memcpy", "memmove", "memset", "__stack_chk_fail", "_GLOBAL_OFFSET_TABLE_", "__cxa_guard_abort",
        "__cxa_guard_acquire", "__cxa_guard_release", "__gxx_personality_v0", "_Unwind_Resume", "printf",
        "__printf_chk", "puts", "putchar", "__assert_fail"};
    static const std::set<std::string> emu_names = {"emu::detail::warp_op",     "emu::detail::block_barrier",
                                                    "emu::detail::g_current",   "emu::detail::g_block_idx",
                                                    "emu::detail::g_block_dim", "emu::detail::g_grid_dim",
                                                    "emu::activemask",          "emu::detail::trace_atomic"};
    if (c_names.count(mangled) != 0 || math_calls().count(mangled) != 0 || tsan_calls().count(mangled) != 0)
        return true;
    const std::string d = demangle(mangled);
    const auto paren = d.find('(');
    return emu_names.count(paren == std::string::npos ? d : d.substr(0, paren)) != 0;
}

const std::set<std::string>& iostream_init_calls() {
    static const std::set<std::string> names = {"_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev", "__cxa_atexit",
                                                "__dso_handle"};
    return names;
}

const std::set<std::string>& nvtx_loader_calls() {
    static const std::set<std::string> names = {"getenv", "dlopen", "dlsym", "dlclose", "sched_yield"};
    return names;
}

bool weak_type(char t) { return t == 'W' || t == 'V' || t == 'u'; }
bool undefined_type(char t) { return t == 'U' || t == 'w' || t == 'v'; }

bool weak_scope_allowed(backend b, const std::string& scope, const std::string& global_name) {
    static const std::set<std::string> emu_scopes = {"std", "__gnu_cxx", "emu", "cooperative_groups", "cuda",
                                                     // the emulator's vector types (constructors at -O0)
                                                     "dim3", "uint3", "float2", "float4", "int2", "int4", "uint2",
                                                     "uint4", "double2"};
    // Not std:: on the GPU: the worker's own host code instantiates std templates, and a
    // weak definition of the file's could replace the worker's (nothing legitimate needs one).
    static const std::set<std::string> gpu_scopes = {"cooperative_groups", "cuda", "cub", "thrust"};
    // The emulator's built-ins in the global namespace (out of line at -O0).
    static const std::set<std::string> emu_globals = {
        "__ldg", "__ldcg", "__ldcs", "__stcg", "__stcs", "atomicAdd", "atomicSub", "atomicExch", "atomicMin",
        "atomicMax", "atomicCAS", "atomicInc", "atomicDec", "rsqrtf", "__fdividef", "__expf", "__fadd_rn",
        "__fmul_rn", "min", "max", "__threadfence", "__threadfence_block", "make_float2", "make_float4",
        "make_int2", "make_int4", "make_uint2", "make_uint3", "make_uint4", "make_double2"};
    if (b == backend::emulated) return emu_scopes.count(scope) != 0 || (scope.empty() && emu_globals.count(global_name) != 0);
    return gpu_scopes.count(scope) != 0 ||
           (scope.empty() && (starts_with(global_name, "nvtx") || starts_with(global_name, "InitializeInjectionNvtx")));
}

bool is_kernel_stub(const std::string& name, const std::string& ns) {
    std::size_t p = 2;
    if (!starts_with(name, "_Z")) return false;
    while (p < name.size() && std::isdigit(static_cast<unsigned char>(name[p]))) ++p;
    const std::string stub = "__device_stub__ZN" + std::to_string(ns.size()) + ns;
    return p > 2 && name.compare(p, stub.size(), stub) == 0;
}

}  // namespace course::rules::detail
