#pragma once
#include <cstddef>
#include <cstdint>

#include "course/device_buffer.hpp"
#include "inputs/inputs.hpp"
#include "inputs/perturbation.hpp"

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

    // Fills the payload with poison_bits and the guards with guard_bits, queued.
    void poison();
    // Fills only the payload, queued: between timed runs, where the guards are checked
    // only once the runs are over.
    void poison_async();
    // Payload from host (waited for), guards re-armed (queued).
    void upload(const float* host, std::size_t count);
    // Payload made on the device (make_input_on_device: n records of `width` floats, n *
    // width == size()), guards re-armed; returns its exact sums.
    component_sums make(input_kind kind, std::uint64_t seed, std::size_t n, unsigned width);
    // One payload element from the host: a changed input element between runs.
    void set(std::size_t index, float value);
    // `count` payload elements from `offset` to the host: a spot check of an output.
    void read(std::size_t offset, float* host, std::size_t count) const;
    bool guards_intact() const;
    // Queues a copy of the payload and the guard words after it (size() + guard_words floats)
    // to page-locked `host` (readback_words): read once the device is synchronised.
    void queue_read_all(float* host) const;
    // Queues a copy of the guard words alone (guard_words floats) to page-locked `host`.
    void queue_read_guards(float* host) const;

private:
    device_buffer<float> buf_;
    std::size_t count_ = 0;
};

// True when these guard_words floats are the guard pattern, bit for bit.
bool guards_match(const float* words);

// `count` floats of page-locked host memory for queue_read_all/queue_read_guards, made once
// a process and shared by every caller: valid until the next call, so a caller reads what
// came back before it queues more. A D2H copy into pageable memory waits for the device
// by itself; with this one, a run's whole check costs a single synchronisation.
float* readback_words(std::size_t count);

}  // namespace course
