// spmm.cu: message aggregation over a CSR graph (DGL's update_all with
// copy_u / u_mul_e and sum / mean / max; PyG's propagate with aggr=...),
// i.e. generalized SpMM out = A (x) X.
//
// Graph: CSR over destination nodes: indptr (n_dst + 1, int64), indices (E,
// int32 or int64 source ids); edge e of destination v is indptr[v] <= e <
// indptr[v+1]. Features x (n_src, F), out (n_dst, F), row-major, storage
// T in {float, __half, __nv_bfloat16}, accumulated in float32. Optional
// edge weights w (E, H) float32 (NULL: all ones): with H heads, feature f
// belongs to head f / (F / H), as DGL's multi-head GAT aggregation
// (x viewed as (n_src, H, F/H), w as (E, H)).
//
// Thread layout: a group of G lanes (blockDim.x = G, a power of two <= 32)
// per destination row, blockDim.y rows per block; each lane owns VEC
// consecutive features (one 16-byte load when VEC*sizeof(T) == 16) and
// strides over the row by G*VEC. VEC must divide F / H. Destinations with
// more than long_thr in-edges are aggregated by a second kernel
// (gk_spmm_long_*) that spreads each over a 512-thread block.
#include "common.cuh"

enum { RED_SUM = 0, RED_MEAN = 1, RED_MAX = 2 };

// Accumulates the edges e = first, first + step, ... < end of one
// destination into acc (and, for max, the first edge holding each maximum
// into am), for the VEC features at f0 of head h. U edges per iteration
// (4 for float32, 8 for 16-bit storage): U independent 16-byte row loads
// in flight per lane.
template <typename T, typename I, int RED, int VEC>
__device__ __forceinline__ void spmm_accumulate(const I* __restrict__ indices, const float* __restrict__ w,
                                                const T* __restrict__ x, i64 first, i64 end, int step, int F, int H,
                                                int f0, int h, float* acc, i64* am) {
  constexpr int U = sizeof(T) == 2 ? 8 : 4;
  i64 e = first;
  for (; e + (U - 1) * (i64)step < end; e += U * (i64)step) {
    float vals[U][VEC];
    float we[U];
#pragma unroll
    for (int k = 0; k < U; k++) {
      const i64 ek = e + k * (i64)step;
      const i64 u = (i64)indices[ek];
      load_f32<T, VEC>(x + u * F + f0, vals[k]);
      we[k] = w ? w[ek * H + h] : 1.f;
    }
#pragma unroll
    for (int k = 0; k < U; k++) {
#pragma unroll
      for (int j = 0; j < VEC; j++) {
        const float m = we[k] * vals[k][j];
        if (RED == RED_MAX) {
          if (m > acc[j]) {
            acc[j] = m;
            am[j] = e + k * (i64)step;
          }
        } else {
          acc[j] += m;
        }
      }
    }
  }
  for (; e < end; e += step) {
    float vals[VEC];
    const i64 u = (i64)indices[e];
    load_f32<T, VEC>(x + u * F + f0, vals);
    const float we = w ? w[e * H + h] : 1.f;
#pragma unroll
    for (int j = 0; j < VEC; j++) {
      const float m = we * vals[j];
      if (RED == RED_MAX) {
        if (m > acc[j]) {
          acc[j] = m;
          am[j] = e;
        }
      } else {
        acc[j] += m;
      }
    }
  }
}

// Finishes VEC outputs of destination v with deg in-edges: mean divides,
// max writes argmax and gives 0 where there is no edge; stores to out.
template <typename T, int RED, int VEC>
__device__ __forceinline__ void spmm_finish(T* __restrict__ out, i64* __restrict__ arg, i64 v, i64 deg, int F, int f0,
                                            float* acc, const i64* am) {
  if (RED == RED_MEAN && deg > 0) {
    const float inv = 1.f / (float)deg;
#pragma unroll
    for (int j = 0; j < VEC; j++) acc[j] *= inv;
  }
  if (RED == RED_MAX) {
#pragma unroll
    for (int j = 0; j < VEC; j++) {
      if (am[j] < 0) acc[j] = 0.f;  // no in-edges: 0, as DGL
      arg[v * F + f0 + j] = am[j];
    }
  }
  store_f32<T, VEC>(out + v * F + f0, acc);
}

