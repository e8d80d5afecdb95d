// Attack: macros named like the course's own code (the binding's part factory, the
// launch helper, the error check), meant to redirect what the course times and checks.
// The kernels are the untouched stubs. Expected: compiles (macros are allowed), but no
// course code sees the macros, so the stubs fail correctness as they should.
#include "contracts/lab3.cuh"

#define parts parts_hijacked
#define make_reduction_part(...) make_reduction_part_of_reference(__VA_ARGS__)
#define reduce_on_device(...) (void)0
#define CUDA_CHECK(x) (void)0

namespace LAB_IMPL {

__global__ void reduce_first_add(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

__global__ void reduce_warp_unrolled(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

template <unsigned BlockSize>
__global__ void reduce_full_unroll(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
