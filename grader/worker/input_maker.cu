// The GPU's make_input_on_device: one kernel writes the input and sums it in double. No
// shared memory (Nsight Compute's shared-memory counters and racecheck see only the
// student's kernels) and no atomics: every warp leaves its own partial sums, which the host
// adds in warp order, so the same input always gets the same figures.
#include <algorithm>

#include "course/cuda_check.hpp"
#include "inputs/input_element.hpp"
#include "worker/input_maker.hpp"

namespace course {

namespace {

constexpr unsigned block_threads = 256;
constexpr unsigned max_blocks = 512;
constexpr unsigned warp = 32;

// Element i of a record array is component i % width. The grid's stride is a multiple of
// width (width divides 32), so each thread only ever sees one component, lane % width, and
// shuffles over the lanes of one component add up what the warp saw of it.
__global__ void make_and_sum(input_kind kind, std::uint64_t stream, float* out, std::size_t count, unsigned width,
                             double* partials) {
    const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
    double sum = 0, sum_abs = 0;
    for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) {
        const float v = element::value(kind, stream, i);
        out[i] = v;
        sum += v;
        sum_abs += fabs(static_cast<double>(v));
    }
    for (unsigned offset = warp / 2; offset >= width; offset /= 2) {
        sum += __shfl_xor_sync(0xffffffffu, sum, offset);
        sum_abs += __shfl_xor_sync(0xffffffffu, sum_abs, offset);
    }
    const unsigned lane = threadIdx.x % warp;
    if (lane < width) {
        const std::size_t w = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / warp;
        partials[(w * width + lane) * 2] = sum;
        partials[(w * width + lane) * 2 + 1] = sum_abs;
    }
}

// The partial sums' room on the device and, page-locked, on the host: made once a process
// and kept for its life (a worker's), so that a case allocates and frees nothing (cudaFree
// waits for the device, and graders sharing a GPU wait for each other's allocations).
constexpr std::size_t max_partials = std::size_t{max_blocks} * (block_threads / warp) * warp * 2;

struct partials_room {
    double* device = nullptr;
    double* host = nullptr;
};

const partials_room& partials() {
    static const partials_room room = [] {
        partials_room r;
        CUDA_CHECK(cudaMalloc(&r.device, max_partials * sizeof(double)));
        CUDA_CHECK(cudaMallocHost(&r.host, max_partials * sizeof(double)));
        return r;
    }();
    return room;
}

}  // namespace

component_sums make_input_on_device(input_kind kind, std::uint64_t seed, float* out, std::size_t n, unsigned width) {
    if (width == 0 || width > warp || warp % width != 0) return upload_input(kind, seed, out, n, width);
    component_sums sums;
    sums.sum.assign(width, 0.0);
    sums.sum_abs.assign(width, 0.0);
    const std::size_t count = n * width;
    if (count == 0) return sums;
    const auto blocks = static_cast<unsigned>(
        std::min<std::size_t>(max_blocks, (count + block_threads - 1) / block_threads));
    const std::size_t warps = std::size_t{blocks} * (block_threads / warp);
    const partials_room& room = partials();
    make_and_sum<<<blocks, block_threads>>>(kind, element::stream_of(seed), out, count, width, room.device);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(room.host, room.device, warps * width * 2 * sizeof(double), cudaMemcpyDeviceToHost));
    const double* host = room.host;
    for (std::size_t w = 0; w < warps; ++w) {
        for (unsigned c = 0; c < width; ++c) {
            sums.sum[c] += host[(w * width + c) * 2];
            sums.sum_abs[c] += host[(w * width + c) * 2 + 1];
        }
    }
    return sums;
}

}  // namespace course
