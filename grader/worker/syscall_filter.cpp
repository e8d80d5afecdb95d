#include "worker/syscall_filter.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <vector>

#if defined(__linux__) && defined(__x86_64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#endif

namespace course {

#if defined(__linux__) && defined(__x86_64__)

namespace seccomp_bpf {

constexpr unsigned verdict_allow = SECCOMP_RET_ALLOW;
#ifdef SECCOMP_RET_KILL_PROCESS
constexpr unsigned verdict_kill = SECCOMP_RET_KILL_PROCESS;
#else
constexpr unsigned verdict_kill = SECCOMP_RET_KILL;
#endif

constexpr unsigned arg_low(int k) { return static_cast<unsigned>(offsetof(seccomp_data, args) + 8 * k); }

class program {
public:
    void op(unsigned short code, unsigned k, unsigned char jt = 0, unsigned char jf = 0) { p_.push_back({code, jt, jf, k}); }
    void ret(unsigned what) { op(BPF_RET | BPF_K, what); }
    void load_nr() { op(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)); }

    // Every block starts with the number in the accumulator and returns on every path
    // once it has matched, so the next block finds the number still there.
    void plain(long nr) {
        op(BPF_JMP | BPF_JEQ | BPF_K, static_cast<unsigned>(nr), 0, 1);
        ret(verdict_allow);
    }
    // Allowed when argument `k` (its low 32 bits) is one of `values`: the j-th comparison
    // jumps to allow on a match; the last one's miss falls to kill.
    void with_arg(long nr, int k, const std::vector<unsigned>& values) {
        const auto n = static_cast<unsigned char>(values.size());
        op(BPF_JMP | BPF_JEQ | BPF_K, static_cast<unsigned>(nr), 0, static_cast<unsigned char>(n + 3));
        op(BPF_LD | BPF_W | BPF_ABS, arg_low(k));
        for (unsigned char j = 0; j < n; ++j)
            op(BPF_JMP | BPF_JEQ | BPF_K, values[j], static_cast<unsigned char>(n - 1 - j), j + 1 == n ? 1 : 0);
        ret(verdict_allow);
        ret(verdict_kill);
    }
    // Allowed when argument `k` has none of `bits` set (memory that is never executable).
    void without_bits(long nr, int k, unsigned bits) {
        op(BPF_JMP | BPF_JEQ | BPF_K, static_cast<unsigned>(nr), 0, 4);
        op(BPF_LD | BPF_W | BPF_ABS, arg_low(k));
        op(BPF_JMP | BPF_JSET | BPF_K, bits, 1, 0);
        ret(verdict_allow);
        ret(verdict_kill);
    }
    const std::vector<sock_filter>& code() const { return p_; }

private:
    std::vector<sock_filter> p_;
};

}  // namespace seccomp_bpf

std::string filter_system_calls(int socket_fd) {
    using namespace seccomp_bpf;
    const auto sock = static_cast<unsigned>(socket_fd);
    const auto self = static_cast<unsigned>(getpid());
    program p;
    p.op(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch));
    p.op(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
    p.ret(verdict_kill);
    p.load_nr();
    p.op(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);  // the x32 ABI's numbers
    p.ret(verdict_kill);
    for (long nr : {SYS_exit, SYS_exit_group, SYS_brk, SYS_munmap, SYS_mremap, SYS_madvise, SYS_rt_sigprocmask,
                    SYS_rt_sigreturn, SYS_rt_sigaction, SYS_sigaltstack, SYS_setitimer, SYS_futex, SYS_close,
                    SYS_clock_gettime, SYS_gettimeofday, SYS_getpid, SYS_gettid,
                    // The emulator's block pool (common/emu/block_pool.hpp): it waits for the
                    // children it forks, which set up glibc's robust list and ask who their
                    // parent is. Kernel code can make none of these calls: the guard lets a lab
                    // object call only the emulator and a list of C functions.
                    SYS_wait4, SYS_set_robust_list, SYS_getppid})
        p.plain(nr);
    // fork() as glibc makes it, and nothing else that clone can do (no threads, no namespaces).
    p.with_arg(SYS_clone, 0, {CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD});
    p.with_arg(SYS_prctl, 0, {PR_SET_PDEATHSIG});
    p.with_arg(SYS_read, 0, {sock});
    p.with_arg(SYS_write, 0, {1u, 2u, sock});
    p.with_arg(SYS_kill, 0, {self});
    p.with_arg(SYS_tgkill, 0, {self});
    p.without_bits(SYS_mmap, 2, PROT_EXEC);
    p.without_bits(SYS_mprotect, 2, PROT_EXEC);
    p.ret(verdict_kill);

    sock_fprog prog{};
    prog.len = static_cast<unsigned short>(p.code().size());
    prog.filter = const_cast<sock_filter*>(p.code().data());
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("no new privileges: ") + std::strerror(errno);
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
        return std::string("seccomp: ") + std::strerror(errno);
    return "";
}

#else

std::string filter_system_calls(int) { return "the system-call filter is written for Linux on x86-64 only"; }

#endif

}  // namespace course
