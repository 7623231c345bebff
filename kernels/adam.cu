// adam.cu: fused optimizer steps and the GradScaler's unscale, float32.
#include "common.cuh"

// One Adam / AdamW step over n parameters, as torch.optim.Adam / AdamW
// (foreach=False, amsgrad=False, maximize=False):
//   Adam:  g += weight_decay * p                  (L2 penalty)
//   AdamW: p *= 1 - lr * weight_decay             (decoupled decay)
//   m = beta1 * m + (1 - beta1) * g
//   v = beta2 * v + (1 - beta2) * g * g
//   p -= (lr / bc1) * m / (sqrt(v) / sqrt(bc2) + eps)
// with bc1 = 1 - beta1^t, bc2 = 1 - beta2^t for step t (computed by the
// caller in float64).
extern "C" __global__ void gk_adam_f32(float* p, const float* g, float* m, float* v, i64 n, float lr, float beta1,
                                       float beta2, float eps, float weight_decay, float bc1, float bc2, int adamw) {
  const float step = lr / bc1;
  const float bc2_sqrt = sqrtf(bc2);
  GRID_STRIDE(i, n) {
    float pi = p[i];
    float gi = g[i];
    if (adamw) {
      pi *= 1.f - lr * weight_decay;
    } else if (weight_decay != 0.f) {
      gi = fmaf(weight_decay, pi, gi);
    }
    float mi = fmaf(beta1, m[i], (1.f - beta1) * gi);
    float vi = fmaf(beta2, v[i], (1.f - beta2) * gi * gi);
    m[i] = mi;
    v[i] = vi;
    p[i] = pi - step * mi / (sqrtf(vi) / bc2_sqrt + eps);
  }
}

// g *= inv_scale; *found_inf = 1 if any result is Inf or NaN
// (torch._amp_foreach_non_finite_check_and_unscale_). found_inf is not
// cleared here.
extern "C" __global__ void gk_unscale_f32(float* g, i64 n, float inv_scale, float* found_inf) {
  bool bad = false;
  GRID_STRIDE(i, n) {
    float x = g[i] * inv_scale;
    g[i] = x;
    bad |= !isfinite(x);
  }
  if (bad) *found_inf = 1.f;
}
