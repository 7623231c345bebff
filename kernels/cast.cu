// cast.cu: conversions between float32 and the 16-bit storage types, round
// to nearest even (torch.Tensor.to(torch.float16 / torch.bfloat16)).
#include "common.cuh"

extern "C" __global__ void gk_cast_f32_f16(const float* x, __half* y, i64 n) {
  GRID_STRIDE(i, n) y[i] = __float2half_rn(x[i]);
}
extern "C" __global__ void gk_cast_f16_f32(const __half* x, float* y, i64 n) {
  GRID_STRIDE(i, n) y[i] = __half2float(x[i]);
}
extern "C" __global__ void gk_cast_f32_bf16(const float* x, __nv_bfloat16* y, i64 n) {
  GRID_STRIDE(i, n) y[i] = __float2bfloat16_rn(x[i]);
}
extern "C" __global__ void gk_cast_bf16_f32(const __nv_bfloat16* x, float* y, i64 n) {
  GRID_STRIDE(i, n) y[i] = __bfloat162float(x[i]);
}
