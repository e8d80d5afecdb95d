// Attack: rename the namespace with a macro so that the file defines the reference's
// kernels instead of its own, hoping the course times and checks those. Expected:
// refused (symbols outside the student's namespace; the student's kernels missing).
#include "contracts/lab3.cuh"
#undef LAB_IMPL
#define LAB_IMPL lab3_reference

namespace LAB_IMPL {

__global__ void reduce_first_add(const float* in, float* out, unsigned n) {}
__global__ void reduce_warp_unrolled(const float* in, float* out, unsigned n) {}
template <unsigned BlockSize>
__global__ void reduce_full_unroll(const float* in, float* out, unsigned n) {}

}  // namespace LAB_IMPL
