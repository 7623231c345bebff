// elementwise.cu: float32 elementwise arithmetic and activations, forward
// and backward. Every kernel is a grid-stride loop over n elements; any grid
// size is correct. The activation backward kernels take the forward input x
// (PyTorch's convention for relu/leaky_relu/elu with is_result=false).
#include "common.cuh"

// y = a + b
extern "C" __global__ void gk_add_f32(const float* a, const float* b, float* y, i64 n) {
  GRID_STRIDE(i, n) y[i] = a[i] + b[i];
}

// y = a - b
extern "C" __global__ void gk_sub_f32(const float* a, const float* b, float* y, i64 n) {
  GRID_STRIDE(i, n) y[i] = a[i] - b[i];
}

// y = a * b
extern "C" __global__ void gk_mul_f32(const float* a, const float* b, float* y, i64 n) {
  GRID_STRIDE(i, n) y[i] = a[i] * b[i];
}

// y = alpha * x
extern "C" __global__ void gk_scale_f32(const float* x, float alpha, float* y, i64 n) {
  GRID_STRIDE(i, n) y[i] = alpha * x[i];
}

// y += alpha * x
extern "C" __global__ void gk_axpy_f32(const float* x, float alpha, float* y, i64 n) {
  GRID_STRIDE(i, n) y[i] = fmaf(alpha, x[i], y[i]);
}

// y = v
extern "C" __global__ void gk_fill_f32(float* y, float v, i64 n) {
  GRID_STRIDE(i, n) y[i] = v;
}

// y[r, c] = x[r, c] + bias[c]; x, y (rows, cols), bias (cols).
extern "C" __global__ void gk_add_bias_f32(const float* x, const float* bias, float* y, i64 rows, int cols) {
  GRID_STRIDE(i, rows * cols) y[i] = x[i] + bias[i % cols];
}

// relu: y = max(x, 0)
extern "C" __global__ void gk_relu_fwd_f32(const float* x, float* y, i64 n) {
  GRID_STRIDE(i, n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

// relu backward: dx = dy where x > 0, else 0
extern "C" __global__ void gk_relu_bwd_f32(const float* x, const float* dy, float* dx, i64 n) {
  GRID_STRIDE(i, n) dx[i] = x[i] > 0.f ? dy[i] : 0.f;
}

// leaky_relu: y = x if x > 0 else slope * x
extern "C" __global__ void gk_leaky_relu_fwd_f32(const float* x, float* y, float slope, i64 n) {
  GRID_STRIDE(i, n) y[i] = x[i] > 0.f ? x[i] : slope * x[i];
}

// leaky_relu backward: dx = dy if x > 0 else slope * dy
extern "C" __global__ void gk_leaky_relu_bwd_f32(const float* x, const float* dy, float* dx, float slope, i64 n) {
  GRID_STRIDE(i, n) dx[i] = x[i] > 0.f ? dy[i] : slope * dy[i];
}

// elu: y = x if x > 0 else alpha * (exp(x) - 1)
extern "C" __global__ void gk_elu_fwd_f32(const float* x, float* y, float alpha, i64 n) {
  GRID_STRIDE(i, n) y[i] = x[i] > 0.f ? x[i] : alpha * expm1f(x[i]);
}

// elu backward: dx = dy if x > 0 else dy * alpha * exp(x)
extern "C" __global__ void gk_elu_bwd_f32(const float* x, const float* dy, float* dx, float alpha, i64 n) {
  GRID_STRIDE(i, n) dx[i] = x[i] > 0.f ? dy[i] : dy[i] * alpha * expf(x[i]);
}
