#include "inputs/input_cache.hpp"

namespace course {

input_cache::entry& input_cache::find(input_kind kind, std::uint64_t seed, std::size_t count) {
    const auto key = std::make_tuple(kind, seed, count);
    auto it = entries_.find(key);
    if (it == entries_.end()) it = entries_.emplace(key, entry{make_input(kind, seed, count), {}}).first;
    return it->second;
}

const host_floats& input_cache::values(input_kind kind, std::uint64_t seed, std::size_t count) {
    return find(kind, seed, count).values;
}

const component_sums& input_cache::sums(input_kind kind, std::uint64_t seed, std::size_t n, unsigned width) {
    entry& e = find(kind, seed, n * width);
    const auto key = std::make_tuple(n, width);
    auto it = e.sums.find(key);
    if (it == e.sums.end()) it = e.sums.emplace(key, sum_components(e.values.data(), n, width)).first;
    return it->second;
}

}  // namespace course
