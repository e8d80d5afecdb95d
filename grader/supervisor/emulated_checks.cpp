#include "supervisor/emulated_checks.hpp"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

namespace course {

namespace {

double per(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0.0 : static_cast<double>(a) / b; }

std::uint64_t shared_wavefronts(const version_counters& v) {
    return v.shared_load_wavefronts + v.shared_store_wavefronts + v.shared_atomic_wavefronts;
}
std::uint64_t excess_wavefronts(const version_counters& v) {
    const std::uint64_t all = shared_wavefronts(v);
    return all > v.shared_ideal_wavefronts ? all - v.shared_ideal_wavefronts : 0;
}

// The three versions of one drawn problem.
struct counted_problem {
    const version_counters* baseline = nullptr;
    const version_counters* reference = nullptr;
    const version_counters* student = nullptr;
};

std::vector<counted_problem> problems_of(const part_result& part) {
    std::vector<counted_problem> out;
    for (const auto& v : part.counters) {
        if (v.version != "student") continue;
        counted_problem p;
        p.student = &v;
        for (const auto& o : part.counters) {
            if (o.problem != v.problem) continue;
            if (o.version == "baseline") p.baseline = &o;
            if (o.version == "reference") p.reference = &o;
        }
        if (p.reference != nullptr) out.push_back(p);
    }
    return out;
}

// The student's instructions that cost the most by `cost`, in words with their lines.
std::string costliest(const version_counters& v, const std::function<std::uint64_t(const instruction_row&)>& cost,
                      const std::function<std::string(const instruction_row&)>& said) {
    // Instructions of one line and kind together: a line may compile to several.
    std::vector<instruction_row> rows;
    for (const auto& r : v.instructions) {
        if (cost(r) == 0) continue;
        auto same = std::find_if(rows.begin(), rows.end(), [&](const instruction_row& o) {
            return o.place == r.place && o.shared == r.shared && o.op == r.op && o.width == r.width;
        });
        if (same == rows.end()) {
            rows.push_back(r);
            continue;
        }
        same->requests += r.requests;
        same->cost += r.cost;
        same->ideal += r.ideal;
        same->excess_warps += r.excess_warps;
        same->lanes += r.lanes;
    }
    std::sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) { return cost(a) > cost(b); });
    std::string out;
    for (std::size_t i = 0; i < rows.size() && i < 3; ++i) {
        const auto& r = rows[i];
        out += fmt::format("{}{} ({} {}, {} bytes): {}", out.empty() ? "" : "; ",
                           r.place.empty() ? "a line outside kernels.cu" : r.place, r.shared ? "shared" : "global",
                           r.op, r.width, said(r));
    }
    return out.empty() ? "" : ". Where: " + out;
}

check_result no_divergence(const counted_problem& p, double margin) {
    const version_counters& mine = *p.student;
    const double yours = per(mine.excess_warp_requests, mine.elements);
    const double ref = per(p.reference->excess_warp_requests, p.reference->elements);
    const std::string detail = fmt::format(
        "{:.3f} warp-requests per input element beyond the whole warps your active lanes would fill, the "
        "reference's {:.3f} ({})",
        yours, ref, mine.problem);
    if (yours <= ref + margin) return {"no_divergence", check_status::passed, detail};
    return {"no_divergence", check_status::failed,
            detail + costliest(mine, [](const instruction_row& r) { return r.excess_warps; },
                               [](const instruction_row& r) {
                                   return fmt::format("{} of its {} warp-requests in excess", r.excess_warps,
                                                      r.requests);
                               }) +
                ". Threads of one warp that take different branches leave lanes idle: pick the working threads so "
                "that whole warps work and whole warps rest (the handout's section on divergence)"};
}

check_result no_shared_tree(const counted_problem& p, const policy& pol) {
    const version_counters& mine = *p.student;
    const version_counters& ref = *p.reference;
    const double yours = per(shared_wavefronts(mine), mine.elements);
    const double theirs = per(shared_wavefronts(ref), ref.elements);
    const std::string detail = fmt::format(
        "one warp of your kernel touched shared memory in {} synchronisation steps, the reference's in {}; {:.3f} "
        "shared wavefronts per input element, the reference {:.3f} ({})",
        mine.shared_epochs, ref.shared_epochs, yours, theirs, mine.problem);
    const bool steps_ok = mine.shared_epochs <= ref.shared_epochs + static_cast<std::uint64_t>(pol.shared_epochs_slack);
    const bool traffic_ok = yours <= pol.shared_tree_factor * theirs + pol.shared_tree_slack;
    if (steps_ok && traffic_ok) return {"no_shared_tree", check_status::passed, detail};
    return {"no_shared_tree", check_status::failed,
            detail + costliest(mine, [](const instruction_row& r) { return r.shared ? r.cost : 0; },
                               [](const instruction_row& r) {
                                   return fmt::format("{} wavefronts in {} requests", r.cost, r.requests);
                               }) +
                (steps_ok ? ". Every thread's atomic on one shared word is served one lane at a time"
                          : ". A tree through shared memory needs a barrier and a round trip per step") +
                ": sum within each warp with shuffles and use shared memory only to combine the warps' sums"};
}

// Sectors moved by global loads narrower than the reference's widest divided by `factor`.
std::uint64_t narrow_sectors(const version_counters& v, double limit) {
    std::uint64_t n = 0;
    for (const auto& r : v.instructions)
        if (!r.shared && r.op == "load" && per(r.cost, r.requests) < limit) n += r.cost;
    return n;
}

