// What a lab object's calls of the C library reach on the CPU emulator. The guard renames
// them in every student object it passes (memcpy -> course_emu_memcpy, ...;
// grader/rules/rules_object_allowlists.cpp lists the pairs), so that calls the compiler
// makes by itself (a struct copy, a zeroed local array) are checked too: a copy only between
// what kernel code may touch (access_check.hpp), a printf without %n, its output bounded.
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include "course/printf_bound.hpp"
#include "emu/access_check.hpp"
#include "emu/block_pool.hpp"
#include "emu/cuda_emu.hpp"
#include "emu/diagnostics.hpp"

namespace {

// All the printf output of one process's kernels (its block pool's included): past it, one
// note and then nothing.
constexpr std::size_t output_budget = course::printf_bound::emulated_bytes;

void emit(const char* text, std::size_t n) {
    auto& printed = emu::detail::printed_bytes();
    const std::size_t before = printed.fetch_add(n);
    if (before >= output_budget) return;
    const std::size_t room = output_budget - before;
    const std::size_t take = n < room ? n : room;
    for (std::size_t done = 0; done < take;) {
        const ssize_t w = ::write(1, text + done, take - done);
        if (w <= 0) return;
        done += static_cast<std::size_t>(w);
    }
    if (before + n >= output_budget) {
        char note[96];
        const int len = std::snprintf(note, sizeof note, "\n" COURSE_PRINTF_CUT_MARKER "%zu bytes]\n", output_budget);
        if (len > 0) (void)!::write(1, note, static_cast<std::size_t>(len));
    }
}

// Walks the conversions of `fmt`, taking each argument from `ap` as printf would: refuses
// %n (it writes memory) and checks every %s string before vsnprintf reads it.
void check_format(const char* fmt, std::size_t len, va_list ap, const emu::check::origin& from) {
    for (std::size_t i = 0; i < len; ++i) {
        if (fmt[i] != '%') continue;
        ++i;
        if (i < len && fmt[i] == '%') continue;
        // The conversion's whole specification, up to its conversion letter.
        const std::size_t spec = i;
        while (i < len && std::strchr("-+ #0'*.$123456789hljztL", fmt[i]) != nullptr) ++i;
        const std::string flags(fmt + spec, i - spec);
        // Positional arguments (%1$n) would let vsnprintf take arguments this walk does not:
        // refuse them rather than follow two readings of one format.
        if (flags.find('$') != std::string::npos)
            throw emu::kernel_error("printf with a positional argument (`%N$`) is not supported on the CPU emulator" +
                                    emu::detail::diag::code_place(from.pc - 1));
        i = spec;
        while (i < len && std::strchr("-+ #0'", fmt[i]) != nullptr) ++i;
        const auto skip_number = [&] {
            if (i < len && fmt[i] == '*') {
                (void)va_arg(ap, int);
                ++i;
            }
            while (i < len && fmt[i] >= '0' && fmt[i] <= '9') ++i;
        };
        skip_number();  // width
        if (i < len && fmt[i] == '.') {
            ++i;
            skip_number();  // precision
        }
        int longs = 0;
        bool big_double = false;
        while (i < len && std::strchr("hljztL", fmt[i]) != nullptr) {
            if (fmt[i] == 'l' || fmt[i] == 'j' || fmt[i] == 'z' || fmt[i] == 't') ++longs;
            if (fmt[i] == 'L') big_double = true;
            ++i;
        }
        // Wide strings and characters (%ls, %lc) are read as wchar_t, past what is checked here.
        if (i < len && longs > 0 && (fmt[i] == 's' || fmt[i] == 'c'))
            throw emu::kernel_error("printf of a wide string or character (%ls, %lc) is not supported on the CPU emulator" +
                                    emu::detail::diag::code_place(from.pc - 1));
        if (i >= len) break;
        switch (fmt[i]) {
        case 'n':
            throw emu::kernel_error("printf's %n writes to memory through a pointer: kernels may not use it" +
                                    emu::detail::diag::code_place(from.pc - 1));
        case 's': {
            const char* s = va_arg(ap, const char*);
            if (s != nullptr) (void)emu::check::string_length(s, 1u << 20, from, "printf's %s");
            break;
        }
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
            if (big_double) (void)va_arg(ap, long double);
            else (void)va_arg(ap, double);
            break;
        case 'p': (void)va_arg(ap, void*); break;
        case 'c': (void)va_arg(ap, int); break;
        case 'm': break;  // strerror(errno): no argument
        case 'd': case 'i': case 'o': case 'u': case 'x': case 'X':
            if (longs > 0) (void)va_arg(ap, long long);
            else (void)va_arg(ap, int);
            break;
        default:
            // What this walk does not know (%S and %C are wide, others are glibc's own) it
            // cannot follow: vsnprintf might read arguments it did not check.
            throw emu::kernel_error(std::string("printf's conversion %") + fmt[i] +
                                    " is not supported on the CPU emulator" + emu::detail::diag::code_place(from.pc - 1));
        }
    }
}

void print(const emu::check::origin& from, const char* kernel_fmt, va_list ap) {
    // The format is checked and used from a copy: a block running at the same time in another
    // process (block_pool.hpp) could otherwise change the checked string before vsnprintf
    // reads it.
    char fmt[4097];
    const std::size_t len = emu::check::string_length(kernel_fmt, 4097, from, "printf");
    if (len > 4096)
        throw emu::kernel_error("printf with a format longer than 4096 characters" +
                                emu::detail::diag::code_place(from.pc - 1));
    std::memcpy(fmt, kernel_fmt, len);
    fmt[len] = '\0';
    va_list walk;
    va_copy(walk, ap);
    try {
        check_format(fmt, len, walk, from);
    } catch (...) {
        va_end(walk);
        throw;
    }
    va_end(walk);
    char buf[4096];
    const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
    if (n > 0) emit(buf, static_cast<std::size_t>(n) < sizeof buf ? static_cast<std::size_t>(n) : sizeof buf - 1);
}

}  // namespace

