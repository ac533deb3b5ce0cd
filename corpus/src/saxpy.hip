// A HIP kernel for the offload-container tests (tests/offload.rs): built at test time with
// hipcc and clang-19 for gfx90a, no GPU needed.
#include <hip/hip_runtime.h>

__device__ float scale_bias = 0.5f;

__device__ float fused(float a, float x, float y) {
  float ax = a * x;
  return ax + y + scale_bias;
}

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float r = fused(a, x[i], y[i]);
    y[i] = r;
  }
}

int launch(int n, float a, const float *x, float *y) {
  hipLaunchKernelGGL(saxpy, dim3((n + 255) / 256), dim3(256), 0, 0, n, a, x, y);
  return hipGetLastError() == hipSuccess ? 0 : 1;
}
