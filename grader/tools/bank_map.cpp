// `./grade banks --stride 32 --width 4`: predicts the bank conflicts of one warp's
// shared-memory access before you measure it.
#include <CLI/CLI.hpp>

#include <iostream>

#include "core/bank_conflicts.hpp"

int main(int argc, char** argv) {
    CLI::App app{"Shows which banks a warp's shared-memory access hits: lane k accesses element k * stride."};
    app.name("./grade banks");
    unsigned stride = 1, width = 4, offset = 0, lanes = 32;
    app.add_option("--stride", stride, "Elements between consecutive lanes, e.g. 32 for a column of float[32][32]");
    app.add_option("--width", width, "Bytes per access: 4 (float), 8 (double, float2) or 16 (float4)")
        ->check(CLI::IsMember({4u, 8u, 16u}));
    app.add_option("--offset", offset, "Byte address of lane 0's element");
    app.add_option("--lanes", lanes, "Active lanes (the first N)")->check(CLI::Range(1u, 32u));
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    course::warp_access access = course::strided_access(stride, width, offset);
    for (unsigned lane = lanes; lane < 32; ++lane) access[lane].active = false;
    std::cout << "lane k accesses byte " << offset << " + k * " << stride << " * " << width << "\n"
              << course::bank_map(access, width);
    return 0;
}