// One lane group per destination. Rows with more than long_thr in-edges
// (long_thr > 0) are left to spmm_long: the group's first lane appends the
// row to long_rows and the group moves on, so a hub does not hold one group
// for the whole launch.
template <typename T, typename I, int RED, int VEC>
__device__ __forceinline__ void spmm_fwd(const i64* __restrict__ indptr, const I* __restrict__ indices,
                                         const float* __restrict__ w, const T* __restrict__ x, T* __restrict__ out,
                                         i64* __restrict__ arg, i64 n_dst, int F, int H, i64 long_thr,
                                         int* long_count, i64* long_rows) {
  const i64 v = (i64)blockIdx.x * blockDim.y + threadIdx.y;
  if (v >= n_dst) return;
  const i64 start = indptr[v], end = indptr[v + 1];
  if (long_thr > 0 && end - start > long_thr) {
    if (threadIdx.x == 0) long_rows[atomicAdd(long_count, 1)] = v;
    return;
  }
  const int D = F / H;
  for (int f0 = threadIdx.x * VEC; f0 < F; f0 += blockDim.x * VEC) {
    float acc[VEC];
    i64 am[VEC];
#pragma unroll
    for (int j = 0; j < VEC; j++) {
      acc[j] = RED == RED_MAX ? -INFINITY : 0.f;
      am[j] = -1;
    }
    spmm_accumulate<T, I, RED, VEC>(indices, w, x, start, end, 1, F, H, f0, f0 / D, acc, am);
    spmm_finish<T, RED, VEC>(out, arg, v, end - start, F, f0, acc, am);
  }
}

// The long rows queued by spmm_fwd: one block per row (block-stride over
// the queue), blockDim (G, R) with G * R <= 512; the R lane groups split the
// row's edges (group y takes edges start + y, start + y + R, ...), then
// combine in shared memory. For max, ties between groups go to the smaller
// edge id, so the result equals the sequential first maximum.
template <typename T, typename I, int RED, int VEC>
__device__ __forceinline__ void spmm_long(const i64* __restrict__ indptr, const I* __restrict__ indices,
                                          const float* __restrict__ w, const T* __restrict__ x, T* __restrict__ out,
                                          i64* __restrict__ arg, int F, int H, const int* long_count,
                                          const i64* long_rows) {
  __shared__ float sacc[512 * VEC];
  __shared__ int sarg[RED == RED_MAX ? 512 * VEC : 1];  // edge offset from the row start
  const int G = blockDim.x, R = blockDim.y;
  const int tid = threadIdx.y * G + threadIdx.x;
  const int nlong = *long_count;
  const int D = F / H;
  for (int q = blockIdx.x; q < nlong; q += gridDim.x) {
    const i64 v = long_rows[q];
    const i64 start = indptr[v], end = indptr[v + 1];
    for (int c0 = 0; c0 < F; c0 += G * VEC) {
      const int f0 = c0 + threadIdx.x * VEC;
      const bool live = f0 < F;
      float acc[VEC];
      i64 am[VEC];
#pragma unroll
      for (int j = 0; j < VEC; j++) {
        acc[j] = RED == RED_MAX ? -INFINITY : 0.f;
        am[j] = -1;
      }
      if (live) spmm_accumulate<T, I, RED, VEC>(indices, w, x, start + threadIdx.y, end, R, F, H, f0, f0 / D, acc, am);
#pragma unroll
      for (int j = 0; j < VEC; j++) {
        sacc[tid * VEC + j] = acc[j];
        if (RED == RED_MAX) sarg[tid * VEC + j] = am[j] < 0 ? -1 : (int)(am[j] - start);
      }
      __syncthreads();
      if (threadIdx.y == 0 && live) {
#pragma unroll
        for (int j = 0; j < VEC; j++) {
          float a = sacc[threadIdx.x * VEC + j];
          int b = RED == RED_MAX ? sarg[threadIdx.x * VEC + j] : -1;
          for (int y = 1; y < R; y++) {
            const float o = sacc[(y * G + threadIdx.x) * VEC + j];
            if (RED == RED_MAX) {
              const int ob = sarg[(y * G + threadIdx.x) * VEC + j];
              if (ob >= 0 && (o > a || (o == a && (b < 0 || ob < b)))) {
                a = o;
                b = ob;
              }
            } else {
              a += o;
            }
          }
          acc[j] = a;
          am[j] = b < 0 ? -1 : start + b;
        }
        spmm_finish<T, RED, VEC>(out, arg, v, end - start, F, f0, acc, am);
      }
      __syncthreads();
    }
  }
}

#define SPMM(RNAME, RED, TNAME, T, INAME, I, VNAME, VEC)                                                      \
  extern "C" __global__ void gk_spmm_##RNAME##_##TNAME##_##INAME##_##VNAME(                                 \
      const i64* indptr, const I* indices, const float* w, const T* x, T* out, i64* arg, i64 n_dst, int F,    \
      int H, i64 long_thr, int* long_count, i64* long_rows) {                                                 \
    spmm_fwd<T, I, RED, VEC>(indptr, indices, w, x, out, arg, n_dst, F, H, long_thr, long_count, long_rows); \
  }                                                                                                           \
  extern "C" __global__ void __launch_bounds__(512) gk_spmm_long_##RNAME##_##TNAME##_##INAME##_##VNAME(      \
      const i64* indptr, const I* indices, const float* w, const T* x, T* out, i64* arg, int F, int H,        \
      const int* long_count, const i64* long_rows) {                                                          \
    spmm_long<T, I, RED, VEC>(indptr, indices, w, x, out, arg, F, H, long_count, long_rows);                  \
  }

