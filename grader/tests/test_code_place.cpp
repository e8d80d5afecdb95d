#include <doctest/doctest.h>

#include "core/code_place.hpp"

using namespace course;

TEST_CASE("a fault's code address becomes a line of the lab file") {
    const std::string detail =
        "kernel 'reduce_divergent', block (0,0,0), thread (3,0,0): out-of-bounds write: index 300, past the end of "
        "device buffer 'output' [at exe+0x1a2b]";
    const auto resolve = [](const std::string& hex) { return hex == "0x1a2b" ? std::string("kernels.cu:17") : ""; };
    CHECK(place_code(detail, resolve) ==
          "kernel 'reduce_divergent', block (0,0,0), thread (3,0,0): out-of-bounds write: index 300, past the end of "
          "device buffer 'output' (at kernels.cu:17)");
}

TEST_CASE("a mark that cannot be placed is dropped; text without one is kept") {
    const auto none = [](const std::string&) { return std::string(); };
    CHECK(place_code("out-of-bounds read: address 0x10 [at exe+0x99]", none) == "out-of-bounds read: address 0x10");
    CHECK(place_code("wrong sum", none) == "wrong sum");
    CHECK(place_code("unclosed [at exe+0x12", none) == "unclosed [at exe+0x12");
}

TEST_CASE("a warp call's via mark adds the kernel line an inlined helper was called from") {
    const auto resolve = [](const std::string& hex) {
        return hex == "0x40" ? std::string("kernels.cu:12 via kernels.cu:40")
                             : hex == "0x50" ? std::string("kernels.cu:17") : std::string();
    };
    CHECK(place_code("returned, but lanes 0-15 of its warp wait for it at __shfl_down_sync(mask 0xffffffff) "
                     "(kernels.cu:12 [via exe+0x40]): a mask may only name lanes that reach the call.",
                     resolve) ==
          "returned, but lanes 0-15 of its warp wait for it at __shfl_down_sync(mask 0xffffffff) "
          "(kernels.cu:12 via kernels.cu:40): a mask may only name lanes that reach the call.");
    // A call in the kernel itself, or one addr2line cannot place: the line alone.
    CHECK(place_code("__syncwarp(mask 0x0000ffff) (kernels.cu:17 [via exe+0x50])", resolve) ==
          "__syncwarp(mask 0x0000ffff) (kernels.cu:17)");
    CHECK(place_code("__syncwarp(mask 0x0000ffff) (kernels.cu:17 [via exe+0x60])", resolve) ==
          "__syncwarp(mask 0x0000ffff) (kernels.cu:17)");
    // Both marks in one message, in either order.
    CHECK(place_code("a (kernels.cu:12 [via exe+0x40]) b [at exe+0x50]", resolve) ==
          "a (kernels.cu:12 via kernels.cu:40) b (at kernels.cu:17)");
    CHECK(place_code("b [at exe+0x50] a (kernels.cu:12 [via exe+0x40])", resolve) ==
          "b (at kernels.cu:17) a (kernels.cu:12 via kernels.cu:40)");
}

TEST_CASE("addr2line output: the first location in the lab file") {
    CHECK(line_in_file("/work/labs/lab1_divergent/kernels.cu:17\n", "kernels.cu") == "kernels.cu:17");
    CHECK(line_in_file("/usr/include/c++/12/bits/stl_algobase.h:233\n/tmp/x/kernels.cu:41 (discriminator 3)\n",
                       "kernels.cu") == "kernels.cu:41");
    CHECK(line_in_file("??:0\n", "kernels.cu") == "");
    CHECK(line_in_file("/tmp/x/kernels.cu:?\n", "kernels.cu") == "");
}

TEST_CASE("addr2line output: an inlined helper's line with the line that called it") {
    const std::string inlined = "/tmp/x/kernels.cu:12\n/tmp/x/kernels.cu:25\n/tmp/x/kernels.cu:40\n";
    CHECK(line_and_call_site(inlined, "kernels.cu") == "kernels.cu:12 via kernels.cu:40");
    CHECK(line_in_file(inlined, "kernels.cu") == "kernels.cu:12");
    CHECK(line_and_call_site("/tmp/x/kernels.cu:17\n", "kernels.cu") == "kernels.cu:17");
    CHECK(line_and_call_site("/usr/include/emu/cuda_emu.hpp:204\n/tmp/x/kernels.cu:31\n", "kernels.cu") ==
          "kernels.cu:31");
    CHECK(line_and_call_site("??:0\n", "kernels.cu") == "");
}
