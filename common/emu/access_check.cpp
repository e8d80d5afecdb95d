#include "emu/access_check.hpp"

#include <link.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "emu/block_state.hpp"
#include "emu/device_memory.hpp"
#include "emu/fiber.hpp"

// Every __shared__ array (cuda_emu.hpp) and __constant__ variable is placed in these
// sections; the linker marks where they start and stop. Weak: a worker without any.
extern "C" {
extern char __start_emu_shared[] __attribute__((weak));
extern char __stop_emu_shared[] __attribute__((weak));
extern char __start_emu_constant[] __attribute__((weak));
extern char __stop_emu_constant[] __attribute__((weak));
// The lab objects' other static data, moved there when they are compiled
// (grader/rules/rules_object_flow.hpp).
extern char __start_emu_static[] __attribute__((weak));
extern char __stop_emu_static[] __attribute__((weak));
extern char __start_emu_static_data[] __attribute__((weak));
extern char __stop_emu_static_data[] __attribute__((weak));
extern char __start_emu_local[] __attribute__((weak));
extern char __stop_emu_local[] __attribute__((weak));
extern char __start_emu_local_data[] __attribute__((weak));
extern char __stop_emu_local_data[] __attribute__((weak));
}

namespace emu::check {

quick_ranges g_quick;

namespace {

using range_t = std::pair<std::uintptr_t, std::uintptr_t>;

std::vector<range_t> g_device;    // this launch's allocations, [start, end), sorted
std::vector<range_t> g_readonly;  // the executable's read-only segments and __constant__ data

std::uintptr_t addr(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

// The range of `ranges` (sorted, disjoint) that holds [a, a + n), or nullptr.
const range_t* holding(const std::vector<range_t>& ranges, std::uintptr_t a, std::size_t n) {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), range_t{a, ~std::uintptr_t{0}});
    if (it == ranges.begin()) return nullptr;
    --it;
    return a >= it->first && a + n <= it->second && a + n >= a ? &*it : nullptr;
}
bool inside(const std::vector<range_t>& ranges, std::uintptr_t a, std::size_t n) { return holding(ranges, a, n) != nullptr; }

bool in_span(std::uintptr_t a, std::size_t n, std::uintptr_t lo, std::uintptr_t hi) { return a >= lo && a + n <= hi && a + n >= a; }

void find_readonly() {
    if (!g_readonly.empty()) return;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void*) {
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const auto& ph = info->dlpi_phdr[i];
                // Read-only segments, and the part of a writable one that the loader makes
                // read-only once it is relocated (RELRO: constant tables of pointers).
                const bool readonly = (ph.p_type == PT_LOAD && !(ph.p_flags & PF_W)) || ph.p_type == PT_GNU_RELRO;
                if (!readonly) continue;
                const std::uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
                g_readonly.emplace_back(lo, lo + ph.p_memsz);
            }
            return 1;  // the executable only: a library's data is not kernel code's
        },
        nullptr);
    if (__start_emu_constant != nullptr) g_readonly.emplace_back(addr(__start_emu_constant), addr(__stop_emu_constant));
    std::sort(g_readonly.begin(), g_readonly.end());
}


// __shared__ arrays (emu_shared), and the rest of the lab objects' static data, which the
// guard and course_emu_object move to emu_local, emu_local_data (functions' static locals:
// gcc keeps a template instance's out of emu_shared), emu_static and emu_static_data.
bool in_section(std::uintptr_t a, std::size_t n, const char* start, const char* stop) {
    return start != nullptr && in_span(a, n, addr(start), addr(stop));
}
const char* const g_sections[quick_ranges::sections][2] = {
    {__start_emu_shared, __stop_emu_shared},         {__start_emu_local, __stop_emu_local},
    {__start_emu_local_data, __stop_emu_local_data}, {__start_emu_static, __stop_emu_static},
    {__start_emu_static_data, __stop_emu_static_data}};
bool shared(std::uintptr_t a, std::size_t n) {
    for (const auto& sec : g_sections)
        if (in_section(a, n, sec[0], sec[1])) return true;
    return false;
}

enum class verdict { ok, outside, frame_slot };

// The running thread's stack: from the accessing function's stack pointer up; writes only
// below where the course entered the kernel, and never on a saved frame pointer or return
// address of kernel code's frames.
verdict stack(std::uintptr_t a, std::size_t n, bool write, const origin& from) {
    const auto& t = detail::current_thread();
    const std::uintptr_t lo = t.stack_lo, hi = t.stack_hi;
    if (!in_span(a, n, lo, hi)) return verdict::outside;
    if (a < from.sp) return verdict::outside;
    if (!write) return verdict::ok;
    const std::uintptr_t ceiling = t.stack_ceiling != 0 ? t.stack_ceiling : hi;
    if (a + n > ceiling) return verdict::frame_slot;
    std::uintptr_t f = from.frame;
    for (int depth = 0; depth < 256 && f >= from.sp && f + 16 <= ceiling; ++depth) {
        if (a < f + 16 && a + n > f) return verdict::frame_slot;
        const std::uintptr_t next = *reinterpret_cast<const std::uintptr_t*>(f);
        if (next <= f) break;
        f = next;
    }
    return verdict::ok;
}