#define SPMM_T(RNAME, RED, INAME, I)                     \
  SPMM(RNAME, RED, f32, float, INAME, I, v1, 1)          \
  SPMM(RNAME, RED, f32, float, INAME, I, v16, 4)         \
  SPMM(RNAME, RED, f16, __half, INAME, I, v1, 1)         \
  SPMM(RNAME, RED, f16, __half, INAME, I, v16, 8)        \
  SPMM(RNAME, RED, bf16, __nv_bfloat16, INAME, I, v1, 1) \
  SPMM(RNAME, RED, bf16, __nv_bfloat16, INAME, I, v16, 8)

#define SPMM_R(INAME, I)            \
  SPMM_T(sum, RED_SUM, INAME, I)    \
  SPMM_T(mean, RED_MEAN, INAME, I)  \
  SPMM_T(max, RED_MAX, INAME, I)

SPMM_R(i32, int)
SPMM_R(i64, i64)

// Backward of sum / mean aggregation with respect to x, float32:
// dx[u, f] += w[e, h] * dout[v, f] (/ deg(v) for mean) for every edge
// e = (u -> v). dx is accumulated with atomics (zero it first). Same thread
// layout as the forward with VEC = 1.
template <typename I, bool MEAN>
__device__ __forceinline__ void spmm_bwd(const i64* __restrict__ indptr, const I* __restrict__ indices,
                                         const float* __restrict__ w, const float* __restrict__ dout,
                                         float* __restrict__ dx, i64 n_dst, int F, int H) {
  const i64 v = (i64)blockIdx.x * blockDim.y + threadIdx.y;
  if (v >= n_dst) return;
  const i64 start = indptr[v], end = indptr[v + 1];
  if (end == start) return;
  const int D = F / H;
  const float s = MEAN ? 1.f / (float)(end - start) : 1.f;
  for (int f = threadIdx.x; f < F; f += blockDim.x) {
    const float g = s * dout[v * F + f];
    const int h = f / D;
    for (i64 e = start; e < end; e++) {
      const i64 u = (i64)indices[e];
      atomicAdd(&dx[u * F + f], w ? w[e * H + h] * g : g);
    }
  }
}

extern "C" __global__ void gk_spmm_bwd_sum_f32_i32(const i64* indptr, const int* indices, const float* w,
                                                   const float* dout, float* dx, i64 n_dst, int F, int H) {
  spmm_bwd<int, false>(indptr, indices, w, dout, dx, n_dst, F, H);
}
extern "C" __global__ void gk_spmm_bwd_sum_f32_i64(const i64* indptr, const i64* indices, const float* w,
                                                   const float* dout, float* dx, i64 n_dst, int F, int H) {
  spmm_bwd<i64, false>(indptr, indices, w, dout, dx, n_dst, F, H);
}
extern "C" __global__ void gk_spmm_bwd_mean_f32_i32(const i64* indptr, const int* indices, const float* w,
                                                    const float* dout, float* dx, i64 n_dst, int F, int H) {
  spmm_bwd<int, true>(indptr, indices, w, dout, dx, n_dst, F, H);
}
extern "C" __global__ void gk_spmm_bwd_mean_f32_i64(const i64* indptr, const i64* indices, const float* w,
                                                    const float* dout, float* dx, i64 n_dst, int F, int H) {
  spmm_bwd<i64, true>(indptr, indices, w, dout, dx, n_dst, F, H);
}

// Backward of max aggregation with respect to x, float32: for each output
// element (v, f) whose arg edge e = arg[v, f] >= 0, dx[indices[e], f] +=
// w[e, h] * dout[v, f]. Grid-stride over n_dst * F.
template <typename I>
__device__ __forceinline__ void spmm_bwd_max(const I* __restrict__ indices, const float* __restrict__ w,
                                             const i64* __restrict__ arg, const float* __restrict__ dout,
                                             float* __restrict__ dx, i64 n_dst, int F, int H) {
  const int D = F / H;
  GRID_STRIDE(i, n_dst * F) {
    const i64 e = arg[i];
    if (e >= 0) {
      const int f = (int)(i % F);
      const float g = w ? w[e * H + f / D] * dout[i] : dout[i];
      atomicAdd(&dx[(i64)indices[e] * F + f], g);
    }
  }
}

extern "C" __global__ void gk_spmm_bwd_max_f32_i32(const int* indices, const float* w, const i64* arg,
                                                   const float* dout, float* dx, i64 n_dst, int F, int H) {
  spmm_bwd_max<int>(indices, w, arg, dout, dx, n_dst, F, H);
}
extern "C" __global__ void gk_spmm_bwd_max_f32_i64(const i64* indices, const float* w, const i64* arg,
                                                   const float* dout, float* dx, i64 n_dst, int F, int H) {
  spmm_bwd_max<i64>(indices, w, arg, dout, dx, n_dst, F, H);
}
