// gather.cu: row gather and scatter-add over a row index (DGL's
// index_select / index_add_, PyG's x[idx] and scatter(reduce="sum")).
// One warp per indexed row: block (32, 8), grid ceil(n/8) (grid-stride).
#include "common.cuh"

// dst[i, :] = src[idx[i], :] for i < n, rows of `units` units of type U
// (uint4 for 16-byte-aligned rows, u32, or unsigned short): the gather is a
// byte copy, so it serves every storage dtype.
template <typename U, typename I>
__device__ __forceinline__ void gather_rows(const U* src, const I* idx, U* dst, i64 n, i64 units) {
  for (i64 i = (i64)blockIdx.x * blockDim.y + threadIdx.y; i < n; i += (i64)gridDim.x * blockDim.y) {
    const U* s = src + (i64)idx[i] * units;
    U* d = dst + i * units;
    for (i64 c = threadIdx.x; c < units; c += 32) d[c] = s[c];
  }
}

#define GATHER(NAME, U, I)                                                                        \
  extern "C" __global__ void NAME(const U* src, const I* idx, U* dst, i64 n, i64 units) {     \
    gather_rows<U, I>(src, idx, dst, n, units);                                                   \
  }
GATHER(gk_gather_rows_v16_i32, uint4, int)
GATHER(gk_gather_rows_v16_i64, uint4, i64)
GATHER(gk_gather_rows_v4_i32, u32, int)
GATHER(gk_gather_rows_v4_i64, u32, i64)
GATHER(gk_gather_rows_v2_i32, unsigned short, int)
GATHER(gk_gather_rows_v2_i64, unsigned short, i64)

// dst[idx[i], :] += src[i, :] for i < n; src (n, cols), dst (m, cols)
// float32. Float atomics: repeated indices add in a run-dependent order.
template <typename I>
__device__ __forceinline__ void scatter_add_rows(const float* src, const I* idx, float* dst, i64 n, int cols) {
  for (i64 i = (i64)blockIdx.x * blockDim.y + threadIdx.y; i < n; i += (i64)gridDim.x * blockDim.y) {
    float* d = dst + (i64)idx[i] * cols;
    const float* s = src + i * cols;
    for (int c = threadIdx.x; c < cols; c += 32) atomicAdd(d + c, s[c]);
  }
}

extern "C" __global__ void gk_scatter_add_rows_f32_i32(const float* src, const int* idx, float* dst, i64 n, int cols) {
  scatter_add_rows<int>(src, idx, dst, n, cols);
}
extern "C" __global__ void gk_scatter_add_rows_f32_i64(const float* src, const i64* idx, float* dst, i64 n, int cols) {
  scatter_add_rows<i64>(src, idx, dst, n, cols);
}
