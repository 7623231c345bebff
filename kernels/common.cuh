// common.cuh: helpers shared by the gnnrepl CUDA kernels.
//
// Storage types: float (fp32), __half (fp16), __nv_bfloat16 (bf16). All
// arithmetic is float32: load with to_f32, store with from_f32<T> (round to
// nearest even).
#pragma once
#include <cuda_fp16.h>
#include <cuda_bf16.h>

typedef long long i64;
typedef unsigned int u32;

__device__ __forceinline__ float to_f32(float x) { return x; }
__device__ __forceinline__ float to_f32(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T> __device__ __forceinline__ T from_f32(float x);
template <> __device__ __forceinline__ float from_f32<float>(float x) { return x; }
template <> __device__ __forceinline__ __half from_f32<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// Loop over [0, n) with all threads of the grid.
#define GRID_STRIDE(i, n) \
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (i64)(n); i += (i64)blockDim.x * gridDim.x)

// Sum of v over the G consecutive lanes of a lane group (G a power of two
// <= 32 dividing 32). Every lane of the warp must call it.
__device__ __forceinline__ float group_sum(float v, int G) {
  for (int o = G >> 1; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o, 32);
  return v;
}

// Maximum of v over a lane group, as group_sum.
__device__ __forceinline__ float group_max(float v, int G) {
  for (int o = G >> 1; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o, 32));
  return v;
}

// Sum of v over the block (blockDim.x * blockDim.y <= 1024 threads, a
// multiple of 32); every thread gets the result.
__device__ __forceinline__ float block_sum(float v) {
  __shared__ float warp_sums[32];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int nwarps = (blockDim.x * blockDim.y) >> 5;
  v = group_sum(v, 32);
  __syncthreads();  // warp_sums may still be read by a previous call
  if ((tid & 31) == 0) warp_sums[tid >> 5] = v;
  __syncthreads();
  float s = 0.f;
  for (int w = 0; w < nwarps; w++) s += warp_sums[w];
  return s;
}

// A vector of N storage elements loaded or stored as one 16-byte access
// (N = 16 / sizeof(T)) or, with N = 1, one element.
template <typename T, int N> struct Vec {
  T v[N];
};

template <typename T, int N>
__device__ __forceinline__ void load_f32(const T* p, float* out) {
  if constexpr (N * sizeof(T) == 16) {
    uint4 raw = *reinterpret_cast<const uint4*>(p);
    const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
    for (int i = 0; i < N; i++) out[i] = to_f32(e[i]);
  } else {
#pragma unroll
    for (int i = 0; i < N; i++) out[i] = to_f32(p[i]);
  }
}

template <typename T, int N>
__device__ __forceinline__ void store_f32(T* p, const float* in) {
  if constexpr (N * sizeof(T) == 16) {
    uint4 raw;
    T* e = reinterpret_cast<T*>(&raw);
#pragma unroll
    for (int i = 0; i < N; i++) e[i] = from_f32<T>(in[i]);
    *reinterpret_cast<uint4*>(p) = raw;
  } else {
#pragma unroll
    for (int i = 0; i < N; i++) p[i] = from_f32<T>(in[i]);
  }
}