extern "C" {

void* course_emu_memcpy(void* dst, const void* src, std::size_t n) {
    const auto from = COURSE_EMU_ORIGIN();
    emu::check::range(src, n, false, from, "memcpy");
    emu::check::range(dst, n, true, from, "memcpy");
    return std::memmove(dst, src, n);
}

void* course_emu_memmove(void* dst, const void* src, std::size_t n) {
    const auto from = COURSE_EMU_ORIGIN();
    emu::check::range(src, n, false, from, "memmove");
    emu::check::range(dst, n, true, from, "memmove");
    return std::memmove(dst, src, n);
}

void* course_emu_memset(void* dst, int value, std::size_t n) {
    emu::check::range(dst, n, true, COURSE_EMU_ORIGIN(), "memset");
    return std::memset(dst, value, n);
}

// Both entries (printf, and the fortified __printf_chk that Ubuntu's gcc emits) print
// through print(), which takes their va_list. A macro: each must start its own va_list,
// and COURSE_EMU_ORIGIN must name its own caller.
#define COURSE_EMU_PRINTF_BODY                 \
    const auto from = COURSE_EMU_ORIGIN();     \
    va_list ap;                                \
    va_start(ap, fmt);                         \
    try {                                      \
        print(from, fmt, ap);                  \
    } catch (...) {                            \
        va_end(ap);                            \
        throw;                                 \
    }                                          \
    va_end(ap);                                \
    return 0;

int course_emu_printf(const char* fmt, ...) { COURSE_EMU_PRINTF_BODY }

int course_emu___printf_chk(int, const char* fmt, ...) { COURSE_EMU_PRINTF_BODY }

#undef COURSE_EMU_PRINTF_BODY

int course_emu_puts(const char* s) {
    const std::size_t n = emu::check::string_length(s, 1u << 20, COURSE_EMU_ORIGIN(), "puts");
    emit(s, n);
    emit("\n", 1);
    return 1;
}

int course_emu_putchar(int c) {
    const char ch = static_cast<char>(c);
    emit(&ch, 1);
    return c;
}

[[noreturn]] void course_emu___assert_fail(const char* expr, const char*, unsigned line, const char*) {
    const auto from = COURSE_EMU_ORIGIN();
    const std::size_t n = emu::check::string_length(expr, 512, from, "assert");
    throw emu::kernel_error("assert(" + std::string(expr, n) + ") failed (line " + std::to_string(line) + ")" +
                            emu::detail::diag::code_place(from.pc - 1));
}

}  // extern "C"
