// The CUDA runtime calls the course makes, on the CPU emulator. Errors are "sticky" like
// nothing here: a failed call returns its code and cudaGetLastError reports it once.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "emu/cuda_emu.hpp"
#include "emu/device_memory.hpp"

namespace {

cudaError_t g_last = cudaSuccess;

cudaError_t record(cudaError_t e) {
    if (e != cudaSuccess) g_last = e;
    return e;
}

}  // namespace

cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
    if (ptr == nullptr) return record(cudaErrorInvalidValue);
    *ptr = emu::memory::allocate(bytes);
    return record(*ptr != nullptr ? cudaSuccess : cudaErrorMemoryAllocation);
}

cudaError_t cudaFree(void* ptr) {
    if (ptr == nullptr) return cudaSuccess;
    return record(emu::memory::release(ptr) ? cudaSuccess : cudaErrorInvalidDevicePointer);
}

cudaError_t cudaMallocHost(void** ptr, std::size_t bytes) {
    if (ptr == nullptr) return record(cudaErrorInvalidValue);
    *ptr = std::malloc(bytes == 0 ? 1 : bytes);
    return record(*ptr != nullptr ? cudaSuccess : cudaErrorMemoryAllocation);
}

cudaError_t cudaFreeHost(void* ptr) {
    std::free(ptr);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
    if (bytes == 0) return cudaSuccess;
    if (dst == nullptr || src == nullptr) return record(cudaErrorInvalidValue);
    const bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    const bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    // As on a GPU, a copy that runs past a device allocation is an error, not a silent overrun.
    if ((dst_dev && !emu::memory::is_device_range(dst, bytes)) || (src_dev && !emu::memory::is_device_range(src, bytes)))
        return record(cudaErrorInvalidValue);
    std::memmove(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t) {
    return cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t cudaMemset(void* ptr, int value, std::size_t bytes) {
    if (bytes == 0) return cudaSuccess;
    if (!emu::memory::is_device_range(ptr, bytes)) return record(cudaErrorInvalidValue);
    std::memset(ptr, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t bytes, cudaStream_t) {
    return cudaMemset(ptr, value, bytes);
}

cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }

cudaError_t cudaGetLastError() {
    const cudaError_t e = g_last;
    g_last = cudaSuccess;
    return e;
}
cudaError_t cudaPeekAtLastError() { return g_last; }

const char* cudaGetErrorName(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    default: return "cudaErrorUnknown";
    }
}

const char* cudaGetErrorString(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorNotSupported: return "operation not supported";
    default: return "unknown error";
    }
}

cudaError_t cudaGetDeviceCount(int* count) {
    *count = 1;
    return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
    *device = 0;
    return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return record(device == 0 ? cudaSuccess : cudaErrorInvalidDevice); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
    if (device != 0) return record(cudaErrorInvalidDevice);
    *prop = cudaDeviceProp{};
    std::snprintf(prop->name, sizeof prop->name, "CPU emulator");
    prop->totalGlobalMem = std::size_t{1} << 32;
    prop->sharedMemPerBlock = 48 * 1024;
    prop->warpSize = 32;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 2147483647;
    prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
    // Few "SMs": grid-stride kernels sized by the SM count then launch few blocks, which
    // keeps emulation fast while every block still loops over many elements.
    prop->multiProcessorCount = 2;
    prop->l2CacheSize = 4 * 1024 * 1024;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
    if (device != 0) return record(cudaErrorInvalidDevice);
    switch (attr) {
    case cudaDevAttrMultiProcessorCount: *value = 2; return cudaSuccess;
    case cudaDevAttrL2CacheSize: *value = 4 * 1024 * 1024; return cudaSuccess;
    default: *value = 0; return record(cudaErrorNotSupported);  // no memory clock to read
    }
}

cudaError_t cudaRuntimeGetVersion(int* version) {
    *version = 0;
    return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* version) {
    *version = 0;
    return cudaSuccess;
}
