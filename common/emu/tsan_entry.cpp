// The ThreadSanitizer call ABI that gcc's -fsanitize=thread emits into the emulated lab
// objects (cmake/course_labs.cmake), implemented here instead of by libtsan, which is never
// linked: each load or store of kernel code calls one of these first, with its address.
// Only these names are defined: the guard (grader/rules/rules_object_allowlists.cpp)
// accepts exactly them in a lab object, and a call of any other __tsan_ function (an
// atomic builtin, say) fails to link. Every access is checked (access_check.hpp), on every
// launch; a traced launch also records it.
#include <cstddef>
#include <cstdint>

#include "emu/access_check.hpp"
#include "emu/trace.hpp"

// One access, checked (access_check.hpp: the common cases inline, the origin read only when
// they miss) and, in a traced launch, recorded. A macro: the origin is the calling
// function's, so it must be taken in the callback itself.
#define COURSE_TSAN_SEEN(p, size, write)                                                                  \
    do {                                                                                                  \
        const auto address_ = reinterpret_cast<std::uintptr_t>(p);                                        \
        if (!emu::check::quick(address_, (size), (write)))                                                \
            emu::check::access(address_, (size), (write), COURSE_EMU_ORIGIN());                           \
        if (__builtin_expect(emu::trace::g_active, 0))                                                    \
            emu::trace::access(address_, (size), (write),                                                 \
                               reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)));            \
    } while (0)

extern "C" {

// The module constructor gcc adds calls this; there is nothing to set up.
void __tsan_init() {}
// Off with --param tsan-instrument-func-entry-exit=0; defined in case a build leaves it on.
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
// A virtual class's vptr, stored and loaded (kernel code has none, but a helper class
// could): checked like any 8-byte store and load, since the code stores it itself.
void __tsan_vptr_update(void** p, void*) { COURSE_TSAN_SEEN(p, sizeof(void*), true); }
void __tsan_vptr_read(void** p) { COURSE_TSAN_SEEN(p, sizeof(void*), false); }

#define COURSE_TSAN_SIZED(n)                                                            \
    void __tsan_read##n(void* p) { COURSE_TSAN_SEEN(p, n, false); }                     \
    void __tsan_write##n(void* p) { COURSE_TSAN_SEEN(p, n, true); }                     \
    void __tsan_unaligned_read##n(void* p) { COURSE_TSAN_SEEN(p, n, false); }           \
    void __tsan_unaligned_write##n(void* p) { COURSE_TSAN_SEEN(p, n, true); }

COURSE_TSAN_SIZED(1)
COURSE_TSAN_SIZED(2)
COURSE_TSAN_SIZED(4)
COURSE_TSAN_SIZED(8)
COURSE_TSAN_SIZED(16)
#undef COURSE_TSAN_SIZED

// Aggregate copies (a struct assigned whole).
void __tsan_read_range(void* p, std::size_t n) { COURSE_TSAN_SEEN(p, n, false); }
void __tsan_write_range(void* p, std::size_t n) { COURSE_TSAN_SEEN(p, n, true); }

}  // extern "C"
