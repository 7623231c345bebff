// adam.cu: fused optimizer steps and the GradScaler's unscale, float32.
#include "common.cuh"

// One Adam / AdamW step over n parameters, as torch.optim.Adam / AdamW
// (foreach=False, amsgrad=False, maximize=False):
//   Adam:  g += weight_decay * p                  (L2 penalty)
//   AdamW: p *= decay, decay = 1 - lr * weight_decay
//   m = beta1 * m + (1 - beta1) * g
//   v = beta2 * v + (1 - beta2) * g * g
//   p -= step_size * m / (sqrt(v) / bc2_sqrt + eps)
// with step_size = lr / (1 - beta1^t), bc2_sqrt = sqrt(1 - beta2^t) for
// step t. The scalars derived from the hyper-parameters (omb1 = 1 - beta1,
// omb2 = 1 - beta2, decay, step_size, bc2_sqrt) are computed by the caller
// in float64 and rounded once, as PyTorch does with its Python-float
// scalars (1 - 0.999f in float32 would be off by 1.3e-5 relative).
extern "C" __global__ void gk_adam_f32(float* p, const float* g, float* m, float* v, i64 n, float beta1, float beta2,
                                       float omb1, float omb2, float eps, float weight_decay, float decay,
                                       float step_size, float bc2_sqrt, int adamw) {
  GRID_STRIDE(i, n) {
    float pi = p[i];
    float gi = g[i];
    if (adamw) {
      pi *= decay;
    } else if (weight_decay != 0.f) {
      gi = fmaf(weight_decay, pi, gi);
    }
    const float mi = fmaf(beta1, m[i], omb1 * gi);
    const float vi = fmaf(beta2, v[i], omb2 * gi * gi);
    m[i] = mi;
    v[i] = vi;
    p[i] = pi - step_size * mi / (sqrtf(vi) / bc2_sqrt + eps);
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
