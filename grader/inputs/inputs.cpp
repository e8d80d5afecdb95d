#include "inputs/inputs.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

namespace course {

namespace {

// splitmix64: tiny, fast and good enough to make test inputs; every element is a pure
// function of (seed, index), so inputs are reproducible and can be made in any order.
std::uint64_t mix(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

float unit_float(std::uint64_t bits) {  // uniform in [0, 1), 24 random bits
    return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
}

}  // namespace

std::string to_string(input_kind kind) {
    switch (kind) {
    case input_kind::random: return "random";
    case input_kind::ones: return "ones";
    case input_kind::integers: return "integers";
    case input_kind::cancellation: return "cancellation";
    case input_kind::index: return "index";
    }
    return "unknown";
}

std::optional<input_kind> parse_input_kind(const std::string& name) {
    for (auto k : {input_kind::random, input_kind::ones, input_kind::integers, input_kind::cancellation,
                   input_kind::index}) {
        if (to_string(k) == name) return k;
    }
    return std::nullopt;
}

bool is_integer_valued(input_kind kind) {
    return kind == input_kind::ones || kind == input_kind::integers || kind == input_kind::index;
}

std::uint64_t case_seed(std::uint64_t run_seed, input_kind kind, std::uint64_t size_tag) {
    return mix(mix(run_seed ^ (static_cast<std::uint64_t>(kind) << 56)) ^ size_tag);
}

namespace {

std::size_t chunk_count(std::size_t n) {
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    return std::min<std::size_t>(cores, std::max<std::size_t>(1, n >> 16));
}

// Runs body(chunk, begin, end) over [0, n) in `chunks` contiguous pieces, one thread each:
// the grader makes and sums inputs of 2^25 floats many times per run.
template <typename Body>
void parallel_chunks(std::size_t n, std::size_t chunks, const Body& body) {
    if (chunks <= 1) {
        body(std::size_t{0}, std::size_t{0}, n);
        return;
    }
    std::vector<std::thread> threads;
    for (std::size_t c = 0; c < chunks; ++c) {
        threads.emplace_back([&, c] { body(c, n * c / chunks, n * (c + 1) / chunks); });
    }
    for (auto& t : threads) t.join();
}

void fill_range(input_kind kind, std::uint64_t base, float* out, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
        const std::uint64_t r = mix(base + i);
        switch (kind) {
        case input_kind::random: out[i] = unit_float(r); break;
        case input_kind::ones: out[i] = 1.0f; break;
        case input_kind::integers: out[i] = static_cast<float>(static_cast<int>(r % 17) - 8); break;
        case input_kind::cancellation: {
            // Pairs (a, -a) with |a| up to 1000, each partner nudged by up to 1/16:
            // the true sum is small while sum|x| is large.
            const std::uint64_t pair = mix(base + (i & ~std::size_t{1}));
            const float a = (unit_float(pair) - 0.5f) * 2000.0f;
            const float noise = unit_float(r) * 0.0625f;
            out[i] = (i % 2 == 0) ? a + noise : -a + noise;
            break;
        }
        case input_kind::index: out[i] = static_cast<float>(i % 16777216u); break;
        }
    }
}

exact_sum pairwise_sum(const float* x, std::size_t n) {
    // Pairwise in double: the error is ~log2(n) * 2^-53 relative, negligible here.
    if (n <= 64) {
        exact_sum s;
        for (std::size_t i = 0; i < n; ++i) {
            s.sum += x[i];
            s.sum_abs += std::fabs(static_cast<double>(x[i]));  // no branch: signs are random
        }
        return s;
    }
    const std::size_t half = n / 2;
    const exact_sum a = pairwise_sum(x, half);
    const exact_sum b = pairwise_sum(x + half, n - half);
    return {a.sum + b.sum, a.sum_abs + b.sum_abs};
}

}  // namespace

void fill_input(input_kind kind, std::uint64_t seed, float* out, std::size_t n) {
    const std::uint64_t base = mix(seed);
    parallel_chunks(n, chunk_count(n), [&](std::size_t, std::size_t b, std::size_t e) { fill_range(kind, base, out, b, e); });
}

host_floats make_input(input_kind kind, std::uint64_t seed, std::size_t n) {
    host_floats v(n);  // uninitialised: fill_input writes (and first touches) it on every core
    fill_input(kind, seed, v.data(), n);
    return v;
}

exact_sum reference_sum(const float* x, std::size_t n) {
    // Chunks summed pairwise on all cores, then the chunk sums added in order.
    const std::size_t chunks = chunk_count(n);
    std::vector<exact_sum> parts(chunks);
    parallel_chunks(n, chunks, [&](std::size_t c, std::size_t b, std::size_t e) { parts[c] = pairwise_sum(x + b, e - b); });
    exact_sum total;
    for (const auto& p : parts) {
        total.sum += p.sum;
        total.sum_abs += p.sum_abs;
    }
    return total;
}

std::uint64_t fresh_seed() {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace course
