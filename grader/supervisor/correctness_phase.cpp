#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/code_place.hpp"
#include "core/grading_plan.hpp"
#include "core/hints.hpp"
#include "supervisor/gpu_turn.hpp"
#include "supervisor/phase_runner.hpp"
#include "supervisor/phases.hpp"
#include "supervisor/reference_counters.hpp"
#include "supervisor/technique_checks.hpp"

namespace course {

namespace {

// The line of the lab file at an address of the worker's executable (the emulator's
// fault messages carry one), through addr2line and the line tables of the lab objects:
// with the call site when it lies in an inlined helper (a shuffle in warp_sum called from
// the kernel is "kernels.cu:12 via kernels.cu:40").
std::string lab_file_line(const session& s, const std::string& hex) {
    static const std::string tool = find_tool("addr2line");
    if (tool.empty() || hex.rfind("0x", 0) != 0) return "";
    worker_limits limits;
    limits.quiet_seconds = limits.total_seconds = 20;
    limits.output_counts_as_activity = true;
    const worker_run run = run_worker({tool, "-e", s.worker, "-i", hex}, limits);
    return run.exited_normally() && run.exit_code == 0 ? line_and_call_site(run.output_tail, "kernels.cu") : "";
}

// The problems whose counters this grade's technique checks read: `draws` of each kind's
// random emulated cases of at least its counted_from (the large ones included), drawn
// afresh from the grade's seed, so that no input a kernel can recognise decides a check.
counters_request draw_counted_problems(const policy& pol, std::uint64_t seed) {
    std::mt19937_64 rng(seed ^ 0x636f756e74657273ull);
    counters_request r = countable_problems(pol);
    for (auto& [kind, keep] : r.problems) {
        std::shuffle(keep.begin(), keep.end(), rng);
        keep.resize(std::min<std::size_t>(keep.size(), static_cast<std::size_t>(pol.counters_draws)));
    }
    return r;
}

// The lines of many addresses in one run of addr2line ("-a" heads each one's frames with
// the address itself): a part's instructions, which the counters name.
std::map<std::string, std::string> lab_file_lines(const session& s, const std::vector<std::string>& hexes) {
    std::map<std::string, std::string> out;
    static const std::string tool = find_tool("addr2line");
    if (tool.empty() || hexes.empty()) return out;
    std::vector<std::string> argv{tool, "-e", s.worker, "-a", "-i"};
    for (const auto& h : hexes)
        if (h.rfind("0x", 0) == 0) argv.push_back(h);
    worker_limits limits;
    limits.quiet_seconds = limits.total_seconds = 20;
    limits.output_counts_as_activity = true;
    const worker_run run = run_worker(argv, limits);
    if (!run.exited_normally() || run.exit_code != 0) return out;
    std::istringstream lines(run.output_tail);
    std::string current, frames;
    const auto close = [&] {
        if (!current.empty()) out[current] = line_and_call_site(frames, "kernels.cu");
        frames.clear();
    };
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("0x", 0) == 0 && line.find(':') == std::string::npos) {
            close();
            // addr2line pads the address to 16 digits: key it as the worker wrote it.
            std::size_t first = 2;
            while (first + 1 < line.size() && line[first] == '0') ++first;
            current = "0x" + line.substr(first);
        } else {
            frames += line + "\n";
        }
    }
    close();
    return out;
}

// Gives the student's instructions their lines, and the hazards theirs.
void place_counters(const session& s, counters_event& counted) {
    static const std::string open = " [at exe+";
    std::vector<std::string> hexes;
    for (const auto& v : counted.versions)
        for (const auto& row : v.instructions)
            if (v.version == "student" && row.place.rfind(open, 0) == 0) hexes.push_back(row.place.substr(open.size(), row.place.size() - open.size() - 1));
    std::sort(hexes.begin(), hexes.end());
    hexes.erase(std::unique(hexes.begin(), hexes.end()), hexes.end());
    const auto lines = lab_file_lines(s, hexes);
    const auto resolve = [&](const std::string& hex) { return lab_file_line(s, hex); };
    for (auto& v : counted.versions)
        for (auto& row : v.instructions) {
            const auto it = v.version == "student" && row.place.rfind(open, 0) == 0
                                ? lines.find(row.place.substr(open.size(), row.place.size() - open.size() - 1))
                                : lines.end();
            row.place = it == lines.end() ? "" : it->second;
        }
    for (auto* found : {&counted.hazards.races, &counted.hazards.uninitialized})
        for (auto& message : *found) message = place_code(message, resolve);
    counted.error = place_code(counted.error, resolve);
}

correctness_request request_of(const session& s) {
    const bool emulated = !s.gpu();
    correctness_request r;
    r.seed = s.seed;
    r.tolerance_c = s.pol.tolerance_c;
    const case_lists cases = cases_of(s.pol, emulated);
    r.inputs = cases.inputs;
    r.problems = cases.problems;
    if (emulated) r.counters = draw_counted_problems(s.pol, s.seed);
    return r;
}

correctness_status status_of(const part_correctness_event& e) {
    return e.passed ? correctness_status::passed : e.sticky ? correctness_status::crashed : correctness_status::failed;
}

}  // namespace

