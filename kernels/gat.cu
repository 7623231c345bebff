// gat.cu: edge computations of graph attention (GAT, Velickovic et al. 2018,
// as DGL's GATConv): SDDMM u_add_v and u_dot_v per head, edge softmax over
// each destination's in-edges, and reductions of edge data to nodes.
//
// Graph as in spmm.cu: CSR over destinations, indptr int64 (n_dst + 1),
// indices (E) int32 or int64 source ids. Edge data (E, H) float32, node data
// (n, H) or (n, H, D) float32, row-major.
//
// Per-(node, head) kernels use a group of G lanes (blockDim.x = G, a power
// of two <= 32) per unit, blockDim.y units per block.
#include "common.cuh"

// out[e, h] = el[u, h] + er[v, h] for e = (u -> v): DGL's
// fn.u_add_v('el', 'er', 'e'). One warp per destination; lanes over the
// row's (edge, head) pairs. Block (32, 8).
template <typename I>
__device__ __forceinline__ void sddmm_u_add_v(const i64* indptr, const I* indices, const float* el,
                                              const float* er, float* out, i64 n_dst, int H) {
  const i64 v = (i64)blockIdx.x * blockDim.y + threadIdx.y;
  if (v >= n_dst) return;
  const i64 start = indptr[v], end = indptr[v + 1];
  const i64 n = (end - start) * H;
  for (i64 k = threadIdx.x; k < n; k += 32) {
    const i64 e = start + k / H;
    const int h = (int)(k % H);
    out[e * H + h] = el[(i64)indices[e] * H + h] + er[v * H + h];
  }
}

// out[e, h] = sum_d x[u, h, d] * y[v, h, d] (DGL's fn.u_dot_v), times
// 1/deg(v) when inv_deg is set (the edge-weight gradient of mean
// aggregation). x (n_src, H, D), y (n_dst, H, D). A lane group per
// (v, h); lanes over d.
template <typename I>
__device__ __forceinline__ void sddmm_u_dot_v(const i64* indptr, const I* indices, const float* x, const float* y,
                                              float* out, i64 n_dst, int H, int D, int inv_deg) {
  const i64 unit = (i64)blockIdx.x * blockDim.y + threadIdx.y;  // v * H + h
  const bool live = unit < n_dst * H;
  const i64 v = live ? unit / H : 0;
  const int h = live ? (int)(unit % H) : 0;
  const i64 start = live ? indptr[v] : 0, end = live ? indptr[v + 1] : 0;
  const float s = (inv_deg && end > start) ? 1.f / (float)(end - start) : 1.f;
  const int G = blockDim.x;
  const i64 F = (i64)H * D;
  // Every lane of the warp runs the same number of group_sum calls: the
  // loop bound is the largest degree among the warp's groups.
  i64 deg = end - start;
  i64 maxdeg = deg;
  for (int o = 16; o > 0; o >>= 1) maxdeg = max(maxdeg, (i64)__shfl_xor_sync(0xffffffffu, (long long)maxdeg, o));
  for (i64 k = 0; k < maxdeg; k++) {
    float p = 0.f;
    const bool has = k < deg;
    i64 u = 0;
    if (has) {
      u = (i64)indices[start + k];
      for (int d = threadIdx.x; d < D; d += G) p += x[u * F + h * D + d] * y[v * F + h * D + d];
    }
    p = group_sum(p, G);
    if (has && threadIdx.x == 0) out[(start + k) * H + h] = s * p;
  }
}

// Edge softmax (DGL's dgl.ops.edge_softmax, norm_by='dst'):
// a[e, h] = exp(s[e, h] - max) / sum over the in-edges of v of exp(s - max).
// A lane group per (v, h); lanes stride over the edges.
__device__ __forceinline__ void edge_softmax_fwd(const i64* indptr, const float* s, float* a, i64 n_dst, int H) {
  const i64 unit = (i64)blockIdx.x * blockDim.y + threadIdx.y;
  const bool live = unit < n_dst * H;
  const i64 v = live ? unit / H : 0;
  const int h = live ? (int)(unit % H) : 0;
  const i64 start = live ? indptr[v] : 0, end = live ? indptr[v + 1] : 0;
  const int G = blockDim.x;
  float m = -INFINITY;
  for (i64 e = start + threadIdx.x; e < end; e += G) m = fmaxf(m, s[e * H + h]);
  m = group_max(m, G);
  float z = 0.f;
  for (i64 e = start + threadIdx.x; e < end; e += G) z += __expf(s[e * H + h] - m);
  z = group_sum(z, G);
  const float inv = 1.f / z;
  for (i64 e = start + threadIdx.x; e < end; e += G) a[e * H + h] = __expf(s[e * H + h] - m) * inv;
}

