// Kernels for the emulator's tests, with host wrappers. Compiled by nvcc for the GPU and
// as C++ (COURSE_EMULATE) for the CPU emulator.
#include "emu_probe_kernels.cuh"

#include "course/device_buffer.hpp"
#include "course/launch.hpp"

namespace probe {

namespace {

template <typename T>
course::device_buffer<T> upload(const std::vector<T>& host, const char* label) {
    course::device_buffer<T> d(host.size(), label);
    d.upload(host.data(), host.size());
    return d;
}

template <typename T>
std::vector<T> download(const course::device_buffer<T>& d) {
    std::vector<T> host(d.size());
    d.download(host.data(), host.size());
    return host;
}

__global__ void k_shuffle_down(const float* in, float* out) {
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x % 32 == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}

__global__ void k_shuffle_patterns(int* out, int width) {
    const int lane = static_cast<int>(threadIdx.x);
    out[lane] = __shfl_sync(0xffffffffu, lane * 10, 3, width);
    out[32 + lane] = __shfl_up_sync(0xffffffffu, lane * 10, 2, width);
    out[64 + lane] = __shfl_down_sync(0xffffffffu, lane * 10, 2, width);
    out[96 + lane] = __shfl_xor_sync(0xffffffffu, lane * 10, 1, width);
}

__global__ void k_ballot(const int* pred, unsigned* out) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned b = __ballot_sync(0xffffffffu, pred[i]);
    if (threadIdx.x % 32 == 0) out[i / 32] = b;
}

__global__ void k_syncwarp_tail(const float* in, float* out) {
    __shared__ float s[64];
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        float v = s[t];
        for (unsigned k = 32; k > 0; k /= 2) {
            v += s[t + k];
            __syncwarp();
            s[t] = v;
            __syncwarp();
        }
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// The classic pre-Volta tail: no __syncwarp, lanes assumed to run in lockstep. A data race.
__global__ void k_volatile_tail(const float* in, float* out) {
    __shared__ float s[64];
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        volatile float* v = s;
        v[t] += v[t + 32];
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void k_syncthreads_count(const int* pred, int* out) {
    const int c = __syncthreads_count(pred[blockIdx.x * blockDim.x + threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = c;
}

__global__ void k_shared_per_block(float* out) {
    __shared__ float mine;
    if (threadIdx.x == 0) mine = static_cast<float>(blockIdx.x);
    __syncthreads();
    // Every thread checks that no other block's value leaked in.
    if (mine != static_cast<float>(blockIdx.x)) out[blockIdx.x] = -1.0f;
    __syncthreads();
    if (threadIdx.x == 0 && out[blockIdx.x] != -1.0f) out[blockIdx.x] = mine;
}

__global__ void k_histogram(const unsigned* v, unsigned n, unsigned* bins) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[v[i] % 16], 1u);
}

__global__ void k_float4_copy(const float* in, float* out, unsigned n4) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) reinterpret_cast<float4*>(out)[i] = __ldg(reinterpret_cast<const float4*>(in) + i);
}

__global__ void k_grid_indices(unsigned* out) {
    const unsigned bx = blockIdx.x + gridDim.x * blockIdx.y;
    const unsigned tx = threadIdx.x + blockDim.x * threadIdx.y;
    const unsigned id = bx * (blockDim.x * blockDim.y) + tx;
    out[id] = id;
}

__global__ void k_divergent_syncthreads(float* out) {
    __shared__ float s[256];
    s[threadIdx.x] = 1.0f;
    if (threadIdx.x < 128) {
        __syncthreads();
        out[threadIdx.x] = s[threadIdx.x + 128];
    }
}

__global__ void k_mismatched_syncthreads(float* out) {
    if (threadIdx.x < 128) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = 0.0f;
}

__global__ void k_early_return(float* out, unsigned n) {
    __shared__ float s[256];
    const unsigned i = threadIdx.x;
    if (i >= n) return;
    s[i] = 1.0f;
    __syncthreads();
    out[i] = s[0];
}

__global__ void k_shuffle_missing_lane(float* out) {
    if (threadIdx.x >= 16) return;
    const float v = __shfl_down_sync(0xffffffffu, 1.0f, 1);
    out[threadIdx.x] = v;
}

__global__ void k_shuffle_vs_barrier(float* out) {
    float v = 1.0f;
    if (threadIdx.x < 16) v = __shfl_sync(0xffffffffu, v, 0);
    __syncthreads();
    out[threadIdx.x] = v;
}

__global__ void k_full_mask_partial_warp(float* out) {
    out[threadIdx.x] = __shfl_down_sync(0xffffffffu, 1.0f, 1);
}

__global__ void k_shuffle_outside_mask(float* out) {
    if (threadIdx.x < 16) out[threadIdx.x] = __shfl_down_sync(0x0000ffffu, static_cast<float>(threadIdx.x), 1);
}

__global__ void k_write_past_end(float* out, unsigned n) {
    out[threadIdx.x] = 1.0f;
    if (threadIdx.x == 0) out[n] = 2.0f;
}

__global__ void k_read_far_past_end(const float* in, float* out, unsigned n) {
    out[0] = in[n + 4096];
}

__global__ void k_spin(const int* flag, int* out) {
    while (*reinterpret_cast<const volatile int*>(flag) == 0) {
    }
    out[0] = 1;
}

}  // namespace

