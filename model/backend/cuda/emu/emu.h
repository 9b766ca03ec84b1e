// The CUDA emulator's view of the device: what common.cuh needs when the
// kernels are compiled for the host (RLM_EMU) instead of for NVPTX. Every
// CUDA thread of a block runs as a fiber on one host thread, so
// __syncthreads, warp shuffles and the warp-wide tensor-core instructions
// (mma.sync, ldmatrix) are rendezvous of fibers; see emu.cpp.
#pragma once

#include <math.h>
#include <stdint.h>

struct emu_dim3 {
  unsigned x, y, z;
};
extern thread_local emu_dim3 threadIdx, blockIdx, blockDim, gridDim;
extern thread_local char* emu_dyn_smem_ptr;

#define __global__
#define __device__
// Each host thread runs one block at a time, so a thread_local static is
// exactly one block's shared variable.
#define __shared__ static thread_local
#define __forceinline__ __attribute__((always_inline))

extern "C" {
void emu_syncthreads(void);
float emu_shfl_f32(float v, int mode, int arg);
int emu_shfl_i32(int v, int mode, int arg);
void emu_atomic_add_f32(float* p, float v);
void emu_mma_bf16(float* d, const unsigned* a, unsigned b0, unsigned b1);
void emu_ldmatrix_x4(unsigned* r, const unsigned short* p, int trans);
}

// Shuffle modes of emu_shfl_*: the source lane is lane^arg, arg, lane+arg
// or lane-arg.
#define EMU_BFLY 0
#define EMU_IDX 1
#define EMU_DOWN 2
#define EMU_UP 3

#define __syncthreads() emu_syncthreads()

static inline float __nvvm_ex2_approx_f(float x) { return exp2f(x); }
static inline float __nvvm_lg2_approx_f(float x) { return log2f(x); }
static inline float __nvvm_sqrt_rn_f(float x) { return sqrtf(x); }
static inline double __nvvm_sqrt_rn_d(double x) { return sqrt(x); }
static inline float __nvvm_mul_rn_f(float a, float b) { return a * b; }
static inline float __nvvm_cos_approx_f(float x) { return cosf(x); }
static inline float __nvvm_sin_approx_f(float x) { return sinf(x); }
static inline float __nvvm_shfl_sync_bfly_f32(unsigned, float v, int o, int) { return emu_shfl_f32(v, EMU_BFLY, o); }
static inline int __nvvm_shfl_sync_bfly_i32(unsigned, int v, int o, int) { return emu_shfl_i32(v, EMU_BFLY, o); }
static inline float __nvvm_shfl_sync_idx_f32(unsigned, float v, int l, int) { return emu_shfl_f32(v, EMU_IDX, l); }
static inline int __nvvm_shfl_sync_idx_i32(unsigned, int v, int l, int) { return emu_shfl_i32(v, EMU_IDX, l); }
static inline float __nvvm_shfl_sync_down_f32(unsigned, float v, int d, int) { return emu_shfl_f32(v, EMU_DOWN, d); }
static inline int __nvvm_shfl_sync_down_i32(unsigned, int v, int d, int) { return emu_shfl_i32(v, EMU_DOWN, d); }
static inline float __nvvm_shfl_sync_up_f32(unsigned, float v, int d, int) { return emu_shfl_f32(v, EMU_UP, d); }
static inline int __nvvm_shfl_sync_up_i32(unsigned, int v, int d, int) { return emu_shfl_i32(v, EMU_UP, d); }
static inline float __nvvm_atom_add_gen_f(float* p, float v) {
  emu_atomic_add_f32(p, v);
  return 0;
}
