#pragma once
// The one place where the course launches kernels. Student files hold kernels only; the
// lab bindings call this, so the launch configuration, the error check after every
// launch and the switch to the CPU emulator all live here. Include only from .cu files.
#include <utility>

#include "course/launch_error.hpp"

namespace course {

template <typename... Params, typename... Args>
void launch(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block, Args&&... args) {
#if defined(COURSE_EMULATE)
    emu::launch(name, kernel, grid, block, std::forward<Args>(args)...);
#else
    kernel<<<grid, block>>>(std::forward<Args>(args)...);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) throw_launch_error(status, name, grid, block);
#endif
}

}  // namespace course
