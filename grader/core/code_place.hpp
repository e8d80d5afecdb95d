#pragma once
// The CPU emulator marks where a faulting kernel instruction lies in the worker's
// executable (" [at exe+0x1a2b]"); the sandboxed worker cannot read its own line tables,
// so the grader turns the mark into a line of the lab file.
#include <functional>
#include <string>

namespace course {

// Replaces each " [at exe+0xHEX]" in `text` with " (at FILE:LINE)" from `resolve`, which
// maps "0xHEX" to a place ("kernels.cu:12", or "kernels.cu:12 via kernels.cu:40" for an
// inlined helper), and each " [via exe+0xHEX]", which follows a line the text names
// already, with " via kernels.cu:40" when the place has a call site; a mark `resolve`
// cannot place, or a via without a call site, is dropped.
std::string place_code(const std::string& text, const std::function<std::string(const std::string& hex)>& resolve);

// From `addr2line -i` output (the innermost location first, then the functions it was
// inlined into): "kernels.cu:23" for the first location in a file named `file_name`, or
// "" when there is none ("??:0", a system header).
std::string line_in_file(const std::string& addr2line_output, const std::string& file_name);

// The same, with the call site when the location lies in a function of the lab file that
// was inlined into another line of it: "kernels.cu:12 via kernels.cu:40" (the outermost).
std::string line_and_call_site(const std::string& addr2line_output, const std::string& file_name);

}  // namespace course
