package backend

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// BenchmarkGEMM compares the backend's MatMul with gonum's Sgemm called
// directly (the baseline) on the shapes a linear layer's forward (x·Wᵀ) and
// weight gradient (dyᵀ·x) have. Compare the GFLOP/s metric of ours/ with
// gonum/ for the same shape; BENCHMARKS.md has a recorded run.
func BenchmarkGEMM(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	fill := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	for _, sh := range []struct {
		name           string
		m, n, k        int
		transA, transB bool
	}{
		{"square512", 512, 512, 512, false, false},
		{"linear_fwd_N512_in1024_out3072", 512, 3072, 1024, false, true},
		{"linear_dW_out3072_in1024_N512", 3072, 1024, 512, true, false},
	} {
		a, bb, c := fill(sh.m*sh.k), fill(sh.k*sh.n), make([]float32, sh.m*sh.n)
		flops := 2 * float64(sh.m) * float64(sh.n) * float64(sh.k)
		report := func(b *testing.B) {
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		}
		b.Run(fmt.Sprintf("%s/gonum", sh.name), func(b *testing.B) {
			ta, tb, lda, ldb := blas.NoTrans, blas.NoTrans, sh.k, sh.n
			if sh.transA {
				ta, lda = blas.Trans, sh.m
			}
			if sh.transB {
				tb, ldb = blas.Trans, sh.k
			}
			for b.Loop() {
				gonum.Implementation{}.Sgemm(ta, tb, sh.m, sh.n, sh.k, 1, a, lda, bb, ldb, 0, c, sh.n)
			}
			report(b)
		})
		b.Run(fmt.Sprintf("%s/ours", sh.name), func(b *testing.B) {
			lda, ldb := sh.k, sh.n
			if sh.transA {
				lda = sh.m
			}
			if sh.transB {
				ldb = sh.k
			}
			for b.Loop() {
				sgemm(sh.transA, sh.transB, sh.m, sh.n, sh.k, a, lda, bb, ldb, 0, c, sh.n)
			}
			report(b)
		})
	}
}
