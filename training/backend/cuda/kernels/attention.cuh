// Tensor-core attention (FlashAttention-2 style): causal, segment-masked,
// grouped-query, for head dimensions 64 and 128. Q, K and V stay float32 in
// global memory; tiles are rounded to bf16 in shared memory and multiplied
// with mma.sync m16n8k16 into float32 accumulators. No T×T matrix exists:
// the forward keeps a running max and sum per row and writes the row's
// log-sum-exp, from which the backward recomputes the probabilities.
//
// Blocks are 128 threads (4 warps). Each warp owns 16 rows of its block's
// tile: query rows in the forward and dq kernels, key rows in the dk/dv
// kernel. Shared-memory rows are padded by 8 bf16 so the fragment loads of a
// warp hit 32 different banks.

#define ATT_THREADS 128
#define BR 64  // query rows per block (forward, dq)
#define BC 64  // key rows per tile (forward, dq) and per block (dk/dv)
#define BQ 32  // query rows per tile in the dk/dv kernel

// Loads rows [r0, r0+rows) of one head of a [B·T][heads][D] float32 tensor
// as bf16 into dst (rows × stride) and/or, transposed, into dstT
// (D × strideT); either may be null. Rows past T read as zero.
template <int D>
DEV void load_tile(u16* dst, int stride, u16* dstT, int strideT, const float* src, i64 rowBase, int r0,
                   int rows, int T, int heads, int head) {
  for (int idx = threadIdx.x; idx < rows * (D / 2); idx += ATT_THREADS) {
    int r = idx / (D / 2), c = (idx % (D / 2)) * 2;
    float x0 = 0, x1 = 0;
    if (r0 + r < T) {
      const float* p = src + ((rowBase + r0 + r) * heads + head) * D + c;
      x0 = p[0];
      x1 = p[1];
    }
    if (dst) *(u32*)&dst[r * stride + c] = pack2(x0, x1);
    if (dstT) {
      dstT[c * strideT + r] = to_bf16(x0);
      dstT[(c + 1) * strideT + r] = to_bf16(x1);
    }
  }
}

// A fragments of rows [row, row+16) and columns [16j, 16j+16) of a bf16 tile.
DEV void load_a(u32* a, const u16* tile, int stride, int row, int j) {
  int g = (threadIdx.x & 31) >> 2, c = threadIdx.x & 3;
  const u16* p0 = tile + (row + g) * stride + 16 * j + 2 * c;
  const u16* p1 = p0 + 8 * stride;
  a[0] = lds32(p0);
  a[1] = lds32(p1);
  a[2] = lds32(p0 + 8);
  a[3] = lds32(p1 + 8);
}

// B fragments for B[k][n] = tile[n][k] (tile row-major over n): n in
// [n0, n0+8), k in [16j, 16j+16).
DEV void load_b(u32* b, const u16* tile, int stride, int n0, int j) {
  int g = (threadIdx.x & 31) >> 2, c = threadIdx.x & 3;
  const u16* p = tile + (n0 + g) * stride + 16 * j + 2 * c;
  b[0] = lds32(p);
  b[1] = lds32(p + 8);
}

// The accumulators of two adjacent n-tiles (16×16) as the A fragments of the
// next product: the FlashAttention register reuse.
DEV void acc_to_a(u32* a, const float* lo, const float* hi) {
  a[0] = pack2(lo[0], lo[1]);
  a[1] = pack2(lo[2], lo[3]);
  a[2] = pack2(hi[0], hi[1]);
  a[3] = pack2(hi[2], hi[3]);
}

// Minimum of first[] over rows [r0, r0+n) (clipped to T), block-wide.
DEV int block_min_first(const int* first, i64 rowBase, int r0, int n, int T, int* sh) {
  int v = 0x7fffffff;
  for (int i = threadIdx.x; i < n; i += ATT_THREADS)
    if (r0 + i < T) v = __builtin_elementwise_min(v, first[rowBase + r0 + i]);
  v = warp_min_i(v);
  syncthreads();
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  syncthreads();
  int r = sh[0];
  for (int i = 1; i < ATT_THREADS / 32; i++) r = __builtin_elementwise_min(r, sh[i]);
  syncthreads();
  return r;
}

