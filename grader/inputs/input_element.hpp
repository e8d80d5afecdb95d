#pragma once
// One element of a grader input as a pure function of (kind, stream, index): the host makes
// inputs with it (inputs.cpp), a GPU worker makes them where the kernels read them
// (worker/input_maker.cu), and a changed input asks it for the element it replaces. The two
// makers must agree bit for bit, so the device's float arithmetic is spelled out: nvcc would
// otherwise fuse a multiply and an add into one rounding where the host rounds twice.
#include <cstddef>
#include <cstdint>

#include "inputs/inputs.hpp"

#if defined(__CUDACC__)
#define COURSE_INPUT_FN __host__ __device__ inline
#else
#define COURSE_INPUT_FN inline
#endif

namespace course::element {

// splitmix64: tiny, fast and good enough to make test inputs.
COURSE_INPUT_FN std::uint64_t mix(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// The stream of an input's seed: element i of it hashes stream + i.
COURSE_INPUT_FN std::uint64_t stream_of(std::uint64_t seed) { return mix(seed); }

COURSE_INPUT_FN float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

COURSE_INPUT_FN float add(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}

COURSE_INPUT_FN float unit_float(std::uint64_t bits) {  // uniform in [0, 1), 24 random bits
    return mul(static_cast<float>(bits >> 40), 1.0f / 16777216.0f);
}

// Element i of the input of `kind` whose stream is `stream`.
COURSE_INPUT_FN float value(input_kind kind, std::uint64_t stream, std::size_t i) {
    switch (kind) {
    case input_kind::random: return unit_float(mix(stream + i));
    case input_kind::ones: return 1.0f;
    case input_kind::integers: return static_cast<float>(static_cast<int>(mix(stream + i) % 17) - 8);
    case input_kind::cancellation: {
        // Pairs (a, -a) with |a| up to 1000, each partner nudged by up to 1/16: the true
        // sum is small while sum|x| is large.
        const float a = mul(add(unit_float(mix(stream + (i & ~std::size_t{1}))), -0.5f), 2000.0f);
        const float noise = mul(unit_float(mix(stream + i)), 0.0625f);
        return add(i % 2 == 0 ? a : -a, noise);
    }
    case input_kind::index: return static_cast<float>(i % 16777216u);
    }
    return 0.0f;
}

}  // namespace course::element
