// Tensor-core attention (FlashAttention-2 style): causal, segment-masked,
// grouped-query, for head dimensions 64 and 128. The Go side first rounds
// Q, K, V (and dO) to bf16 copies; tiles move from global to shared memory
// with cp.async, two stages deep, and into mma.sync m16n8k16 fragments with
// ldmatrix (ldmatrix.trans where the product needs the transposed tile), so
// nothing is transposed by hand. Accumulation is float32. No T×T matrix
// exists: the forward keeps a running max and sum per row and writes the
// row's log-sum-exp, from which the backward recomputes the probabilities.
//
// Each warp owns 16 rows of its block's tile: query rows in the forward and
// dq kernels, key rows in the dk/dv kernel. Shared-memory rows are padded by
// 8 bf16 (16 bytes) so that the eight row addresses of each ldmatrix phase
// fall in different banks.

#define BC 64  // key rows per tile (forward, dq) and per block (dk/dv)
#define BQ 32  // query rows per tile in the dk/dv kernel (32 keeps its accumulators in registers)

#ifdef RLM_EMU
DEV void cp_async16(void* dst, const void* src, int bytes) {
  for (int i = 0; i < 16; i++) ((char*)dst)[i] = i < bytes ? ((const char*)src)[i] : 0;
}
DEV void cp_async_commit() {}
template <int N>
DEV void cp_async_wait() {}
DEV void ldsm_x4(u32* r, const u16* p) { emu_ldmatrix_x4(r, p, 0); }
DEV void ldsm_x4_t(u32* r, const u16* p) { emu_ldmatrix_x4(r, p, 1); }
#else
DEV u32 smem_addr(const void* p) {
  u32 a;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}

// 16 bytes global → shared without passing through registers; bytes 0
// fills the destination with zeros (rows past the end).
DEV void cp_async16(void* dst, const void* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr(dst)), "l"(src), "r"(bytes));
}
DEV void cp_async_commit() { asm volatile("cp.async.commit_group;"); }
template <int N>
DEV void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N));
}

DEV void ldsm_x4(u32* r, const u16* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}
DEV void ldsm_x4_t(u32* r, const u16* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}
#endif

// A fragments (16×16) of rows [row, row+16), columns [col, col+16) of a
// row-major bf16 tile: lane i addresses row (i%8) + 8·((i/8)%2) at column
// 8·(i/16), so the four 8×8 matrices come back as a[0..3].
DEV void frag_a(u32* a, const u16* tile, int stride, int row, int col) {
  int l = threadIdx.x & 31;
  ldsm_x4(a, tile + (row + (l & 7) + ((l >> 3) & 1) * 8) * stride + col + (l >> 4) * 8);
}

// B fragments of two adjacent n-tiles for B[k][n] = tile[n][k] (the tile is
// row-major over n, k contiguous): n in [n0, n0+16), k in [k0, k0+16).
// b[0..1] serve n-tile n0, b[2..3] n-tile n0+8.
DEV void frag_b(u32* b, const u16* tile, int stride, int n0, int k0) {
  int l = threadIdx.x & 31;
  ldsm_x4(b, tile + (n0 + (l & 7) + (l >> 4) * 8) * stride + k0 + ((l >> 3) & 1) * 8);
}

// B fragments of two adjacent n-tiles for B[k][n] = tile[k][n] (row-major
// over k): k in [k0, k0+16), n in [n0, n0+16), through ldmatrix.trans.
DEV void frag_bt(u32* b, const u16* tile, int stride, int k0, int n0) {
  int l = threadIdx.x & 31;
  ldsm_x4_t(b, tile + (k0 + (l & 7) + ((l >> 3) & 1) * 8) * stride + n0 + (l >> 4) * 8);
}

// A fragments (16×16) of A[m][k] = tile[k][m] (the tile is row-major over
// k): m in [m0, m0+16), k in [k0, k0+16), through ldmatrix.trans. Lane i
// addresses row k0 + (i%8) + 8·(i/16) at column m0 + 8·((i/8)%2), so the
// four transposed 8×8 matrices are a[0..3] of frag_a's layout.
DEV void frag_at(u32* a, const u16* tile, int stride, int k0, int m0) {
  int l = threadIdx.x & 31;
  ldsm_x4_t(a, tile + (k0 + (l & 7) + ((l >> 4) & 1) * 8) * stride + m0 + ((l >> 3) & 1) * 8);
}

