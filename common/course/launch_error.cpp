#include "course/launch_error.hpp"

#include <string>

namespace course {

void throw_launch_error(cudaError_t code, const char* kernel, dim3 grid, dim3 block) {
    auto dims = [](dim3 d) {
        return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
    };
    throw cuda_error(code, std::string("launching ") + kernel + " with grid " + dims(grid) + " and block " +
                               dims(block) + " failed: " + cudaGetErrorName(code) + ": " +
                               cudaGetErrorString(code));
}

}  // namespace course
