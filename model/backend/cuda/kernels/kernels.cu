// The CUDA backend's kernels: one kernel per operation of model/backend's
// Backend interface (contracts in model/backend/ops.go), in float32
// storage. Matrix products go through cuBLASLt instead (blas.go); the
// tensor-core attention kernels are in attention.cuh.
//
// Launch shapes are chosen by the Go side (backend.go); each kernel says
// what it expects. Element counts are 64-bit: a parameter buffer of a
// multi-billion-parameter model does not fit in an int.
#include "common.cuh"

#define GRID_STRIDE(i, n) \
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (i64)gridDim.x * blockDim.x)

// ---------------------------------------------------------------- elementwise

extern "C" __global__ void add_f32(float* dst, const float* src, i64 n) {
  GRID_STRIDE(i, n) dst[i] += src[i];
}

// to_bf16_n converts a float32 array to bf16 (round to nearest even): the
// operands of the bf16 matrix products.
extern "C" __global__ void to_bf16_n(u16* dst, const float* src, i64 n) {
  GRID_STRIDE(i, n) dst[i] = to_bf16(src[i]);
}

// from_bf16_n widens bf16 back to float32 (exactly): a buffer kept only as
// its bf16 copy (see demote.go) that is read or written again.
extern "C" __global__ void from_bf16_n(float* dst, const u16* src, i64 n) {
  GRID_STRIDE(i, n) dst[i] = __builtin_bit_cast(float, (u32)src[i] << 16);
}

// The same, four at a time: src 16-byte and dst 8-byte aligned, n4 groups.
typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef unsigned int u32x2 __attribute__((ext_vector_type(2)));
extern "C" __global__ void to_bf16_x4(u32x2* dst, const f32x4* src, i64 n4) {
  GRID_STRIDE(i, n4) {
    f32x4 x = src[i];
    u32x2 o;
    o.x = pack2(x.x, x.y);
    o.y = pack2(x.z, x.w);
    dst[i] = o;
  }
}

extern "C" __global__ void swiglu_fwd(float* out, const float* gate, const float* up, i64 n) {
  GRID_STRIDE(i, n) {
    float g = gate[i];
    out[i] = g / (1.0f + fexp(-g)) * up[i];
  }
}

extern "C" __global__ void swiglu_bwd(float* dgate, float* dup, const float* dout, const float* gate,
                                      const float* up, i64 n) {
  GRID_STRIDE(i, n) {
    float g = gate[i];
    float sig = 1.0f / (1.0f + fexp(-g));
    float silu = g * sig;
    float dsilu = sig * (1.0f + g * (1.0f - sig));
    dgate[i] += dout[i] * up[i] * dsilu;
    dup[i] += dout[i] * silu;
  }
}

// ------------------------------------------------------------------ embedding

extern "C" __global__ void embedding_fwd(float* out, const float* table, const int* ids, i64 N, int C) {
  GRID_STRIDE(i, N * C) {
    i64 n = i / C;
    out[i] = table[(i64)ids[n] * C + (i - n * C)];
  }
}

// Rows can repeat, so the scatter adds atomically.
extern "C" __global__ void embedding_bwd(float* dtable, const float* dout, const int* ids, i64 N, int C) {
  GRID_STRIDE(i, N * C) {
    i64 n = i / C;
    atomic_add(&dtable[(i64)ids[n] * C + (i - n * C)], dout[i]);
  }
}

// -------------------------------------------------------------------- RMSNorm
// One warp per row; blocks of 256 threads hold 8 rows.

extern "C" __global__ void rmsnorm_fwd(float* out, float* rstd, const float* in, const float* w, i64 rows,
                                       int C, double eps) {
  i64 row = (i64)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x & 31;
  if (row >= rows) return;
  const float* x = in + row * C;
  float ss = 0;
  for (int c = lane; c < C; c += 32) ss += x[c] * x[c];
  ss = warp_sum(ss);
  float s = (float)(1.0 / dsqrt((double)ss / C + eps));
  if (lane == 0) rstd[row] = s;
  float* o = out + row * C;
  for (int c = lane; c < C; c += 32) o[c] = x[c] * s * w[c];
}

