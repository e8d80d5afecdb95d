#pragma once
#include <cstddef>
#include <utility>

#include "course/cuda_check.hpp"

namespace course {

// Owns one cudaMalloc allocation. Move-only; freeing never throws, because it runs
// during unwinding after a kernel failed.
template <typename T>
class device_buffer {
public:
    device_buffer() = default;
    // `label` names the buffer in the CPU emulator's out-of-bounds messages.
    explicit device_buffer(std::size_t count, const char* label = "device buffer") : count_(count) {
        if (count == 0) return;
        void* p = nullptr;
        CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
        data_ = static_cast<T*>(p);
#if defined(COURSE_EMULATE)
        emu::label_allocation(p, label);
#else
        (void)label;
#endif
    }
    ~device_buffer() { release(); }

    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;
    device_buffer(device_buffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    device_buffer& operator=(device_buffer&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }

    T* data() noexcept { return data_; }
    const T* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return count_; }

    void upload(const T* host, std::size_t count, std::size_t offset = 0) {
        CUDA_CHECK(cudaMemcpy(data_ + offset, host, count * sizeof(T), cudaMemcpyHostToDevice));
    }
    void download(T* host, std::size_t count, std::size_t offset = 0) const {
        CUDA_CHECK(cudaMemcpy(host, data_ + offset, count * sizeof(T), cudaMemcpyDeviceToHost));
    }
    // Fills every byte with `byte`; 0xFF makes every float a NaN, the grader's poison.
    void fill_bytes(int byte) { CUDA_CHECK(cudaMemset(data_, byte, count_ * sizeof(T))); }

private:
    void release() noexcept {
        if (data_ != nullptr) (void)cudaFree(data_);
        data_ = nullptr;
        count_ = 0;
    }

    T* data_ = nullptr;
    std::size_t count_ = 0;
};

}  // namespace course
