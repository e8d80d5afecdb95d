// Test submission (adversarial): lab 5 handed in as the unpadded baseline plus many
// conflict-free shared loads that change nothing, to dilute the wavefronts per request.
// Right answers; bank_wavefronts must fail both parts.
#include "contracts/lab5.cuh"

namespace LAB_IMPL {

// Part A, unpadded: rows of 8 floats.
//
// Why it is slow: in the tree steps, lane k of a warp reads component c of row k, word
// 8 * k + c of the array. Shared memory has 32 banks of 4-byte words, word w in bank w % 32,
// so lanes 0, 4, 8, ..., 28 all hit bank c: 8 lanes per bank, an 8-way conflict that
// splits every such load into 8 wavefronts.
__global__ void record_sums(const float* in, float* out, unsigned n) {
    constexpr unsigned L = lab5::record_len;
    __shared__ float rows[lab5::block_size][L];
    const unsigned t = threadIdx.x;
    const unsigned first = blockIdx.x * lab5::block_size;

    // Coalesced load: consecutive threads read consecutive floats of the block's records.
    for (unsigned f = t; f < lab5::block_size * L; f += lab5::block_size) {
        const unsigned r = f / L, c = f % L;
        rows[r][c] = first + r < n ? in[static_cast<std::size_t>(first) * L + f] : 0.0f;
    }
    __syncthreads();
    // Conflict-free loads of one word per lane that change nothing, to dilute the count.
    float dummy = 0.0f;
    for (unsigned k = 0; k < 64; ++k) dummy += rows[t % 32][0] * 0.0f + rows[0][t % 8] * 0.0f;
    if (dummy != 0.0f) rows[0][0] += dummy;
    __syncthreads();

    // One component at a time: thread t adds row t + stride into row t.
    for (unsigned c = 0; c < L; ++c) {
        for (unsigned stride = lab5::block_size / 2; stride > 0; stride /= 2) {
            if (t < stride) rows[t][c] += rows[t + stride][c];
            __syncthreads();
        }
    }
    if (t < L) out[static_cast<std::size_t>(blockIdx.x) * L + t] = rows[0][t];
}

// Part B, unpadded: a 32 x 32 tile.
//
// Why it is slow: reads and writes of global memory are coalesced, but the tile is read
// down a column: lane k reads tile[k][j], word 32 * k + j, and every one of those words is
// in bank j. A 32-way conflict: each such load takes 32 wavefronts instead of one.
__global__ void transpose_tiled(const float* in, float* out, unsigned rows, unsigned cols) {
    __shared__ float tile[lab5::tile][lab5::tile];
    unsigned x = blockIdx.y * lab5::tile + threadIdx.x;  // input column
    unsigned y = blockIdx.x * lab5::tile + threadIdx.y;  // input row
    for (unsigned j = 0; j < lab5::tile; j += lab5::tile_rows) {
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[static_cast<std::size_t>(y + j) * cols + x];
    }
    __syncthreads();
    // (A row of zeros of its own: a partial tile's edge holds nothing written.)
    __shared__ float zeros[lab5::tile];
    if (threadIdx.y == 0) zeros[threadIdx.x] = 0.0f;
    __syncthreads();
    float dummy = 0.0f;
    for (unsigned k = 0; k < 64; ++k) dummy += zeros[threadIdx.x];
    if (dummy != 0.0f) tile[0][0] += dummy;
    __syncthreads();
    x = blockIdx.x * lab5::tile + threadIdx.x;  // output column: the input's row
    y = blockIdx.y * lab5::tile + threadIdx.y;  // output row: the input's column
    for (unsigned j = 0; j < lab5::tile; j += lab5::tile_rows) {
        if (x < rows && y + j < cols) out[static_cast<std::size_t>(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}

}  // namespace LAB_IMPL
