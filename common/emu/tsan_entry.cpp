// The ThreadSanitizer call ABI that gcc's -fsanitize=thread emits into the emulated lab
// objects (cmake/course_labs.cmake), implemented here instead of by libtsan, which is never
// linked: each load or store of kernel code calls one of these first, with its address.
// Only these names are defined: the guard (grader/core/rules_object_allowlists.cpp)
// accepts exactly them in a lab object, and a call of any other __tsan_ function (an
// atomic builtin, say) fails to link. Tracing off, each returns at its first test.
#include <cstddef>
#include <cstdint>

#include "emu/trace.hpp"

namespace {

// The instruction that accesses: the return address of the callback, just after its call.
#define COURSE_TSAN_PC reinterpret_cast<std::uintptr_t>(__builtin_return_address(0))

inline void seen(void* p, std::size_t size, bool write, std::uintptr_t pc) {
    if (__builtin_expect(emu::trace::g_active, 0)) emu::trace::access(reinterpret_cast<std::uintptr_t>(p), size, write, pc);
}

}  // namespace

extern "C" {

// The module constructor gcc adds calls this; there is nothing to set up.
void __tsan_init() {}
// Off with --param tsan-instrument-func-entry-exit=0; defined in case a build leaves it on.
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
// Virtual calls (kernel code has none, but a helper class could).
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}

#define COURSE_TSAN_SIZED(n)                                                            \
    void __tsan_read##n(void* p) { seen(p, n, false, COURSE_TSAN_PC); }                 \
    void __tsan_write##n(void* p) { seen(p, n, true, COURSE_TSAN_PC); }                 \
    void __tsan_unaligned_read##n(void* p) { seen(p, n, false, COURSE_TSAN_PC); }       \
    void __tsan_unaligned_write##n(void* p) { seen(p, n, true, COURSE_TSAN_PC); }

COURSE_TSAN_SIZED(1)
COURSE_TSAN_SIZED(2)
COURSE_TSAN_SIZED(4)
COURSE_TSAN_SIZED(8)
COURSE_TSAN_SIZED(16)
#undef COURSE_TSAN_SIZED

// Aggregate copies (a struct assigned whole).
void __tsan_read_range(void* p, std::size_t n) { seen(p, n, false, COURSE_TSAN_PC); }
void __tsan_write_range(void* p, std::size_t n) { seen(p, n, true, COURSE_TSAN_PC); }

}  // extern "C"