// din += s·(dout·w − x·s·mean(dout·w·x·s)), one warp per row.
extern "C" __global__ void rmsnorm_bwd_dx(float* din, const float* dout, const float* in, const float* w,
                                          const float* rstd, i64 rows, int C) {
  i64 row = (i64)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x & 31;
  if (row >= rows) return;
  const float* x = in + row * C;
  const float* d = dout + row * C;
  float s = rstd[row];
  float dot = 0;
  for (int c = lane; c < C; c += 32) dot += d[c] * w[c] * x[c] * s;
  float m = warp_sum(dot) / C;
  float* di = din + row * C;
  for (int c = lane; c < C; c += 32) di[c] += s * (d[c] * w[c] - x[c] * s * m);
}

// The weight gradient sums over rows: each block (x: columns, y: a chunk of
// rows) writes one partial row, and sum_rows_add adds the partials in a
// fixed order, so the result does not depend on scheduling.
extern "C" __global__ void rmsnorm_bwd_dw_partial(float* partial, const float* dout, const float* in,
                                                  const float* rstd, i64 rows, int C, i64 rowsPerChunk) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  i64 r0 = (i64)blockIdx.y * rowsPerChunk;
  i64 r1 = r0 + rowsPerChunk < rows ? r0 + rowsPerChunk : rows;
  float acc = 0;
  for (i64 r = r0; r < r1; r++) acc += dout[r * C + c] * in[r * C + c] * rstd[r];
  partial[(i64)blockIdx.y * C + c] = acc;
}

extern "C" __global__ void sum_rows_add(float* dst, const float* partial, int chunks, int C) {
  GRID_STRIDE(c, (i64)C) {
    float acc = 0;
    for (int k = 0; k < chunks; k++) acc += partial[(i64)k * C + c];
    dst[c] += acc;
  }
}

// ----------------------------------------------------------------------- RoPE
// Rotate-half RoPE in place; invFreq holds theta^(-2i/D) in float64. The
// angle is formed and reduced to [-π, π] in float64, so large positions
// keep their accuracy, and only the final sine and cosine are float32.

extern "C" __global__ void rope(float* x, const int* pos, const double* invFreq, i64 N, int H, int D,
                                int inverse) {
  int half = D / 2;
  GRID_STRIDE(i, N * H * half) {
    int j = (int)(i % half);
    i64 nh = i / half;
    i64 n = nh / H;
    double a = (double)pos[n] * invFreq[j];
    double k = __builtin_rint(a * 0.15915494309189535);  // 1/(2π)
    double r = __builtin_fma(-k, 6.283185307179586, a);
    r = __builtin_fma(-k, 2.4492935982947064e-16, r);  // the low part of 2π
    float rf = (float)r;
    float c = __nvvm_cos_approx_f(rf), s = __nvvm_sin_approx_f(rf);
    if (inverse) s = -s;
    float* v = x + nh * D;
    float x1 = v[j], x2 = v[j + half];
    v[j] = x1 * c - x2 * s;
    v[j + half] = x2 * c + x1 * s;
  }
}

// ------------------------------------------------------------- block reduces

DEV float block_max(float v, float* sh) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  v = warp_max(v);
  syncthreads();
  if (lane == 0) sh[warp] = v;
  syncthreads();
  v = threadIdx.x < nw ? sh[threadIdx.x] : -finf();
  if (warp == 0) v = warp_max(v);
  if (threadIdx.x == 0) sh[0] = v;
  syncthreads();
  return sh[0];
}

DEV double block_sum_d(double v, double* sh) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  v = warp_sum_d(v);
  syncthreads();
  if (lane == 0) sh[warp] = v;
  syncthreads();
  v = threadIdx.x < nw ? sh[threadIdx.x] : 0.0;
  if (warp == 0) v = warp_sum_d(v);
  if (threadIdx.x == 0) sh[0] = v;
  syncthreads();
  return sh[0];
}

