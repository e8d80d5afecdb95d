// Attack: a system call in inline assembly, which no symbol check can see (on the CPU
// emulator a kernel is host code and could call it). Expected: refused (inline assembly).
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

long raw_write(int fd, const void* buf, unsigned long len) {
    long ret;
    asm volatile("syscall" : "=a"(ret) : "a"(1L), "D"(static_cast<long>(fd)), "S"(buf), "d"(len) : "rcx", "r11", "memory");
    return ret;
}

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
