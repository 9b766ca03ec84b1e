// Inference kernels: the paged KV cache (scatter of new rows, gather of a
// step's rows, attention of query rows over their sequences' cached rows)
// and the reduction of logits rows to what sampling needs, so that a decode
// step moves no cache block and no logits row to the host.
//
// Cache layout (backend.PagedShape): row r of a layer's K (or V) cache holds
// the KV heads of one token, KV·D floats; position j of sequence i is row
// blockTable[i·maxBlocks + j/BS]·BS + j%BS.

DEV i64 cache_row(const int* bt, int j, int BS) { return (i64)bt[j / BS] * BS + j % BS; }

// dst[idx[n]] = src[n], rows of C floats.
extern "C" __global__ void scatter_rows(float* dst, const float* src, const int* idx, i64 N, int C) {
  GRID_STRIDE(i, N * C) {
    i64 n = i / C;
    dst[(i64)idx[n] * C + (i - n * C)] = src[i];
  }
}

// dst[n] = the cache row of (seq[n], pos[n]), rows of C floats: the step's
// own K or V rows back in step order, for the tensor-core prefill.
extern "C" __global__ void gather_paged_rows(float* dst, const float* cache, const int* blockTable, const int* seq,
                                             const int* pos, i64 N, int C, int BS, int maxBlocks) {
  GRID_STRIDE(i, N * C) {
    i64 n = i / C;
    i64 row = cache_row(blockTable + (i64)seq[n] * maxBlocks, pos[n], BS);
    dst[i] = cache[row * C + (i - n * C)];
  }
}

// ------------------------------------------------------------ paged attention
// One block per (query row, KV head, partition of P keys): the block serves
// the G = H/KV query heads that read its KV head (GQA), so each cached row
// is read once per group. Float32 arithmetic, in base 2 (scores are scaled
// by scale·log2 e). Three phases over the partition's keys: scores (a warp
// per key, lanes over the head dimension), a softmax per head (a warp per
// head), and P·V (a thread per head and dimension, coalesced over d).
// With one partition the block writes the output row; with several it
// writes its unnormalised output and (max, sum) for paged_attn_combine.
// rows lists the query rows to compute (all N when null).
// Dynamic shared memory: (G·D + G·P + 2·G) floats.
extern "C" __global__ LAUNCH_BOUNDS(512) void paged_attn(float* out, float* partML, float* partO, const float* q, const float* kc,
                                      const float* vc, const int* blockTable, const int* seq, const int* pos,
                                      const int* rows, int H, int KV, int D, int BS, int maxBlocks, int P,
                                      int nparts, float scale) {
  const int r = blockIdx.x, kh = blockIdx.y, part = blockIdx.z;
  const int n = rows ? rows[r] : r;
  const int ctx = pos[n] + 1, k0 = part * P;
  if (k0 >= ctx) return;
  const int len = ctx - k0 < P ? ctx - k0 : P;
  const int G = H / KV;
  float* qs = (float*)dyn_smem;
  float* ps = qs + G * D;
  float* ml = ps + G * P;
  const int* bt = blockTable + (i64)seq[n] * maxBlocks;
  const float sl2 = scale * LOG2E;
  const float* qrow = q + ((i64)n * H + kh * G) * D;
  for (int i = threadIdx.x; i < G * D; i += blockDim.x) qs[i] = qrow[i] * sl2;
  syncthreads();

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nw = blockDim.x >> 5;
  for (int j = warp; j < len; j += nw) {
    const float* kr = kc + (cache_row(bt, k0 + j, BS) * KV + kh) * D;
    float kv[MAXE];
#pragma unroll
    for (int e = 0; e < MAXE; e++) {
      int d = lane + 32 * e;
      kv[e] = d < D ? kr[d] : 0;
    }
    for (int g = 0; g < G; g++) {
      float dot = 0;
#pragma unroll
      for (int e = 0; e < MAXE; e++) {
        int d = lane + 32 * e;
        if (d < D) dot += qs[g * D + d] * kv[e];
      }
      dot = warp_sum(dot);
      if (lane == 0) ps[g * P + j] = dot;
    }
  }
  syncthreads();

  for (int g = warp; g < G; g += nw) {
    float* pg = ps + g * P;
    float m = -finf();
    for (int j = lane; j < len; j += 32) m = __builtin_fmaxf(m, pg[j]);
    m = warp_max(m);
    float l = 0;
    for (int j = lane; j < len; j += 32) {
      float p = fexp2(pg[j] - m);
      pg[j] = p;
      l += p;
    }
    l = warp_sum(l);
    if (lane == 0) {
      ml[2 * g] = m;
      ml[2 * g + 1] = l;
    }
  }
  syncthreads();

  for (int t = threadIdx.x; t < G * D; t += blockDim.x) {
    const int g = t / D, d = t % D, h = kh * G + g;
    const float* pg = ps + g * P;
    float acc = 0;
    for (int j = 0; j < len; j++) acc += pg[j] * vc[(cache_row(bt, k0 + j, BS) * KV + kh) * D + d];
    if (nparts == 1)
      out[((i64)n * H + h) * D + d] = acc / ml[2 * g + 1];
    else
      partO[(((i64)r * H + h) * nparts + part) * D + d] = acc;
  }
  if (nparts > 1 && threadIdx.x < G) {
    float* p = partML + (((i64)r * H + kh * G + threadIdx.x) * nparts + part) * 2;
    p[0] = ml[2 * threadIdx.x];
    p[1] = ml[2 * threadIdx.x + 1];
  }
}

