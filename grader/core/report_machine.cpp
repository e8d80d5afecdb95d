#include <fmt/format.h>

#include "core/lab_scoring.hpp"
#include "core/report.hpp"

namespace course {

namespace {

struct graded_test {
    std::string name;
    std::string classname;
    double score = 0;
    double max_score = 0;
    bool passed = false;
    bool skipped = false;
    std::string output;
};

std::string correctness_output(const correctness_result& c) {
    std::string out = fmt::format("{} ({} of {} cases right)", to_string(c.status), c.cases - c.failed, c.cases);
    for (const auto& f : c.failures) {
        out += f.fault ? fmt::format("\n{} input, {}: {}", f.input, f.size, f.detail)
                       : fmt::format("\n{} input, {}: expected {:.9g}, got {:.9g}{}", f.input, f.size, f.expected,
                                     f.got, f.detail.empty() ? "" : "; " + f.detail);
    }
    if (!c.message.empty()) out += "\n" + c.message;
    if (!c.hint.empty()) out += "\nhint: " + c.hint;
    return out;
}

std::string timing_output(const timing_result& t) {
    if (t.status != timing_status::measured) return t.reason.empty() ? "not measured" : t.reason;
    std::string out = fmt::format("{}: speedup {:.2f}x vs naive (95% interval {:.2f}-{:.2f}), target {:.2f}x; {}",
                                  t.problem, t.speedup, t.speedup_lo, t.speedup_hi, t.target, to_string(t.verdict));
    for (const auto& k : t.kernels)
        out += fmt::format("\n{} {}: {:.4f} ms, {:.0f} GB/s", k.role, k.kernel, k.median_ms, k.gbps);
    if (t.implausible) out += "\nimplausible bandwidth: above what the device can move";
    if (!t.recheck.empty()) out += "\n" + t.recheck;
    return out;
}

std::vector<graded_test> flatten(const lab_result& r, bool pending_performance) {
    std::vector<graded_test> tests;
    if (!r.build.kind.empty()) {
        // Nothing was graded: one failed test that holds every point and the messages.
        graded_test b;
        b.classname = r.lab;
        b.name = "Build of " + (r.source.path.empty() ? std::string("your file") : r.source.path);
        b.max_score = r.max_score;
        b.output = build_failure_words(r) + "; nothing was graded\n" + r.build.log;
        tests.push_back(b);
        return tests;
    }
    for (const auto& chk : r.checks) {
        graded_test k;
        k.classname = r.lab;
        k.name = "Check " + chk.name;
        k.passed = chk.status == check_status::passed || chk.status == check_status::info;
        k.skipped = chk.status == check_status::skipped;
        k.output = chk.detail;
        tests.push_back(k);
    }
    for (const auto& part : r.parts) {
        graded_test c;
        c.classname = r.lab + "." + part.id;
        c.name = fmt::format("Part {} correctness ({})", part.id, part.kernel);
        c.score = part.correctness_points;
        c.max_score = part.correctness_max;
        c.passed = correctness_passes(part);
        c.output = correctness_output(part.correctness);
        // First, so that JUnit's one-line failure message says why.
        if (part.penalty == check_penalty::everything) c.output = "no points: " + part.penalty_reason + "\n" + c.output;
        tests.push_back(c);

        graded_test t;
        t.classname = r.lab + "." + part.id;
        t.name = fmt::format("Part {} performance ({})", part.id, part.kernel);
        t.score = part.performance_points;
        t.max_score = part.performance_max;
        t.passed = performance_passes(part.timing) && t.score > 0;
        t.skipped = part.timing.status == timing_status::not_measured;
        t.output = timing_output(part.timing);
        if (part.penalty != check_penalty::none) {
            t.output = "no performance points: " + part.penalty_reason + "\n" + t.output;
        } else if (t.skipped && pending_performance && t.max_score > 0) {  // "omit" leaves them out of the maximum
            t.output += " (performance points are pending a GPU run)";
        }
        tests.push_back(t);

        for (const auto& chk : part.checks) {
            graded_test k;
            k.classname = r.lab + "." + part.id;
            k.name = fmt::format("Part {} check {}", part.id, chk.name);
            k.passed = chk.status == check_status::passed || chk.status == check_status::info;
            k.skipped = chk.status == check_status::skipped;
            k.output = chk.detail;
            tests.push_back(k);
        }
    }
    return tests;
}

std::string source_words(const lab_result& r) {
    return r.source.path + (r.source.sha256.empty() ? "" : " (sha256 " + r.source.sha256 + ")");
}

}  // namespace

nlohmann::json to_gradescope(const lab_result& r) {
    nlohmann::json tests = nlohmann::json::array();
    std::string skipped;
    for (const auto& t : flatten(r, r.backend != "gpu")) {
        // Gradescope has no "skipped" status; a skipped test worth no points would read as
        // passed or failed, so it is listed in the top-level output instead.
        if (t.skipped && t.max_score == 0) {
            skipped += "\nskipped: " + t.name + ": " + t.output;
            continue;
        }
        tests.push_back({{"name", t.name},
                         {"score", t.score},
                         {"max_score", t.max_score},
                         {"status", t.passed ? "passed" : "failed"},
                         {"output", t.output},
                         {"visibility", "visible"}});
    }
    std::string output = summary_line(r);
    if (!r.source.path.empty()) output += (r.build.kind.empty() ? "\ngraded: " : "\nfile: ") + source_words(r);
    for (const auto& n : r.notes) output += "\n" + n;
    if (!r.infrastructure_error.empty()) output += "\n" + r.infrastructure_error;
    output += skipped;
    return {{"score", r.score}, {"output", output}, {"visibility", "visible"}, {"stdout_visibility", "visible"},
            {"tests", tests}};
}

std::string xml_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (const unsigned char ch : s) {
        switch (ch) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        default:
            // XML 1.0 forbids most control characters, even escaped.
            if (ch < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') {
                out += '?';
            } else {
                out += static_cast<char>(ch);
            }
        }
    }
    return out;
}