// Edge softmax backward: ds[e, h] = a[e, h] * (da[e, h] - sum_{e' -> v} a[e', h] * da[e', h]).
__device__ __forceinline__ void edge_softmax_bwd(const i64* indptr, const float* a, const float* da, float* ds,
                                                 i64 n_dst, int H) {
  const i64 unit = (i64)blockIdx.x * blockDim.y + threadIdx.y;
  const bool live = unit < n_dst * H;
  const i64 v = live ? unit / H : 0;
  const int h = live ? (int)(unit % H) : 0;
  const i64 start = live ? indptr[v] : 0, end = live ? indptr[v + 1] : 0;
  const int G = blockDim.x;
  float t = 0.f;
  for (i64 e = start + threadIdx.x; e < end; e += G) t += a[e * H + h] * da[e * H + h];
  t = group_sum(t, G);
  for (i64 e = start + threadIdx.x; e < end; e += G) ds[e * H + h] = a[e * H + h] * (da[e * H + h] - t);
}

// out[v, h] = sum over the in-edges e of v of x[e, h] (DGL's
// update_all(copy_e, sum): the u_add_v backward for er). A lane group
// per (v, h).
__device__ __forceinline__ void edge_sum_dst(const i64* indptr, const float* x, float* out, i64 n_dst, int H) {
  const i64 unit = (i64)blockIdx.x * blockDim.y + threadIdx.y;
  const bool live = unit < n_dst * H;
  const i64 v = live ? unit / H : 0;
  const int h = live ? (int)(unit % H) : 0;
  const i64 start = live ? indptr[v] : 0, end = live ? indptr[v + 1] : 0;
  const int G = blockDim.x;
  float t = 0.f;
  for (i64 e = start + threadIdx.x; e < end; e += G) t += x[e * H + h];
  t = group_sum(t, G);
  if (live && threadIdx.x == 0) out[v * H + h] = t;
}

// out[u, h] += x[e, h] for every edge e = (u -> v): the u_add_v backward for
// el. Atomics; zero out first. Grid-stride over E * H.
template <typename I>
__device__ __forceinline__ void edge_sum_src(const I* indices, const float* x, float* out, i64 E, int H) {
  GRID_STRIDE(k, E * H) {
    const i64 e = k / H;
    atomicAdd(&out[(i64)indices[e] * H + (k % H)], x[k]);
  }
}

#define GAT_I(INAME, I)                                                                                       \
  extern "C" __global__ void gk_sddmm_u_add_v_f32_##INAME(const i64* indptr, const I* indices, const float* el, \
                                                           const float* er, float* out, i64 n_dst, int H) {    \
    sddmm_u_add_v<I>(indptr, indices, el, er, out, n_dst, H);                                                 \
  }                                                                                                           \
  extern "C" __global__ void gk_sddmm_u_dot_v_f32_##INAME(const i64* indptr, const I* indices, const float* x,  \
                                                           const float* y, float* out, i64 n_dst, int H, int D, \
                                                           int inv_deg) {                                       \
    sddmm_u_dot_v<I>(indptr, indices, x, y, out, n_dst, H, D, inv_deg);                                       \
  }                                                                                                           \
  extern "C" __global__ void gk_edge_sum_src_f32_##INAME(const I* indices, const float* x, float* out, i64 E,   \
                                                          int H) {                                             \
    edge_sum_src<I>(indices, x, out, E, H);                                                                   \
  }
GAT_I(i32, int)
GAT_I(i64, i64)

extern "C" __global__ void gk_edge_softmax_fwd_f32(const i64* indptr, const float* s, float* a, i64 n_dst, int H) {
  edge_softmax_fwd(indptr, s, a, n_dst, H);
}
extern "C" __global__ void gk_edge_softmax_bwd_f32(const i64* indptr, const float* a, const float* da, float* ds,
                                                   i64 n_dst, int H) {
  edge_softmax_bwd(indptr, a, da, ds, n_dst, H);
}
extern "C" __global__ void gk_edge_sum_dst_f32(const i64* indptr, const float* x, float* out, i64 n_dst, int H) {
  edge_sum_dst(indptr, x, out, n_dst, H);
}
