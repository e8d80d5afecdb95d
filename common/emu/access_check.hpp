#pragma once
// Memory safety of emulated kernels, like compute-sanitizer's memcheck but on every launch:
// each load and store of kernel code (the lab objects' ThreadSanitizer callbacks,
// tsan_entry.cpp), each atomic and each copy through the C library shims must lie in
//  - a device allocation (cudaMalloc: its whole size, guard words included),
//  - the block's __shared__ memory: the `emu_shared` section, where every __shared__ array
//    and (emu_local, emu_local_data, emu_static, emu_static_data) the rest of the lab
//    objects' static data lie (grader/rules/rules_object_flow.hpp),
//  - the running thread's own stack frames: from its stack pointer up to where the course
//    entered the kernel, less the saved frame pointers and return addresses of its frames,
//    so that no store can redirect a return (reads may also see the frames above),
//  - for reads only: the executable's read-only data and code, __constant__ data, and the
//    emulator's thread and block indices.
// Anything else stops the launch with an emu::kernel_error that names the access, the
// nearest device buffer and the instruction. Internal to the emulator.
#include <cstddef>
#include <cstdint>

#include "emu/cuda_emu.hpp"

namespace emu::check {

// Reads the device allocations for the launch about to run.
void launch_begin();

// Who made an access: the instruction after the call into the emulator (`pc`), the
// calling function's stack pointer before that call and its frame pointer (kernel code is
// compiled with frame pointers, cmake: COURSE_EMU_TRACE_FLAGS).
struct origin {
    std::uintptr_t pc = 0, sp = 0, frame = 0;
};
// The origin of the call the current function is answering; it must keep a frame pointer,
// which __builtin_frame_address forces.
#define COURSE_EMU_ORIGIN()                                                                                     \
    ::emu::check::origin {                                                                                      \
        reinterpret_cast<std::uintptr_t>(__builtin_return_address(0)),                                         \
            reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)) + 2 * sizeof(void*),                   \
            *static_cast<const std::uintptr_t*>(__builtin_frame_address(0))                                     \
    }

// One load or store of kernel code.
void access(std::uintptr_t address, std::size_t size, bool write, const origin& from);

// What most accesses hit, tested inline before access(): the shared-memory sections and
// the device buffer the last access found. Set by launch_begin and access.
struct quick_ranges {
    static constexpr int sections = 5, last_device = sections;
    std::uintptr_t lo[sections + 1] = {}, hi[sections + 1] = {};  // the shared sections, then the last device buffer
};
extern quick_ranges g_quick;
// What threadIdx, blockIdx, blockDim and gridDim read, which kernel code may read: the
// emulator's globals, and the running thread's own indices at *detail::g_current.
inline bool builtin_read(std::uintptr_t a, std::size_t n) {
    const std::uintptr_t end = a + n;
    const auto within = [&](const void* p, std::size_t size) {
        const auto lo = reinterpret_cast<std::uintptr_t>(p);
        return a >= lo && end <= lo + size && end >= a;
    };
    return within(detail::g_current, sizeof(detail::thread_ids)) ||
           within(&detail::g_current, sizeof detail::g_current) || within(&detail::g_block_idx, sizeof(uint3)) ||
           within(&detail::g_block_dim, sizeof(dim3)) || within(&detail::g_grid_dim, sizeof(dim3));
}

inline bool quick(std::uintptr_t a, std::size_t n, bool write) {
    const std::uintptr_t end = a + n;
    if (end < a) return false;
    for (int k = quick_ranges::last_device; k >= 0; --k)  // the last device buffer first, then the shared sections
        if (a >= g_quick.lo[k] && end <= g_quick.hi[k]) return true;
    return !write && builtin_read(a, n);
}

// An atomic: device or shared memory only, as on a GPU.
void atomic(std::uintptr_t address, std::size_t size, const origin& from);

// For the C library shims (libc_shims.cpp): the same rules, for a range a shim is about
// to read or write on kernel code's behalf. A range outside kernel code's reach throws;
// `what` names the call in the message ("memcpy").
void range(const void* p, std::size_t size, bool write, const origin& from, const char* what);

// The length of a NUL-terminated string that kernel code passed, reading only what it may
// read (throws otherwise); at most `limit`.
std::size_t string_length(const char* s, std::size_t limit, const origin& from, const char* what);

// Where the running thread entered kernel code: its stack pointer just before the call.
// Set by emu::launch for every emulated thread (cuda_emu.hpp).
void set_stack_ceiling(std::uintptr_t sp);

}  // namespace emu::check
