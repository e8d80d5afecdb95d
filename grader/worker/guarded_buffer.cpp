#include "worker/guarded_buffer.hpp"

#include <cstring>
#include <stdexcept>
#include <vector>

#if defined(COURSE_EMULATE)
#include "emu/device_memory.hpp"
#endif

namespace course {

namespace {
std::vector<std::uint32_t> guard_pattern() { return std::vector<std::uint32_t>(guard_words, guard_bits); }
}  // namespace

guarded_buffer::guarded_buffer(std::size_t count, const char* label)
    : buf_(count + guard_words, label), count_(count) {
#if defined(COURSE_EMULATE)
    // The emulator's out-of-bounds messages then give the index and the size the kernel
    // was told, not the size with the guard words.
    emu::memory::set_payload(buf_.data(), count_, sizeof(float), "float");
#endif
    poison();
}

void guarded_buffer::poison() {
    CUDA_CHECK(cudaMemset(buf_.data(), 0xFF, count_ * sizeof(float)));
    const auto guards = guard_pattern();
    CUDA_CHECK(cudaMemcpy(buf_.data() + count_, guards.data(), guard_words * sizeof(float), cudaMemcpyHostToDevice));
}

void guarded_buffer::poison_async() { CUDA_CHECK(cudaMemsetAsync(buf_.data(), 0xFF, count_ * sizeof(float))); }

void guarded_buffer::upload(const float* host, std::size_t count) {
    CUDA_CHECK(cudaMemcpy(buf_.data(), host, count * sizeof(float), cudaMemcpyHostToDevice));
    const auto guards = guard_pattern();
    CUDA_CHECK(cudaMemcpy(buf_.data() + count_, guards.data(), guard_words * sizeof(float), cudaMemcpyHostToDevice));
}

void guarded_buffer::set(std::size_t index, float value) {
    if (index >= count_) throw std::out_of_range("guarded_buffer::set past the payload");
    CUDA_CHECK(cudaMemcpy(buf_.data() + index, &value, sizeof(float), cudaMemcpyHostToDevice));
}

void guarded_buffer::read(std::size_t offset, float* host, std::size_t count) const {
    if (offset > count_ || count > count_ - offset) throw std::out_of_range("guarded_buffer::read past the payload");
    CUDA_CHECK(cudaMemcpy(host, buf_.data() + offset, count * sizeof(float), cudaMemcpyDeviceToHost));
}

bool guarded_buffer::guards_intact() const {
    std::vector<std::uint32_t> host(guard_words);
    CUDA_CHECK(cudaMemcpy(host.data(), buf_.data() + count_, guard_words * sizeof(float), cudaMemcpyDeviceToHost));
    return host == guard_pattern();
}

}  // namespace course
