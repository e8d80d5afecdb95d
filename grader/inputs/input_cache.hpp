#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>

#include "inputs/host_floats.hpp"
#include "inputs/inputs.hpp"
#include "inputs/perturbation.hpp"

namespace course {

// The correctness inputs of one worker run, each made once on the host: every part of a
// lab draws the same inputs (the seed of a case depends on its kind and size, not on the
// part), and the worker makes them all before it asks for the GPU, so that the cases
// only upload and run. Never written once made: a case that changes its input keeps the
// changes apart (reduction_fixture).
class input_cache {
public:
    // The input of `kind` from `seed`, `count` floats.
    const host_floats& values(input_kind kind, std::uint64_t seed, std::size_t count);
    // The sums of the same input read as n records of `width` floats (n * width floats).
    const component_sums& sums(input_kind kind, std::uint64_t seed, std::size_t n, unsigned width);

private:
    struct entry {
        host_floats values;
        std::map<std::tuple<std::size_t, unsigned>, component_sums> sums;  // by (n, width)
    };
    entry& find(input_kind kind, std::uint64_t seed, std::size_t count);
    std::map<std::tuple<input_kind, std::uint64_t, std::size_t>, entry> entries_;
};

}  // namespace course
