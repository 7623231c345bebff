// reduce.cu: float32 sums.
#include "common.cuh"

// Stage 1 of a deterministic full sum: block b writes the sum of its
// grid-stride share of x to partial[b]. blockDim 256.
extern "C" __global__ void gk_sum_partial_f32(const float* x, i64 n, float* partial) {
  float s = 0.f;
  GRID_STRIDE(i, n) s += x[i];
  s = block_sum(s);
  if (threadIdx.x == 0 && threadIdx.y == 0) partial[blockIdx.x] = s;
}

// Stage 2: out[0] = scale * sum(partial[0:m]). One block of 256 threads.
extern "C" __global__ void gk_sum_final_f32(const float* partial, int m, float* out, float scale) {
  float s = 0.f;
  for (int i = threadIdx.x; i < m; i += blockDim.x) s += partial[i];
  s = block_sum(s);
  if (threadIdx.x == 0) out[0] = scale * s;
}

// y[c] += scale * sum_r x[r, c] over this block's rows: x (rows, cols), y
// (cols) zeroed by the caller. Block (32, 8): threadIdx.x a column of the
// block's 32, threadIdx.y a row stripe; grid (ceil(cols/32), row chunks).
// Float atomics: the order of the additions may vary between runs.
extern "C" __global__ void gk_sum_dim0_f32(const float* x, float* y, i64 rows, int cols, float scale) {
  __shared__ float acc[8][33];
  const int c = blockIdx.x * 32 + threadIdx.x;
  float s = 0.f;
  if (c < cols) {
    for (i64 r = (i64)blockIdx.y * 8 + threadIdx.y; r < rows; r += (i64)gridDim.y * 8) s += x[r * cols + c];
  }
  acc[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    float t = 0.f;
#pragma unroll
    for (int j = 0; j < 8; j++) t += acc[j][threadIdx.x];
    atomicAdd(&y[c], scale * t);
  }
}

// y[r] = scale * sum_c x[r, c]: x (rows, cols), y (rows). One warp per row;
// block (32, 8), grid ceil(rows/8).
extern "C" __global__ void gk_sum_dim1_f32(const float* x, float* y, i64 rows, int cols, float scale) {
  const i64 r = (i64)blockIdx.x * blockDim.y + threadIdx.y;
  float s = 0.f;
  if (r < rows) {
    for (int c = threadIdx.x; c < cols; c += 32) s += x[r * cols + c];
  }
  s = group_sum(s, 32);
  if (r < rows && threadIdx.x == 0) y[r] = scale * s;
}