// ---------------------------------------------------------------- cross-entropy
// One block per row, over the logits scaled by s (1/temperature).
// losses[n] = −log softmax(s·row)[target]; the row becomes the gradient with
// respect to the unscaled logits, s·(softmax − onehot)·w; rows with weight 0
// get loss 0 and a zero gradient.

extern "C" __global__ void cross_entropy(float* losses, float* logits, const int* targets,
                                         const float* weights, int V, float s) {
  __shared__ float shf[32];
  __shared__ double shd[32];
  i64 n = blockIdx.x;
  float* row = logits + n * V;
  float w = weights[n];
  if (w == 0) {
    for (int i = threadIdx.x; i < V; i += blockDim.x) row[i] = 0;
    if (threadIdx.x == 0) losses[n] = 0;
    return;
  }
  int tgt = targets[n];
  float xt = s * row[tgt];
  float mx = -finf();
  for (int i = threadIdx.x; i < V; i += blockDim.x) mx = __builtin_fmaxf(mx, s * row[i]);
  mx = block_max(mx, shf);
  double sum = 0;
  for (int i = threadIdx.x; i < V; i += blockDim.x) sum += fexp(s * row[i] - mx);
  sum = block_sum_d(sum, shd);
  if (threadIdx.x == 0) losses[n] = flog((float)sum) + mx - xt;
  float scale = (float)(s * w / sum);
  for (int i = threadIdx.x; i < V; i += blockDim.x) row[i] = fexp(s * row[i] - mx) * scale;
  syncthreads();
  if (threadIdx.x == 0) row[tgt] -= s * w;
}

// out[0] = Σ weights·losses in float64, one block in a fixed order.
extern "C" __global__ void weighted_sum(double* out, const float* losses, const float* weights, i64 N) {
  __shared__ double shd[32];
  double acc = 0;
  for (i64 i = threadIdx.x; i < N; i += blockDim.x) acc += (double)weights[i] * (double)losses[i];
  acc = block_sum_d(acc, shd);
  if (threadIdx.x == 0) out[0] = acc;
}

// Σ x² in float64: a fixed grid of partial sums, then one block adds them in
// order, so the global norm is the same on every run.
extern "C" __global__ void sumsq_partial(double* partial, const float* x, i64 n) {
  __shared__ double shd[32];
  double acc = 0;
  GRID_STRIDE(i, n) acc += (double)x[i] * (double)x[i];
  acc = block_sum_d(acc, shd);
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

extern "C" __global__ void sum_partials(double* out, const double* partial, int n) {
  __shared__ double shd[32];
  double acc = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) acc += partial[i];
  acc = block_sum_d(acc, shd);
  if (threadIdx.x == 0) out[0] = acc;
}

// ---------------------------------------------------------------------- AdamW
// The same float64 arithmetic as ops.go's AdamW; bias corrections come from
// the host.

extern "C" __global__ void adamw(float* params, const float* grads, float* m, float* v, i64 n, double lr,
                                 double b1, double b2, double eps, double wd, double bc1, double bc2,
                                 double gscale) {
  GRID_STRIDE(i, n) {
    double g = (double)grads[i] * gscale;
    double mi = b1 * (double)m[i] + (1 - b1) * g;
    double vi = b2 * (double)v[i] + (1 - b2) * g * g;
    m[i] = (float)mi;
    v[i] = (float)vi;
    double x = (double)params[i];
    x -= lr * ((mi / bc1) / (dsqrt(vi / bc2) + eps) + wd * x);
    params[i] = (float)x;
  }
}

// ------------------------------------------------------------------ attention
// Segments: first[i] / last[i] are the first and last positions of position
// i's row that share its segment id, so tiles skip keys (and, backwards,
// queries) that no row of theirs can reach. The masks inside the kernels
// still compare segment ids, so any segment layout is exact.

