// dropout.cu: inverted dropout with a counter-based RNG, so the mask is a
// pure function of (seed, offset, element index): the backward pass and an
// activation-checkpoint recompute regenerate the same mask without storing
// it, and the CPU reference (Go's kernels.DropoutKeep) draws the same one.
//
// RNG: Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as
// 1, 2, 3", SC'11; Random123), key = (lo32(seed), hi32(seed)), counter =
// (lo32(i/4), hi32(i/4), lo32(offset), hi32(offset)); element i uses word
// i%4 of the output, u = (word >> 8) * 2^-24 in [0, 1), kept when u >= p.
#include "common.cuh"

__device__ __forceinline__ uint4 philox4x32_10(uint4 c, uint2 k) {
  const u32 M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
#pragma unroll
  for (int r = 0; r < 10; r++) {
    if (r > 0) {
      k.x += W0;
      k.y += W1;
    }
    u32 hi0 = __umulhi(M0, c.x), lo0 = M0 * c.x;
    u32 hi1 = __umulhi(M1, c.z), lo1 = M1 * c.z;
    c = make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
  }
  return c;
}

__device__ __forceinline__ float uniform24(u32 w) { return (float)(w >> 8) * (1.0f / 16777216.0f); }

// Each thread handles one group of 4 consecutive elements (one Philox call).
template <bool FWD>
__device__ __forceinline__ void dropout_body(const float* in, float* out, unsigned char* mask, i64 n, float p,
                                             unsigned long long seed, unsigned long long offset) {
  const float scale = p < 1.f ? 1.f / (1.f - p) : 0.f;
  const uint2 key = make_uint2((u32)seed, (u32)(seed >> 32));
  const i64 groups = (n + 3) / 4;
  GRID_STRIDE(g, groups) {
    uint4 r = philox4x32_10(make_uint4((u32)g, (u32)((unsigned long long)g >> 32), (u32)offset, (u32)(offset >> 32)), key);
    u32 w[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
    for (int j = 0; j < 4; j++) {
      i64 i = g * 4 + j;
      if (i < n) {
        bool keep = uniform24(w[j]) >= p;
        out[i] = keep ? in[i] * scale : 0.f;
        if (FWD && mask) mask[i] = keep;
      }
    }
  }
}

// y = x * keep / (1 - p); mask (n bytes, may be NULL) receives keep.
extern "C" __global__ void gk_dropout_fwd_f32(const float* x, float* y, unsigned char* mask, i64 n, float p,
                                              unsigned long long seed, unsigned long long offset) {
  dropout_body<true>(x, y, mask, n, p, seed, offset);
}

// dx = dy * keep / (1 - p), keep regenerated from (seed, offset).
extern "C" __global__ void gk_dropout_bwd_f32(const float* dy, float* dx, i64 n, float p, unsigned long long seed,
                                              unsigned long long offset) {
  dropout_body<false>(dy, dx, nullptr, n, p, seed, offset);
}
