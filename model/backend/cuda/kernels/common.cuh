// Shared definitions for the kernels. The kernels are compiled by Debian's
// clang with -nocudainc -nocudalib (see gen.sh): no CUDA headers and no
// libdevice, so the few attributes, builtins and math functions they use are
// defined here on top of clang's own NVPTX builtins.
#pragma once

#ifdef RLM_EMU
// Compiled for the host by the CUDA emulator (../emu): the same sources,
// with the device's builtins and warp instructions emulated.
#include "../emu/emu.h"
#else
#include <__clang_cuda_builtin_vars.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __forceinline__ __attribute__((always_inline))
#endif

// LAUNCH_BOUNDS(n) promises launches of at most n threads per block, so the
// compiler keeps each thread's registers within what n threads can have
// (a 1024-thread launch of a kernel that needs more fails on the device).
#ifdef RLM_EMU
#define LAUNCH_BOUNDS(n)
#else
#define LAUNCH_BOUNDS(n) __attribute__((launch_bounds(n)))
#endif
#define DEV static __device__ __forceinline__ inline

typedef long long i64;
typedef unsigned int u32;
typedef unsigned short u16;

#define FULL_MASK 0xffffffffu
#define LOG2E 1.4426950408889634f
#define LN2 0.6931471805599453f

DEV void syncthreads() { __syncthreads(); }

// exp and log through the hardware's base-2 approximations (relative error
// about 2^-22); the kernels' results are checked against the float64
// reference loops of ops.go to 1e-4, far above that.
DEV float fexp(float x) { return __nvvm_ex2_approx_f(x * LOG2E); }
DEV float fexp2(float x) { return __nvvm_ex2_approx_f(x); }
DEV float flog(float x) { return __nvvm_lg2_approx_f(x) * LN2; }
DEV float flog2(float x) { return __nvvm_lg2_approx_f(x); }
DEV float fsqrt(float x) { return __nvvm_sqrt_rn_f(x); }
DEV double dsqrt(double x) { return __nvvm_sqrt_rn_d(x); }
DEV float finf() { return __builtin_huge_valf(); }

DEV float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __nvvm_shfl_sync_bfly_f32(FULL_MASK, v, o, 31);
  return v;
}
DEV double warp_sum_d(double v) {
  for (int o = 16; o > 0; o >>= 1) {
    long long bits = __builtin_bit_cast(long long, v);
    int lo = __nvvm_shfl_sync_bfly_i32(FULL_MASK, (int)bits, o, 31);
    int hi = __nvvm_shfl_sync_bfly_i32(FULL_MASK, (int)(bits >> 32), o, 31);
    v += __builtin_bit_cast(double, ((long long)hi << 32) | (unsigned int)lo);
  }
  return v;
}
DEV float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = __builtin_fmaxf(v, __nvvm_shfl_sync_bfly_f32(FULL_MASK, v, o, 31));
  return v;
}
DEV int warp_min_i(int v) {
  for (int o = 16; o > 0; o >>= 1) v = __builtin_elementwise_min(v, __nvvm_shfl_sync_bfly_i32(FULL_MASK, v, o, 31));
  return v;
}
DEV int warp_max_i(int v) {
  for (int o = 16; o > 0; o >>= 1) v = __builtin_elementwise_max(v, __nvvm_shfl_sync_bfly_i32(FULL_MASK, v, o, 31));
  return v;
}
// Reductions across the four lanes of a quad (the lanes that hold one row of
// an mma accumulator).
DEV float quad_sum(float v) {
  v += __nvvm_shfl_sync_bfly_f32(FULL_MASK, v, 1, 31);
  v += __nvvm_shfl_sync_bfly_f32(FULL_MASK, v, 2, 31);
  return v;
}
DEV float quad_max(float v) {
  v = __builtin_fmaxf(v, __nvvm_shfl_sync_bfly_f32(FULL_MASK, v, 1, 31));
  v = __builtin_fmaxf(v, __nvvm_shfl_sync_bfly_f32(FULL_MASK, v, 2, 31));
  return v;
}

DEV void atomic_add(float* p, float v) { __nvvm_atom_add_gen_f(p, v); }

// red_add is atomic_add without waiting for the old value (red.add.f32,
// generic address): for sums no thread reads back, such as the fused
// attention backward's dQ.
#ifdef RLM_EMU
DEV void red_add(float* p, float v) { emu_atomic_add_f32(p, v); }
#else
DEV void red_add(float* p, float v) { asm volatile("red.add.f32 [%0], %1;" ::"l"(p), "f"(v) : "memory"); }
#endif

// bf16 with round-to-nearest-even, the conversion torch uses.
DEV u16 to_bf16(float f) {
  u32 u = __builtin_bit_cast(u32, f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u16)((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return (u16)(u >> 16);
}
// pack2 puts lo in the low half: element k of a bf16x2 operand is its k-th
// lowest 16 bits.
DEV u32 pack2(float lo, float hi) { return (u32)to_bf16(lo) | ((u32)to_bf16(hi) << 16); }

// d += a·b for one m16n8k16 tile: bf16 operands, float32 accumulators.
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16"), with
// g = lane/4 and c = lane%4:
//   a[0] = A[g][2c..2c+1]    a[1] = A[g+8][2c..2c+1]
//   a[2] = A[g][2c+8..+9]    a[3] = A[g+8][2c+8..+9]
//   b[0] = B[2c..2c+1][g]    b[1] = B[2c+8..+9][g]
//   d[0..1] = D[g][2c..2c+1] d[2..3] = D[g+8][2c..2c+1]
#ifdef RLM_EMU
DEV void mma_bf16(float* d, const u32* a, u32 b0, u32 b1) { emu_mma_bf16(d, a, b0, b1); }
#else
DEV void mma_bf16(float* d, const u32* a, u32 b0, u32 b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#endif

DEV u32 lds32(const u16* p) { return *(const u32*)p; }

#ifdef RLM_EMU
#define dyn_smem emu_dyn_smem_ptr
#else
extern __shared__ __attribute__((aligned(16))) char dyn_smem[];
#endif
