#include "core/protocol.hpp"

namespace course {

namespace {

template <typename Enum, std::size_t N>
void enum_to_json(nlohmann::json& j, Enum v, const std::pair<Enum, const char*> (&names)[N]) {
    for (const auto& [value, name] : names)
        if (value == v) {
            j = name;
            return;
        }
    throw std::invalid_argument("protocol: an enum value without a name");
}

// Unknown names throw: a job the worker does not understand must stop it, not run as
// something else.
template <typename Enum, std::size_t N>
void enum_from_json(const nlohmann::json& j, Enum& v, const std::pair<Enum, const char*> (&names)[N],
                    const char* what) {
    const std::string text = j.get<std::string>();
    for (const auto& [value, name] : names)
        if (text == name) {
            v = value;
            return;
        }
    throw nlohmann::json::other_error::create(501, std::string("unknown ") + what + " '" + text + "'", &j);
}

constexpr std::pair<worker_command, const char*> command_names[] = {{worker_command::describe, "describe"},
                                                                    {worker_command::correctness, "correctness"},
                                                                    {worker_command::timing, "timing"},
                                                                    {worker_command::profile, "profile"},
                                                                    {worker_command::references, "references"}};
constexpr std::pair<sandbox_mode, const char*> sandbox_names[] = {
    {sandbox_mode::strict, "strict"}, {sandbox_mode::relaxed, "relaxed"}, {sandbox_mode::off, "off"}};

}  // namespace

void to_json(nlohmann::json& j, worker_command v) { enum_to_json(j, v, command_names); }
void from_json(const nlohmann::json& j, worker_command& v) { enum_from_json(j, v, command_names, "command"); }
void to_json(nlohmann::json& j, sandbox_mode v) { enum_to_json(j, v, sandbox_names); }
void from_json(const nlohmann::json& j, sandbox_mode& v) { enum_from_json(j, v, sandbox_names, "sandbox mode"); }

worker_job describe_job(sandbox_mode sandbox) {
    worker_job job;
    job.command = worker_command::describe;
    job.sandbox = sandbox;
    return job;
}

worker_job correctness_job_of(const correctness_request& request, sandbox_mode sandbox) {
    worker_job job = describe_job(sandbox);
    job.command = worker_command::correctness;
    job.correctness = request;
    return job;
}

worker_job timing_job_of(const timing_request& request) {
    worker_job job = describe_job();
    job.command = worker_command::timing;
    job.timing = request;
    return job;
}

worker_job correctness_then_timing_job_of(const correctness_request& correctness, const timing_request& timing) {
    worker_job job = correctness_job_of(correctness);
    job.timing = timing;
    return job;
}

worker_job profile_job_of(const profile_request& request) {
    worker_job job = describe_job(sandbox_mode::relaxed);  // under ncu
    job.command = worker_command::profile;
    job.profile = request;
    return job;
}

std::vector<std::string> worker_argv(const std::string& worker, const worker_job& job) {
    return {worker, "--events-fd", "3", "--job", nlohmann::json(job).dump()};
}

std::string event_part(const nlohmann::json& j) {
    const auto it = j.find("part");
    return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace course
