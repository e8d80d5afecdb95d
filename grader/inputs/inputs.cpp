#include "inputs/inputs.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "inputs/input_element.hpp"

namespace course {

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
    return element::mix(element::mix(run_seed ^ (static_cast<std::uint64_t>(kind) << 56)) ^ size_tag);
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

void fill_range(input_kind kind, std::uint64_t stream, float* out, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) out[i] = element::value(kind, stream, i);
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
    const std::uint64_t stream = element::stream_of(seed);
    parallel_chunks(n, chunk_count(n), [&](std::size_t, std::size_t b, std::size_t e) { fill_range(kind, stream, out, b, e); });
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
