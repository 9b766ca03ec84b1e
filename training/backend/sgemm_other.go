//go:build !amd64

package backend

const hasFMA = false

func microKernel(k int, a, b, c []float32, ldc int) { microKernelGo(k, a, b, c, ldc) }

func dot4(k int, a, b []float32, ldb int, s *[4]float32) { dot4Go(k, a, b, ldb, s) }

func setAVX512(bool) bool { return false }