std::vector<float> shuffle_down_sums(const std::vector<float>& in) {
    auto d_in = upload(in, "in");
    course::device_buffer<float> d_out(in.size() / 32, "out");
    course::launch("k_shuffle_down", k_shuffle_down, dim3(static_cast<unsigned>(in.size() / 64)), dim3(64),
                   d_in.data(), d_out.data());
    return download(d_out);
}

std::vector<int> shuffle_patterns(int width) {
    course::device_buffer<int> d_out(128, "out");
    course::launch("k_shuffle_patterns", k_shuffle_patterns, dim3(1), dim3(32), d_out.data(), width);
    return download(d_out);
}

std::vector<unsigned> ballots(const std::vector<int>& predicate) {
    auto d_pred = upload(predicate, "predicate");
    course::device_buffer<unsigned> d_out(predicate.size() / 32, "out");
    course::launch("k_ballot", k_ballot, dim3(static_cast<unsigned>(predicate.size() / 64)), dim3(64), d_pred.data(),
                   d_out.data());
    return download(d_out);
}

std::vector<float> syncwarp_tail_sums(const std::vector<float>& in) {
    auto d_in = upload(in, "in");
    course::device_buffer<float> d_out(in.size() / 64, "out");
    course::launch("k_syncwarp_tail", k_syncwarp_tail, dim3(static_cast<unsigned>(in.size() / 64)), dim3(64),
                   d_in.data(), d_out.data());
    return download(d_out);
}

std::vector<float> volatile_tail_sums(const std::vector<float>& in) {
    auto d_in = upload(in, "in");
    course::device_buffer<float> d_out(in.size() / 64, "out");
    course::launch("k_volatile_tail", k_volatile_tail, dim3(static_cast<unsigned>(in.size() / 64)), dim3(64),
                   d_in.data(), d_out.data());
    return download(d_out);
}

std::vector<int> syncthreads_counts(const std::vector<int>& predicate) {
    auto d_pred = upload(predicate, "predicate");
    course::device_buffer<int> d_out(predicate.size() / 128, "out");
    course::launch("k_syncthreads_count", k_syncthreads_count, dim3(static_cast<unsigned>(predicate.size() / 128)),
                   dim3(128), d_pred.data(), d_out.data());
    return download(d_out);
}

std::vector<float> shared_is_per_block(unsigned blocks) {
    course::device_buffer<float> d_out(blocks, "out");
    d_out.fill_bytes(0);
    course::launch("k_shared_per_block", k_shared_per_block, dim3(blocks), dim3(64), d_out.data());
    return download(d_out);
}

