#include "supervisor/reference_counters.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/sha256.hpp"
#include "process/worker_process.hpp"
#include "supervisor/known_labs.hpp"

namespace course {

counters_request countable_problems(const policy& pol) {
    counters_request r;
    for (const auto& [kind, k] : pol.problems) {
        std::vector<problem_size> keep;
        for (const auto* list : {&k.sizes_emulated, &k.large_sizes_emulated})
            for (const auto& size : *list)
                if (size.elements() >= k.counted_from) keep.push_back(size);
        std::sort(keep.begin(), keep.end());
        keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
        r.problems[kind] = keep;
    }
    return r;
}

namespace {

std::vector<std::string> lab_part_ids(const std::string& lab) {
    for (const auto& l : known_labs())
        if (lab == l.name) return part_ids(l);
    throw std::runtime_error("unknown lab '" + lab + "'; the labs are " + known_labs_text());
}

}  // namespace

reference_counters count_reference_counters(const std::string& lab, const policy& pol, const std::string& worker) {
    reference_counters out;
    out.lab = lab;
    out.worker = std::filesystem::absolute(worker).lexically_normal().string();
    out.worker_sha256 = sha256_file(out.worker);
    if (out.worker_sha256.empty()) throw std::runtime_error("cannot read the worker " + worker);
    correctness_request request;
    request.parts = lab_part_ids(lab);
    request.tolerance_c = pol.tolerance_c;
    request.counters = countable_problems(pol);
    worker_job job = correctness_job_of(request);
    job.command = worker_command::references;
    std::string error;
    const worker_run run = run_worker(worker_argv(out.worker, job), timeouts(pol.case_timeout_seconds, 3600),
                                      [&](const nlohmann::json& ev) {
                                          if (is_event<error_event>(ev)) error = ev.value("message", "");
                                          if (!is_event<counters_event>(ev)) return;
                                          const auto counted = ev.get<counters_event>();
                                          if (!counted.error.empty()) {
                                              error = "part " + counted.part + ": " + counted.error;
                                              return;
                                          }
                                          auto& problems = out.parts[counted.part];
                                          for (version_counters v : counted.versions) {
                                              // Its places name the template worker's code.
                                              for (auto& row : v.instructions) row.place.clear();
                                              problems[v.problem].push_back(std::move(v));
                                          }
                                      });
    if (!error.empty()) throw std::runtime_error(error);
    if (!run.exited_normally() || run.exit_code != 0 || out.parts.size() != request.parts.size())
        throw std::runtime_error("the worker " + run.describe_end() + " before it had counted every part");
    return out;
}

std::string load_reference_counters(const std::string& path, const std::string& sha256, const std::string& lab,
                                    const counters_request& drawn, const std::vector<part_info>& parts,
                                    reference_counters& out) {
    std::string why;
    const auto bytes = read_pinned(path, sha256, why);
    if (!bytes) return why;
    try {
        out = nlohmann::json::parse(*bytes).get<reference_counters>();
    } catch (const nlohmann::json::exception& e) {
        return path + " is not a file of reference counters: " + e.what();
    }
    if (out.lab != lab) return path + " holds " + out.lab + "'s, not " + lab + "'s";
    if (out.worker_sha256.empty() || sha256_file(out.worker) != out.worker_sha256)
        return "the worker that counted them (" + out.worker + ") has changed or is gone since";
    for (const auto& p : parts) {
        const auto part = out.parts.find(p.id);
        if (part == out.parts.end()) return "part " + p.id + " is not in " + path;
        const auto drawn_here = drawn.problems.find(p.kind);
        if (drawn_here == drawn.problems.end()) continue;
        for (const auto& size : drawn_here->second) {
            const auto there = part->second.find(size.word());
            if (there == part->second.end()) return "part " + p.id + ", " + size.word() + ": not counted in " + path;
            if (there->second.empty() || there->second.back().version != "reference")
                return "part " + p.id + ", " + size.word() + ": no reference counted in " + path;
        }
    }
    return "";
}

void merge_reference_counters(counters_event& event, const reference_counters& cache) {
    std::vector<version_counters> merged;
    const auto part = cache.parts.find(event.part);
    for (auto& v : event.versions) {
        if (v.version != "student") continue;
        if (part != cache.parts.end())
            if (const auto there = part->second.find(v.problem); there != part->second.end())
                merged.insert(merged.end(), there->second.begin(), there->second.end());
        merged.push_back(std::move(v));
    }
    event.versions = std::move(merged);
}

}  // namespace course
