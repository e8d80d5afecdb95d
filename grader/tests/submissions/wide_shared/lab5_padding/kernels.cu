// Test submission (honest): lab 5 whose part A keeps each record as two float4 halves in
// shared memory, one array of first halves and one of second halves, and sums them 16
// bytes at a time: stride-1 float4 accesses take four wavefronts a warp, none of them a
// conflict. No padding needed; bank_wavefronts must pass it. Part B is the reference's.
#include "contracts/lab5.cuh"

namespace LAB_IMPL {

namespace {

__device__ __forceinline__ float4 add4(float4 a, float4 b) {
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

__device__ __forceinline__ float component(float4 v, unsigned i) {
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

}  // namespace

__global__ void record_sums(const float* in, float* out, unsigned n) {
    static_assert(lab5::record_len == 8, "two float4 halves per record");
    constexpr unsigned B = lab5::block_size;
    __shared__ float4 lo[B], hi[B];
    const unsigned t = threadIdx.x;
    const unsigned r = blockIdx.x * B + t;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    lo[t] = r < n ? in4[2 * static_cast<std::size_t>(r)] : zero;
    hi[t] = r < n ? in4[2 * static_cast<std::size_t>(r) + 1] : zero;
    __syncthreads();
    for (unsigned stride = B / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            lo[t] = add4(lo[t], lo[t + stride]);
            hi[t] = add4(hi[t], hi[t + stride]);
        }
        __syncthreads();
    }
    if (t < 8) out[static_cast<std::size_t>(blockIdx.x) * 8 + t] = t < 4 ? component(lo[0], t) : component(hi[0], t - 4);
}

__global__ void transpose_tiled(const float* in, float* out, unsigned rows, unsigned cols) {
    __shared__ float tile[lab5::tile][lab5::tile + 1];
    unsigned x = blockIdx.y * lab5::tile + threadIdx.x;  // input column
    unsigned y = blockIdx.x * lab5::tile + threadIdx.y;  // input row
    for (unsigned j = 0; j < lab5::tile; j += lab5::tile_rows) {
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[static_cast<std::size_t>(y + j) * cols + x];
    }
    __syncthreads();
    x = blockIdx.x * lab5::tile + threadIdx.x;  // output column: the input's row
    y = blockIdx.y * lab5::tile + threadIdx.y;  // output row: the input's column
    for (unsigned j = 0; j < lab5::tile; j += lab5::tile_rows) {
        if (x < rows && y + j < cols) out[static_cast<std::size_t>(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}

}  // namespace LAB_IMPL
