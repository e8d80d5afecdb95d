#pragma once
// Lab 4 binding: grid-stride kernels, launched with the configuration the lab file chose.
#include "bindings/reduction_part.cuh"

namespace LAB_IMPL {

static_assert(kShuffleBlockSize >= 32 && kShuffleBlockSize <= 1024 && kShuffleBlockSize % 32 == 0,
              "kShuffleBlockSize must be a multiple of 32 from 32 to 1024");
static_assert(kVectorBlockSize >= 32 && kVectorBlockSize <= 1024 && kVectorBlockSize % 32 == 0,
              "kVectorBlockSize must be a multiple of 32 from 32 to 1024");
static_assert(kShuffleBlocksPerSm >= 1 && kShuffleBlocksPerSm <= 64, "kShuffleBlocksPerSm must be 1..64");
static_assert(kVectorBlocksPerSm >= 1 && kVectorBlocksPerSm <= 64, "kVectorBlocksPerSm must be 1..64");

course::lab_parts parts() {
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const unsigned sm_count = static_cast<unsigned>(sms);
    return {course::make_reduction_part("A", "grid-stride loop and warp shuffles", "reduce_shuffle", reduce_shuffle,
                                        {kShuffleBlockSize, 1, sm_count * kShuffleBlocksPerSm}),
            course::make_reduction_part("B", "float4 loads at the bandwidth roof", "reduce_vectorized",
                                        reduce_vectorized, {kVectorBlockSize, 4, sm_count * kVectorBlocksPerSm})};
}

}  // namespace LAB_IMPL
