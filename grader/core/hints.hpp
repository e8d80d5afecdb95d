#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace course {

// Picks the hint that best explains the pattern of failures of a reduction kernel.
// `elements_per_block` is how many inputs one block of the first pass covers;
// `technique_hint`, the lab's own advice for the part, replaces the generic last resort;
// `max_grid` caps a pass's grid (0: none), as the course's driver does pass after pass.
// Returns "" when every case passed.
std::string reduction_hint(const std::vector<case_record>& cases, std::uint64_t elements_per_block,
                           const std::string& technique_hint = "", std::uint64_t max_grid = 0);

// How the worker's message describes an output element of a transpose that holds a value
// found nowhere in the input (worker/transpose_case.cpp); movement_hint looks for it.
inline constexpr const char* not_in_input_words = "which is nowhere in this input";

// The same for kernels that move data (the transpose): every element is exact.
// `tile` is the tile edge the kernel works in (32).
std::string movement_hint(const std::vector<case_record>& cases, unsigned tile);

// On a GPU, the hint of a part that went wrong there and whose run on the CPU emulator (the
// same file, beside the GPU's cases) went wrong too, with a shared-memory race: which sizes a
// race spoils changes from run to run on a GPU, so the GPU's sizes would give a different
// hint each time. It names the race (`race`, the emulator's first hazard finding) and gives
// the emulator's own hint, read from results the race spoils the same way every run.
std::string race_hint(const std::string& race, const std::string& emulator_hint);

// race_hint for every part it applies to (part_result::emulator_hint set, a race found, the
// part failed): after the GPU's correctness phase has set its hints.
void apply_race_hints(std::map<std::string, part_result>& results);

}  // namespace course
