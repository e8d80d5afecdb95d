// course_emu_object -- <compile command>: the compiler launcher of the emulated lab objects
// the course compiles itself (references, baselines, test kernels). It runs the compile,
// then edits the object as the guard edits a student's (rules/rules_object_flow.hpp: static
// data into the `emu_static` sections), so that every lab object's shared memory lies where
// the emulator's memory check looks for it.
#include <iostream>
#include <string>
#include <vector>

#include "rules/rules_compile.hpp"
#include "rules/rules_object_flow.hpp"
#include "guard/guard_system.hpp"

namespace {

constexpr std::size_t keep = 1u << 20;

int run_tool(const std::vector<std::string>& argv, std::string* out) {
    course::guard::bounds b;
    b.cpu_seconds = 600;
    b.memory_mb = 8192;
    const course::worker_run r = course::guard::run_bounded(argv, b, keep);
    if (out != nullptr) *out = r.output_tail;
    else std::cerr << r.output_tail;
    if (r.spawn_failed) return 2;
    return r.exited_normally() ? r.exit_code : 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> command;
    int k = 1;
    while (k < argc && std::string(argv[k]) != "--") ++k;
    for (++k; k < argc; ++k) command.emplace_back(argv[k]);
    if (command.empty()) {
        std::cerr << "course_emu_object: usage: course_emu_object -- <compile command>\n";
        return 2;
    }
    const std::string compiler = course::guard::find_program(command[0]);
    if (!compiler.empty()) command[0] = compiler;
    if (const int code = run_tool(command, nullptr); code != 0) return code;
    const auto cc = course::rules::split_compile_command(command);
    if (cc.output.empty()) return 0;  // not a compile to an object: nothing to edit
    const std::string readelf = course::guard::find_program("readelf"), objcopy = course::guard::find_program("objcopy");
    if (readelf.empty() || objcopy.empty()) {
        std::cerr << "course_emu_object: cannot find readelf and objcopy (binutils)\n";
        return 2;
    }
    std::string sections;
    if (run_tool({readelf, "-SW", cc.output}, &sections) != 0) {
        std::cerr << "course_emu_object: cannot read " << cc.output << " with readelf\n";
        return 2;
    }
    std::vector<std::string> edit = {objcopy};
    for (auto& a : course::rules::detail::emulated_object_edits(sections, "", "", false)) edit.push_back(std::move(a));
    if (edit.size() == 1) return 0;
    edit.push_back(cc.output);
    return run_tool(edit, nullptr) == 0 ? 0 : 2;
}
