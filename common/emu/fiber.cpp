#include "emu/fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>
#include <vector>

#if defined(__x86_64__) && (defined(__linux__) || defined(__FreeBSD__))
#define COURSE_EMU_HAVE_ASM 1
// course_emu_switch(void** save_sp, void* next_sp): pushes the callee-saved registers the
// System V ABI requires a function to preserve, swaps stacks and pops the other fiber's.
// The FP control words are not saved: no emulated kernel changes the rounding mode.
// course_emu_start: where a new fiber's first "return" lands; r12 holds the argument and
// r13 the entry function.
asm(R"(
    .text
    .globl course_emu_switch
    .type course_emu_switch,@function
course_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size course_emu_switch, .-course_emu_switch

    .globl course_emu_start
    .type course_emu_start,@function
course_emu_start:
    movq %r12, %rdi
    andq $-16, %rsp
    callq *%r13
    ud2
    .size course_emu_start, .-course_emu_start
    .section .note.GNU-stack,"",@progbits
    .text
)");
extern "C" void course_emu_switch(void** save_sp, void* next_sp);
extern "C" void course_emu_start();
#else
#define COURSE_EMU_HAVE_ASM 0
#endif

namespace emu::fiber {

namespace {

bool use_asm() {
    static const bool value = [] {
        const char* env = std::getenv("COURSE_EMU_UCONTEXT");
        return COURSE_EMU_HAVE_ASM && !(env != nullptr && env[0] == '1');
    }();
    return value;
}

// Stacks are mapped once and reused by every launch. Each has a PROT_NONE page below it,
// so a runaway recursion faults instead of scribbling over its neighbour.
class stack_pool {
public:
    char* top(unsigned index) {
        while (stacks_.size() <= index) stacks_.push_back(map_one());
        return stacks_[index] + guard_ + stack_bytes;
    }
    char* bottom(unsigned index) { return top(index) - stack_bytes; }

private:
    char* map_one() {
        void* p = mmap(nullptr, guard_ + stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        mprotect(p, guard_, PROT_NONE);
        return static_cast<char*>(p);
    }
    std::size_t guard_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    std::vector<char*> stacks_;
};

stack_pool& pool() {
    static stack_pool p;
    return p;
}

// makecontext passes int arguments only; split the pointers.
void ucontext_entry(unsigned entry_hi, unsigned entry_lo, unsigned arg_hi, unsigned arg_lo) {
    const auto join = [](unsigned hi, unsigned lo) {
        return (static_cast<std::uintptr_t>(hi) << 32) | static_cast<std::uintptr_t>(lo);
    };
    auto* entry = reinterpret_cast<void (*)(void*)>(join(entry_hi, entry_lo));
    entry(reinterpret_cast<void*>(join(arg_hi, arg_lo)));
}

ucontext_t* ensure_uc(context& ctx) {
    if (ctx.uc == nullptr) ctx.uc = new ucontext_t();  // lives as long as the context slot
    return ctx.uc;
}

}  // namespace

void prepare(context& ctx, unsigned index, void (*entry)(void*), void* arg) {
#if COURSE_EMU_HAVE_ASM
    if (use_asm()) {
        // Lay out the frame course_emu_switch pops: r15 r14 r13 r12 rbx rbp, return address.
        auto* sp = reinterpret_cast<void**>(pool().top(index)) - 8;
        sp[0] = nullptr;                                         // r15
        sp[1] = nullptr;                                         // r14
        sp[2] = reinterpret_cast<void*>(entry);                  // r13
        sp[3] = arg;                                             // r12
        sp[4] = nullptr;                                         // rbx
        sp[5] = nullptr;                                         // rbp
        sp[6] = reinterpret_cast<void*>(&course_emu_start);      // return address
        sp[7] = nullptr;
        ctx.sp = sp;
        return;
    }
#endif
    ucontext_t* uc = ensure_uc(ctx);
    getcontext(uc);
    uc->uc_stack.ss_sp = pool().bottom(index);
    uc->uc_stack.ss_size = stack_bytes;
    uc->uc_link = nullptr;
    const auto e = reinterpret_cast<std::uintptr_t>(entry);
    const auto a = reinterpret_cast<std::uintptr_t>(arg);
    makecontext(uc, reinterpret_cast<void (*)()>(&ucontext_entry), 4, static_cast<unsigned>(e >> 32),
                static_cast<unsigned>(e), static_cast<unsigned>(a >> 32), static_cast<unsigned>(a));
}

void stack_range(unsigned index, std::uintptr_t& lo, std::uintptr_t& hi) {
    lo = reinterpret_cast<std::uintptr_t>(pool().bottom(index));
    hi = lo + stack_bytes;
}

void switch_to(context& from, context& to) {
#if COURSE_EMU_HAVE_ASM
    if (use_asm()) {
        course_emu_switch(&from.sp, to.sp);
        return;
    }
#endif
    swapcontext(ensure_uc(from), ensure_uc(to));
}

const char* backend_name() { return use_asm() ? "assembly" : "ucontext"; }

}  // namespace emu::fiber