// Merges the partitions of paged_attn: one block per (listed row, head).
extern "C" __global__ void paged_attn_combine(float* out, const float* partML, const float* partO, const int* pos,
                                              const int* rows, int H, int D, int P, int nparts) {
  const int r = blockIdx.x, h = blockIdx.y;
  const int n = rows ? rows[r] : r;
  const int np = (pos[n] + P) / P;  // partitions that hold keys: ceil((pos+1)/P)
  const float* ml = partML + ((i64)r * H + h) * nparts * 2;
  const float* po = partO + ((i64)r * H + h) * nparts * D;
  float M = -finf();
  for (int p = 0; p < np; p++) M = __builtin_fmaxf(M, ml[2 * p]);
  float L = 0;
  for (int p = 0; p < np; p++) L += ml[2 * p + 1] * fexp2(ml[2 * p] - M);
  for (int d = threadIdx.x; d < D; d += blockDim.x) {
    float acc = 0;
    for (int p = 0; p < np; p++) acc += po[(i64)p * D + d] * fexp2(ml[2 * p] - M);
    out[((i64)n * H + h) * D + d] = acc / L;
  }
}

// ------------------------------------------------------------------ sampling
// exp in float64 without libdevice: the sums of sampling are kept in
// float64, as in the reference (backend.SampleRows), so the device chooses
// the same token as the host for the same random draw.

// dexp(x) for x ≤ 0 (the only use): x = k·ln2 + r with |r| ≤ ln2/2, e^r by
// its Taylor series to r^13 (error below 1e-17), times 2^k.
DEV double dexp(double x) {
  if (!(x > -745.0)) return 0.0;  // also −inf and NaN
  double k = __builtin_rint(x * 1.4426950408889634);
  double r = __builtin_fma(-k, 6.93147180369123816490e-01, x);
  r = __builtin_fma(-k, 1.90821492927058770002e-10, r);
  double p = 1.0 / 6227020800.0;  // 1/13!
  const double inv[] = {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0,
                        1.0 / 5040.0,      1.0 / 720.0,      1.0 / 120.0,     1.0 / 24.0,     1.0 / 6.0,
                        0.5,               1.0,              1.0};
#pragma unroll
  for (int i = 0; i < 13; i++) p = __builtin_fma(p, r, inv[i]);
  int e = (int)k;
  if (e < -1022) {  // subnormal result: scale in two steps
    p *= __builtin_bit_cast(double, (long long)(e + 1022 + 1023) << 52);
    return p * __builtin_bit_cast(double, (long long)1 << 52);  // 2^-1022
  }
  return p * __builtin_bit_cast(double, (long long)(e + 1023) << 52);
}

DEV double shfl_up_d(double v, int d) {
  long long bits = __builtin_bit_cast(long long, v);
  int lo = __nvvm_shfl_sync_up_i32(FULL_MASK, (int)bits, d, 0);
  int hi = __nvvm_shfl_sync_up_i32(FULL_MASK, (int)(bits >> 32), d, 0);
  return __builtin_bit_cast(double, ((long long)hi << 32) | (unsigned int)lo);
}

// Exclusive prefix sum over the block, in thread order.
DEV double block_exclusive_scan_d(double v, double* sh) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  double inc = v;
  for (int o = 1; o < 32; o <<= 1) {
    double u = shfl_up_d(inc, o);
    if (lane >= o) inc += u;
  }
  syncthreads();
  if (lane == 31) sh[warp] = inc;
  syncthreads();
  if (warp == 0) {
    double t = lane < nw ? sh[lane] : 0.0, ti = t;
    for (int o = 1; o < 32; o <<= 1) {
      double u = shfl_up_d(ti, o);
      if (lane >= o) ti += u;
    }
    if (lane < nw) sh[lane] = ti - t;  // exclusive prefix of the warps' totals
  }
  syncthreads();
  return sh[warp] + inc - v;
}

// The better of two candidates: the larger value, the lower id on ties.
DEV void better(float& v, int& i, float v2, int i2) {
  if (v2 > v || (v2 == v && i2 < i)) {
    v = v2;
    i = i2;
  }
}