// The accumulators of two adjacent n-tiles (16×16) as the A fragments of
// the next product: the FlashAttention register reuse.
DEV void acc_to_a(u32* a, const float* lo, const float* hi) {
  a[0] = pack2(lo[0], lo[1]);
  a[1] = pack2(lo[2], lo[3]);
  a[2] = pack2(hi[0], hi[1]);
  a[3] = pack2(hi[2], hi[3]);
}

// Copies rows [r0, r0+rows) of one head of a [B·T][heads][D] bf16 tensor
// into a shared tile with row stride D+8; rows past T become zeros.
template <int D, int NT>
DEV void copy_tile(u16* dst, const u16* src, i64 rowBase, int r0, int rows, int T, int heads, int head) {
  constexpr int CH = D / 8;  // 16-byte chunks per row
  for (int idx = threadIdx.x; idx < rows * CH; idx += NT) {
    int r = idx / CH, ch = idx % CH;
    bool in = r0 + r < T;
    const u16* p = in ? src + ((rowBase + r0 + r) * heads + head) * D + ch * 8 : src;
    cp_async16(dst + r * (D + 8) + ch * 8, p, in ? 16 : 0);
  }
}

// Minimum of first[] (maximum of last[]) over rows [r0, r0+n), block-wide.
template <int NW>
DEV int block_min_first(const int* first, i64 rowBase, int r0, int n, int T, int* sh) {
  int v = 0x7fffffff;
  for (int i = threadIdx.x; i < n; i += NW * 32)
    if (r0 + i < T) v = __builtin_elementwise_min(v, first[rowBase + r0 + i]);
  v = warp_min_i(v);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  syncthreads();
  int r = sh[0];
#pragma unroll
  for (int i = 1; i < NW; i++) r = __builtin_elementwise_min(r, sh[i]);
  syncthreads();
  return r;
}

template <int NW>
DEV int block_max_last(const int* last, i64 rowBase, int r0, int n, int T, int* sh) {
  int v = -1;
  for (int i = threadIdx.x; i < n; i += NW * 32)
    if (r0 + i < T) v = __builtin_elementwise_max(v, last[rowBase + r0 + i]);
  v = warp_max_i(v);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  syncthreads();
  int r = sh[0];
#pragma unroll
  for (int i = 1; i < NW; i++) r = __builtin_elementwise_max(r, sh[i]);
  syncthreads();
  return r;
}

