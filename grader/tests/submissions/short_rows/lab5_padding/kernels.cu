// Planted bug, a course test file (grader/tests/planted_hints.json): lab 5: A's record tree stops at stride > 1; B guards its stores with the input's column count.
// The rest is the reference, comments included.
// Lab 5 reference: the padded 2D shared arrays.
#include "contracts/lab5.cuh"

namespace LAB_IMPL {

// Part A: rows padded from 8 to 9 floats.
//
// Why it is faster: in the tree steps lane k reads word 9 * k + c. Because 9 is odd it
// shares no factor with the 32 banks, so 9 * k % 32 takes 32 different values for the 32
// lanes: every lane has a bank to itself, one wavefront per load instead of eight.
// When padding by one would not work: an odd stride only helps 4-byte accesses. Had the
// compiler loaded whole rows as float4 (16 bytes, a quarter-warp per wavefront), the pad
// would have to keep rows 16-byte aligned and spread those 8 lanes' 16-byte chunks over
// the banks: 8 + 4 = 12 floats, not 9 (stride 12 puts the 8 chunks on 8 different groups
// of 4 banks). And 8 + 2 = 10, an even stride, would still conflict 2-way for 4-byte loads.
// The price: the flat, coalesced staging store now skips one word per row, so a few of
// its warps see a 2-way conflict; the 8 x 8 tree loads it saves are worth far more.
__global__ void record_sums(const float* in, float* out, unsigned n) {
    constexpr unsigned L = lab5::record_len;
    __shared__ float rows[lab5::block_size][L + 1];
    const unsigned t = threadIdx.x;
    const unsigned first = blockIdx.x * lab5::block_size;
    for (unsigned f = t; f < lab5::block_size * L; f += lab5::block_size) {
        const unsigned r = f / L, c = f % L;
        rows[r][c] = first + r < n ? in[static_cast<std::size_t>(first) * L + f] : 0.0f;
    }
    __syncthreads();
    for (unsigned c = 0; c < L; ++c) {
        for (unsigned stride = lab5::block_size / 2; stride > 1; stride /= 2) {
            if (t < stride) rows[t][c] += rows[t + stride][c];
            __syncthreads();
        }
    }
    if (t < L) out[static_cast<std::size_t>(blockIdx.x) * L + t] = rows[0][t];
}

// Part B: the tiled transpose with a [32][33] tile.
//
// Both global accesses are coalesced: a warp reads 32 consecutive floats of an input row
// and writes 32 consecutive floats of an output row; the tile in shared memory turns rows
// into columns. Reading the tile down a column is where the unpadded version lost: word
// 32 * k + j is in bank j for every lane k. With rows of 33 words, lane k reads word
// 33 * k + j, in bank (k + j) % 32: 32 lanes, 32 different banks, one wavefront.
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
        if (x < cols && y + j < cols) out[static_cast<std::size_t>(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}

}  // namespace LAB_IMPL
