// Attack: a local array indexed past its end, onto the thread's saved frame pointer and
// return address (on the emulator, the way to send a kernel's return into host code).
// Expected: refused on the emulator (a store above its own frame); never a pass on a GPU.
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    volatile unsigned long long slots[4] = {0, 0, 0, 0};
    for (unsigned i = 0; i < 4 + (n & 7u) + 4; ++i) slots[i] = 0x401000ull;
    if (threadIdx.x == 0) out[blockIdx.x] = static_cast<float>(slots[0] & 1u);
}

}  // namespace LAB_IMPL