void correctness_phase(const session& s, std::map<std::string, part_result>& results,
                       const std::function<void(const std::string& part)>& not_correct, const timing_next* then) {
    const auto failed = [&](const std::string& id) {
        if (not_correct) not_correct(id);
    };
    std::map<std::string, std::vector<case_record>> records;
    const std::vector<std::string> ids = s.part_ids();
    s.say("correctness: " + std::to_string(ids.size()) + " part(s) on the " + (s.gpu() ? "GPU" : "CPU emulator"));
    correctness_request request = request_of(s);
    // A class's reference counters (a batch's), when they cover this grade's draw: the
    // worker then counts the student's version alone.
    reference_counters cached;
    if (request.counters && !s.opt.reference_counters.empty()) {
        const std::string why_not =
            load_reference_counters(s.opt.reference_counters, s.opt.reference_counters_sha256, s.opt.lab,
                                    *request.counters, s.parts, cached);
        request.counters->student_only = why_not.empty();
        s.reference_counters = why_not.empty() ? "class" : "counted: " + why_not;
        s.say(why_not.empty() ? "reference counters: the class's, from " + s.opt.reference_counters
                              : "reference counters: counted in this grade instead: " + why_not);
    }
    // Each worker makes its inputs holding nothing, then runs its cases with the GPU shared.
    gpu_turn turn(s.lock(), gpu_turn::phase::correctness);
    // With `then`: the running worker's parts, and those of them with a verdict. Once every
    // one has it, no kernel of the student's runs before timing's "go": the shared hold goes
    // then, not while the worker makes timing's host inputs, and only then may it time.
    std::vector<std::string> running;
    std::set<std::string> judged;
    const auto all_judged = [&] {
        return std::all_of(running.begin(), running.end(), [&](const std::string& id) { return judged.count(id) > 0; });
    };

    run_parts(
        s, ids, timeouts(s.pol.case_timeout_seconds, 3600),
        [&](const std::vector<std::string>& which) {
            turn.worker_starts();
            running = which;
            judged.clear();
            correctness_request r = request;
            r.parts = which;
            r.wait_for_go = true;
            return then != nullptr ? correctness_then_timing_job_of(r, then->request) : correctness_job_of(r);
        },
        // With counters (the emulator), the part ends with its counters event: a worker that
        // dies in the traced runs is then blamed on this part, not the next.
        {request.counters ? counters_event::event : part_correctness_event::event},
        [&](const nlohmann::json& ev) {
            if (is_event<case_end_event>(ev)) {
                case_record rec = ev.get<case_end_event>().record;
                rec.detail = place_code(rec.detail, [&](const std::string& hex) { return lab_file_line(s, hex); });
                records[rec.part].push_back(rec);
            } else if (is_event<counters_event>(ev) && request.counters) {  // asked for: the emulator only
                auto counted = ev.get<counters_event>();
                if (request.counters->student_only) merge_reference_counters(counted, cached);
                // Hazards and instructions name their places as code addresses, like
                // faults: make them lines.
                place_counters(s, counted);
                results[counted.part].counters = std::move(counted.versions);
                results[counted.part].counters_problems = counted.problems;
                results[counted.part].hazards = std::move(counted.hazards);
                results[counted.part].shuffles_perturbed = counted.shuffles_perturbed;
                results[counted.part].counters_error = std::move(counted.error);
            } else if (is_event<part_correctness_event>(ev)) {
                const auto verdict = ev.get<part_correctness_event>();
                auto& c = results[verdict.part].correctness;
                c.cases = verdict.cases;
                c.failed = verdict.failed;
                c.status = status_of(verdict);
                if (verdict.warp_shuffles) c.warp_shuffles = *verdict.warp_shuffles;
                if (c.status != correctness_status::passed) failed(verdict.part);
                judged.insert(verdict.part);
                if (then != nullptr && all_judged()) turn.finish();
            } else if (then != nullptr && (is_event<timing_event>(ev) || is_event<timing_failed_event>(ev))) {
                then->collected->take(ev, results);
            }
        },
        [&](const std::string& id, const worker_run& run, const std::string& in_flight) {
            // Before "go" the worker ran only the course's code: not the part's fault.
            turn.blame_before_go("correctness", describe_end_with_error(run));
            failed(id);
            auto& c = results[id].correctness;
            c.status = run.timed_out ? correctness_status::timed_out : correctness_status::crashed;
            c.message = "the grader's worker " + run.describe_end() +
                        (in_flight.empty() ? "" : " while running the " + in_flight + " case");
            const std::string tail = last_lines(run.output_tail, 6);
            if (!tail.empty()) c.message += "; its last output:\n" + tail;
            c.cases = static_cast<int>(records[id].size()) + 1;
            c.failed = 1;
            for (const auto& r : records[id])
                if (!r.ok) ++c.failed;
        },
        [&](const nlohmann::json& ev) {
            if (then == nullptr || !is_event<timing_ready_event>(ev)) return turn.answer(ev);
            // Its cases are over (their hold gone above), or it is refused: so no worker is
            // started while the grading holds the GPU alone for this one's timing.
            return all_judged() ? then->ready(ev) : std::string("stop\n");
        });
    turn.finish();
    s.gpu_seconds.shared += turn.seconds_held();
    s.gpu_seconds.correctness_ready += turn.seconds_to_ready();

    for (const auto& meta : s.parts) {
        auto& c = results[meta.id].correctness;
        const auto& recs = records[meta.id];
        std::set<std::string> kinds_seen;
        for (const auto& rec : recs) {
            if (rec.fault) ++c.faults;
            // The emulator's watchdog stopped a kernel that would hang a GPU.
            if (rec.timed_out && c.status == correctness_status::failed) c.status = correctness_status::timed_out;
            if (!rec.ok && kinds_seen.insert(rec.input).second) c.failures.push_back(rec);
            if (rec.ok && rec.tolerance > 0)
                c.worst_error_ratio = std::max(c.worst_error_ratio, std::fabs(rec.got - rec.expected) / rec.tolerance);
        }
        c.hint = s.pol.problem(meta.kind).hints == "movement"
                     ? movement_hint(recs, 32)
                     : reduction_hint(recs, meta.elements_per_block, meta.hint, meta.max_grid);
        s.say(fmt::format("  part {}: {}", meta.id, to_string(c.status)));
    }
}

}  // namespace course