extern "C" __global__ void seg_bounds(int* first, int* last, const int* seg, int B, int T) {
  GRID_STRIDE(i, (i64)B * T) {
    int t = (int)(i % T);
    const int* s = seg + (i - t);
    int id = s[t];
    int f = t;
    for (int j = 0; j < t; j++)
      if (s[j] == id) {
        f = j;
        break;
      }
    int l = t;
    for (int j = T - 1; j > t; j--)
      if (s[j] == id) {
        l = j;
        break;
      }
    first[i] = f;
    last[i] = l;
  }
}

// The float32 attention kernels: one warp per query row (forward, dq) or key
// row (dk, dv), lanes splitting the head dimension (D ≤ 256). Exact float32
// arithmetic; the tensor-core kernels in attention.cuh are the fast path.

#define MAXE 8  // head-dimension elements per lane

extern "C" __global__ void attn_fwd_f32(float* out, float* lse, const float* q, const float* k,
                                        const float* v, const int* seg, const int* first, int B, int T,
                                        int H, int KV, int D, float scale) {
  i64 w = (i64)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x & 31;
  if (w >= (i64)B * H * T) return;
  int t = (int)(w % T);
  i64 bh = w / T;
  int h = (int)(bh % H), b = (int)(bh / H), kh = h / (H / KV);
  i64 nt = (i64)b * T + t;
  const float* qr = q + (nt * H + h) * D;
  float qv[MAXE], o[MAXE];
  #pragma unroll
  for (int e = 0; e < MAXE; e++) {
    int d = lane + 32 * e;
    qv[e] = d < D ? qr[d] : 0;
    o[e] = 0;
  }
  float m = -finf(), l = 0;
  int sg = seg[nt];
  for (int s = first[nt]; s <= t; s++) {
    i64 ns = (i64)b * T + s;
    if (seg[ns] != sg) continue;
    const float* kr = k + (ns * KV + kh) * D;
    const float* vr = v + (ns * KV + kh) * D;
    float dot = 0;
    #pragma unroll
    for (int e = 0; e < MAXE; e++) {
      int d = lane + 32 * e;
      if (d < D) dot += qv[e] * kr[d];
    }
    dot = warp_sum(dot) * scale;
    float mn = __builtin_fmaxf(m, dot);
    float corr = fexp(m - mn), p = fexp(dot - mn);
    l = l * corr + p;
    #pragma unroll
    for (int e = 0; e < MAXE; e++) {
      int d = lane + 32 * e;
      if (d < D) o[e] = o[e] * corr + p * vr[d];
    }
    m = mn;
  }
  float* orow = out + (nt * H + h) * D;
  #pragma unroll
  for (int e = 0; e < MAXE; e++) {
    int d = lane + 32 * e;
    if (d < D) orow[d] = o[e] / l;
  }
  if (lane == 0) lse[w] = m + flog(l);
}

// Di[bh·T+t] = Σ dout·out over the head dimension, the row term of the
// softmax backward; both backward paths read it.
extern "C" __global__ void attn_bwd_di(float* Di, const float* dout, const float* out, int B, int T, int H,
                                       int D) {
  i64 w = (i64)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x & 31;
  if (w >= (i64)B * H * T) return;
  int t = (int)(w % T);
  i64 bh = w / T;
  int h = (int)(bh % H), b = (int)(bh / H);
  i64 off = (((i64)b * T + t) * H + h) * D;
  float acc = 0;
  for (int d = lane; d < D; d += 32) acc += dout[off + d] * out[off + d];
  acc = warp_sum(acc);
  if (lane == 0) Di[w] = acc;
}