DEV int block_max_last(const int* last, i64 rowBase, int r0, int n, int T, int* sh) {
  int v = -1;
  for (int i = threadIdx.x; i < n; i += ATT_THREADS)
    if (r0 + i < T) v = __builtin_elementwise_max(v, last[rowBase + r0 + i]);
  v = warp_max_i(v);
  syncthreads();
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  syncthreads();
  int r = sh[0];
  for (int i = 1; i < ATT_THREADS / 32; i++) r = __builtin_elementwise_max(r, sh[i]);
  syncthreads();
  return r;
}

// ------------------------------------------------------------------ forward
// grid (ceil(T/BR), B·H); dynamic shared memory:
// (BC·(D+8) + D·(BC+8))·2 bytes + BC ints.
template <int D>
DEV void attn_fwd_mma(float* out, float* lse, const float* q, const float* k, const float* v,
                      const int* seg, const int* first, int T, int H, int KV, float scale) {
  constexpr int KS = D + 8, VS = BC + 8;
  u16* Ks = (u16*)dyn_smem;
  u16* Vt = Ks + BC * KS;
  int* segK = (int*)(Vt + D * VS);
  __shared__ int red[ATT_THREADS / 32];

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, c = lane & 3;
  const int bh = blockIdx.y, b = bh / H, h = bh % H, kh = h / (H / KV);
  const int t0 = blockIdx.x * BR;
  const i64 rowBase = (i64)b * T;
  const int r0 = t0 + warp * 16 + g, r1 = r0 + 8;

  u32 qa[D / 16][4];
  #pragma unroll
  for (int j = 0; j < D / 16; j++) {
    int cols[4] = {16 * j + 2 * c, 16 * j + 2 * c, 16 * j + 8 + 2 * c, 16 * j + 8 + 2 * c};
    int rows[4] = {r0, r1, r0, r1};
    #pragma unroll
    for (int x = 0; x < 4; x++) {
      float a0 = 0, a1 = 0;
      if (rows[x] < T) {
        const float* p = q + ((rowBase + rows[x]) * H + h) * D + cols[x];
        a0 = p[0];
        a1 = p[1];
      }
      qa[j][x] = pack2(a0, a1);
    }
  }
  const int seg0 = r0 < T ? seg[rowBase + r0] : -1, seg1 = r1 < T ? seg[rowBase + r1] : -1;

  float o[D / 8][4];
  #pragma unroll
  for (int i = 0; i < D / 8; i++) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0;
  float m0 = -finf(), m1 = -finf(), l0 = 0, l1 = 0;
  const float sl2 = scale * LOG2E;

  const int kStart = block_min_first(first, rowBase, t0, BR, T, red);
  const int kEnd = t0 + BR < T ? t0 + BR : T;
  for (int s0 = kStart; s0 < kEnd; s0 += BC) {
    syncthreads();
    load_tile<D>(Ks, KS, nullptr, 0, k, rowBase, s0, BC, T, KV, kh);
    load_tile<D>(nullptr, 0, Vt, VS, v, rowBase, s0, BC, T, KV, kh);
    for (int i = threadIdx.x; i < BC; i += ATT_THREADS) segK[i] = s0 + i < T ? seg[rowBase + s0 + i] : -2;
    syncthreads();

    float sc[BC / 8][4];
    #pragma unroll
    for (int i = 0; i < BC / 8; i++) sc[i][0] = sc[i][1] = sc[i][2] = sc[i][3] = 0;
    #pragma unroll
    for (int j = 0; j < D / 16; j++)
      #pragma unroll
      for (int nt = 0; nt < BC / 8; nt++) {
        u32 bb[2];
        load_b(bb, Ks, KS, nt * 8, j);
        mma_bf16(sc[nt], qa[j], bb[0], bb[1]);
      }

    float mx0 = -finf(), mx1 = -finf();
    #pragma unroll
    for (int nt = 0; nt < BC / 8; nt++)
      #pragma unroll
      for (int e = 0; e < 2; e++) {
        int kc = nt * 8 + 2 * c + e, s = s0 + kc;
        sc[nt][e] = (s <= r0 && segK[kc] == seg0) ? sc[nt][e] * sl2 : -finf();
        sc[nt][2 + e] = (s <= r1 && segK[kc] == seg1) ? sc[nt][2 + e] * sl2 : -finf();
        mx0 = __builtin_fmaxf(mx0, sc[nt][e]);
        mx1 = __builtin_fmaxf(mx1, sc[nt][2 + e]);
      }
    mx0 = quad_max(mx0);
    mx1 = quad_max(mx1);
    float mn0 = __builtin_fmaxf(m0, mx0), mn1 = __builtin_fmaxf(m1, mx1);
    // A row with no visible key yet keeps max −inf; subtracting 0 instead
    // keeps exp2(−inf − −inf) from turning into NaN.
    float mu0 = mn0 == -finf() ? 0.f : mn0, mu1 = mn1 == -finf() ? 0.f : mn1;
    float a0 = fexp2(m0 - mu0), a1 = fexp2(m1 - mu1);
    l0 *= a0;
    l1 *= a1;
    #pragma unroll
    for (int i = 0; i < D / 8; i++) {
      o[i][0] *= a0;
      o[i][1] *= a0;
      o[i][2] *= a1;
      o[i][3] *= a1;
    }
    #pragma unroll
    for (int nt = 0; nt < BC / 8; nt++) {
      sc[nt][0] = fexp2(sc[nt][0] - mu0);
      sc[nt][1] = fexp2(sc[nt][1] - mu0);
      sc[nt][2] = fexp2(sc[nt][2] - mu1);
      sc[nt][3] = fexp2(sc[nt][3] - mu1);
      l0 += sc[nt][0] + sc[nt][1];
      l1 += sc[nt][2] + sc[nt][3];
    }
    m0 = mn0;
    m1 = mn1;

    #pragma unroll
    for (int jj = 0; jj < BC / 16; jj++) {
      u32 pa[4];
      acc_to_a(pa, sc[2 * jj], sc[2 * jj + 1]);
      #pragma unroll
      for (int dn = 0; dn < D / 8; dn++) {
        u32 bb[2];
        load_b(bb, Vt, VS, dn * 8, jj);
        mma_bf16(o[dn], pa, bb[0], bb[1]);
      }
    }
  }

  l0 = quad_sum(l0);
  l1 = quad_sum(l1);
  #pragma unroll
  for (int dn = 0; dn < D / 8; dn++) {
    int col = dn * 8 + 2 * c;
    if (r0 < T) {
      float* p = out + ((rowBase + r0) * H + h) * D + col;
      p[0] = o[dn][0] / l0;
      p[1] = o[dn][1] / l0;
    }
    if (r1 < T) {
      float* p = out + ((rowBase + r1) * H + h) * D + col;
      p[0] = o[dn][2] / l1;
      p[1] = o[dn][3] / l1;
    }
  }
  if (c == 0) {
    if (r0 < T) lse[(i64)bh * T + r0] = (m0 + flog2(l0)) * LN2;
    if (r1 < T) lse[(i64)bh * T + r1] = (m1 + flog2(l1)) * LN2;
  }
}

