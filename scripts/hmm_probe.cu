// GPU threat-model probe (docs/grading.md): can a kernel dereference a pageable host pointer
// (heterogeneous memory management)? Build and run on a GPU machine:
//   nvcc -arch=native -o /tmp/hmm_probe scripts/hmm_probe.cu && /tmp/hmm_probe
#include <cstdio>
#include <cuda_runtime.h>
__global__ void peek(const float* host, float* out) { out[0] = host[0]; }
int main() {
    int pageable = -1, uses_host_pt = -1;
    cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0);
    cudaDeviceGetAttribute(&uses_host_pt, cudaDevAttrPageableMemoryAccessUsesHostPageTables, 0);
    std::printf("pageableMemoryAccess=%d usesHostPageTables=%d\n", pageable, uses_host_pt);
    float* secret = new float[1]{42.5f};
    float* d = nullptr;
    cudaMalloc(&d, sizeof(float));
    cudaMemset(d, 0, sizeof(float));
    peek<<<1, 1>>>(secret, d);
    cudaError_t e = cudaDeviceSynchronize();
    float got = 0;
    cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost);
    std::printf("kernel read of a pageable host pointer: %s, value %g\n", cudaGetErrorString(e), got);
    return 0;
}
