#pragma once
// Emulated device memory: every cudaMalloc gets its own mapping with an inaccessible page
// on each side, and the allocation ends as close to the upper page as float4 alignment
// allows. A read or write past the end faults at once; the few slack bytes before the
// page, and the gap before the start, are filled with 0xFF and checked after every launch.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace emu::memory {

void* allocate(std::size_t bytes);
bool release(void* ptr);  // false: not an emulated allocation
void set_label(void* ptr, const char* label);
// What the owner uses of an allocation: `count` elements of `elem_bytes` (the grader's
// guarded buffers hold guard words past them), so that out-of-bounds messages give the
// index and the size the kernel was told.
void set_payload(void* ptr, std::size_t count, std::size_t elem_bytes, const char* elem_name);

// "4 bytes past the end of device buffer 'input' (1028 bytes)", or "" if the address
// is not near any allocation.
std::string describe_address(std::uintptr_t addr);

// Throws emu::kernel_error naming the buffer if a kernel wrote into the slack around an
// allocation. `kernel` names the launch for the message.
void check_slack(const char* kernel);

// True when [ptr, ptr + bytes) lies inside one allocation.
bool is_device_range(const void* ptr, std::size_t bytes);

// Every allocation's accessible bytes [first, second), sorted: what a traced launch
// counts as global memory (common/emu/trace_requests.cpp).
std::vector<std::pair<std::uintptr_t, std::uintptr_t>> device_ranges();

// Every allocation as cudaMalloc returned it, [start, start + size), sorted: what kernel
// code may access (access_check.cpp).
std::vector<std::pair<std::uintptr_t, std::uintptr_t>> payload_ranges();

// Device memory shared with a child process (the grader's kernel executor,
// grader/worker/executor.hpp): one shared mapping of `bytes`, reserved before the fork so
// that it lies at the same address in both, from which every later allocation is carved.
// The allocating process keeps the guard pages; the child opens the whole arena
// (open_arena) and learns the allocations from the parent (snapshot, install).
void use_shared_arena(std::size_t bytes);
void open_arena();

struct allocation_info {
    std::uintptr_t user = 0;
    std::size_t bytes = 0;
    std::uintptr_t body = 0, body_end = 0;  // the accessible pages around it
    std::string label;
    std::size_t count = 0, elem_bytes = 0;
    std::string elem_name;
};
std::vector<allocation_info> snapshot();
// Replaces this process's table of allocations (without mapping anything): they are in
// the arena already.
void install(const std::vector<allocation_info>& table);

}  // namespace emu::memory
