// dense.cu: the dense kernels of package tensor's ops beyond the other
// files' launchers: broadcast binary ops and the reduction of their
// gradient, unary math with its backward, a device-scalar fill, NLL loss,
// row arg-max, strided row copies and the transpose. Launched by
// launch_dense.go.
//
// Tensors are contiguous and row-major. The elementwise kernels exist for
// float32, float16 and bfloat16 storage (T): values are widened to float32,
// computed in float32 and rounded once on store (common.cuh).

#include "common.cuh"

// Binary op codes (BinaryOp in launch_dense.go).
#define OP_ADD 0
#define OP_SUB 1
#define OP_MUL 2
#define OP_DIV 3
#define OP_COPY_A 4

__device__ __forceinline__ float binop(int op, float x, float z) {
  switch (op) {
    case OP_ADD: return x + z;
    case OP_SUB: return x - z;
    case OP_MUL: return x * z;
    case OP_DIV: return x / z;
    default: return x;
  }
}

// y[i] = a[i] op b[i] for n elements.
template <typename T>
__device__ void binary(const T* a, const T* b, T* y, i64 n, int op) {
  GRID_STRIDE(i, n) y[i] = from_f32<T>(binop(op, to_f32(a[i]), to_f32(b[i])));
}

// Broadcast binary op over an output of (up to) four dimensions
// (d0, d1, d2, d3), d0 = n / (d1*d2*d3): y[i0,i1,i2,i3] = a[sum ik*sak] op
// b[sum ik*sbk], with stride 0 on broadcast dimensions. OP_COPY_A expands a.
template <typename T>
__device__ void bcast_binary(const T* a, const T* b, T* y, i64 n, int op,
                             i64 d1, i64 d2, i64 d3,
                             i64 sa0, i64 sa1, i64 sa2, i64 sa3,
                             i64 sb0, i64 sb1, i64 sb2, i64 sb3) {
  GRID_STRIDE(i, n) {
    i64 r = i;
    const i64 i3 = r % d3; r /= d3;
    const i64 i2 = r % d2; r /= d2;
    const i64 i1 = r % d1;
    const i64 i0 = r / d1;
    const float x = to_f32(a[i0 * sa0 + i1 * sa1 + i2 * sa2 + i3 * sa3]);
    const float z = op == OP_COPY_A ? 0.f : to_f32(b[i0 * sb0 + i1 * sb1 + i2 * sb2 + i3 * sb3]);
    y[i] = from_f32<T>(binop(op, x, z));
  }
}

// Reduces g of shape (g0, g1, g2, g3) to out of shape (o0, o1, o2, o3),
// where each ok is gk or 1 (a broadcast dimension, summed over): one thread
// per output element, summing in float32 in index order (the gradient of a
// broadcast).
template <typename T>
__device__ void sum_to(const T* g, T* out, i64 nout, i64 g0, i64 g1, i64 g2, i64 g3, i64 o1, i64 o2, i64 o3) {
  const i64 r0 = (nout / (o1 * o2 * o3) == 1 && g0 != 1) ? g0 : 1;
  const i64 r1 = (o1 == 1 && g1 != 1) ? g1 : 1;
  const i64 r2 = (o2 == 1 && g2 != 1) ? g2 : 1;
  const i64 r3 = (o3 == 1 && g3 != 1) ? g3 : 1;
  GRID_STRIDE(o, nout) {
    i64 r = o;
    const i64 j3 = r % o3; r /= o3;
    const i64 j2 = r % o2; r /= o2;
    const i64 j1 = r % o1;
    const i64 j0 = r / o1;
    float s = 0.f;
    for (i64 k0 = 0; k0 < r0; k0++)
      for (i64 k1 = 0; k1 < r1; k1++)
        for (i64 k2 = 0; k2 < r2; k2++)
          for (i64 k3 = 0; k3 < r3; k3++) {
            const i64 x0 = r0 > 1 ? k0 : j0, x1 = r1 > 1 ? k1 : j1, x2 = r2 > 1 ? k2 : j2, x3 = r3 > 1 ? k3 : j3;
            s += to_f32(g[((x0 * g1 + x1) * g2 + x2) * g3 + x3]);
          }
    out[o] = from_f32<T>(s);
  }
}

