// compute-sanitizer's and Nsight Compute's reports.
#include <algorithm>
#include <regex>
#include <set>

#include "rules/rules_text.hpp"
#include "core/tool_output.hpp"

namespace course {

using rules::detail::lines_of;
using rules::detail::trimmed;

racecheck_result parse_racecheck(const std::string& output, const std::vector<std::string>& kernels) {
    racecheck_result r;
    static const std::regex summary(
        R"(RACECHECK SUMMARY:\s*(\d+)\s+hazards?\s+displayed(\s*\((\d+)\s+errors?,\s*(\d+)\s+warnings?\))?)");
    static const std::regex count(R"(\[(\d+)\s+hazards?\])");
    std::vector<std::string> report;
    auto close = [&] {
        if (report.empty()) return;
        long long hazards = 0;
        std::string all;
        for (const auto& l : report) {
            all += l + "\n";
            for (std::sregex_iterator m(l.begin(), l.end(), count), e; m != e; ++m) hazards += std::stoll((*m)[1]);
        }
        if (hazards == 0) hazards = 1;
        // "Warning: ... in block (0,0,0) :" reads better in a sentence without its colon.
        std::string headline = report.front();
        while (!headline.empty() && (headline.back() == ':' || headline.back() == ' ')) headline.pop_back();
        bool attributed = false;
        for (const auto& k : kernels) {
            if (all.find(k) == std::string::npos) continue;
            auto& h = r.by_kernel[k];
            if (h.reports++ == 0) h.first = headline;
            h.hazards += hazards;
            attributed = true;
        }
        if (!attributed && r.unattributed++ == 0) r.first_unattributed = headline;
        report.clear();
    };
    for (const auto& line : lines_of(output)) {
        std::smatch m;
        if (std::regex_search(line, m, summary)) {
            close();
            r.parsed = true;
            r.displayed = std::stoi(m[1]);
            r.found = m[2].matched ? std::stoll(m[3]) + std::stoll(m[4]) : r.displayed;
            continue;
        }
        if (line.rfind("=========", 0) != 0) continue;  // the worker's own output
        const std::string text = line.substr(9);
        if (text.find("hazard detected") != std::string::npos || text.find("Race reported") != std::string::npos) {
            close();
            report.push_back(trimmed(text));
        } else if (!report.empty() && !text.empty() && (text[0] == ' ' || text[0] == '\t') && !trimmed(text).empty()) {
            report.push_back(trimmed(text));
        } else {
            close();
        }
    }
    close();
    return r;
}

sanitizer_summary parse_sanitizer(const std::string& output) {
    sanitizer_summary s;
    static const std::regex errors_re(R"(ERROR SUMMARY:\s*(\d+)\s+error)");
    static const std::regex race_re(R"(RACECHECK SUMMARY:\s*\d+\s+hazards? displayed\s*\((\d+)\s+errors?,\s*(\d+)\s+warnings?\))");
    for (const auto& line : lines_of(output)) {
        std::smatch m;
        if (std::regex_search(line, m, race_re)) {
            s.parsed = true;
            s.errors = std::stoi(m[1]);
            s.warnings = std::stoi(m[2]);
        } else if (std::regex_search(line, m, errors_re)) {
            s.parsed = true;
            s.errors = std::stoi(m[1]);
        } else if ((line.find("========= Invalid") != std::string::npos ||
                    line.find("========= Error") != std::string::npos ||
                    line.find("========= Warning") != std::string::npos) &&
                   s.findings.size() < 5) {
            s.findings.push_back(line.substr(line.find_first_not_of("= ")));
        }
    }
    return s;
}

namespace {

// One CSV record; fields may be quoted and hold commas ("void k(float *, int)", "1,024").
std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> fields;
    std::string cur;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        if (quoted) {
            if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cur += '"';
                ++i;
            } else if (ch == '"') {
                quoted = false;
            } else {
                cur += ch;
            }
        } else if (ch == '"') {
            quoted = true;
        } else if (ch == ',') {
            fields.push_back(cur);
            cur.clear();
        } else if (ch != '\r') {
            cur += ch;
        }
    }
    fields.push_back(cur);
    return fields;
}

}  // namespace

double shared_conflict_factor(double wavefronts, double conflicts) {
    const double ideal = wavefronts - conflicts;
    return ideal > 0 ? wavefronts / ideal : 0.0;
}

ncu_metrics parse_ncu_csv(const std::string& output) {
    ncu_metrics m;
    int id_col = -1, name_col = -1, value_col = -1;
    std::set<std::string> ids;
    for (const auto& line : lines_of(output)) {
        if (line.rfind("==ERROR==", 0) == 0 || line.find("ERR_NVGPUCTRPERM") != std::string::npos) {
            if (m.error.empty()) m.error = line;
            continue;
        }
        if (line.empty() || line[0] != '"') continue;
        const auto f = csv_fields(line);
        if (name_col < 0) {
            for (int i = 0; i < static_cast<int>(f.size()); ++i) {
                if (f[i] == "ID") id_col = i;
                if (f[i] == "Metric Name") name_col = i;
                if (f[i] == "Metric Value") value_col = i;
            }
            continue;
        }
        if (static_cast<int>(f.size()) <= std::max(name_col, value_col)) continue;
        std::string digits;
        for (char ch : f[value_col])
            if (ch != ',') digits += ch;
        try {
            m.sums[f[name_col]] += std::stod(digits);
        } catch (const std::exception&) {
            continue;  // "n/a" and the like
        }
        if (id_col >= 0) ids.insert(f[id_col]);
    }
    m.launches = static_cast<int>(ids.size());
    if (m.sums.empty() && m.error.empty()) m.error = "ncu reported no metrics (was a kernel launched?)";
    if (!m.error.empty()) m.sums.clear();
    return m;
}

}  // namespace course
