#pragma once
// A launch's blocks spread over the cores: cut into contiguous ranges in launch order, the
// first run by this process and each other one by a child forked for the launch. What one
// block can change that another may see lies in memory the processes share: the device
// allocations (device_memory.cpp maps them shared), the __device__ variables (lab_data.ld
// gives them pages of their own, shared here before the first fork) and the kernel printf
// budget. __shared__ arrays stay private, as each block's are on a GPU.
//
// Each child sends back how its blocks ended and what they counted (memory counters,
// counters per instruction, warp shuffles, hazards), which are merged in block order: a
// launch reports what running its blocks one after another reports, on any number of cores.
// Internal to the emulator.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace emu::detail {

struct launch_outcome {
    enum kind_t { ok, error, timeout } kind = ok;
    std::string message;
};

// Runs blocks [first, last) of the launch in this process, in launch order, until one fails.
using block_runner = launch_outcome (*)(std::uint64_t first, std::uint64_t last);

// Runs blocks [0, blocks) of the launch over the pool; false, having run nothing, when one
// process should run them all (one core, a small launch, memory that cannot be shared).
bool run_in_pool(std::uint64_t blocks, unsigned threads_per_block, block_runner run, launch_outcome& out);

// Bytes of kernel printf output so far, over all the pool's processes (libc_shims.cpp).
std::atomic<std::size_t>& printed_bytes();

}  // namespace emu::detail