DEV void block_argmax(float& v, int& i, float* shv, int* shi) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  for (int o = 16; o > 0; o >>= 1)
    better(v, i, __nvvm_shfl_sync_bfly_f32(FULL_MASK, v, o, 31), __nvvm_shfl_sync_bfly_i32(FULL_MASK, i, o, 31));
  syncthreads();
  if (lane == 0) {
    shv[warp] = v;
    shi[warp] = i;
  }
  syncthreads();
  if (warp == 0) {
    v = lane < nw ? shv[lane] : -finf();
    i = lane < nw ? shi[lane] : 0x7fffffff;
    for (int o = 16; o > 0; o >>= 1)
      better(v, i, __nvvm_shfl_sync_bfly_f32(FULL_MASK, v, o, 31), __nvvm_shfl_sync_bfly_i32(FULL_MASK, i, o, 31));
    if (lane == 0) {
      shv[0] = v;
      shi[0] = i;
    }
  }
  syncthreads();
  v = shv[0];
  i = shi[0];
}

DEV int block_min_i(int v, int* sh) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  v = warp_min_i(v);
  syncthreads();
  if (lane == 0) sh[warp] = v;
  syncthreads();
  if (warp == 0) {
    v = lane < nw ? sh[lane] : 0x7fffffff;
    v = warp_min_i(v);
    if (lane == 0) sh[0] = v;
  }
  syncthreads();
  return sh[0];
}

// The layouts of backend.SampleParams and of the rows sample_rows writes
// (see cuda/sample.go, which mirrors them).
struct SampleParam {
  float invTemp;  // 0: greedy
  int topK;       // largest logits to list, ≤ maxK
  int walk;       // 1: draw by walking the distribution with u
  int logprobs;   // unused here: sum is always computed
  double u;       // uniform in [0, 1)
};
struct SampleOut {
  int id;
  float logit;  // the logit of id
  float max;    // the largest logit
  float pad;
  double sum;   // Σ exp(x − max)
  double sumT;  // Σ exp(x·invTemp − max·invTemp), when invTemp > 0
};

// One block per row of logits (V wide), computing what backend.SampleRows
// does, in its order of operations where it matters: argmax takes the lowest id among equal maxima; the
// draw subtracts exp(x·invTemp − max·invTemp) in id order from u·Σ and
// takes the first id where it reaches 0 (the last id if rounding leaves
// some over); top-K lists by value, lower id first on ties.
// x·inv rounded to float32 on its own: never fused into x·inv − m, so the
// difference is the reference's (-ffp-contract=fast fuses any a·b − c).
DEV float mul_rn(float a, float b) { return __nvvm_mul_rn_f(a, b); }

extern "C" __global__ LAUNCH_BOUNDS(1024) void sample_rows(SampleOut* out, int* topIds, float* topVals, const float* logits,
                                       const SampleParam* params, int V, int maxK) {
  __shared__ float shv[32];
  __shared__ int shi[32];
  __shared__ double shd[32];
  const i64 row = blockIdx.x;
  const float* x = logits + row * V;
  const SampleParam pr = params[row];
  const int tid = threadIdx.x, nt = blockDim.x;

  float bv = -finf();
  int bi = 0x7fffffff;
  for (int i = tid; i < V; i += nt) better(bv, bi, x[i], i);
  block_argmax(bv, bi, shv, shi);
  const float m = bv, inv = pr.invTemp, mT = mul_rn(m, inv);

  double s = 0, sT = 0;
  for (int i = tid; i < V; i += nt) {
    s += dexp((double)(x[i] - m));
    if (inv > 0) sT += dexp((double)(mul_rn(x[i], inv) - mT));
  }
  s = block_sum_d(s, shd);
  sT = block_sum_d(sT, shd);

  int id = bi;
  if (pr.walk) {
    const int chunk = (V + nt - 1) / nt, lo = tid * chunk, hi = lo + chunk < V ? lo + chunk : V;
    double local = 0;
    for (int i = lo; i < hi; i++) local += dexp((double)(mul_rn(x[i], inv) - mT));
    double u = pr.u * sT - block_exclusive_scan_d(local, shd);
    int hit = 0x7fffffff;
    for (int i = lo; i < hi; i++) {
      u -= dexp((double)(mul_rn(x[i], inv) - mT));
      if (u <= 0) {
        hit = i;
        break;
      }
    }
    id = block_min_i(hit, shi);
    if (id == 0x7fffffff) id = V - 1;
  }
  if (tid == 0) {
    SampleOut o;
    o.id = id;
    o.logit = x[id];
    o.max = m;
    o.pad = 0;
    o.sum = s;
    o.sumT = sT;
    out[row] = o;
  }

  // Top-K by repeated selection: each pass takes the best element that
  // comes after the previous pick in (value desc, id asc) order.
  float pv = finf();
  int pi = -1;
  for (int k = 0; k < pr.topK; k++) {
    float v = -finf();
    int i2 = 0x7fffffff;
    for (int i = tid; i < V; i += nt) {
      float xi = x[i];
      if (xi < pv || (xi == pv && i > pi)) better(v, i2, xi, i);
    }
    block_argmax(v, i2, shv, shi);
    if (tid == 0) {
      topIds[row * maxK + k] = i2;
      topVals[row * maxK + k] = v;
    }
    pv = v;
    pi = i2;
  }
}
