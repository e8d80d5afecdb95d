// Array indices of emulated kernels. gcc's memory instrumentation (tsan_entry.cpp) does not
// see a local array whose address never escapes, so the lab objects are also compiled with
// -fsanitize=bounds (cmake: COURSE_EMU_TRACE_FLAGS): every index into an array of known size
// is compared with that size first, and an index out of it calls the handler below (gcc's
// UBSan ABI; no sanitizer runtime is linked), which stops the kernel as an out-of-bounds
// access would. The guard allows a lab object to call exactly these handlers.
#include <cstdint>
#include <string>

#include "emu/block_state.hpp"
#include "emu/diagnostics.hpp"

namespace {

// The data gcc passes (libsanitizer's ubsan_handlers.h and ubsan_value.h).
struct source_location {
    const char* file;
    std::uint32_t line, column;
};
struct type_descriptor {
    std::uint16_t kind;  // 0: integer
    std::uint16_t info;  // integers: bit 0 signed, the rest log2 of the width in bits
    char name[1];
};
struct out_of_bounds_data {
    source_location loc;
    const type_descriptor* array_type;
    const type_descriptor* index_type;
};

std::string index_text(const type_descriptor* t, std::uintptr_t value) {
    const bool is_signed = t != nullptr && t->kind == 0 && (t->info & 1u) != 0;
    const unsigned bits = t != nullptr && t->kind == 0 ? 1u << (t->info >> 1) : 64u;
    if (!is_signed) return std::to_string(bits < 64 ? value & ((std::uintptr_t{1} << bits) - 1) : value);
    const std::int64_t v = bits >= 64 ? static_cast<std::int64_t>(value)
                                      : static_cast<std::int64_t>(value << (64 - bits)) >> (64 - bits);
    return std::to_string(v);
}

[[noreturn]] void out_of_bounds(const out_of_bounds_data* data, std::uintptr_t index, std::uintptr_t pc) {
    std::string who = "kernel code";
    if (emu::detail::g_current != nullptr) {
        who = emu::detail::where(emu::detail::current_thread());
        who.resize(who.size() - 2);
    }
    // gcc quotes the type's name itself: 'float [4]'.
    const std::string type = data->array_type != nullptr ? data->array_type->name : "an array";
    throw emu::kernel_error(who + ": out-of-bounds index: " + index_text(data->index_type, index) +
                            " is outside the array, of type " + type + emu::detail::diag::code_place(pc - 1));
}

}  // namespace

extern "C" {

void __ubsan_handle_out_of_bounds(out_of_bounds_data* data, std::uintptr_t index) {
    out_of_bounds(data, index, reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)));
}

void __ubsan_handle_out_of_bounds_abort(out_of_bounds_data* data, std::uintptr_t index) {
    out_of_bounds(data, index, reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)));
}

}  // extern "C"
