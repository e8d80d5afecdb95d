// The ThreadSanitizer call ABI that gcc's -fsanitize=thread emits into the emulated lab
// objects (cmake/course_labs.cmake), implemented here instead of by libtsan, which is never
// linked: each load or store of kernel code calls one of these first, with its address.
// Only these names are defined: the guard (grader/core/rules_object_allowlists.cpp)
// accepts exactly them in a lab object, and a call of any other __tsan_ function (an
// atomic builtin, say) fails to link. Every access is checked (access_check.hpp), on every
// launch; a traced launch also records it.
#include <cstddef>
#include <cstdint>

#include "emu/access_check.hpp"
#include "emu/trace.hpp"

namespace {

inline void seen(void* p, std::size_t size, bool write, const emu::check::origin& from) {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    emu::check::access(address, size, write, from);
    if (__builtin_expect(emu::trace::g_active, 0)) emu::trace::access(address, size, write, from.pc);
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
    void __tsan_read##n(void* p) { seen(p, n, false, COURSE_EMU_ORIGIN()); }                 \
    void __tsan_write##n(void* p) { seen(p, n, true, COURSE_EMU_ORIGIN()); }                 \
    void __tsan_unaligned_read##n(void* p) { seen(p, n, false, COURSE_EMU_ORIGIN()); }       \
    void __tsan_unaligned_write##n(void* p) { seen(p, n, true, COURSE_EMU_ORIGIN()); }

COURSE_TSAN_SIZED(1)
COURSE_TSAN_SIZED(2)
COURSE_TSAN_SIZED(4)
COURSE_TSAN_SIZED(8)
COURSE_TSAN_SIZED(16)
#undef COURSE_TSAN_SIZED

// Aggregate copies (a struct assigned whole).
void __tsan_read_range(void* p, std::size_t n) { seen(p, n, false, COURSE_EMU_ORIGIN()); }
void __tsan_write_range(void* p, std::size_t n) { seen(p, n, true, COURSE_EMU_ORIGIN()); }

}  // extern "C"
