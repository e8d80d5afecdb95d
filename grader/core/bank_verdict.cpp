#include "core/bank_verdict.hpp"

#include <fmt/format.h>

namespace course {

namespace {

std::string describe(const shared_traffic& t) {
    if (t.load == 0 && t.store == 0) return "no shared-memory loads or stores";
    if (t.load == 0) return fmt::format("no shared-memory loads, {:.2f} wavefronts per store", t.store);
    return fmt::format("{:.2f} wavefronts per shared-load request{}, {:.2f} per store", t.load,
                       t.load <= 1.05 ? " (conflict-free)" : "", t.store);
}

}  // namespace

check_result bank_wavefronts_verdict(const shared_traffic& yours, const std::optional<shared_traffic>& baseline,
                                     double limit, bool graded) {
    std::string detail = "yours: " + describe(yours);
    if (baseline) detail += "; baseline: " + describe(*baseline);
    if (!graded) return {"bank_wavefronts", check_status::info, detail + " (not graded)"};
    if (yours.load == 0)
        return {"bank_wavefronts", check_status::failed,
                detail + "; this part stages its data in a __shared__ array, and there were no shared loads to measure"};
    return {"bank_wavefronts", yours.load <= limit ? check_status::passed : check_status::failed,
            detail + fmt::format("; the limit is {:.2f} per load", limit)};
}

}  // namespace course
