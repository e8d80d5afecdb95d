#include "supervisor/phase_runner.hpp"

#include <algorithm>
#include <mutex>

#include <fmt/format.h>

#include "course/printf_bound.hpp"

namespace course {

std::string join(const std::vector<std::string>& items, const char* sep) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
    return out;
}

std::vector<std::string> session::part_ids() const {
    std::vector<std::string> ids;
    for (const auto& p : parts) ids.push_back(p.id);
    return ids;
}

void session::say(const std::string& line) const {
    static std::mutex one_line;
    if (!opt.progress) return;
    const std::lock_guard<std::mutex> hold(one_line);
    opt.progress(line);
}

std::string last_lines(const std::string& text, int lines) {
    std::size_t pos = text.size();
    while (pos > 0 && (text[pos - 1] == '\n' || text[pos - 1] == ' ')) --pos;
    std::size_t start = pos;
    for (int seen = 0; start > 0; --start) {
        if (text[start - 1] == '\n' && ++seen == lines) break;
    }
    return text.substr(start, pos - start);
}

std::string describe_end_with_error(const worker_run& run) {
    for (const auto& ev : run.events) {
        if (!is_event<error_event>(ev)) continue;
        try {
            return run.describe_end() + " (" + ev.get<error_event>().message + ")";
        } catch (const nlohmann::json::exception&) {
        }
    }
    return run.describe_end();
}

void run_phase(const session& s, std::vector<std::string> ids, const worker_limits& limits,
               const job_for_parts& make_job, const std::set<std::string>& done_events,
               const event_handler& on_event, const unfinished_handler& on_unfinished,
               const std::function<void(const worker_run&)>& on_run, const worker_reply& reply) {
    while (!ids.empty()) {
        std::set<std::string> finished;
        std::string current_part, in_flight;
        const worker_run run = run_worker(worker_argv(s.worker, make_job(ids)), limits, [&](const nlohmann::json& ev) {
            try {
                if (is_event<case_begin_event>(ev)) {
                    const auto begin = ev.get<case_begin_event>();
                    current_part = begin.part;
                    in_flight = begin.input + " input, " + begin.size;
                } else if (is_event<timing_begin_event>(ev)) {
                    current_part = ev.get<timing_begin_event>().part;
                    in_flight = "timing";
                } else if (done_events.count(ev.value("event", ""))) {
                    finished.insert(event_part(ev));
                }
                on_event(ev);
            } catch (const nlohmann::json::exception&) {
                // Not what the protocol says: a worker cannot lie its way to a verdict with
                // it, and the part it left unfinished is blamed below.
            }
        }, {}, reply);
        if (on_run) on_run(run);
        std::vector<std::string> left;
        for (const auto& id : ids)
            if (!finished.count(id)) left.push_back(id);
        if (left.empty()) return;
        // The worker ended right after the part it was on was done (a sticky CUDA error ends
        // it there, its context lost): no part is to blame, and the parts left start again in a
        // new worker. This run finished one, so the loop ends.
        if (!current_part.empty() && finished.count(current_part)) {
            ids = left;
            continue;
        }
        // The worker stopped early. Blame the part it was on (or the first unfinished one).
        const std::string culprit =
            std::find(left.begin(), left.end(), current_part) != left.end() ? current_part : left.front();
        on_unfinished(culprit, run, current_part == culprit ? in_flight : "");
        left.erase(std::find(left.begin(), left.end(), culprit));
        ids = left;
    }
}

namespace {

// --show-output: at most this much of what one part's kernels print.
constexpr std::size_t shown_output_lines = 200;
constexpr std::size_t shown_output_bytes = 16 * 1024;

// The first lines of a run's output, within the bounds above, and how many more there were.
std::string shown_output(const worker_run& run) {
    const std::string& head = run.output_head;
    std::size_t end = 0, lines = 0;
    while (end < head.size() && lines < shown_output_lines) {
        const std::size_t nl = head.find('\n', end);
        end = nl == std::string::npos ? head.size() : nl + 1;  // a line cut by the byte bound counts as shown
        ++lines;
    }
    std::string text = head.substr(0, end);
    if (!text.empty() && text.back() != '\n') text += "\n";
    if (run.output_lines > lines)
        text += fmt::format("... {} more line(s) not shown ({} bytes in all)\n", run.output_lines - lines,
                            run.output_bytes);
    return text;
}

}  // namespace

void run_parts(const session& s, const std::vector<std::string>& ids, worker_limits limits,
               const job_for_parts& make_job, const std::set<std::string>& done_events,
               const event_handler& on_event, const unfinished_handler& on_unfinished, const worker_reply& reply) {
    // Whether the kernels' printf was cut (course/printf_bound.hpp), shown or not.
    limits.watch_for = COURSE_PRINTF_CUT_MARKER;
    const auto cut = [&](const worker_run& run) { s.output_cut = s.output_cut || run.saw_watched; };
    if (!s.opt.kernel_output)
        return run_phase(s, ids, limits, make_job, done_events, on_event, on_unfinished,
                         [&](const worker_run& run) {
                             s.unshown_output_lines += run.output_lines;
                             cut(run);
                         },
                         reply);
    limits.keep_first = shown_output_bytes;
    for (const auto& id : ids) {
        std::string output;  // a part's worker runs once: it is not restarted for a part it was on
        run_phase(s, {id}, limits, make_job, done_events, on_event, on_unfinished,
                  [&](const worker_run& run) {
                      output += shown_output(run);
                      cut(run);
                  },
                  reply);
        s.opt.kernel_output(id, output);
    }
}

}  // namespace course