std::vector<unsigned> atomic_histogram(const std::vector<unsigned>& values) {
    auto d_v = upload(values, "values");
    course::device_buffer<unsigned> d_bins(16, "bins");
    d_bins.fill_bytes(0);
    const unsigned n = static_cast<unsigned>(values.size());
    course::launch("k_histogram", k_histogram, dim3((n + 127) / 128), dim3(128), d_v.data(), n, d_bins.data());
    return download(d_bins);
}

std::vector<float> float4_copy(const std::vector<float>& in) {
    auto d_in = upload(in, "in");
    course::device_buffer<float> d_out(in.size(), "out");
    const unsigned n4 = static_cast<unsigned>(in.size() / 4);
    course::launch("k_float4_copy", k_float4_copy, dim3((n4 + 63) / 64), dim3(64), d_in.data(), d_out.data(), n4);
    return download(d_out);
}

std::vector<unsigned> grid_indices(unsigned gx, unsigned gy, unsigned bx, unsigned by) {
    course::device_buffer<unsigned> d_out(gx * gy * bx * by, "out");
    course::launch("k_grid_indices", k_grid_indices, dim3(gx, gy), dim3(bx, by), d_out.data());
    return download(d_out);
}

void divergent_syncthreads() {
    course::device_buffer<float> out(256, "out");
    course::launch("k_divergent_syncthreads", k_divergent_syncthreads, dim3(1), dim3(256), out.data());
    CUDA_CHECK(cudaDeviceSynchronize());
}

void mismatched_syncthreads() {
    course::device_buffer<float> out(256, "out");
    course::launch("k_mismatched_syncthreads", k_mismatched_syncthreads, dim3(1), dim3(256), out.data());
    CUDA_CHECK(cudaDeviceSynchronize());
}

void early_return_then_sync() {
    course::device_buffer<float> out(256, "out");
    course::launch("k_early_return", k_early_return, dim3(1), dim3(256), out.data(), 100u);
    CUDA_CHECK(cudaDeviceSynchronize());
}

void shuffle_missing_lane() {
    course::device_buffer<float> out(32, "out");
    course::launch("k_shuffle_missing_lane", k_shuffle_missing_lane, dim3(1), dim3(32), out.data());
    CUDA_CHECK(cudaDeviceSynchronize());
}

void shuffle_vs_barrier_deadlock() {
    course::device_buffer<float> out(64, "out");
    course::launch("k_shuffle_vs_barrier", k_shuffle_vs_barrier, dim3(1), dim3(64), out.data());
    CUDA_CHECK(cudaDeviceSynchronize());
}

void mask_names_missing_lanes() {
    course::device_buffer<float> out(48, "out");
    course::launch("k_full_mask_partial_warp", k_full_mask_partial_warp, dim3(1), dim3(48), out.data());
    CUDA_CHECK(cudaDeviceSynchronize());
}

void shuffle_reads_outside_mask() {
    course::device_buffer<float> out(32, "out");
    course::launch("k_shuffle_outside_mask", k_shuffle_outside_mask, dim3(1), dim3(32), out.data());
    CUDA_CHECK(cudaDeviceSynchronize());
}

void write_past_end(unsigned n) {
    course::device_buffer<float> out(n, "out");
    course::launch("k_write_past_end", k_write_past_end, dim3(1), dim3(n), out.data(), n);
    CUDA_CHECK(cudaDeviceSynchronize());
}

void read_far_past_end() {
    course::device_buffer<float> in(64, "in");
    course::device_buffer<float> out(1, "out");
    course::launch("k_read_far_past_end", k_read_far_past_end, dim3(1), dim3(1), in.data(), out.data(), 64u);
    CUDA_CHECK(cudaDeviceSynchronize());
}

void spin_forever() {
    course::device_buffer<int> flag(1, "flag");
    flag.fill_bytes(0);
    course::device_buffer<int> out(1, "out");
    course::launch("k_spin", k_spin, dim3(1), dim3(1), flag.data(), out.data());
    CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace probe
