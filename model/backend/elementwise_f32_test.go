package backend

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFloat32KernelsMatchReference compares the CPU backend's float32
// cross-entropy and SwiGLU (vector exponentials, float32 arithmetic) with
// the generic kernels in float64.
func TestFloat32KernelsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	near := func(name string, got []float32, want []float64, tol float64) {
		t.Helper()
		for i := range want {
			if d := math.Abs(float64(got[i]) - want[i]); d > tol*(1+math.Abs(want[i])) {
				t.Fatalf("%s[%d] = %g, want %g", name, i, got[i], want[i])
			}
		}
	}
	for _, tc := range []struct {
		N, V  int
		scale float32
		sigma float64
	}{{5, 3, 1, 1}, {7, 1000, 1, 4}, {3, 151936, 1, 3}, {6, 517, 1 / 0.6, 2}} {
		logits32 := make([]float32, tc.N*tc.V)
		logits64 := make([]float64, len(logits32))
		for i := range logits32 {
			logits32[i] = float32(rng.NormFloat64() * tc.sigma)
			logits64[i] = float64(logits32[i])
		}
		targets := make([]int32, tc.N)
		w32, w64 := make([]float32, tc.N), make([]float64, tc.N)
		for n := range targets {
			targets[n] = int32(rng.IntN(tc.V))
			if n != 1 { // row 1 weighs 0: loss 0, gradient 0
				w32[n] = 0.5 + rng.Float32()
			}
			w64[n] = float64(w32[n])
		}
		l32, l64 := make([]float32, tc.N), make([]float64, tc.N)
		got := crossEntropyF32(l32, logits32, targets, w32, tc.V, tc.scale)
		want := CrossEntropy(l64, logits64, targets, w64, tc.V, float64(tc.scale))
		if math.Abs(got-want) > 1e-5*(1+math.Abs(want)) {
			t.Errorf("N=%d V=%d: total %g, want %g", tc.N, tc.V, got, want)
		}
		near("loss", l32, l64, 1e-5)
		near("dlogits", logits32, logits64, 1e-6)
	}

	const n = 3000
	gate, up, dout := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range gate {
		gate[i] = float32(rng.NormFloat64() * 4)
		up[i], dout[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	gate[0], gate[1] = -100, 100 // the saturated ends of the sigmoid
	f64 := func(x []float32) []float64 {
		y := make([]float64, len(x))
		for i, v := range x {
			y[i] = float64(v)
		}
		return y
	}
	out := make([]float32, n)
	out64 := make([]float64, n)
	swigluF32(out, gate, up)
	SwiGLU(out64, f64(gate), f64(up))
	near("swiglu", out, out64, 1e-6)
	dg, du := make([]float32, n), make([]float32, n)
	for i := range dg { // backward adds to what is there
		dg[i], du[i] = 1, -1
	}
	dg64, du64 := f64(dg), f64(du)
	swigluBackwardF32(dg, du, dout, gate, up)
	SwiGLUBackward(dg64, du64, f64(dout), f64(gate), f64(up))
	near("dgate", dg, dg64, 1e-6)
	near("dup", du, du64, 1e-6)
}