// ---------------------------------------------------------------------- dq
// grid (ceil(T/BR), B·H); dynamic shared memory:
// (4·BR·(D+8) + D·(BC+8))·2 bytes + BC ints. Di comes from attn_bwd_di.
template <int D>
DEV void attn_bwd_dq_mma(float* dq, const float* Di, const float* dout, const float* lse, const float* q,
                         const float* k, const float* v, const int* seg, const int* first, int T, int H,
                         int KV, float scale) {
  constexpr int KS = D + 8, VS = BC + 8;
  u16* Qs = (u16*)dyn_smem;
  u16* dOs = Qs + BR * KS;
  u16* Ks = dOs + BR * KS;
  u16* Vs = Ks + BC * KS;
  u16* Kt = Vs + BC * KS;
  int* segK = (int*)(Kt + D * VS);
  __shared__ int red[ATT_THREADS / 32];

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, c = lane & 3;
  const int bh = blockIdx.y, b = bh / H, h = bh % H, kh = h / (H / KV);
  const int t0 = blockIdx.x * BR;
  const i64 rowBase = (i64)b * T;
  const int r0 = t0 + warp * 16 + g, r1 = r0 + 8;

  load_tile<D>(Qs, KS, nullptr, 0, q, rowBase, t0, BR, T, H, h);
  load_tile<D>(dOs, KS, nullptr, 0, dout, rowBase, t0, BR, T, H, h);
  const int seg0 = r0 < T ? seg[rowBase + r0] : -1, seg1 = r1 < T ? seg[rowBase + r1] : -1;
  const float L0 = r0 < T ? lse[(i64)bh * T + r0] * LOG2E : 0.f;
  const float L1 = r1 < T ? lse[(i64)bh * T + r1] * LOG2E : 0.f;
  const float D0 = r0 < T ? Di[(i64)bh * T + r0] : 0.f;
  const float D1 = r1 < T ? Di[(i64)bh * T + r1] : 0.f;
  const float sl2 = scale * LOG2E;

  float acc[D / 8][4];
  #pragma unroll
  for (int i = 0; i < D / 8; i++) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0;

  const int kStart = block_min_first(first, rowBase, t0, BR, T, red);
  const int kEnd = t0 + BR < T ? t0 + BR : T;
  for (int s0 = kStart; s0 < kEnd; s0 += BC) {
    syncthreads();
    load_tile<D>(Ks, KS, Kt, VS, k, rowBase, s0, BC, T, KV, kh);
    load_tile<D>(Vs, KS, nullptr, 0, v, rowBase, s0, BC, T, KV, kh);
    for (int i = threadIdx.x; i < BC; i += ATT_THREADS) segK[i] = s0 + i < T ? seg[rowBase + s0 + i] : -2;
    syncthreads();

    float sc[BC / 8][4], dp[BC / 8][4];
    #pragma unroll
    for (int i = 0; i < BC / 8; i++)
      #pragma unroll
      for (int e = 0; e < 4; e++) sc[i][e] = dp[i][e] = 0;
    #pragma unroll
    for (int j = 0; j < D / 16; j++) {
      u32 qa[4], da[4];
      load_a(qa, Qs, KS, warp * 16, j);
      load_a(da, dOs, KS, warp * 16, j);
      #pragma unroll
      for (int nt = 0; nt < BC / 8; nt++) {
        u32 bb[2];
        load_b(bb, Ks, KS, nt * 8, j);
        mma_bf16(sc[nt], qa, bb[0], bb[1]);
        load_b(bb, Vs, KS, nt * 8, j);
        mma_bf16(dp[nt], da, bb[0], bb[1]);
      }
    }
    // sc becomes dS = P·(dP − Di)·scale.
    #pragma unroll
    for (int nt = 0; nt < BC / 8; nt++)
      #pragma unroll
      for (int e = 0; e < 2; e++) {
        int kc = nt * 8 + 2 * c + e, s = s0 + kc;
        float p0 = (s <= r0 && segK[kc] == seg0) ? fexp2(sc[nt][e] * sl2 - L0) : 0.f;
        float p1 = (s <= r1 && segK[kc] == seg1) ? fexp2(sc[nt][2 + e] * sl2 - L1) : 0.f;
        sc[nt][e] = p0 * (dp[nt][e] - D0) * scale;
        sc[nt][2 + e] = p1 * (dp[nt][2 + e] - D1) * scale;
      }
    #pragma unroll
    for (int jj = 0; jj < BC / 16; jj++) {
      u32 sa[4];
      acc_to_a(sa, sc[2 * jj], sc[2 * jj + 1]);
      #pragma unroll
      for (int dn = 0; dn < D / 8; dn++) {
        u32 bb[2];
        load_b(bb, Kt, VS, dn * 8, jj);
        mma_bf16(acc[dn], sa, bb[0], bb[1]);
      }
    }
  }
  #pragma unroll
  for (int dn = 0; dn < D / 8; dn++) {
    int col = dn * 8 + 2 * c;
    if (r0 < T) {
      float* p = dq + ((rowBase + r0) * H + h) * D + col;
      p[0] += acc[dn][0];
      p[1] += acc[dn][1];
    }
    if (r1 < T) {
      float* p = dq + ((rowBase + r1) * H + h) * D + col;
      p[0] += acc[dn][2];
      p[1] += acc[dn][3];
    }
  }
}

