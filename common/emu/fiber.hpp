#pragma once
// Minimal fibers for the emulator: one per emulated GPU thread. On x86-64 a few lines of
// assembly switch stacks (a switch costs a handful of instructions); elsewhere, or with
// COURSE_EMU_UCONTEXT=1 in the environment, POSIX ucontext does it (slower, portable).
#include <cstddef>
#include <cstdint>

#include <ucontext.h>

namespace emu::fiber {

struct context {
    void* sp = nullptr;        // the assembly backend's saved stack pointer
    ucontext_t* uc = nullptr;  // the ucontext backend's saved state
};

// Makes `ctx` start entry(arg) on stack `index` of the pool when first switched to.
// `entry` must never return: it switches away for the last time instead.
void prepare(context& ctx, unsigned index, void (*entry)(void*), void* arg);

// The stack of pool slot `index`: [lo, hi).
void stack_range(unsigned index, std::uintptr_t& lo, std::uintptr_t& hi);

// Saves the running fiber in `from` and resumes `to`.
void switch_to(context& from, context& to);

// "assembly" or "ucontext".
const char* backend_name();

// Bytes of stack each emulated thread gets.
inline constexpr std::size_t stack_bytes = 64 * 1024;

}  // namespace emu::fiber
