#include "textflag.h"

// func expSum8(n8 int, x *float32, scale, shift float32) float32
// x[i] = exp(scale·x[i] − shift) for i < 8·n8, returning Σ x[i] (8 float32
// lanes, added at the end). exp is Cody-Waite range reduction,
// y = n·ln2 + r with |r| ≤ ln2/2, then the cephes expf polynomial for e^r
// and 2^n built in the exponent bits. y is clamped to [-87.3, 88.3] so
// 2^n stays a normal float: exp of less is ~1e-38 rather than a denormal
// or 0, which no softmax or sigmoid can tell apart. A NaN stays NaN.
TEXT ·expSum8(SB), NOSPLIT, $0-28
	MOVQ n8+0(FP), CX
	MOVQ x+8(FP), SI
	VBROADCASTSS scale+16(FP), Y14
	VBROADCASTSS shift+20(FP), Y15
	VXORPS Y13, Y13, Y13 // the sum
	TESTQ CX, CX
	JZ done
loop:
	VMOVUPS (SI), Y0
	VMULPS Y14, Y0, Y0
	VSUBPS Y15, Y0, Y0 // y = scale·x − shift
	VBROADCASTSS expHi<>(SB), Y1
	VMINPS Y0, Y1, Y0 // min(88.3, y); y when y is NaN
	VBROADCASTSS expLo<>(SB), Y1
	VMAXPS Y0, Y1, Y0 // max(-87.3, y); y when y is NaN
	VBROADCASTSS expLog2e<>(SB), Y1
	VMULPS Y1, Y0, Y1
	VROUNDPS $0, Y1, Y1 // n = round(y·log2 e)
	VBROADCASTSS expC1<>(SB), Y2
	VFNMADD231PS Y2, Y1, Y0 // r = y − n·C1
	VBROADCASTSS expC2<>(SB), Y2
	VFNMADD231PS Y2, Y1, Y0 // r −= n·C2 (C1 + C2 = ln2)
	VMULPS Y0, Y0, Y3 // r²
	VBROADCASTSS expP0<>(SB), Y2
	VBROADCASTSS expP1<>(SB), Y4
	VFMADD213PS Y4, Y0, Y2 // p = p0·r + p1
	VBROADCASTSS expP2<>(SB), Y4
	VFMADD213PS Y4, Y0, Y2
	VBROADCASTSS expP3<>(SB), Y4
	VFMADD213PS Y4, Y0, Y2
	VBROADCASTSS expP4<>(SB), Y4
	VFMADD213PS Y4, Y0, Y2
	VBROADCASTSS expP5<>(SB), Y4
	VFMADD213PS Y4, Y0, Y2
	VFMADD213PS Y0, Y3, Y2 // p·r² + r
	VBROADCASTSS expOne<>(SB), Y4
	VADDPS Y4, Y2, Y2 // e^r
	VCVTPS2DQ Y1, Y1
	VPSLLD $23, Y1, Y1 // n in the exponent field
	VPADDD Y1, Y2, Y2 // e^r · 2^n
	VMOVUPS Y2, (SI)
	VADDPS Y2, Y13, Y13
	ADDQ $32, SI
	DECQ CX
	JNZ loop
done:
	VEXTRACTF128 $1, Y13, X0
	VADDPS X0, X13, X13
	VHADDPS X13, X13, X13
	VHADDPS X13, X13, X13
	MOVSS X13, ret+24(FP)
	VZEROUPPER
	RET

DATA expHi<>+0(SB)/4, $88.3
GLOBL expHi<>(SB), RODATA|NOPTR, $4
DATA expLo<>+0(SB)/4, $-87.3
GLOBL expLo<>(SB), RODATA|NOPTR, $4
DATA expLog2e<>+0(SB)/4, $1.44269504088896341
GLOBL expLog2e<>(SB), RODATA|NOPTR, $4
DATA expC1<>+0(SB)/4, $0.693359375
GLOBL expC1<>(SB), RODATA|NOPTR, $4
DATA expC2<>+0(SB)/4, $-2.12194440e-4
GLOBL expC2<>(SB), RODATA|NOPTR, $4
DATA expP0<>+0(SB)/4, $1.9875691500e-4
GLOBL expP0<>(SB), RODATA|NOPTR, $4
DATA expP1<>+0(SB)/4, $1.3981999507e-3
GLOBL expP1<>(SB), RODATA|NOPTR, $4
DATA expP2<>+0(SB)/4, $8.3334519073e-3
GLOBL expP2<>(SB), RODATA|NOPTR, $4
DATA expP3<>+0(SB)/4, $4.1665795894e-2
GLOBL expP3<>(SB), RODATA|NOPTR, $4
DATA expP4<>+0(SB)/4, $1.6666665459e-1
GLOBL expP4<>(SB), RODATA|NOPTR, $4
DATA expP5<>+0(SB)/4, $5.0000001201e-1
GLOBL expP5<>(SB), RODATA|NOPTR, $4
DATA expOne<>+0(SB)/4, $1.0
GLOBL expOne<>(SB), RODATA|NOPTR, $4