// ------------------------------------------------------------------- dk, dv
// grid (ceil(T/BC), B·KV); dynamic shared memory:
// (2·BC·(D+8) + 2·BQ·(D+8) + 2·D·(BQ+8))·2 bytes + 3·BQ words. The block
// owns BC key rows of one KV head and loops over the query heads that share
// it and the query tiles that can reach its keys.
template <int D>
DEV void attn_bwd_dkdv_mma(float* dk, float* dv, const float* Di, const float* dout, const float* lse,
                           const float* q, const float* k, const float* v, const int* seg, const int* last,
                           int T, int H, int KV, float scale) {
  constexpr int KS = D + 8, QS = BQ + 8;
  u16* Ks = (u16*)dyn_smem;
  u16* Vs = Ks + BC * KS;
  u16* Qs = Vs + BC * KS;
  u16* dOs = Qs + BQ * KS;
  u16* Qt = dOs + BQ * KS;
  u16* dOt = Qt + D * QS;
  float* lseQ = (float*)(dOt + D * QS);
  float* DiQ = lseQ + BQ;
  int* segQ = (int*)(DiQ + BQ);
  __shared__ int red[ATT_THREADS / 32];

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, c = lane & 3;
  const int bk = blockIdx.y, b = bk / KV, kh = bk % KV, group = H / KV;
  const int s0 = blockIdx.x * BC;
  const i64 rowBase = (i64)b * T;
  const int k0 = s0 + warp * 16 + g, k1 = k0 + 8;  // this lane's key rows

  load_tile<D>(Ks, KS, nullptr, 0, k, rowBase, s0, BC, T, KV, kh);
  load_tile<D>(Vs, KS, nullptr, 0, v, rowBase, s0, BC, T, KV, kh);
  const int segA = k0 < T ? seg[rowBase + k0] : -3, segB = k1 < T ? seg[rowBase + k1] : -3;
  const float sl2 = scale * LOG2E;
  const int qEnd = block_max_last(last, rowBase, s0, BC, T, red) + 1;

  float dka[D / 8][4], dva[D / 8][4];
  #pragma unroll
  for (int i = 0; i < D / 8; i++)
    #pragma unroll
    for (int e = 0; e < 4; e++) dka[i][e] = dva[i][e] = 0;

  for (int hh = 0; hh < group; hh++) {
    const int h = kh * group + hh;
    const i64 bh = (i64)b * H + h;
    for (int q0 = s0; q0 < qEnd; q0 += BQ) {
      syncthreads();
      load_tile<D>(Qs, KS, Qt, QS, q, rowBase, q0, BQ, T, H, h);
      load_tile<D>(dOs, KS, dOt, QS, dout, rowBase, q0, BQ, T, H, h);
      for (int i = threadIdx.x; i < BQ; i += ATT_THREADS) {
        int t = q0 + i;
        bool in = t < T;
        lseQ[i] = in ? lse[bh * T + t] * LOG2E : 0.f;
        DiQ[i] = in ? Di[bh * T + t] : 0.f;
        segQ[i] = in ? seg[rowBase + t] : -4;
      }
      syncthreads();

      // Transposed scores: st[key][query] = K·Qᵀ, dpt = V·dOᵀ.
      float st[BQ / 8][4], dpt[BQ / 8][4];
      #pragma unroll
      for (int i = 0; i < BQ / 8; i++)
        #pragma unroll
        for (int e = 0; e < 4; e++) st[i][e] = dpt[i][e] = 0;
      #pragma unroll
      for (int j = 0; j < D / 16; j++) {
        u32 ka[4], va[4];
        load_a(ka, Ks, KS, warp * 16, j);
        load_a(va, Vs, KS, warp * 16, j);
        #pragma unroll
        for (int nt = 0; nt < BQ / 8; nt++) {
          u32 bb[2];
          load_b(bb, Qs, KS, nt * 8, j);
          mma_bf16(st[nt], ka, bb[0], bb[1]);
          load_b(bb, dOs, KS, nt * 8, j);
          mma_bf16(dpt[nt], va, bb[0], bb[1]);
        }
      }
      // st becomes Pᵀ, dpt becomes dSᵀ.
      #pragma unroll
      for (int nt = 0; nt < BQ / 8; nt++)
        #pragma unroll
        for (int e = 0; e < 2; e++) {
          int qc = nt * 8 + 2 * c + e, t = q0 + qc;
          float pA = (t >= k0 && segQ[qc] == segA) ? fexp2(st[nt][e] * sl2 - lseQ[qc]) : 0.f;
          float pB = (t >= k1 && segQ[qc] == segB) ? fexp2(st[nt][2 + e] * sl2 - lseQ[qc]) : 0.f;
          st[nt][e] = pA;
          st[nt][2 + e] = pB;
          dpt[nt][e] = pA * (dpt[nt][e] - DiQ[qc]) * scale;
          dpt[nt][2 + e] = pB * (dpt[nt][2 + e] - DiQ[qc]) * scale;
        }
      #pragma unroll
      for (int jj = 0; jj < BQ / 16; jj++) {
        u32 pa[4], sa[4];
        acc_to_a(pa, st[2 * jj], st[2 * jj + 1]);
        acc_to_a(sa, dpt[2 * jj], dpt[2 * jj + 1]);
        #pragma unroll
        for (int dn = 0; dn < D / 8; dn++) {
          u32 bb[2];
          load_b(bb, dOt, QS, dn * 8, jj);
          mma_bf16(dva[dn], pa, bb[0], bb[1]);
          load_b(bb, Qt, QS, dn * 8, jj);
          mma_bf16(dka[dn], sa, bb[0], bb[1]);
        }
      }
    }
  }
  #pragma unroll
  for (int dn = 0; dn < D / 8; dn++) {
    int col = dn * 8 + 2 * c;
    if (k0 < T) {
      i64 off = ((rowBase + k0) * KV + kh) * D + col;
      dk[off] += dka[dn][0];
      dk[off + 1] += dka[dn][1];
      dv[off] += dva[dn][0];
      dv[off + 1] += dva[dn][1];
    }
    if (k1 < T) {
      i64 off = ((rowBase + k1) * KV + kh) * D + col;
      dk[off] += dka[dn][2];
      dk[off + 1] += dka[dn][3];
      dv[off] += dva[dn][2];
      dv[off + 1] += dva[dn][3];
    }
  }
}