extern "C" __global__ void attn_bwd_dq_f32(float* dq, const float* Di, const float* dout, const float* lse,
                                           const float* q, const float* k, const float* v, const int* seg,
                                           const int* first, int B, int T, int H, int KV, int D,
                                           float scale) {
  i64 w = (i64)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x & 31;
  if (w >= (i64)B * H * T) return;
  int t = (int)(w % T);
  i64 bh = w / T;
  int h = (int)(bh % H), b = (int)(bh / H), kh = h / (H / KV);
  i64 nt = (i64)b * T + t;
  float qv[MAXE], dov[MAXE], acc[MAXE];
  #pragma unroll
  for (int e = 0; e < MAXE; e++) {
    int d = lane + 32 * e;
    qv[e] = d < D ? q[(nt * H + h) * D + d] : 0;
    dov[e] = d < D ? dout[(nt * H + h) * D + d] : 0;
    acc[e] = 0;
  }
  float L = lse[w], di = Di[w];
  int sg = seg[nt];
  for (int s = first[nt]; s <= t; s++) {
    i64 ns = (i64)b * T + s;
    if (seg[ns] != sg) continue;
    const float* kr = k + (ns * KV + kh) * D;
    const float* vr = v + (ns * KV + kh) * D;
    float dot = 0, dp = 0;
    #pragma unroll
    for (int e = 0; e < MAXE; e++) {
      int d = lane + 32 * e;
      if (d < D) {
        dot += qv[e] * kr[d];
        dp += dov[e] * vr[d];
      }
    }
    dot = warp_sum(dot);
    dp = warp_sum(dp);
    float p = fexp(dot * scale - L);
    float ds = p * (dp - di) * scale;
    #pragma unroll
    for (int e = 0; e < MAXE; e++) {
      int d = lane + 32 * e;
      if (d < D) acc[e] += ds * kr[d];
    }
  }
  #pragma unroll
  for (int e = 0; e < MAXE; e++) {
    int d = lane + 32 * e;
    if (d < D) dq[(nt * H + h) * D + d] += acc[e];
  }
}

// One warp per key row (b, kv head, s): it loops over the query heads that
// share the KV head and the queries that reach s, so no two warps write the
// same dk/dv row.
extern "C" __global__ void attn_bwd_dkdv_f32(float* dk, float* dv, const float* Di, const float* dout,
                                             const float* lse, const float* q, const float* k,
                                             const float* v, const int* seg, const int* last, int B, int T,
                                             int H, int KV, int D, float scale) {
  i64 w = (i64)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x & 31;
  if (w >= (i64)B * KV * T) return;
  int s = (int)(w % T);
  i64 bk = w / T;
  int kh = (int)(bk % KV), b = (int)(bk / KV), group = H / KV;
  i64 ns = (i64)b * T + s;
  float kv[MAXE], vv[MAXE], dka[MAXE], dva[MAXE];
  #pragma unroll
  for (int e = 0; e < MAXE; e++) {
    int d = lane + 32 * e;
    kv[e] = d < D ? k[(ns * KV + kh) * D + d] : 0;
    vv[e] = d < D ? v[(ns * KV + kh) * D + d] : 0;
    dka[e] = 0;
    dva[e] = 0;
  }
  int sg = seg[ns], end = last[ns];
  for (int h = kh * group; h < (kh + 1) * group; h++) {
    i64 bh = (i64)b * H + h;
    for (int t = s; t <= end; t++) {
      i64 nt = (i64)b * T + t;
      if (seg[nt] != sg) continue;
      const float* qr = q + (nt * H + h) * D;
      const float* dr = dout + (nt * H + h) * D;
      float dot = 0, dp = 0;
      #pragma unroll
      for (int e = 0; e < MAXE; e++) {
        int d = lane + 32 * e;
        if (d < D) {
          dot += qr[d] * kv[e];
          dp += dr[d] * vv[e];
        }
      }
      dot = warp_sum(dot);
      dp = warp_sum(dp);
      float p = fexp(dot * scale - lse[bh * T + t]);
      float ds = p * (dp - Di[bh * T + t]) * scale;
      #pragma unroll
      for (int e = 0; e < MAXE; e++) {
        int d = lane + 32 * e;
        if (d < D) {
          dva[e] += p * dr[d];
          dka[e] += ds * qr[d];
        }
      }
    }
  }
  #pragma unroll
  for (int e = 0; e < MAXE; e++) {
    int d = lane + 32 * e;
    if (d < D) {
      dk[(ns * KV + kh) * D + d] += dka[e];
      dv[(ns * KV + kh) * D + d] += dva[e];
    }
  }
}

#include "attention.cuh"
#include "paged.cuh"
