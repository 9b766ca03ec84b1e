//go:build !amd64

package backend

const hasFMA, hasAVX512 = false, false

func microKernel(k int, a, b, c []float32, ldc int, add bool) { microKernelGo(k, a, b, c, ldc, add) }

func dot4(k int, a, b []float32, ldb int, s *[4]float32) { dot4Go(k, a, b, ldb, s) }

func setAVX512(bool) bool { return false }