#define ATT_KERNELS(D)                                                                                      \
  extern "C" __global__ void attn_fwd_mma_d##D(float* out, float* lse, const float* q, const float* k,     \
                                               const float* v, const int* seg, const int* first, int T,     \
                                               int H, int KV, float scale) {                                \
    attn_fwd_mma<D>(out, lse, q, k, v, seg, first, T, H, KV, scale);                                        \
  }                                                                                                         \
  extern "C" __global__ void attn_bwd_dq_mma_d##D(float* dq, const float* Di, const float* dout,            \
                                                  const float* lse, const float* q, const float* k,         \
                                                  const float* v, const int* seg, const int* first, int T,  \
                                                  int H, int KV, float scale) {                             \
    attn_bwd_dq_mma<D>(dq, Di, dout, lse, q, k, v, seg, first, T, H, KV, scale);                            \
  }                                                                                                         \
  extern "C" __global__ void attn_bwd_dkdv_mma_d##D(float* dk, float* dv, const float* Di, const float* dout, \
                                                    const float* lse, const float* q, const float* k,       \
                                                    const float* v, const int* seg, const int* last, int T, \
                                                    int H, int KV, float scale) {                           \
    attn_bwd_dkdv_mma<D>(dk, dv, Di, dout, lse, q, k, v, seg, last, T, H, KV, scale);                       \
  }

ATT_KERNELS(64)
ATT_KERNELS(128)
