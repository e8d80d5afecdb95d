#pragma once
// 1. Directives of the source text: what the guard checks in kernels.cu before any
// compiler sees it.
#include <string>
#include <vector>

#include "rules/rules_finding.hpp"

namespace course::rules {

// Each #include must name a relative header in quotes or angle brackets, without `..`;
// only `#pragma unroll [N]`, `nounroll`, `once` and `GCC unroll N` are allowed; no
// `_Pragma`, `#line`, `#include_next`, `#import`, and no `#` outside a directive (a
// stray one could forge a line marker in the preprocessed output). Comments, line
// splices, raw strings and the `%:` digraph are handled as the preprocessor does.
std::vector<finding> scan_directives(const std::string& source);

}  // namespace course::rules