// ------------------------------------------------------------------ forward
// 8 warps, 128 query rows per block; grid (ceil(T/128), B·H), the longest
// (latest) tiles first. Dynamic shared memory: (128 + 4·BC)·(D+8)·2 bytes
// + 2·BC ints.
#define FWD_WARPS 8
template <int D>
DEV void attn_fwd_mma(float* out, float* lse, const u16* q, const u16* k, const u16* v, const int* seg,
                      const int* first, int T, int H, int KV, float scale) {
  constexpr int S = D + 8, NT = FWD_WARPS * 32, BR = FWD_WARPS * 16;
  u16* Qs = (u16*)dyn_smem;
  u16* Kst = Qs + BR * S;
  u16* Vst = Kst + 2 * BC * S;
  int* segK = (int*)(Vst + 2 * BC * S);
  __shared__ int red[FWD_WARPS];

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, c = lane & 3;
  const int bh = blockIdx.y, b = bh / H, h = bh % H, kh = h / (H / KV);
  const int t0 = (gridDim.x - 1 - blockIdx.x) * BR;
  const i64 rowBase = (i64)b * T;
  const int r0 = t0 + warp * 16 + g, r1 = r0 + 8;

  copy_tile<D, NT>(Qs, q, rowBase, t0, BR, T, H, h);
  cp_async_commit();
  const int kStart = block_min_first<FWD_WARPS>(first, rowBase, t0, BR, T, red);
  const int kEnd = t0 + BR < T ? t0 + BR : T;
  const int ntiles = (kEnd - kStart + BC - 1) / BC;
  auto load_kv = [&](int stage, int s0) {
    copy_tile<D, NT>(Kst + stage * BC * S, k, rowBase, s0, BC, T, KV, kh);
    copy_tile<D, NT>(Vst + stage * BC * S, v, rowBase, s0, BC, T, KV, kh);
    for (int i = threadIdx.x; i < BC; i += NT) segK[stage * BC + i] = s0 + i < T ? seg[rowBase + s0 + i] : -2;
  };
  load_kv(0, kStart);
  cp_async_commit();

  const int seg0 = r0 < T ? seg[rowBase + r0] : -1, seg1 = r1 < T ? seg[rowBase + r1] : -1;
  cp_async_wait<1>();
  syncthreads();
  u32 qa[D / 16][4];
#pragma unroll
  for (int j = 0; j < D / 16; j++) frag_a(qa[j], Qs, S, warp * 16, 16 * j);

  float o[D / 8][4];
#pragma unroll
  for (int i = 0; i < D / 8; i++) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0;
  float m0 = -finf(), m1 = -finf(), l0 = 0, l1 = 0;
  const float sl2 = scale * LOG2E;

  for (int it = 0; it < ntiles; it++) {
    const int s0 = kStart + it * BC, st = it & 1;
    if (it + 1 < ntiles) {
      load_kv(st ^ 1, s0 + BC);
      cp_async_commit();
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    syncthreads();
    const u16* Ks = Kst + st * BC * S;
    const u16* Vs = Vst + st * BC * S;
    const int* sk = segK + st * BC;

    float sc[BC / 8][4];
#pragma unroll
    for (int i = 0; i < BC / 8; i++) sc[i][0] = sc[i][1] = sc[i][2] = sc[i][3] = 0;
#pragma unroll
    for (int j = 0; j < D / 16; j++)
#pragma unroll
      for (int np = 0; np < BC / 16; np++) {
        u32 bb[4];
        frag_b(bb, Ks, S, np * 16, 16 * j);
        mma_bf16(sc[2 * np], qa[j], bb[0], bb[1]);
        mma_bf16(sc[2 * np + 1], qa[j], bb[2], bb[3]);
      }

    float mx0 = -finf(), mx1 = -finf();
#pragma unroll
    for (int nt = 0; nt < BC / 8; nt++)
#pragma unroll
      for (int e = 0; e < 2; e++) {
        int kc = nt * 8 + 2 * c + e, s = s0 + kc;
        sc[nt][e] = (s <= r0 && sk[kc] == seg0) ? sc[nt][e] * sl2 : -finf();
        sc[nt][2 + e] = (s <= r1 && sk[kc] == seg1) ? sc[nt][2 + e] * sl2 : -finf();
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
      for (int dp = 0; dp < D / 16; dp++) {
        u32 bb[4];
        frag_bt(bb, Vs, S, 16 * jj, 16 * dp);
        mma_bf16(o[2 * dp], pa, bb[0], bb[1]);
        mma_bf16(o[2 * dp + 1], pa, bb[2], bb[3]);
      }
    }
    syncthreads();  // the next iteration's prefetch overwrites this stage
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
// 4 warps, 64 query rows per block; grid (ceil(T/64), B·H). Dynamic shared
// memory: (2·64 + 4·BC)·(D+8)·2 bytes + 2·BC ints. Di comes from
// attn_bwd_di.
#define BWD_WARPS 4
template <int D>
DEV void attn_bwd_dq_mma(float* dq, const float* Di, const u16* dout, const float* lse, const u16* q,
                         const u16* k, const u16* v, const int* seg, const int* first, int T, int H, int KV,
                         float scale) {
  constexpr int S = D + 8, NT = BWD_WARPS * 32, BR = BWD_WARPS * 16;
  u16* Qs = (u16*)dyn_smem;
  u16* dOs = Qs + BR * S;
  u16* Kst = dOs + BR * S;
  u16* Vst = Kst + 2 * BC * S;
  int* segK = (int*)(Vst + 2 * BC * S);
  __shared__ int red[BWD_WARPS];

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, c = lane & 3;
  const int bh = blockIdx.y, b = bh / H, h = bh % H, kh = h / (H / KV);
  const int t0 = (gridDim.x - 1 - blockIdx.x) * BR;
  const i64 rowBase = (i64)b * T;
  const int r0 = t0 + warp * 16 + g, r1 = r0 + 8;

  copy_tile<D, NT>(Qs, q, rowBase, t0, BR, T, H, h);
  copy_tile<D, NT>(dOs, dout, rowBase, t0, BR, T, H, h);
  cp_async_commit();
  const int kStart = block_min_first<BWD_WARPS>(first, rowBase, t0, BR, T, red);
  const int kEnd = t0 + BR < T ? t0 + BR : T;
  const int ntiles = (kEnd - kStart + BC - 1) / BC;
  auto load_kv = [&](int stage, int s0) {
    copy_tile<D, NT>(Kst + stage * BC * S, k, rowBase, s0, BC, T, KV, kh);
    copy_tile<D, NT>(Vst + stage * BC * S, v, rowBase, s0, BC, T, KV, kh);
    for (int i = threadIdx.x; i < BC; i += NT) segK[stage * BC + i] = s0 + i < T ? seg[rowBase + s0 + i] : -2;
  };
  load_kv(0, kStart);
  cp_async_commit();

  const int seg0 = r0 < T ? seg[rowBase + r0] : -1, seg1 = r1 < T ? seg[rowBase + r1] : -1;
  const float L0 = r0 < T ? lse[(i64)bh * T + r0] * LOG2E : 0.f;
  const float L1 = r1 < T ? lse[(i64)bh * T + r1] * LOG2E : 0.f;
  const float D0 = r0 < T ? Di[(i64)bh * T + r0] : 0.f;
  const float D1 = r1 < T ? Di[(i64)bh * T + r1] : 0.f;
  const float sl2 = scale * LOG2E;

  float acc[D / 8][4];
#pragma unroll
  for (int i = 0; i < D / 8; i++) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0;

  for (int it = 0; it < ntiles; it++) {
    const int s0 = kStart + it * BC, st = it & 1;
    if (it + 1 < ntiles) {
      load_kv(st ^ 1, s0 + BC);
      cp_async_commit();
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    syncthreads();
    const u16* Ks = Kst + st * BC * S;
    const u16* Vs = Vst + st * BC * S;
    const int* sk = segK + st * BC;

    float sc[BC / 8][4], dp[BC / 8][4];
#pragma unroll
    for (int i = 0; i < BC / 8; i++)
#pragma unroll
      for (int e = 0; e < 4; e++) sc[i][e] = dp[i][e] = 0;
#pragma unroll
    for (int j = 0; j < D / 16; j++) {
      u32 qa[4], da[4];
      frag_a(qa, Qs, S, warp * 16, 16 * j);
      frag_a(da, dOs, S, warp * 16, 16 * j);
#pragma unroll
      for (int np = 0; np < BC / 16; np++) {
        u32 bb[4];
        frag_b(bb, Ks, S, np * 16, 16 * j);
        mma_bf16(sc[2 * np], qa, bb[0], bb[1]);
        mma_bf16(sc[2 * np + 1], qa, bb[2], bb[3]);
        frag_b(bb, Vs, S, np * 16, 16 * j);
        mma_bf16(dp[2 * np], da, bb[0], bb[1]);
        mma_bf16(dp[2 * np + 1], da, bb[2], bb[3]);
      }
    }
    // sc becomes dS = P·(dP − Di)·scale.
#pragma unroll
    for (int nt = 0; nt < BC / 8; nt++)
#pragma unroll
      for (int e = 0; e < 2; e++) {
        int kc = nt * 8 + 2 * c + e, s = s0 + kc;
        float p0 = (s <= r0 && sk[kc] == seg0) ? fexp2(sc[nt][e] * sl2 - L0) : 0.f;
        float p1 = (s <= r1 && sk[kc] == seg1) ? fexp2(sc[nt][2 + e] * sl2 - L1) : 0.f;
        sc[nt][e] = p0 * (dp[nt][e] - D0) * scale;
        sc[nt][2 + e] = p1 * (dp[nt][2 + e] - D1) * scale;
      }
    // dQ += dS·K, K read transposed.
#pragma unroll
    for (int jj = 0; jj < BC / 16; jj++) {
      u32 sa[4];
      acc_to_a(sa, sc[2 * jj], sc[2 * jj + 1]);
#pragma unroll
      for (int dn = 0; dn < D / 16; dn++) {
        u32 bb[4];
        frag_bt(bb, Ks, S, 16 * jj, 16 * dn);
        mma_bf16(acc[2 * dn], sa, bb[0], bb[1]);
        mma_bf16(acc[2 * dn + 1], sa, bb[2], bb[3]);
      }
    }
    syncthreads();
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
// 4 warps, BC key rows of one KV head per block; grid (ceil(T/BC), B·KV),
// the longest (earliest) tiles first. The block loops over the query heads
// that share its KV head and the query tiles that reach its keys. Dynamic
// shared memory: (2·BC + 4·BQ)·(D+8)·2 bytes + 2·3·BQ words.
//
// With DQ it is the whole backward in one kernel, as FlashAttention-2
// does it: each query tile's dS also gives that tile's share of
// dQ = dS·K, which the block adds into dq (float32) atomically, so the
// scores are computed once instead of once more by the dq kernel (5
// products per tile instead of 7). dSᵀ goes through shared memory
// (BC·(BQ+8)·2 bytes more) to be read back transposed; each warp computes
// D/4 columns of the tile's dQ. The atomic adds make dq's last bits depend
// on the order the blocks finish in.
#define SQ (BQ + 8)  // row stride of the dSᵀ tile
template <int D, bool DQ>
DEV void attn_bwd_dkdv_mma(float* dk, float* dv, float* dqOut, const float* Di, const u16* dout,
                           const float* lse, const u16* q, const u16* k, const u16* v, const int* seg,
                           const int* last, int T, int H, int KV, float scale) {
  constexpr int S = D + 8, NT = BWD_WARPS * 32;
  u16* Ks = (u16*)dyn_smem;
  u16* Vs = Ks + BC * S;
  u16* Qst = Vs + BC * S;
  u16* dOst = Qst + 2 * BQ * S;
  float* lseQ = (float*)(dOst + 2 * BQ * S);
  float* DiQ = lseQ + 2 * BQ;
  int* segQ = (int*)(DiQ + 2 * BQ);
  u16* dSs = (u16*)(segQ + 2 * BQ);  // DQ only: BC rows of BQ (+8) bf16
  __shared__ int red[BWD_WARPS];

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, c = lane & 3;
  const int bk = blockIdx.y, b = bk / KV, kh = bk % KV, group = H / KV;
  const int s0 = blockIdx.x * BC;
  const i64 rowBase = (i64)b * T;
  const int k0 = s0 + warp * 16 + g, k1 = k0 + 8;  // this lane's key rows

  copy_tile<D, NT>(Ks, k, rowBase, s0, BC, T, KV, kh);
  copy_tile<D, NT>(Vs, v, rowBase, s0, BC, T, KV, kh);
  cp_async_commit();
  const int segA = k0 < T ? seg[rowBase + k0] : -3, segB = k1 < T ? seg[rowBase + k1] : -3;
  const float sl2 = scale * LOG2E;
  const int qEnd = block_max_last<BWD_WARPS>(last, rowBase, s0, BC, T, red) + 1;
  const int qtiles = (qEnd - s0 + BQ - 1) / BQ;
  const int ntiles = group * qtiles;  // (head, query tile) pairs
  auto load_q = [&](int stage, int tile) {
    int h = kh * group + tile / qtiles, q0 = s0 + (tile % qtiles) * BQ;
    i64 bh = (i64)b * H + h;
    copy_tile<D, NT>(Qst + stage * BQ * S, q, rowBase, q0, BQ, T, H, h);
    copy_tile<D, NT>(dOst + stage * BQ * S, dout, rowBase, q0, BQ, T, H, h);
    for (int i = threadIdx.x; i < BQ; i += NT) {
      int t = q0 + i;
      bool in = t < T;
      lseQ[stage * BQ + i] = in ? lse[bh * T + t] * LOG2E : 0.f;
      DiQ[stage * BQ + i] = in ? Di[bh * T + t] : 0.f;
      segQ[stage * BQ + i] = in ? seg[rowBase + t] : -4;
    }
  };
  load_q(0, 0);
  cp_async_commit();

  float dka[D / 8][4], dva[D / 8][4];
#pragma unroll
  for (int i = 0; i < D / 8; i++)
#pragma unroll
    for (int e = 0; e < 4; e++) dka[i][e] = dva[i][e] = 0;

  for (int it = 0; it < ntiles; it++) {
    const int st = it & 1, q0 = s0 + (it % qtiles) * BQ;
    if (it + 1 < ntiles) {
      load_q(st ^ 1, it + 1);
      cp_async_commit();
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    syncthreads();
    const u16* Qs = Qst + st * BQ * S;
    const u16* dOs = dOst + st * BQ * S;
    const float* lq = lseQ + st * BQ;
    const float* dq = DiQ + st * BQ;
    const int* sq = segQ + st * BQ;

    // Transposed scores: st[key][query] = K·Qᵀ, dpt = V·dOᵀ.
    float sct[BQ / 8][4], dpt[BQ / 8][4];
#pragma unroll
    for (int i = 0; i < BQ / 8; i++)
#pragma unroll
      for (int e = 0; e < 4; e++) sct[i][e] = dpt[i][e] = 0;
#pragma unroll
    for (int j = 0; j < D / 16; j++) {
      u32 ka[4], va[4];
      frag_a(ka, Ks, S, warp * 16, 16 * j);
      frag_a(va, Vs, S, warp * 16, 16 * j);
#pragma unroll
      for (int np = 0; np < BQ / 16; np++) {
        u32 bb[4];
        frag_b(bb, Qs, S, np * 16, 16 * j);
        mma_bf16(sct[2 * np], ka, bb[0], bb[1]);
        mma_bf16(sct[2 * np + 1], ka, bb[2], bb[3]);
        frag_b(bb, dOs, S, np * 16, 16 * j);
        mma_bf16(dpt[2 * np], va, bb[0], bb[1]);
        mma_bf16(dpt[2 * np + 1], va, bb[2], bb[3]);
      }
    }
    // sct becomes Pᵀ, dpt becomes dSᵀ.
#pragma unroll
    for (int nt = 0; nt < BQ / 8; nt++)
#pragma unroll
      for (int e = 0; e < 2; e++) {
        int qc = nt * 8 + 2 * c + e, t = q0 + qc;
        float pA = (t >= k0 && sq[qc] == segA) ? fexp2(sct[nt][e] * sl2 - lq[qc]) : 0.f;
        float pB = (t >= k1 && sq[qc] == segB) ? fexp2(sct[nt][2 + e] * sl2 - lq[qc]) : 0.f;
        sct[nt][e] = pA;
        sct[nt][2 + e] = pB;
        dpt[nt][e] = pA * (dpt[nt][e] - dq[qc]) * scale;
        dpt[nt][2 + e] = pB * (dpt[nt][2 + e] - dq[qc]) * scale;
      }
    if constexpr (DQ) {
      // dSᵀ to shared memory, for dQ once dV and dK are done (their
      // accumulators are all that is live by then).
      const int kr = warp * 16 + g;
#pragma unroll
      for (int nt = 0; nt < BQ / 8; nt++) {
        *(u32*)(dSs + kr * SQ + nt * 8 + 2 * c) = pack2(dpt[nt][0], dpt[nt][1]);
        *(u32*)(dSs + (kr + 8) * SQ + nt * 8 + 2 * c) = pack2(dpt[nt][2], dpt[nt][3]);
      }
    }
    // dV += Pᵀ·dO and dK += dSᵀ·Q, dO and Q read transposed.
#pragma unroll
    for (int jj = 0; jj < BQ / 16; jj++) {
      u32 pa[4], sa[4];
      acc_to_a(pa, sct[2 * jj], sct[2 * jj + 1]);
      acc_to_a(sa, dpt[2 * jj], dpt[2 * jj + 1]);
#pragma unroll
      for (int dn = 0; dn < D / 16; dn++) {
        u32 bb[4];
        frag_bt(bb, dOs, S, 16 * jj, 16 * dn);
        mma_bf16(dva[2 * dn], pa, bb[0], bb[1]);
        mma_bf16(dva[2 * dn + 1], pa, bb[2], bb[3]);
        frag_bt(bb, Qs, S, 16 * jj, 16 * dn);
        mma_bf16(dka[2 * dn], sa, bb[0], bb[1]);
        mma_bf16(dka[2 * dn + 1], sa, bb[2], bb[3]);
      }
    }
    if constexpr (DQ) {
      // dQ[q0.., cols] += dS·K for this warp's D/4 columns, 16 at a time,
      // dS read back transposed from shared memory.
      syncthreads();
      const int h = kh * group + it / qtiles;
#pragma unroll
      for (int cg = 0; cg < D / 64; cg++) {
        const int d0 = warp * (D / 4) + cg * 16;
        float qacc[BQ / 16][2][4];
#pragma unroll
        for (int mt = 0; mt < BQ / 16; mt++)
#pragma unroll
          for (int e = 0; e < 4; e++) qacc[mt][0][e] = qacc[mt][1][e] = 0;
#pragma unroll
        for (int kk = 0; kk < BC / 16; kk++) {
          u32 bb[4];
          frag_bt(bb, Ks, S, 16 * kk, d0);
#pragma unroll
          for (int mt = 0; mt < BQ / 16; mt++) {
            u32 sa[4];
            frag_at(sa, dSs, SQ, 16 * kk, 16 * mt);
            mma_bf16(qacc[mt][0], sa, bb[0], bb[1]);
            mma_bf16(qacc[mt][1], sa, bb[2], bb[3]);
          }
        }
#pragma unroll
        for (int mt = 0; mt < BQ / 16; mt++)
#pragma unroll
          for (int e = 0; e < 4; e++) {
            int t = q0 + mt * 16 + g + (e >> 1) * 8;
            if (t < T) {
              float* p = dqOut + ((rowBase + t) * H + h) * D + d0 + 2 * c + (e & 1);
              red_add(p, qacc[mt][0][e]);
              red_add(p + 8, qacc[mt][1][e]);
            }
          }
      }
    }
    syncthreads();
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

#define ATT_KERNELS(D)                                                                                       \
  extern "C" __global__ void attn_fwd_mma_d##D(float* out, float* lse, const u16* q, const u16* k,          \
                                               const u16* v, const int* seg, const int* first, int T, int H, \
                                               int KV, float scale) {                                        \
    attn_fwd_mma<D>(out, lse, q, k, v, seg, first, T, H, KV, scale);                                         \
  }                                                                                                          \
  extern "C" __global__ void attn_bwd_dq_mma_d##D(float* dq, const float* Di, const u16* dout,               \
                                                  const float* lse, const u16* q, const u16* k, const u16* v, \
                                                  const int* seg, const int* first, int T, int H, int KV,    \
                                                  float scale) {                                             \
    attn_bwd_dq_mma<D>(dq, Di, dout, lse, q, k, v, seg, first, T, H, KV, scale);                             \
  }                                                                                                          \
  extern "C" __global__ void attn_bwd_dkdv_mma_d##D(float* dk, float* dv, const float* Di, const u16* dout,  \
                                                    const float* lse, const u16* q, const u16* k,            \
                                                    const u16* v, const int* seg, const int* last, int T,    \
                                                    int H, int KV, float scale) {                            \
    attn_bwd_dkdv_mma<D, false>(dk, dv, nullptr, Di, dout, lse, q, k, v, seg, last, T, H, KV, scale);        \
  }                                                                                                          \
  extern "C" __global__ void attn_bwd_fused_mma_d##D(float* dk, float* dv, float* dq, const float* Di,       \
                                                     const u16* dout, const float* lse, const u16* q,        \
                                                     const u16* k, const u16* v, const int* seg,             \
                                                     const int* last, int T, int H, int KV, float scale) {   \
    attn_bwd_dkdv_mma<D, true>(dk, dv, dq, Di, dout, lse, q, k, v, seg, last, T, H, KV, scale);              \
  }

ATT_KERNELS(64)
ATT_KERNELS(128)
