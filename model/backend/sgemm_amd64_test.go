package backend

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDot4Kernels checks the AVX-512 and AVX2 dot kernels against the
// portable loop at depths that leave every kind of tail, whichever of them
// this CPU would choose.
func TestDot4Kernels(t *testing.T) {
	if !hasFMA {
		t.Skip("no AVX2+FMA on this machine: only the portable kernel runs")
	}
	defer setAVX512(setAVX512(hasAVX512))
	rng := rand.New(rand.NewPCG(4, 4))
	const ldb = 203
	b := make([]float32, 4*ldb)
	a := make([]float32, ldb)
	for _, v := range [][]float32{a, b} {
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
	}
	for _, avx512 := range []bool{false, true} {
		if avx512 && !hasAVX512 {
			continue
		}
		setAVX512(avx512)
		for _, k := range []int{0, 1, 15, 16, 17, 31, 32, 33, 48, 63, 64, 200} {
			got, want := [4]float32{1, 2, 3, 4}, [4]float32{1, 2, 3, 4}
			dot4(k, a, b, ldb, &got)
			dot4Go(k, a, b, ldb, &want)
			for r := range 4 {
				if math.Abs(float64(got[r]-want[r])) > 1e-4*(1+math.Abs(float64(want[r]))) {
					t.Fatalf("avx512=%v k=%d: s[%d] = %g, want %g", avx512, k, r, got[r], want[r])
				}
			}
		}
	}
}
