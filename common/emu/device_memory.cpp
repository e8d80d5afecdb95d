#include "emu/device_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <iterator>
#include <map>
#include <new>
#include <mutex>

#include "emu/cuda_emu.hpp"

namespace emu::memory {

namespace {

constexpr unsigned char slack_byte = 0xFF;
constexpr std::size_t alignment = 16;  // float4 / int4

struct allocation {
    char* map = nullptr;      // start of the mapping (a guard page)
    std::size_t map_len = 0;  // whole mapping
    char* user = nullptr;     // what cudaMalloc returned
    std::size_t bytes = 0;
    char* body = nullptr;     // first accessible byte
    char* body_end = nullptr;
    std::string label = "device buffer";
    // What the owner uses of it, when it said (set_payload): the grader follows each
    // buffer with guard words of its own, which are not part of what the kernel was given.
    std::size_t elem_bytes = 0;  // 0: not said, the whole allocation in bytes
    std::size_t count = 0;
    std::string elem_name;
};

std::size_t page_size() {
    static const std::size_t p = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return p;
}

std::mutex& lock() {
    static std::mutex m;
    return m;
}
std::map<std::uintptr_t, allocation>& table() {  // keyed by user address
    static std::map<std::uintptr_t, allocation> t;
    return t;
}

// The shared arena (use_shared_arena): its mapping and its free page spans by offset.
struct arena_state {
    char* base = nullptr;
    std::size_t bytes = 0;
    std::map<std::size_t, std::size_t> free;  // offset -> length
    bool borrowed = false;                     // the child's view: it allocates nothing itself
};
arena_state& arena() {
    static arena_state a;
    return a;
}

// `len` bytes of address space with no access, from the arena when there is one.
void* reserve(std::size_t len) {
    arena_state& a = arena();
    if (a.borrowed) return nullptr;
    if (a.base == nullptr) {
        // Shared, so that the processes of a block pool (block_pool.hpp) write the same memory.
        void* p = mmap(nullptr, len, PROT_NONE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        return p == MAP_FAILED ? nullptr : p;
    }
    for (auto it = a.free.begin(); it != a.free.end(); ++it) {
        if (it->second < len) continue;
        const std::size_t offset = it->first, rest = it->second - len;
        a.free.erase(it);
        if (rest > 0) a.free[offset + len] = rest;
        return a.base + offset;
    }
    return nullptr;
}

void unreserve(void* p, std::size_t len) {
    arena_state& a = arena();
    if (a.base == nullptr) {
        munmap(p, len);
        return;
    }
    // Back to no access, and the pages' memory back to the system.
    mprotect(p, len, PROT_NONE);
    madvise(p, len, MADV_REMOVE);
    std::size_t offset = static_cast<std::size_t>(static_cast<char*>(p) - a.base);
    auto next = a.free.lower_bound(offset);
    if (next != a.free.end() && offset + len == next->first) {
        len += next->second;
        next = a.free.erase(next);
    }
    if (next != a.free.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == offset) {
            prev->second += len;
            return;
        }
    }
    a.free[offset] = len;
}

bool slack_intact(const char* from, const char* to) {
    for (const char* p = from; p < to; ++p)
        if (static_cast<unsigned char>(*p) != slack_byte) return false;
    return true;
}

}  // namespace

void* allocate(std::size_t bytes) {
    const std::size_t page = page_size();
    const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
    const std::size_t body = (rounded + page - 1) / page * page;
    const std::size_t len = body + 2 * page;
    std::lock_guard<std::mutex> g(lock());
    void* p = reserve(len);
    if (p == nullptr) return nullptr;
    allocation a;
    a.map = static_cast<char*>(p);
    a.map_len = len;
    a.body = a.map + page;
    a.body_end = a.body + body;
    if (body > 0 && mprotect(a.body, body, PROT_READ | PROT_WRITE) != 0) {
        unreserve(p, len);
        return nullptr;
    }
    // Uninitialised device memory reads as NaN, like the grader's poison.
    std::memset(a.body, slack_byte, body);
    a.user = a.body_end - rounded;
    a.bytes = bytes;
    table()[reinterpret_cast<std::uintptr_t>(a.user)] = a;
    return a.user;
}

bool release(void* ptr) {
    std::lock_guard<std::mutex> g(lock());
    auto it = table().find(reinterpret_cast<std::uintptr_t>(ptr));
    if (it == table().end()) return false;
    unreserve(it->second.map, it->second.map_len);
    table().erase(it);
    return true;
}

void set_label(void* ptr, const char* label) {
    std::lock_guard<std::mutex> g(lock());
    auto it = table().find(reinterpret_cast<std::uintptr_t>(ptr));
    if (it != table().end() && label != nullptr) it->second.label = label;
}

namespace {

// "device buffer 'input', which holds 1024 floats (indices 0 to 1023)"
std::string payload_text(const allocation& a) {
    std::string text = "device buffer '" + a.label + "', which holds ";
    if (a.count == 0) return text + "no " + a.elem_name + "s";
    text += std::to_string(a.count) + " " + a.elem_name + (a.count == 1 ? "" : "s");
    return text + (a.count == 1 ? " (index 0 only)" : " (indices 0 to " + std::to_string(a.count - 1) + ")");
}

// "device buffer 'out' (256 bytes)": a buffer whose owner did not say what it holds.
std::string buffer_text(const allocation& a) {
    return "device buffer '" + a.label + "' (" + std::to_string(a.bytes) + " bytes)";
}

// Where `addr` lies as an index into the payload: the student's view of the buffer, which
// ends before the guard words, not where the mapping ends.
std::string index_text(const allocation& a, std::uintptr_t addr) {
    const auto user = reinterpret_cast<std::uintptr_t>(a.user);
    const std::uintptr_t payload_end = user + a.count * a.elem_bytes;
    if (addr < user)
        return "index -" + std::to_string((user - addr + a.elem_bytes - 1) / a.elem_bytes) +
               ", before the start of " + payload_text(a);
    const std::string index = "index " + std::to_string((addr - user) / a.elem_bytes);
    return index + (addr >= payload_end ? ", past the end of " : " of ") + payload_text(a);
}

}  // namespace

void set_payload(void* ptr, std::size_t count, std::size_t elem_bytes, const char* elem_name) {
    std::lock_guard<std::mutex> g(lock());
    auto it = table().find(reinterpret_cast<std::uintptr_t>(ptr));
    if (it == table().end() || elem_bytes == 0 || count * elem_bytes > it->second.bytes) return;
    it->second.count = count;
    it->second.elem_bytes = elem_bytes;
    it->second.elem_name = elem_name != nullptr ? elem_name : "element";
}

std::string describe_address(std::uintptr_t addr) {
    std::lock_guard<std::mutex> g(lock());
    for (const auto& [key, a] : table()) {
        const auto map = reinterpret_cast<std::uintptr_t>(a.map);
        if (addr < map || addr >= map + a.map_len) continue;
        if (a.elem_bytes > 0) return index_text(a, addr);
        const auto user = reinterpret_cast<std::uintptr_t>(a.user);
        const std::string what = buffer_text(a);
        if (addr >= user + a.bytes) return std::to_string(addr - (user + a.bytes)) + " bytes past the end of " + what;
        if (addr < user) return std::to_string(user - addr) + " bytes before the start of " + what;
        return "inside " + what;
    }
    return "";
}

void check_slack(const char* kernel) {
    std::lock_guard<std::mutex> g(lock());
    for (const auto& [key, a] : table()) {
        const char* end = a.user + a.bytes;
        const bool after_ok = slack_intact(end, a.body_end);
        const bool before_ok = slack_intact(a.body, a.user);
        if (after_ok && before_ok) continue;
        // The first byte written past the end, or the last one before the start.
        const char* hit = end;
        if (!after_ok) {
            while (static_cast<unsigned char>(*hit) == slack_byte) ++hit;
        } else {
            hit = a.user - 1;
            while (static_cast<unsigned char>(*hit) == slack_byte) --hit;
        }
        const std::string what =
            a.elem_bytes > 0
                ? index_text(a, reinterpret_cast<std::uintptr_t>(hit))
                : (after_ok ? "before the start of " : "past the end of ") + buffer_text(a);
        // Re-arm, so the next launch is judged on its own.
        std::memset(const_cast<char*>(end), slack_byte, static_cast<std::size_t>(a.body_end - end));
        std::memset(a.body, slack_byte, static_cast<std::size_t>(a.user - a.body));
        throw kernel_error(std::string("kernel '") + kernel + "' wrote " + what);
    }
}

bool is_device_range(const void* ptr, std::size_t bytes) {
    const auto p = reinterpret_cast<std::uintptr_t>(ptr);
    std::lock_guard<std::mutex> g(lock());
    auto it = table().upper_bound(p);
    if (it == table().begin()) return false;
    --it;
    const auto user = it->first;
    return p >= user && p + bytes <= user + it->second.bytes;
}

std::vector<std::pair<std::uintptr_t, std::uintptr_t>> device_ranges() {
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> out;
    std::lock_guard<std::mutex> g(lock());
    for (const auto& [user, a] : table())
        out.emplace_back(reinterpret_cast<std::uintptr_t>(a.body), reinterpret_cast<std::uintptr_t>(a.body_end));
    return out;
}

std::vector<std::pair<std::uintptr_t, std::uintptr_t>> payload_ranges() {
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> out;
    std::lock_guard<std::mutex> g(lock());
    for (const auto& [user, a] : table()) out.emplace_back(user, user + a.bytes);
    return out;
}

void use_shared_arena(std::size_t bytes) {
    arena_state& a = arena();
    if (a.base != nullptr) return;
    const std::size_t page = page_size();
    bytes = (bytes + page - 1) / page * page;
    void* p = mmap(nullptr, bytes, PROT_NONE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    a.base = static_cast<char*>(p);
    a.bytes = bytes;
    a.free[0] = bytes;
}

void open_arena() {
    arena_state& a = arena();
    a.borrowed = true;
    if (a.base != nullptr) mprotect(a.base, a.bytes, PROT_READ | PROT_WRITE);
}

std::vector<allocation_info> snapshot() {
    std::vector<allocation_info> out;
    std::lock_guard<std::mutex> g(lock());
    for (const auto& [user, a] : table())
        out.push_back({user, a.bytes, reinterpret_cast<std::uintptr_t>(a.body), reinterpret_cast<std::uintptr_t>(a.body_end),
                       a.label, a.count, a.elem_bytes, a.elem_name});
    return out;
}

void install(const std::vector<allocation_info>& entries) {
    std::lock_guard<std::mutex> g(lock());
    table().clear();
    for (const auto& e : entries) {
        allocation a;
        a.user = reinterpret_cast<char*>(e.user);
        a.bytes = e.bytes;
        a.body = reinterpret_cast<char*>(e.body);
        a.body_end = reinterpret_cast<char*>(e.body_end);
        a.map = a.body - page_size();
        a.map_len = static_cast<std::size_t>(a.body_end - a.body) + 2 * page_size();
        a.label = e.label;
        a.count = e.count;
        a.elem_bytes = e.elem_bytes;
        a.elem_name = e.elem_name;
        table()[e.user] = a;
    }
}

}  // namespace emu::memory

namespace emu {
void label_allocation(void* ptr, const char* label) { memory::set_label(ptr, label); }
}  // namespace emu
