// softmax.cu: row-wise softmax / log_softmax forward and backward, and
// cross-entropy over logits with int64 class labels, all float32 over a
// (rows, cols) matrix. One warp per row: block (32, 8), grid ceil(rows/8).
#include "common.cuh"

__device__ __forceinline__ void row_max_lse(const float* x, int cols, float* mx, float* lse) {
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, x[c]);
  m = group_max(m, 32);
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) s += __expf(x[c] - m);
  s = group_sum(s, 32);
  *mx = m;
  *lse = m + logf(s);
}

// y = x - logsumexp(x) per row (torch.log_softmax(x, dim=1)).
extern "C" __global__ void gk_log_softmax_fwd_f32(const float* x, float* y, i64 rows, int cols) {
  const i64 r = (i64)blockIdx.x * blockDim.y + threadIdx.y;
  if (r >= rows) return;  // whole warps leave together
  const float* xr = x + r * cols;
  float m, lse;
  row_max_lse(xr, cols, &m, &lse);
  for (int c = threadIdx.x; c < cols; c += 32) y[r * cols + c] = xr[c] - lse;
}

// dx = dy - exp(y) * sum(dy) per row, y the forward output.
extern "C" __global__ void gk_log_softmax_bwd_f32(const float* y, const float* dy, float* dx, i64 rows, int cols) {
  const i64 r = (i64)blockIdx.x * blockDim.y + threadIdx.y;
  if (r >= rows) return;
  const i64 o = r * cols;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) s += dy[o + c];
  s = group_sum(s, 32);
  for (int c = threadIdx.x; c < cols; c += 32) dx[o + c] = dy[o + c] - __expf(y[o + c]) * s;
}

// y = exp(x - logsumexp(x)) per row (torch.softmax(x, dim=1)).
extern "C" __global__ void gk_softmax_fwd_f32(const float* x, float* y, i64 rows, int cols) {
  const i64 r = (i64)blockIdx.x * blockDim.y + threadIdx.y;
  if (r >= rows) return;
  const float* xr = x + r * cols;
  float m, lse;
  row_max_lse(xr, cols, &m, &lse);
  for (int c = threadIdx.x; c < cols; c += 32) y[r * cols + c] = __expf(xr[c] - lse);
}

// dx = y * (dy - sum(dy * y)) per row, y the forward output.
extern "C" __global__ void gk_softmax_bwd_f32(const float* y, const float* dy, float* dx, i64 rows, int cols) {
  const i64 r = (i64)blockIdx.x * blockDim.y + threadIdx.y;
  if (r >= rows) return;
  const i64 o = r * cols;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) s += dy[o + c] * y[o + c];
  s = group_sum(s, 32);
  for (int c = threadIdx.x; c < cols; c += 32) dx[o + c] = y[o + c] * (dy[o + c] - s);
}

// Cross-entropy per row from logits: loss[r] = logsumexp(x[r]) - x[r, label[r]],
// lse[r] = logsumexp(x[r]) saved for the backward. A label outside
// [0, cols) (PyTorch's ignore_index, -100 by default) gives loss 0.
extern "C" __global__ void gk_cross_entropy_fwd_f32(const float* x, const i64* labels, float* loss, float* lse,
                                                    i64 rows, int cols) {
  const i64 r = (i64)blockIdx.x * blockDim.y + threadIdx.y;
  if (r >= rows) return;
  const float* xr = x + r * cols;
  float m, l;
  row_max_lse(xr, cols, &m, &l);
  if (threadIdx.x == 0) {
    const i64 t = labels[r];
    loss[r] = (t >= 0 && t < cols) ? l - xr[t] : 0.f;
    lse[r] = l;
  }
}

// dx[r, c] = dloss[r] * (softmax(x[r])[c] - [c == label[r]]); ignored rows
// get 0. For the mean over the kept rows pass dloss[r] = 1 / kept.
extern "C" __global__ void gk_cross_entropy_bwd_f32(const float* x, const i64* labels, const float* lse,
                                                    const float* dloss, float* dx, i64 rows, int cols) {
  const i64 r = (i64)blockIdx.x * blockDim.y + threadIdx.y;
  if (r >= rows) return;
  const i64 o = r * cols;
  const i64 t = labels[r];
  const bool keep = t >= 0 && t < cols;
  const float g = keep ? dloss[r] : 0.f;
  const float l = lse[r];
  for (int c = threadIdx.x; c < cols; c += 32) {
    dx[o + c] = g * (__expf(x[o + c] - l) - (c == t ? 1.f : 0.f));
  }
}
