// Attack: a macro defined before a CUDA header it changes: here __shfl_down_sync in
// <cooperative_groups.h> becomes a plain read of the lane's own value, so the header's
// shuffles are counted as shuffles and do nothing. Expected: refused on every backend
// (every #include must come before the file's first macro).
#include "contracts/lab4.cuh"

#define __shfl_down_sync(mask, v, d, ...) (v)
#include <cooperative_groups.h>

namespace LAB_IMPL {

__global__ void reduce_shuffle(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

__global__ void reduce_vectorized(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
