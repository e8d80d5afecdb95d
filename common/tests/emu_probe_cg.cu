// Cooperative-groups kernels for the emulator's tests, with host wrappers. Compiled by nvcc
// against the CUDA toolkit's headers and as C++ (COURSE_EMULATE) against the emulator's.
#include "emu_probe_cg.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "course/device_buffer.hpp"
#include "course/launch.hpp"

namespace cg = cooperative_groups;

namespace probe_cg {

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

__global__ void k_tile32_sums(const float* in, float* out) {
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int offset = tile.size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
    if (tile.thread_rank() == 0) out[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = v;
}

__global__ void k_tile16_patterns(int* out) {
    const auto tile = cg::tiled_partition<16>(cg::this_thread_block());
    const int lane = static_cast<int>(threadIdx.x);
    out[lane] = tile.shfl(lane * 10, 3);
    out[32 + lane] = tile.shfl_up(lane * 10, 1);
    out[64 + lane] = tile.shfl_down(lane * 10, 2);
    out[96 + lane] = tile.shfl_xor(lane * 10, 4);
}

__global__ void k_ranks(int* out) {
    const auto block = cg::this_thread_block();
    const auto t8 = cg::tiled_partition<8>(block);
    const auto t16 = cg::tiled_partition<16>(block);
    const auto t4 = cg::tiled_partition<4>(t16);
    const cg::thread_group dynamic8 = cg::tiled_partition(block, 8);
    int* o = out + 9 * (threadIdx.x + blockDim.x * threadIdx.y);
    o[0] = static_cast<int>(block.thread_rank());
    o[1] = static_cast<int>(block.size());
    o[2] = static_cast<int>(t8.thread_rank());
    o[3] = static_cast<int>(t8.meta_group_rank());
    o[4] = static_cast<int>(t8.meta_group_size());
    o[5] = static_cast<int>(t4.thread_rank());
    o[6] = static_cast<int>(t4.meta_group_rank());
    o[7] = static_cast<int>(t4.meta_group_size());
    o[8] = static_cast<int>(dynamic8.thread_rank());
}

__global__ void k_reduce(const int* in, int* plus, int* greater, int* less8, unsigned* bits) {
    const auto block = cg::this_thread_block();
    const auto tile = cg::tiled_partition<32>(block);
    const auto t8 = cg::tiled_partition<8>(block);
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = in[i];
    const int sum = cg::reduce(tile, v, cg::plus<int>());
    const int largest = cg::reduce(tile, v, cg::greater<int>());
    const int smallest = cg::reduce(t8, v, cg::less<int>());
    const unsigned u = static_cast<unsigned>(v);
    const unsigned all_and = cg::reduce(tile, u, cg::bit_and<unsigned>());
    const unsigned all_or = cg::reduce(tile, u, cg::bit_or<unsigned>());
    const unsigned all_xor = cg::reduce(tile, u, cg::bit_xor<unsigned>());
    // The last thread of each tile writes: the result must be in every thread, not only rank 0.
    if (tile.thread_rank() == 31) {
        plus[i / 32] = sum;
        greater[i / 32] = largest;
        bits[3 * (i / 32)] = all_and;
        bits[3 * (i / 32) + 1] = all_or;
        bits[3 * (i / 32) + 2] = all_xor;
    }
    if (t8.thread_rank() == 7) less8[i / 8] = smallest;
}

__global__ void k_block_sync_reverse(const float* in, float* out) {
    __shared__ float s[256];
    const auto block = cg::this_thread_block();
    const unsigned t = block.thread_rank();
    s[t] = in[t];
    block.sync();
    out[t] = s[255 - t];
}

__global__ void k_tile8_votes(const int* pred, unsigned* out) {
    const auto t8 = cg::tiled_partition<8>(cg::this_thread_block());
    const int p = pred[threadIdx.x];
    out[3 * threadIdx.x] = t8.ballot(p);
    out[3 * threadIdx.x + 1] = static_cast<unsigned>(t8.any(p));
    out[3 * threadIdx.x + 2] = static_cast<unsigned>(t8.all(p));
}

__global__ void k_tile_sync_missing_lane(float* out) {
    const auto tile = cg::tiled_partition<16>(cg::this_thread_block());
    if (threadIdx.x == 5) return;
    tile.sync();
    out[threadIdx.x] = 1.0f;
}

__global__ void k_syncwarp_missing_lane(float* out) {
    if (threadIdx.x == 5) return;
    __syncwarp(threadIdx.x < 16 ? 0x0000ffffu : 0xffff0000u);
    out[threadIdx.x] = 1.0f;
}

}  // namespace

std::vector<float> tile32_shfl_down_sums(const std::vector<float>& in) {
    auto d_in = upload(in, "in");
    course::device_buffer<float> d_out(in.size() / 32, "out");
    course::launch("k_tile32_sums", k_tile32_sums, dim3(static_cast<unsigned>(in.size() / 64)), dim3(64), d_in.data(),
                   d_out.data());
    return download(d_out);
}

std::vector<int> tile16_patterns() {
    course::device_buffer<int> d_out(128, "out");
    course::launch("k_tile16_patterns", k_tile16_patterns, dim3(1), dim3(32), d_out.data());
    return download(d_out);
}

std::vector<int> ranks() {
    course::device_buffer<int> d_out(96 * 9, "out");
    course::launch("k_ranks", k_ranks, dim3(1), dim3(32, 3), d_out.data());
    return download(d_out);
}

reduce_results reduce_all(const std::vector<int>& in) {
    auto d_in = upload(in, "in");
    course::device_buffer<int> d_plus(in.size() / 32, "plus");
    course::device_buffer<int> d_greater(in.size() / 32, "greater");
    course::device_buffer<int> d_less8(in.size() / 8, "less8");
    course::device_buffer<unsigned> d_bits(3 * (in.size() / 32), "bits");
    course::launch("k_reduce", k_reduce, dim3(static_cast<unsigned>(in.size() / 64)), dim3(64), d_in.data(),
                   d_plus.data(), d_greater.data(), d_less8.data(), d_bits.data());
    return {download(d_plus), download(d_greater), download(d_less8), download(d_bits)};
}

std::vector<float> block_sync_reverse(const std::vector<float>& in) {
    auto d_in = upload(in, "in");
    course::device_buffer<float> d_out(256, "out");
    course::launch("k_block_sync_reverse", k_block_sync_reverse, dim3(1), dim3(256), d_in.data(), d_out.data());
    return download(d_out);
}

std::vector<unsigned> tile8_votes(const std::vector<int>& pred) {
    auto d_pred = upload(pred, "pred");
    course::device_buffer<unsigned> d_out(3 * 32, "out");
    course::launch("k_tile8_votes", k_tile8_votes, dim3(1), dim3(32), d_pred.data(), d_out.data());
    return download(d_out);
}

void tile_sync_missing_lane() {
    course::device_buffer<float> out(32, "out");
    course::launch("k_tile_sync_missing_lane", k_tile_sync_missing_lane, dim3(1), dim3(32), out.data());
    CUDA_CHECK(cudaDeviceSynchronize());
}

void syncwarp_missing_lane() {
    course::device_buffer<float> out(32, "out");
    course::launch("k_syncwarp_missing_lane", k_syncwarp_missing_lane, dim3(1), dim3(32), out.data());
    CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace probe_cg
