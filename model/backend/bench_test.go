package backend

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// BenchmarkGEMM compares the backend's MatMul with gonum's Sgemm and
// OpenBLAS's cblas_sgemm (skipped where the library is missing), called
// directly on the same inputs, on the shapes a linear layer's forward (x·Wᵀ)
// and weight gradient (dyᵀ·x) have; ours-avx2/ is ours with the AVX-512
// kernels switched off. Compare the GFLOP/s metric of ours/ with the others
// for the same shape; BENCHMARKS.md has a recorded run.
func BenchmarkGEMM(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	var ob *openBLAS
	b.Run("load", func(b *testing.B) { ob = loadOpenBLAS(b) })
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
		{"square1024", 1024, 1024, 1024, false, false},
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
		for _, avx512 := range []bool{true, false} {
			name := "ours"
			if !avx512 {
				name = "ours-avx2"
			}
			b.Run(fmt.Sprintf("%s/%s", sh.name, name), func(b *testing.B) {
				defer setAVX512(setAVX512(avx512))
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
		if ob != nil {
			b.Run(fmt.Sprintf("%s/openblas", sh.name), func(b *testing.B) {
				for b.Loop() {
					ob.matMul(sh.transA, sh.transB, sh.m, sh.n, sh.k, a, bb, 0, c)
				}
				report(b)
			})
		}
	}
}

// BenchmarkGEMMSkinny measures the few-row products of decoding (x·Wᵀ with
// one to 32 rows of x): the unpacked path sgemm takes for them (skinny/), the
// packed path on the same inputs (packed/), and OpenBLAS's cblas_sgemm in
// the same process (openblas/, skipped where the library is missing). GB/s
// counts the bytes of W, which every path must read at least once, so it
// says how close to memory bandwidth a shape runs.
func BenchmarkGEMMSkinny(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	var ob *openBLAS
	b.Run("load", func(b *testing.B) { ob = loadOpenBLAS(b) })
	for _, sh := range []struct{ m, n, k int }{
		{1, 4096, 4096}, {4, 4096, 4096}, {16, 4096, 4096}, {32, 4096, 4096},
		{1, 3072, 1024}, {1, 1024, 3072}, {1, 151936, 1024}, {16, 151936, 1024},
	} {
		a, w, c := make([]float32, sh.m*sh.k), make([]float32, sh.n*sh.k), make([]float32, sh.m*sh.n)
		for _, v := range [][]float32{a, w} {
			for i := range v {
				v[i] = float32(rng.NormFloat64())
			}
		}
		flops := 2 * float64(sh.m) * float64(sh.n) * float64(sh.k)
		bytes := 4 * float64(sh.n) * float64(sh.k)
		paths := []struct {
			name string
			run  func()
		}{
			{"skinny", func() { sgemmSkinnyNT(sh.m, sh.n, sh.k, a, sh.k, w, sh.k, 0, c, sh.n) }},
			{"packed", func() { sgemmPacked(false, true, sh.m, sh.n, sh.k, a, sh.k, w, sh.k, 0, c, sh.n) }},
		}
		if ob != nil {
			paths = append(paths, struct {
				name string
				run  func()
			}{"openblas", func() { ob.matMul(false, true, sh.m, sh.n, sh.k, a, w, 0, c) }})
		}
		for _, path := range paths {
			b.Run(fmt.Sprintf("%dx%dx%d/%s", sh.m, sh.n, sh.k, path.name), func(b *testing.B) {
				for b.Loop() {
					path.run()
				}
				s := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(flops/s/1e9, "GFLOP/s")
				b.ReportMetric(bytes/s/1e9, "GB/s")
			})
		}
	}
}
