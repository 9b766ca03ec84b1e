package backend

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpScaled checks the vector exponential against math.Exp: within
// 2 ulp (relative 2.4e-7) across the range exp's result is a normal float,
// the returned sum (short of float32 overflow), the lengths that leave a scalar tail, and NaN.
func TestExpScaled(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 9, 31, 1024, 1025, 5000} {
		for _, c := range []struct{ scale, shift, lo, hi float32 }{
			{1, 0, -87, 88},     // the whole normal range
			{1, 0, -1, 1},       // around 1
			{0.125, 3, -50, 50}, // a softmax's scale and max
			{-1, 0, -20, 20},    // SiLU's exp(−g)
		} {
			x := make([]float32, n)
			want := make([]float64, n)
			var wantSum float64
			for i := range x {
				x[i] = c.lo + (c.hi-c.lo)*r.Float32()
				y := float64(c.scale*x[i] - c.shift)
				want[i] = float64(float32(math.Exp(y)))
				wantSum += want[i]
			}
			sum := expScaled(x, c.scale, c.shift)
			for i := range x {
				if rel := math.Abs(float64(x[i])-want[i]) / want[i]; rel > 2.4e-7 {
					t.Fatalf("n=%d %+v: exp at %d = %g, want %g (rel. err %.2g)", n, c, i, x[i], want[i], rel)
				}
			}
			// The lanes add in float32, which is exact enough for the sums
			// softmax takes (terms at most 1) but overflows near 3e38.
			if rel := math.Abs(sum-wantSum) / math.Max(wantSum, 1e-30); wantSum < 1e37 && rel > 1e-6 {
				t.Errorf("n=%d %+v: sum %g, want %g (rel. err %.2g)", n, c, sum, wantSum, rel)
			}
		}
	}
	x := []float32{0, float32(math.NaN()), 0, 0, 0, 0, 0, 0, -200, 200}
	expScaled(x, 1, 0)
	if x[0] != 1 || !math.IsNaN(float64(x[1])) {
		t.Errorf("exp(0), exp(NaN) = %g, %g; want 1, NaN", x[0], x[1])
	}
}

// BenchmarkExpScaled is the softmax exponential of a 4,096-key row: the
// vector kernel against math.Exp one element at a time (what the float32
// kernels called before), in the same run.
func BenchmarkExpScaled(b *testing.B) {
	x := make([]float32, 4096)
	for i := range x {
		x[i] = -float32(i) / 256
	}
	buf := make([]float32, len(x))
	for _, bc := range []struct {
		name string
		exp  func([]float32) float64
	}{
		{"vector", func(x []float32) float64 { return expScaled(x, 1, 0) }},
		{"math.Exp", func(x []float32) float64 {
			var sum float64
			for i, v := range x {
				e := math.Exp(float64(v))
				x[i] = float32(e)
				sum += e
			}
			return sum
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				copy(buf, x)
				bc.exp(buf)
			}
		})
	}
}
