#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "supervisor/session.hpp"
#include "process/worker_process.hpp"

namespace course {

// The job for the parts a (re)started worker still has to do.
using job_for_parts = std::function<worker_job(const std::vector<std::string>& ids)>;
using event_handler = std::function<void(const nlohmann::json& event)>;
// The part a dead worker was on (or the first it did not finish), how the run ended, and
// the case it was running ("random input, n=257", "timing", or "").
using unfinished_handler =
    std::function<void(const std::string& id, const worker_run& run, const std::string& in_flight)>;

// Runs a phase over `ids`, restarting the worker for the parts it did not finish when it
// dies: a crash or hang in one part costs that part only. A part is finished by an event
// whose type is in `done_events`. An event that does not parse as its type is dropped.
// make_job is called right before each worker starts; `reply` answers its events on its
// stdin (worker_process.hpp).
void run_phase(const session& s, std::vector<std::string> ids, const worker_limits& limits,
               const job_for_parts& make_job, const std::set<std::string>& done_events,
               const event_handler& on_event, const unfinished_handler& on_unfinished,
               const std::function<void(const worker_run&)>& on_run = {}, const worker_reply& reply = {});

// run_phase, and with --show-output one worker per part, so that what a run prints is
// that part's; the output then goes to grade_options::kernel_output.
void run_parts(const session& s, const std::vector<std::string>& ids, worker_limits limits,
               const job_for_parts& make_job, const std::set<std::string>& done_events,
               const event_handler& on_event, const unfinished_handler& on_unfinished,
               const worker_reply& reply = {});

// The last few lines a dead worker printed: usually the reason it died.
std::string last_lines(const std::string& text, int lines);

// How a worker's run ended, with the message of the error event it sent, if any
// ("exit code 2 (no NVIDIA GPU or driver found)").
std::string describe_end_with_error(const worker_run& run);

}  // namespace course
