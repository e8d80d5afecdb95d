// make_input_by_kernel: one kernel writes the input and sums it in double, each thread a
// run of whole records one after another, and the host adds the threads' sums in order, so
// that the same input always gets the same figures. Deliberately plain: no shared memory
// (Nsight Compute's shared-memory counters and racecheck see only the student's kernels),
// no atomics, no warp operation, no coalescing, so that this file, which the student
// release holds, shows none of the labs' techniques. The GPU worker's make_input_on_device;
// the CPU emulator runs it too, in unit.input_maker.
#include "course/cuda_check.hpp"
#include "course/launch.hpp"
#include "inputs/input_element.hpp"
#include "worker/input_maker.hpp"

namespace course {

namespace {

constexpr unsigned block_threads = 256;
constexpr unsigned max_width = 32;
// The threads' sums the host reads back, a (sum, sum|x|) pair each per component: at most
// 1 MiB, however large the input.
constexpr std::size_t max_partials = 65536;

__global__ void make_and_sum(input_kind kind, std::uint64_t stream, float* out, std::size_t n, unsigned width,
                             std::size_t records_per_thread, std::size_t threads, double* partials) {
    const std::size_t t = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    double sum[max_width], sum_abs[max_width];
    for (unsigned c = 0; c < width; ++c) sum[c] = sum_abs[c] = 0;
    const std::size_t first = t * records_per_thread * width;
    const std::size_t end = first + records_per_thread * width;
    const std::size_t last = end < n * width ? end : n * width;
    unsigned c = 0;
    for (std::size_t i = first; i < last; ++i) {
        const float v = element::value(kind, stream, i);
        out[i] = v;
        sum[c] += v;
        sum_abs[c] += fabs(static_cast<double>(v));
        if (++c == width) c = 0;
    }
    for (unsigned k = 0; k < width; ++k) {
        partials[(t * width + k) * 2] = sum[k];
        partials[(t * width + k) * 2 + 1] = sum_abs[k];
    }
}

// The partial sums' room on the device and, page-locked, on the host: made once a process
// and kept for its life (a worker's), so that a case allocates and frees nothing (cudaFree
// waits for the device, and graders sharing a GPU wait for each other's allocations).
struct partials_room {
    double* device = nullptr;
    double* host = nullptr;
};

const partials_room& partials() {
    static const partials_room room = [] {
        void* device = nullptr;
        void* host = nullptr;
        CUDA_CHECK(cudaMalloc(&device, max_partials * 2 * sizeof(double)));
        CUDA_CHECK(cudaMallocHost(&host, max_partials * 2 * sizeof(double)));
        return partials_room{static_cast<double*>(device), static_cast<double*>(host)};
    }();
    return room;
}

}  // namespace

component_sums make_input_by_kernel(input_kind kind, std::uint64_t seed, float* out, std::size_t n, unsigned width) {
    if (width == 0 || width > max_width) return upload_input(kind, seed, out, n, width);
    component_sums sums;
    sums.sum.assign(width, 0.0);
    sums.sum_abs.assign(width, 0.0);
    if (n == 0) return sums;
    const std::size_t records_per_thread = (n + max_partials / width - 1) / (max_partials / width);
    const std::size_t threads = (n + records_per_thread - 1) / records_per_thread;
    const auto blocks = static_cast<unsigned>((threads + block_threads - 1) / block_threads);
    const partials_room& room = partials();
    launch("make_and_sum", make_and_sum, dim3(blocks), dim3(block_threads), kind, element::stream_of(seed), out, n,
           width, records_per_thread, threads, room.device);
    CUDA_CHECK(cudaMemcpy(room.host, room.device, threads * width * 2 * sizeof(double), cudaMemcpyDeviceToHost));
    for (std::size_t t = 0; t < threads; ++t) {
        for (unsigned c = 0; c < width; ++c) {
            sums.sum[c] += room.host[(t * width + c) * 2];
            sums.sum_abs[c] += room.host[(t * width + c) * 2 + 1];
        }
    }
    return sums;
}

}  // namespace course
