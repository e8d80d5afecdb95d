#include "worker/device_info.hpp"

#include "course/cuda_check.hpp"

namespace course {

device_info query_device() {
    device_info d;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    d.name = prop.name;
    d.sms = prop.multiProcessorCount;
    d.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    d.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    int clock_khz = 0, bus_bits = 0;
    // CUDA 13 removed these fields from cudaDeviceProp; the attributes remain.
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess) {
        d.peak_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    }
    (void)cudaGetLastError();
    CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
    CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
#if defined(COURSE_EMULATE)
    d.emulated = true;
#endif
    return d;
}

}  // namespace course
