//go:build !amd64

package backend

const hasFMA = false

func microKernel(k int, a, b, c []float32, ldc int) { microKernelGo(k, a, b, c, ldc) }