std::string to_junit_xml(const lab_result& r) {
    const auto tests = flatten(r, r.backend != "gpu");
    int failures = 0, skipped = 0;
    for (const auto& t : tests) {
        if (t.skipped) {
            ++skipped;
        } else if (!t.passed) {
            ++failures;
        }
    }
    std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    xml += fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n", xml_escape(r.lab),
                       tests.size(), failures, skipped);
    xml += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n", xml_escape(r.lab),
                       tests.size(), failures, skipped);
    if (!r.source.path.empty()) {
        xml += fmt::format("    <properties>\n      <property name=\"source\" value=\"{}\"/>\n", xml_escape(r.source.path));
        if (!r.source.sha256.empty())
            xml += fmt::format("      <property name=\"source_sha256\" value=\"{}\"/>\n", r.source.sha256);
        xml += "    </properties>\n";
    }
    if (!r.infrastructure_error.empty())
        xml += fmt::format("    <system-err>{}</system-err>\n", xml_escape(r.infrastructure_error));
    for (const auto& t : tests) {
        xml += fmt::format("    <testcase classname=\"{}\" name=\"{}\">", xml_escape(t.classname), xml_escape(t.name));
        if (t.skipped) {
            xml += fmt::format("<skipped message=\"{}\"/>", xml_escape(t.output));
        } else if (!t.passed) {
            xml += fmt::format("<failure message=\"{}\">{}</failure>", xml_escape(t.output.substr(0, t.output.find('\n'))),
                               xml_escape(t.output));
        } else {
            xml += fmt::format("<system-out>{}</system-out>", xml_escape(t.output));
        }
        xml += "</testcase>\n";
    }
    xml += "  </testsuite>\n</testsuites>\n";
    return xml;
}

}  // namespace course
