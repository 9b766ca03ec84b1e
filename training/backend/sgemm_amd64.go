package backend

import "golang.org/x/sys/cpu"

// hasFMA reports whether the AVX2+FMA micro-kernel can run here.
var hasFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func kernel6x16(k int, a, b, c *float32, ldc int)

func microKernel(k int, a, b, c []float32, ldc int) {
	if k == 0 {
		return
	}
	if hasFMA {
		_ = a[k*mr-1]
		_ = b[k*nr-1]
		_ = c[(mr-1)*ldc+nr-1]
		kernel6x16(k, &a[0], &b[0], &c[0], ldc)
		return
	}
	microKernelGo(k, a, b, c, ldc)
}
