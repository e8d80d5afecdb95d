#include "worker/guarded_buffer.hpp"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "worker/input_maker.hpp"

#if defined(COURSE_EMULATE)
#include "emu/device_memory.hpp"
#endif

namespace course {

namespace {

// Page-locked host words, made on first use and kept for the process's life (a worker's):
// the guard pattern the buffers are armed from, so that arming them is queued rather than
// staged and waited for, then room for what comes back (readback_words).
constexpr std::size_t readback_capacity = 1024;

float* page_locked_words() {
    static float* const words = [] {
        void* p = nullptr;
        CUDA_CHECK(cudaMallocHost(&p, (guard_words + readback_capacity) * sizeof(float)));
        auto* w = static_cast<float*>(p);
        for (std::size_t i = 0; i < guard_words; ++i) std::memcpy(w + i, &guard_bits, sizeof(float));
        return w;
    }();
    return words;
}

const float* guard_pattern() { return page_locked_words(); }

}  // namespace

bool guards_match(const float* words) {
    for (std::size_t i = 0; i < guard_words; ++i) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, words + i, sizeof bits);
        if (bits != guard_bits) return false;
    }
    return true;
}

float* readback_words(std::size_t count) {
    if (count > readback_capacity) throw std::logic_error("readback_words: more than its page-locked room");
    return page_locked_words() + guard_words;
}

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
    CUDA_CHECK(cudaMemsetAsync(buf_.data(), 0xFF, count_ * sizeof(float)));
    CUDA_CHECK(cudaMemcpyAsync(buf_.data() + count_, guard_pattern(), guard_words * sizeof(float),
                               cudaMemcpyHostToDevice));
}

void guarded_buffer::poison_async() { CUDA_CHECK(cudaMemsetAsync(buf_.data(), 0xFF, count_ * sizeof(float))); }

void guarded_buffer::upload(const float* host, std::size_t count) {
    CUDA_CHECK(cudaMemcpy(buf_.data(), host, count * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyAsync(buf_.data() + count_, guard_pattern(), guard_words * sizeof(float),
                               cudaMemcpyHostToDevice));
}

component_sums guarded_buffer::make(input_kind kind, std::uint64_t seed, std::size_t n, unsigned width) {
    if (n * width != count_) throw std::logic_error("guarded_buffer::make: an input of the wrong size");
    component_sums sums = make_input_on_device(kind, seed, buf_.data(), n, width);
    CUDA_CHECK(cudaMemcpyAsync(buf_.data() + count_, guard_pattern(), guard_words * sizeof(float),
                               cudaMemcpyHostToDevice));
    return sums;
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
    std::vector<float> host(guard_words);
    CUDA_CHECK(cudaMemcpy(host.data(), buf_.data() + count_, guard_words * sizeof(float), cudaMemcpyDeviceToHost));
    return guards_match(host.data());
}

void guarded_buffer::queue_read_all(float* host) const {
    CUDA_CHECK(cudaMemcpyAsync(host, buf_.data(), (count_ + guard_words) * sizeof(float), cudaMemcpyDeviceToHost));
}

void guarded_buffer::queue_read_guards(float* host) const {
    CUDA_CHECK(cudaMemcpyAsync(host, buf_.data() + count_, guard_words * sizeof(float), cudaMemcpyDeviceToHost));
}

}  // namespace course