[[noreturn]] void refuse(std::uintptr_t a, std::size_t n, bool write, std::uintptr_t pc, const char* what,
                         verdict why) {
    std::string who = "kernel code";
    if (detail::g_current != nullptr) {
        who = detail::where(detail::current_thread());
        who.resize(who.size() - 2);  // no ": "
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
    std::string place = memory::describe_address(a);
    if (place.empty())
        place = a < 65536 ? std::string("a null pointer (address ") + buf + ")"
                          : std::string("address ") + buf +
                                ", which is in no device buffer, no __shared__ array and not the thread's own stack";
    const std::string size = std::to_string(n) + " byte" + (n == 1 ? "" : "s");
    std::string msg = who + ": out-of-bounds " + (write ? "write" : "read") + " by " + what + " (" + size + "): " + place;
    if (why == verdict::frame_slot)
        msg = who + ": " + what + " wrote " + size + " over a saved frame pointer or return address, or above the frame "
              "the course called the kernel from, on the thread's stack (" + buf + "): a pointer past a local variable?";
    throw kernel_error(msg + detail::diag::code_place(pc));
}

// The device buffer holding [a, a + n), remembered for the next access (quick()).
bool device(std::uintptr_t a, std::size_t n) {
    const range_t* r = holding(g_device, a, n);
    if (r == nullptr) return false;
    g_quick.lo[quick_ranges::last_device] = r->first;
    g_quick.hi[quick_ranges::last_device] = r->second;
    return true;
}

bool allowed(std::uintptr_t a, std::size_t n, bool write, const origin& from, verdict& why) {
    why = verdict::outside;
    if (a + n < a) return false;
    if (device(a, n) || shared(a, n)) return true;
    if (!write && builtin_read(a, n)) return true;
    why = stack(a, n, write, from);
    if (why != verdict::outside) return why == verdict::ok;
    if (write) return false;
    return inside(g_readonly, a, n);
}

}  // namespace

void launch_begin() {
    find_readonly();
    g_device = memory::payload_ranges();
    for (int k = 0; k < quick_ranges::sections; ++k) {
        g_quick.lo[k] = g_sections[k][0] != nullptr ? addr(g_sections[k][0]) : 1;
        g_quick.hi[k] = g_sections[k][0] != nullptr ? addr(g_sections[k][1]) : 0;
    }
    g_quick.lo[quick_ranges::last_device] = 1;
    g_quick.hi[quick_ranges::last_device] = 0;
}

void access(std::uintptr_t a, std::size_t n, bool write, const origin& from) {
    // Kernel code runs only inside a launch: outside one, the caller is course code reading
    // a lab's constants.
    if (detail::g_current == nullptr || n == 0) return;
    verdict why;
    if (!allowed(a, n, write, from, why)) refuse(a, n, write, from.pc - 1, "kernel code", why);
}

void atomic(std::uintptr_t a, std::size_t n, const origin& from) {
    if (detail::g_current == nullptr) return;
    // A GPU faults on a misaligned atomic; on the host it would lock the memory bus.
    if (n != 0 && a % n != 0) {
        std::string who = detail::where(detail::current_thread());
        who.resize(who.size() - 2);  // no ": "
        throw kernel_error(who + ": a misaligned atomic (" + std::to_string(n) + " bytes at an address that is not a multiple of " +
                           std::to_string(n) + ")" + detail::diag::code_place(from.pc - 1));
    }
    if (!device(a, n) && !shared(a, n)) refuse(a, n, true, from.pc - 1, "an atomic", verdict::outside);
}

void range(const void* p, std::size_t n, bool write, const origin& from, const char* what) {
    if (detail::g_current == nullptr || n == 0) return;
    verdict why;
    if (!allowed(addr(p), n, write, from, why)) refuse(addr(p), n, write, from.pc - 1, what, why);
}

std::size_t string_length(const char* s, std::size_t limit, const origin& from, const char* what) {
    std::size_t n = 0;
    while (n < limit) {
        range(s + n, 1, false, from, what);
        if (s[n] == '\0') break;
        ++n;
    }
    return n;
}

void set_stack_ceiling(std::uintptr_t sp) {
    if (detail::g_current == nullptr) return;
    auto& t = detail::current_thread();
    t.stack_ceiling = sp;
    if (t.stack_hi == 0) fiber::stack_range(t.linear, t.stack_lo, t.stack_hi);  // a thread keeps its stack
}

}  // namespace emu::check
