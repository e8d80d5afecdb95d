#include "course/cuda_check.hpp"

namespace course {

cuda_error::cuda_error(cudaError_t code, const std::string& what)
    : std::runtime_error(what), code_(code) {}

bool cuda_error::sticky() const noexcept {
    switch (code_) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
#if !defined(COURSE_EMULATE)
    case cudaErrorInvalidAddressSpace:  // seen on the H200 for a store far outside any allocation
#endif
        return true;
    default:
        return false;
    }
}

void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
    std::string msg = std::string(cudaGetErrorName(code)) + ": " + cudaGetErrorString(code) +
                      " (" + expr + " at " + file + ":" + std::to_string(line) + ")";
    cuda_error err(code, msg);
    if (err.sticky()) {
        throw cuda_error(code, msg + "; this error is sticky, so the CUDA context is unusable from here on");
    }
    throw err;
}

}  // namespace course
