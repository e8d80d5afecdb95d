#include "supervisor/emulated_checks.hpp"

#include <fmt/format.h>

#include "core/bank_verdict.hpp"

namespace course {

namespace {

const version_counters* version(const part_result& part, const char* which) {
    for (const auto& v : part.counters)
        if (v.version == which) return &v;
    return nullptr;
}

double ratio(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0.0 : static_cast<double>(a) / b; }

std::uint64_t requests(const version_counters& v) {
    return v.shared_load_requests + v.shared_store_requests + v.global_load_requests + v.global_store_requests;
}

std::uint64_t shared_requests(const version_counters& v) { return v.shared_load_requests + v.shared_store_requests; }

check_result no_divergence(const version_counters& yours, const version_counters& reference, double margin) {
    const double mine = ratio(yours.partial_requests, requests(yours));
    const double ref = ratio(reference.partial_requests, requests(reference));
    const std::string detail = fmt::format(
        "{:.0f}% of your kernel's memory requests ran with lanes of the warp idle; the reference's {:.0f}%", 100 * mine,
        100 * ref);
    if (mine <= ref + margin) return {"no_divergence", check_status::passed, detail};
    return {"no_divergence", check_status::failed,
            detail + ". Threads of one warp that take different branches leave lanes idle: pick the working "
                     "threads so that whole warps work and whole warps rest (the handout's section on divergence)"};
}

check_result no_shared_tree(const version_counters& yours, const version_counters& reference, double factor) {
    const std::string detail =
        fmt::format("your kernel made {} shared-memory requests, the reference {}; {} warp shuffles, the reference {}",
                    shared_requests(yours), shared_requests(reference), yours.warp_shuffles, reference.warp_shuffles);
    if (shared_requests(yours) <= factor * shared_requests(reference) + 64)
        return {"no_shared_tree", check_status::passed, detail};
    return {"no_shared_tree", check_status::failed,
            detail + ". A tree through shared memory needs a barrier and a round trip per step: sum within each warp "
                     "with shuffles and use shared memory only to combine the warps' sums"};
}

// Bytes per load request, against the reference's: a warp of float4 loads moves 16 sectors
// of 32 bytes per request, one of 4-byte loads 4.
check_result wide_loads(const version_counters& yours, const version_counters& reference, double factor) {
    const double mine = ratio(yours.global_load_sectors, yours.global_load_requests);
    const double ref = ratio(reference.global_load_sectors, reference.global_load_requests);
    const std::string detail =
        fmt::format("your kernel's global loads move {:.1f} sectors of 32 bytes per request, the reference's {:.1f}",
                    mine, ref);
    if (mine * factor >= ref) return {"wide_loads", check_status::passed, detail};
    return {"wide_loads", check_status::failed,
            detail + ". Load 16 bytes per thread at a time (a float4): a warp's request then moves 512 bytes "
                     "instead of 128, and four times fewer requests carry the input (the handout's part B)"};
}

shared_traffic traffic_of(const version_counters& v) {
    return {ratio(v.shared_load_wavefronts, v.shared_load_requests),
            ratio(v.shared_store_wavefronts, v.shared_store_requests)};
}

}  // namespace

std::vector<check_result> traced_run_check(const part_result& part) {
    if (part.correctness.status != correctness_status::passed) return {};
    if (!part.counters_error.empty()) return {{"traced_run", check_status::failed, part.counters_error}};
    if (version(part, "student") == nullptr)
        return {{"traced_run", check_status::failed, "the emulator's traced run of your kernel left no counters"}};
    return {};
}

std::vector<check_result> hazard_checks(const part_result& part, const std::string& kernel) {
    std::vector<check_result> out;
    const version_counters* yours = version(part, "student");
    if (yours == nullptr) return out;
    const auto listed = [](const std::vector<std::string>& found, std::uint64_t total) {
        std::string text;
        for (const auto& f : found) text += (text.empty() ? "" : "; ") + f;
        if (total > found.size()) text += fmt::format(" ({} hazards in all)", total);
        return text;
    };
    out.push_back(yours->races.empty()
                      ? check_result{"races", check_status::passed,
                                     "the emulator found no shared-memory race in " + kernel + " (" +
                                         part.counters_problem + ")"}
                      : check_result{"races", check_status::failed,
                                     "a shared-memory race: " + listed(yours->races, yours->hazard_count) +
                                         ". Put a barrier between the write and the read (__syncthreads(), or "
                                         "__syncwarp() between lanes of one warp)"});
    out.push_back(yours->uninitialized.empty()
                      ? check_result{"initcheck", check_status::passed,
                                     "every shared-memory word your kernel read was written first"}
                      : check_result{"initcheck", check_status::failed,
                                     "a read of shared memory that no thread of the block wrote: " +
                                         listed(yours->uninitialized, yours->hazard_count)});
    return out;
}

check_result counters_check(const std::string& name, const part_result& part, const policy& pol,
                            const lab_policy& lab) {
    const version_counters* yours = version(part, "student");
    const version_counters* reference = version(part, "reference");
    if (yours == nullptr || reference == nullptr)
        return {name, check_status::skipped, "no counters: the kernel did not run correctly"};
    if (name == "no_divergence") return no_divergence(*yours, *reference, pol.divergence_margin);
    if (name == "no_shared_tree") return no_shared_tree(*yours, *reference, pol.shared_tree_factor);
    if (name == "wide_loads") return wide_loads(*yours, *reference, pol.wide_loads_factor);
    const version_counters* baseline = version(part, "baseline");
    check_result r = bank_wavefronts_verdict(
        traffic_of(*yours), baseline ? std::optional<shared_traffic>(traffic_of(*baseline)) : std::nullopt,
        lab.max_wavefronts_per_request, true);
    r.detail += " (the emulator's count, " + part.counters_problem + ")";
    return r;
}

}  // namespace course
