package backend

import "golang.org/x/sys/cpu"

// hasFMA reports whether the AVX2+FMA kernels can run here, hasAVX512
// whether the AVX-512 ones can.
var (
	hasFMA    = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	hasAVX512 = hasFMA && cpu.X86.HasAVX512F
)

//go:noescape
func kernel6x16(k int, a, b, c *float32, ldc int, add bool)

//go:noescape
func kernel6x32(k int, a, b, c *float32, ldc int, add bool)

//go:noescape
func dot4x32(n32 int, a, b *float32, ldb int, s *[4]float32)

//go:noescape
func dot4x16(n16 int, a, b *float32, ldb int, s *[4]float32)

// microKernel adds the product of a packed A strip and a packed B strip of
// depth k to c[mr×nr] (row stride ldc), or with add false stores it there.
func microKernel(k int, a, b, c []float32, ldc int, add bool) {
	if k == 0 {
		if !add {
			for i := range mr {
				clear(c[i*ldc : i*ldc+nr])
			}
		}
		return
	}
	if hasFMA {
		_ = a[k*mr-1]
		_ = b[k*nr-1]
		_ = c[(mr-1)*ldc+nr-1]
		if hasAVX512 {
			kernel6x32(k, &a[0], &b[0], &c[0], ldc, add)
			return
		}
		kernel6x16(k, &a[0], &b[0], &c[0], ldc, add)
		kernel6x16(k, &a[0], &b[16], &c[16], ldc, add)
		return
	}
	microKernelGo(k, a, b, c, ldc, add)
}

// dot4 adds to s[r] the dot product of a[:k] with row r of b (rows ldb
// apart), r = 0..3.
func dot4(k int, a, b []float32, ldb int, s *[4]float32) {
	if n32 := k / 32; hasAVX512 && n32 > 0 {
		_ = a[k-1]
		_ = b[3*ldb+k-1]
		dot4x32(n32, &a[0], &b[0], ldb, s)
		a, b, k = a[32*n32:], b[32*n32:], k-32*n32
	}
	n16 := k / 16
	if hasFMA && n16 > 0 {
		_ = a[k-1]
		_ = b[3*ldb+k-1]
		dot4x16(n16, &a[0], &b[0], ldb, s)
		dot4Go(k-16*n16, a[16*n16:], b[16*n16:], ldb, s)
		return
	}
	dot4Go(k, a, b, ldb, s)
}

// setAVX512 switches the AVX-512 kernels on or off and returns the previous
// setting, so tests can check both kernel families on one machine.
func setAVX512(on bool) bool {
	prev := hasAVX512
	hasAVX512 = on && hasFMA && cpu.X86.HasAVX512F
	return prev
}