// Unary op codes (UnaryOp in launch_dense.go).
#define U_EXP 0
#define U_LOG 1
#define U_SQRT 2
#define U_SIGMOID 3
#define U_TANH 4
#define U_POW 5
#define U_ADD_SCALAR 6
#define U_SCALE 7

// y = f(x) elementwise; p is the exponent (U_POW) or the scalar.
template <typename T>
__device__ void unary(const T* x, T* y, i64 n, int op, float p) {
  GRID_STRIDE(i, n) {
    const float v = to_f32(x[i]);
    float r;
    switch (op) {
      case U_EXP: r = expf(v); break;
      case U_LOG: r = logf(v); break;
      case U_SQRT: r = sqrtf(v); break;
      case U_SIGMOID: r = 1.f / (1.f + expf(-v)); break;
      case U_TANH: r = tanhf(v); break;
      case U_POW: r = powf(v, p); break;
      case U_SCALE: r = p * v; break;
      default: r = v + p; break;
    }
    y[i] = from_f32<T>(r);
  }
}

// dx = g * f'(x) with y = f(x) the forward output.
template <typename T>
__device__ void unary_bwd(const T* x, const T* y, const T* g, T* dx, i64 n, int op, float p) {
  GRID_STRIDE(i, n) {
    const float yi = to_f32(y[i]);
    float d;
    switch (op) {
      case U_EXP: d = yi; break;
      case U_LOG: d = 1.f / to_f32(x[i]); break;
      case U_SQRT: d = 0.5f / yi; break;
      case U_SIGMOID: d = yi * (1.f - yi); break;
      case U_TANH: d = 1.f - yi * yi; break;
      case U_POW: d = p * powf(to_f32(x[i]), p - 1.f); break;
      case U_SCALE: d = p; break;
      default: d = 1.f; break;
    }
    dx[i] = from_f32<T>(to_f32(g[i]) * d);
  }
}

// y[i] = scale * src[0] for n elements (a device scalar broadcast).
template <typename T>
__device__ void fill_from(const T* src, float scale, T* y, i64 n) {
  const T v = from_f32<T>(scale * to_f32(src[0]));
  GRID_STRIDE(i, n) y[i] = v;
}

#define DENSE_KERNELS(S, T)                                                                              \
  extern "C" __global__ void gk_binary_##S(const T* a, const T* b, T* y, i64 n, int op) {               \
    binary<T>(a, b, y, n, op);                                                                           \
  }                                                                                                      \
  extern "C" __global__ void gk_bcast_binary_##S(const T* a, const T* b, T* y, i64 n, int op, i64 d1,   \
                                                 i64 d2, i64 d3, i64 sa0, i64 sa1, i64 sa2, i64 sa3,     \
                                                 i64 sb0, i64 sb1, i64 sb2, i64 sb3) {                   \
    bcast_binary<T>(a, b, y, n, op, d1, d2, d3, sa0, sa1, sa2, sa3, sb0, sb1, sb2, sb3);                 \
  }                                                                                                      \
  extern "C" __global__ void gk_sum_to_##S(const T* g, T* out, i64 nout, i64 g0, i64 g1, i64 g2, i64 g3, \
                                           i64 o1, i64 o2, i64 o3) {                                     \
    sum_to<T>(g, out, nout, g0, g1, g2, g3, o1, o2, o3);                                                 \
  }                                                                                                      \
  extern "C" __global__ void gk_unary_##S(const T* x, T* y, i64 n, int op, float p) {                   \
    unary<T>(x, y, n, op, p);                                                                            \
  }                                                                                                      \
  extern "C" __global__ void gk_unary_bwd_##S(const T* x, const T* y, const T* g, T* dx, i64 n, int op, \
                                              float p) {                                                 \
    unary_bwd<T>(x, y, g, dx, n, op, p);                                                                 \
  }                                                                                                      \
  extern "C" __global__ void gk_fill_from_##S(const T* src, float scale, T* y, i64 n) {                 \
    fill_from<T>(src, scale, y, n);                                                                      \
  }

