#pragma once
#include <cstddef>
#include <cstdint>

#include "course/device_buffer.hpp"

namespace course {

// 0xFFFFFFFF: a NaN, so an output the kernel never wrote, or an input read past its end,
// turns the result into NaN instead of a plausible number.
inline constexpr std::uint32_t poison_bits = 0xFFFFFFFFu;
// A different NaN for the guard words, so a report can tell "never written" from
// "written past the end".
inline constexpr std::uint32_t guard_bits = 0x7FC0DE55u;
inline constexpr std::size_t guard_words = 64;

// A device buffer of `count` floats followed by guard words. The kernel is told only
// about the first `count`; any write to the guards is an overrun.
class guarded_buffer {
public:
    guarded_buffer() = default;
    guarded_buffer(std::size_t count, const char* label);

    float* data() { return buf_.data(); }
    const float* data() const { return buf_.data(); }
    std::size_t size() const { return count_; }

    // Fills the payload with poison_bits and the guards with guard_bits.
    void poison();
    // Fills only the payload, queued on the default stream: between timed runs, where a
    // synchronous copy of the guards would cost more than the poisoning itself.
    void poison_async();
    // Payload from host, guards re-armed.
    void upload(const float* host, std::size_t count);
    // One payload element from the host: a changed input element between runs.
    void set(std::size_t index, float value);
    // `count` payload elements from `offset` to the host: a spot check of an output.
    void read(std::size_t offset, float* host, std::size_t count) const;
    bool guards_intact() const;

private:
    device_buffer<float> buf_;
    std::size_t count_ = 0;
};

}  // namespace course
