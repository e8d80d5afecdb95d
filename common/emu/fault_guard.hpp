#pragma once
// Turns a fault or a hang inside an emulated kernel into an exception. While a launch
// runs, SIGSEGV, SIGBUS and SIGFPE from kernel code, and SIGALRM from a watchdog timer,
// jump back (siglongjmp) to the launch, which then throws emu::kernel_error. Outside a
// launch the signals keep their default effect.
#include <csetjmp>
#include <cstdint>

namespace emu::fault {

struct record {
    int signal = 0;
    std::uintptr_t address = 0;
    int write = -1;  // 1 write, 0 read, -1 unknown
    std::uintptr_t pc = 0;  // the faulting instruction, where the platform tells (x86-64 Linux)
};

// The jump target of the launch in progress.
sigjmp_buf& jump_buffer();
const record& last();

// Arms the handlers and the watchdog for one launch, and disarms them. Plain functions,
// not an RAII guard: the siglongjmp back to the launch must not skip a destructor.
void arm();
void disarm();

// Seconds a launch may run before the watchdog stops it (COURSE_EMU_WATCHDOG_SECONDS,
// default 10), twice that while launches are traced (emu::set_tracing), which makes
// them two to three times slower; and the longest it can be.
double watchdog_seconds();
double longest_watchdog_seconds();

}  // namespace emu::fault
