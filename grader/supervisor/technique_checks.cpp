#include "supervisor/technique_checks.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/bank_verdict.hpp"
#include "core/tool_output.hpp"
#include "supervisor/worker_process.hpp"

namespace course {

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Runs a tool to completion and returns its stdout and stderr (up to 32 MiB).
worker_run run_tool(const std::vector<std::string>& argv, double seconds) {
    worker_limits limits;
    limits.quiet_seconds = seconds;
    limits.total_seconds = seconds;
    limits.keep_output = 32u << 20;
    limits.output_counts_as_activity = true;
    return run_worker(argv, limits);
}

check_result skipped(const char* name, const std::string& why) { return {name, check_status::skipped, why}; }

}  // namespace

std::string find_tool(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    const std::string cuda = "/usr/local/cuda/bin/" + name;
    return ::access(cuda.c_str(), X_OK) == 0 ? cuda : "";
}

check_result check_no_libraries(const std::string& source, const std::string& object, bool gpu) {
    std::string symbols;
    std::string note;
    if (gpu) {
        const std::string nm = find_tool("nm");
        if (nm.empty()) {
            note = " (nm not found: only the #includes were checked)";
        } else {
            const worker_run run = run_tool({nm, "-C", object}, 60);
            symbols = run.output_tail;
        }
    }
    const auto found = forbidden_library_uses(read_file(source), symbols);
    if (found.empty()) return {"no_libraries", check_status::passed, "no CUB, Thrust or cuBLAS" + note};
    std::string detail = "the lab must be written by hand, without library reductions: " + found.front();
    if (found.size() > 1) detail += " (and " + std::to_string(found.size() - 1) + " more)";
    return {"no_libraries", check_status::failed, detail};
}

check_result check_uses_shuffle(const std::string& object, const std::string& kernel,
                                const std::vector<std::string>& other_kernels, bool gpu) {
    if (!gpu) return skipped("uses_shuffle", "needs the GPU build: the CPU emulator has no SASS to inspect");
    const std::string cuobjdump = find_tool("cuobjdump");
    if (cuobjdump.empty()) return skipped("uses_shuffle", "cuobjdump not found");
    const worker_run run = run_tool({cuobjdump, "-sass", object}, 120);
    if (!run.exited_normally() || run.exit_code != 0)
        return skipped("uses_shuffle", "cuobjdump " + run.describe_end());
    switch (find_in_sass(run.output_tail, kernel, "SHFL", other_kernels)) {
    case sass_search::found: return {"uses_shuffle", check_status::passed, "SHFL instructions in " + kernel};
    case sass_search::not_found:
        return {"uses_shuffle", check_status::failed,
                "no SHFL instruction in the SASS of " + kernel + ": the warp-level steps must use __shfl_*_sync"};
    case sass_search::no_such_function: break;
    }
    return skipped("uses_shuffle", "no SASS for " + kernel + " in " + object);
}

check_result check_sanitize(const std::string& worker, const std::string& part_id, std::uint64_t seed, bool gpu) {
    if (!gpu) return skipped("sanitize", "compute-sanitizer needs a GPU");
    const std::string tool = find_tool("compute-sanitizer");
    if (tool.empty()) return skipped("sanitize", "compute-sanitizer not found");
    std::string detail;
    int total = 0;
    for (const char* which : {"memcheck", "racecheck"}) {
        const worker_run run =
            run_tool({tool, "--tool", which, "--print-limit", "10", worker, "--events-fd", "3", "correctness",
                      "--parts", part_id, "--sizes", "1,33,257,4097", "--inputs", "random,ones", "--seed",
                      std::to_string(seed)},
                     600);
        const sanitizer_summary s = parse_sanitizer(run.output_tail);
        if (!s.parsed) return skipped("sanitize", std::string(which) + " gave no summary: " + run.describe_end());
        total += s.total();
        detail += std::string(detail.empty() ? "" : "; ") + which + ": " + std::to_string(s.errors) + " error(s)";
        if (std::string(which) == "racecheck") detail += ", " + std::to_string(s.warnings) + " race warning(s)";
        if (!s.findings.empty()) detail += " (" + s.findings.front() + ")";
    }
    return {"sanitize", total == 0 ? check_status::passed : check_status::failed, detail};
}

namespace {

// Fills `traffic`, or returns why ncu could not read the counters.
std::string measure_wavefronts(const std::string& ncu, const std::string& worker, const std::string& part_id,
                               const char* version, shared_traffic& traffic) {
    const char* metrics =
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
    const worker_run run = run_tool({ncu, "--clock-control", "none", "--csv", "--metrics", metrics, worker,
                                     "--events-fd", "3", "profile", "--parts", part_id, "--version", version},
                                    300);
    const ncu_metrics m = parse_ncu_csv(run.output_tail);
    if (!m.error.empty()) return m.error;
    auto get = [&](const char* name) { return m.sums.count(name) ? m.sums.at(name) : 0.0; };
    traffic.load = shared_conflict_factor(get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
                                          get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"));
    traffic.store = shared_conflict_factor(get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
                                           get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"));
    return "";
}

}  // namespace

check_result check_bank_wavefronts(const std::string& worker, const std::string& part_id, double limit, bool graded,
                                   bool gpu) {
    if (!gpu) return skipped("bank_wavefronts", "needs a GPU and Nsight Compute: the CPU emulator has no counters");
    const std::string ncu = find_tool("ncu");
    if (ncu.empty()) return skipped("bank_wavefronts", "Nsight Compute (ncu) not found");
    shared_traffic mine;
    const std::string error = measure_wavefronts(ncu, worker, part_id, "student", mine);
    if (!error.empty()) return skipped("bank_wavefronts", "ncu could not read the counters: " + error);
    shared_traffic base;
    const bool have_base = measure_wavefronts(ncu, worker, part_id, "baseline", base).empty();
    return bank_wavefronts_verdict(mine, have_base ? std::optional<shared_traffic>(base) : std::nullopt, limit, graded);
}

}  // namespace course
