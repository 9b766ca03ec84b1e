package backend

import (
	"runtime"
	"testing"

	"github.com/ebitengine/purego"
)

// openBLAS is OpenBLAS's cblas_sgemm, loaded at run time so the GEMM
// benchmarks can compare with it in the same process and the same run
// (Debian: apt install libopenblas0-pthread).
type openBLAS struct {
	sgemm func(order, transA, transB, m, n, k int32, alpha float32, a *float32, lda int32, b *float32, ldb int32, beta float32, c *float32, ldc int32)
}

// CBLAS enum values.
const (
	cblasRowMajor = 101
	cblasNoTrans  = 111
	cblasTrans    = 112
)

// loadOpenBLAS returns OpenBLAS limited to GOMAXPROCS threads, or skips.
func loadOpenBLAS(tb testing.TB) *openBLAS {
	tb.Helper()
	var lib uintptr
	var err error
	for _, name := range []string{"libopenblas.so.0", "libopenblas.so"} {
		if lib, err = purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL); err == nil {
			break
		}
	}
	if err != nil {
		tb.Skipf("no OpenBLAS to compare with (apt install libopenblas0-pthread): %v", err)
	}
	var setThreads func(int32)
	purego.RegisterLibFunc(&setThreads, lib, "openblas_set_num_threads")
	setThreads(int32(runtime.GOMAXPROCS(0)))
	ob := new(openBLAS)
	purego.RegisterLibFunc(&ob.sgemm, lib, "cblas_sgemm")
	return ob
}

// matMul computes c = op(a)·op(b) + beta·c, row-major, as sgemm does.
func (ob *openBLAS) matMul(transA, transB bool, m, n, k int, a, b []float32, beta float32, c []float32) {
	ta, tb, lda, ldb := int32(cblasNoTrans), int32(cblasNoTrans), k, n
	if transA {
		ta, lda = cblasTrans, m
	}
	if transB {
		tb, ldb = cblasTrans, k
	}
	ob.sgemm(cblasRowMajor, ta, tb, int32(m), int32(n), int32(k), 1, &a[0], int32(lda), &b[0], int32(ldb), beta, &c[0], int32(n))
}

// TestOpenBLASBaseline checks that the baseline computes what ours does, so
// the benchmark compares equal work.
func TestOpenBLASBaseline(t *testing.T) {
	ob := loadOpenBLAS(t)
	m, n, k := 3, 37, 300
	a, b := make([]float32, m*k), make([]float32, n*k)
	for i := range a {
		a[i] = float32(i%7) - 3
	}
	for i := range b {
		b[i] = float32(i%5) - 2
	}
	got, want := make([]float32, m*n), make([]float32, m*n)
	ob.matMul(false, true, m, n, k, a, b, 0, got)
	MatMulRef(want, a, b, m, n, k, false, true, 0)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("c[%d] = %g, want %g", i, got[i], want[i])
		}
	}
}