check_result wide_loads(const counted_problem& p, const policy& pol) {
    const version_counters& mine = *p.student;
    const version_counters& ref = *p.reference;
    const double limit = per(ref.global_load_sectors, ref.global_load_requests) / pol.wide_loads_factor;
    const double yours = per(narrow_sectors(mine, limit), mine.elements);
    const double theirs = per(narrow_sectors(ref, limit), ref.elements);
    const std::string detail = fmt::format(
        "{:.3f} sectors of 32 bytes per input element came through global loads of fewer than {:.1f} sectors per "
        "warp request, the reference's {:.3f} ({})",
        yours, limit, theirs, mine.problem);
    if (yours <= theirs + pol.narrow_sectors_slack) return {"wide_loads", check_status::passed, detail};
    return {"wide_loads", check_status::failed,
            detail + costliest(mine,
                               [&](const instruction_row& r) {
                                   return !r.shared && r.op == "load" && per(r.cost, r.requests) < limit ? r.cost : 0;
                               },
                               [](const instruction_row& r) {
                                   return fmt::format("{:.1f} sectors per request", per(r.cost, r.requests));
                               }) +
                ". Load 16 bytes per thread at a time (a float4): a warp's request then moves 512 bytes instead of "
                "128, and four times fewer requests carry the input (the handout's part B)"};
}

check_result bank_wavefronts(const counted_problem& p, const policy& pol) {
    const version_counters& mine = *p.student;
    if (shared_wavefronts(mine) == 0)
        return {"bank_wavefronts", check_status::failed,
                "no shared loads to measure: the lab's technique is a tile in shared memory (" + mine.problem + ")"};
    const double yours = per(excess_wavefronts(mine), mine.elements);
    const double theirs = per(excess_wavefronts(*p.reference), p.reference->elements);
    std::string detail = fmt::format(
        "{:.3f} shared-memory wavefronts per input element beyond the conflict-free count of your loads, stores "
        "and atomics (by width), the reference's {:.3f}",
        yours, theirs);
    if (p.baseline != nullptr)
        detail += fmt::format(", the naive baseline's {:.3f}", per(excess_wavefronts(*p.baseline), p.baseline->elements));
    detail += " (the emulator's count, " + mine.problem + ")";
    if (yours <= theirs + pol.max_excess_wavefronts) return {"bank_wavefronts", check_status::passed, detail};
    return {"bank_wavefronts", check_status::failed,
            detail + costliest(mine, [](const instruction_row& r) { return r.shared ? r.cost - std::min(r.cost, r.ideal) : 0; },
                               [](const instruction_row& r) {
                                   return fmt::format("{} wavefronts where {} would do", r.cost, r.ideal);
                               }) +
                ". Lanes of a warp that hit different words of one bank are served one after another: pad the "
                "array so that a warp's accesses fall in different banks"};
}

}  // namespace

std::vector<check_result> traced_run_check(const part_result& part) {
    if (part.correctness.status != correctness_status::passed) return {};
    if (!part.counters_error.empty()) return {{"traced_run", check_status::failed, part.counters_error}};
    if (problems_of(part).empty())
        return {{"traced_run", check_status::failed, "the emulator's traced cases of your kernel left no counters"}};
    return {};
}

std::vector<check_result> hazard_checks(const part_result& part, const std::string& kernel) {
    std::vector<check_result> out;
    const hazard_findings& h = part.hazards;
    if (h.cases == 0) return out;
    // The first finding in full; the others by their lines only, once each, with a count.
    const auto listed = [&](const std::vector<std::string>& found) {
        if (found.empty()) return std::string();
        std::string text = found.front();
        std::vector<std::string> others;
        for (std::size_t i = 1; i < found.size(); ++i) {
            std::string lines;
            for (std::size_t at = found[i].find("(at "); at != std::string::npos; at = found[i].find("(at ", at + 1)) {
                const std::size_t end = found[i].find(')', at);
                if (end == std::string::npos) break;
                lines += (lines.empty() ? "" : " and ") + found[i].substr(at + 4, end - at - 4);
            }
            if (!lines.empty() && std::find(others.begin(), others.end(), lines) == others.end()) others.push_back(lines);
        }
        const std::uint64_t more = std::max<std::uint64_t>(h.count, found.size()) - 1;
        if (more > 0) {
            text += fmt::format("; {} more hazard(s)", more);
            if (!others.empty()) {
                text += ", between ";
                for (std::size_t i = 0; i < others.size(); ++i) text += (i ? ", " : "") + others[i];
            }
        }
        return text;
    };
    const std::string where = fmt::format("in every launch of {}'s {} cases", kernel, h.cases);
    out.push_back(h.races.empty()
                      ? check_result{"races", check_status::passed, "the emulator found no shared-memory race " + where}
                      : check_result{"races", check_status::failed,
                                     "a shared-memory race: " + listed(h.races) +
                                         ". Put a barrier between the write and the read (__syncthreads(), or "
                                         "__syncwarp() between lanes of one warp)"});
    out.push_back(h.uninitialized.empty()
                      ? check_result{"initcheck", check_status::passed,
                                     "every shared-memory word your kernel read was written first, " + where}
                      : check_result{"initcheck", check_status::failed,
                                     "a read of shared memory that no thread of the block wrote: " +
                                         listed(h.uninitialized)});
    return out;
}

check_result counters_check(const std::string& name, const part_result& part, const policy& pol) {
    const auto problems = problems_of(part);
    if (problems.empty()) return {name, check_status::skipped, "no counters: the kernel did not run correctly"};
    check_result last;
    for (const auto& p : problems) {
        last = name == "no_divergence"    ? no_divergence(p, pol.divergence_margin)
               : name == "no_shared_tree" ? no_shared_tree(p, pol)
               : name == "wide_loads"     ? wide_loads(p, pol)
                                          : bank_wavefronts(p, pol);
        if (last.status == check_status::failed) return last;  // every drawn problem must pass
    }
    return last;
}

}  // namespace course
