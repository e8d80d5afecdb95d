#include "worker/guarded_buffer.hpp"

#include <cstring>
#include <vector>

namespace course {

namespace {
std::vector<std::uint32_t> guard_pattern() { return std::vector<std::uint32_t>(guard_words, guard_bits); }
}  // namespace

guarded_buffer::guarded_buffer(std::size_t count, const char* label)
    : buf_(count + guard_words, label), count_(count) {
    poison();
}

void guarded_buffer::poison() {
    CUDA_CHECK(cudaMemset(buf_.data(), 0xFF, count_ * sizeof(float)));
    const auto guards = guard_pattern();
    CUDA_CHECK(cudaMemcpy(buf_.data() + count_, guards.data(), guard_words * sizeof(float), cudaMemcpyHostToDevice));
}

void guarded_buffer::upload(const float* host, std::size_t count) {
    CUDA_CHECK(cudaMemcpy(buf_.data(), host, count * sizeof(float), cudaMemcpyHostToDevice));
    const auto guards = guard_pattern();
    CUDA_CHECK(cudaMemcpy(buf_.data() + count_, guards.data(), guard_words * sizeof(float), cudaMemcpyHostToDevice));
}

bool guarded_buffer::guards_intact() const {
    std::vector<std::uint32_t> host(guard_words);
    CUDA_CHECK(cudaMemcpy(host.data(), buf_.data() + count_, guard_words * sizeof(float), cudaMemcpyDeviceToHost));
    return host == guard_pattern();
}

}  // namespace course