DENSE_KERNELS(f32, float)
DENSE_KERNELS(f16, __half)
DENSE_KERNELS(bf16, __nv_bfloat16)

// loss[r] = -logp[r, t[r]]: logp (rows, cols) float32, t (rows) int64 in range.
extern "C" __global__ void gk_nll_fwd_f32(const float* logp, const i64* t, float* loss, i64 rows, i64 cols) {
  GRID_STRIDE(r, rows) loss[r] = -logp[r * cols + t[r]];
}

// gl[r, t[r]] = -scale * g[0]; the rest of gl is zero already.
extern "C" __global__ void gk_nll_bwd_f32(const i64* t, const float* g, float* gl, i64 rows, i64 cols, float scale) {
  const float v = -scale * g[0];
  GRID_STRIDE(r, rows) gl[r * cols + t[r]] = v;
}

// out[r] = the first index of the largest value of row r of x (rows, cols),
// as int64; one thread per row.
extern "C" __global__ void gk_argmax_rows_f32(const float* x, i64* out, i64 rows, i64 cols) {
  GRID_STRIDE(r, rows) {
    const float* row = x + r * cols;
    i64 best = 0;
    float bv = cols > 0 ? row[0] : 0.f;
    for (i64 j = 1; j < cols; j++) {
      if (row[j] > bv) {
        bv = row[j];
        best = j;
      }
    }
    out[r] = best;
  }
}

// dst[r*dstride + c] = src[r*sstride + c] for r < rows, c < w elements of
// esize bytes (1, 2, 4 or 8), any dtype.
template <typename T>
__device__ void copy2d(const T* src, i64 sstride, T* dst, i64 dstride, i64 rows, i64 w) {
  GRID_STRIDE(i, rows * w) {
    const i64 r = i / w, c = i % w;
    dst[r * dstride + c] = src[r * sstride + c];
  }
}
extern "C" __global__ void gk_copy2d_b8(const unsigned long long* s, i64 ss, unsigned long long* d, i64 ds, i64 rows, i64 w) { copy2d(s, ss, d, ds, rows, w); }
extern "C" __global__ void gk_copy2d_b4(const unsigned int* s, i64 ss, unsigned int* d, i64 ds, i64 rows, i64 w) { copy2d(s, ss, d, ds, rows, w); }
extern "C" __global__ void gk_copy2d_b2(const unsigned short* s, i64 ss, unsigned short* d, i64 ds, i64 rows, i64 w) { copy2d(s, ss, d, ds, rows, w); }
extern "C" __global__ void gk_copy2d_b1(const unsigned char* s, i64 ss, unsigned char* d, i64 ds, i64 rows, i64 w) { copy2d(s, ss, d, ds, rows, w); }

// y (n, m) = x (m, n) transposed for elements of T, 32x32 tiles through
// shared memory; grid (ceil(m/32), ceil(n/32)), block (32, 8).
template <typename T>
__device__ void transpose(const T* x, T* y, int m, int n) {
  __shared__ T tile[32][33];
  const int by = blockIdx.x * 32, bx = blockIdx.y * 32;  // first row, first column of the tile
  for (int k = threadIdx.y; k < 32; k += blockDim.y) {
    const int i = by + k, j = bx + threadIdx.x;
    if (i < m && j < n) tile[k][threadIdx.x] = x[(i64)i * n + j];
  }
  __syncthreads();
  for (int k = threadIdx.y; k < 32; k += blockDim.y) {
    const int j = bx + k, i = by + threadIdx.x;
    if (i < m && j < n) y[(i64)j * m + i] = tile[threadIdx.x][k];
  }
}
extern "C" __global__ void gk_transpose_b8(const unsigned long long* x, unsigned long long* y, int m, int n) { transpose(x, y, m, n); }
extern "C" __global__ void gk_transpose_b4(const unsigned int* x, unsigned int* y, int m, int n) { transpose(x, y, m, n); }
extern "C" __global__ void gk_transpose_b2(const unsigned short* x, unsigned short* y, int m, int n) { transpose(x, y, m, n); }
extern "C" __global__ void gk_transpose_b1(const unsigned char* x, unsigned char* y, int m, int n) { transpose(x, y, m, n); }
