package backend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The finite-difference tests below check each backward kernel in float64.
// For an operation out = f(x), the scalar L = Σ r·out with a random r has
// dL/dx = backward(dout = r), and a central difference
// (L(x+h) − L(x−h)) / 2h approximates it to O(h²).

func randVec(rng *rand.Rand, n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64() * scale
	}
	return v
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// checkGrad compares analytic against the central difference of loss with
// respect to every element of x.
func checkGrad(t *testing.T, name string, x, analytic []float64, loss func() float64) {
	t.Helper()
	const h = 1e-5
	var maxErr float64
	for i := range x {
		old := x[i]
		x[i] = old + h
		lp := loss()
		x[i] = old - h
		lm := loss()
		x[i] = old
		num := (lp - lm) / (2 * h)
		err := math.Abs(num-analytic[i]) / math.Max(1, math.Abs(num))
		maxErr = max(maxErr, err)
		if err > 1e-6 {
			t.Fatalf("%s[%d]: analytic %.10g, numeric %.10g (err %.3g)", name, i, analytic[i], num, err)
		}
	}
	t.Logf("%s: %d elements, max error %.2g", name, len(x), maxErr)
}

func TestMatMulBackward(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// out = x·Wᵀ as in a linear layer; din = dout·W, dW = doutᵀ·x.
	const N, I, O = 5, 4, 3
	x, w, r := randVec(rng, N*I, 1), randVec(rng, O*I, 1), randVec(rng, N*O, 1)
	loss := func() float64 {
		out := make([]float64, N*O)
		MatMulRef(out, x, w, N, O, I, false, true, 0)
		return dot(out, r)
	}
	dx, dw := make([]float64, N*I), make([]float64, O*I)
	MatMulRef(dx, r, w, N, I, O, false, false, 0)
	MatMulRef(dw, r, x, O, I, N, true, false, 0)
	checkGrad(t, "dx", x, dx, loss)
	checkGrad(t, "dw", w, dw, loss)
}

func TestMatMulCPUMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		m, n, k        int
		transA, transB bool
		beta           float32
	}{
		{7, 5, 3, false, false, 0},
		{7, 5, 3, true, false, 1},
		{7, 5, 3, false, true, 0.5},
		{64, 33, 17, true, true, 0},
	} {
		a := make([]float32, tc.m*tc.k)
		b := make([]float32, tc.k*tc.n)
		c := make([]float32, tc.m*tc.n)
		for _, s := range [][]float32{a, b, c} {
			for i := range s {
				s[i] = float32(rng.NormFloat64())
			}
		}
		want := append([]float32(nil), c...)
		MatMulRef(want, a, b, tc.m, tc.n, tc.k, tc.transA, tc.transB, tc.beta)
		CPU{}.MatMul(F32(c), F32(a), F32(b), tc.m, tc.n, tc.k, tc.transA, tc.transB, tc.beta)
		for i := range c {
			if math.Abs(float64(c[i]-want[i])) > 1e-4*(1+math.Abs(float64(want[i]))) {
				t.Fatalf("%+v: c[%d] = %g, want %g", tc, i, c[i], want[i])
			}
		}
	}
}

func TestEmbeddingBackward(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const V, C = 5, 3
	ids := []int32{1, 4, 1, 0} // repeated id: gradients must add up
	table, r := randVec(rng, V*C, 1), randVec(rng, len(ids)*C, 1)
	loss := func() float64 {
		out := make([]float64, len(ids)*C)
		Embedding(out, table, ids, C)
		return dot(out, r)
	}
	dt := make([]float64, V*C)
	EmbeddingBackward(dt, r, ids, C)
	checkGrad(t, "dtable", table, dt, loss)
}

func TestRMSNormBackward(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const rows, C, eps = 4, 6, 1e-6
	x, w, r := randVec(rng, rows*C, 1), randVec(rng, C, 1), randVec(rng, rows*C, 1)
	loss := func() float64 {
		out, rstd := make([]float64, rows*C), make([]float64, rows)
		RMSNorm(out, rstd, x, w, rows, C, eps)
		return dot(out, r)
	}
	out, rstd := make([]float64, rows*C), make([]float64, rows)
	RMSNorm(out, rstd, x, w, rows, C, eps)
	dx, dw := make([]float64, rows*C), make([]float64, C)
	RMSNormBackward(dx, dw, r, x, w, rstd, rows, C)
	checkGrad(t, "dx", x, dx, loss)
	checkGrad(t, "dw", w, dw, loss)
}

func TestRoPE(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const N, H, D, theta = 3, 2, 8, 10000.0
	pos := []int32{0, 5, 2}
	x, r := randVec(rng, N*H*D, 1), randVec(rng, N*H*D, 1)
	loss := func() float64 {
		y := append([]float64(nil), x...)
		RoPE(y, pos, H, D, theta, false)
		return dot(y, r)
	}
	dx := append([]float64(nil), r...)
	RoPE(dx, pos, H, D, theta, true)
	checkGrad(t, "dx", x, dx, loss)

	// Position 0 is the identity; rotate-half pairs element i with i+D/2.
	y := append([]float64(nil), x...)
	RoPE(y, pos, H, D, theta, false)
	for i := 0; i < H*D; i++ {
		if y[i] != x[i] {
			t.Fatalf("position 0 changed element %d", i)
		}
	}
	n, h, i := 1, 1, 1
	a := 5 * math.Pow(theta, -2*float64(i)/D)
	base := (n*H + h) * D
	want := x[base+i]*math.Cos(a) - x[base+i+D/2]*math.Sin(a)
	if math.Abs(y[base+i]-want) > 1e-12 {
		t.Fatalf("rotate-half: got %g, want %g", y[base+i], want)
	}
}

func TestAttentionBackward(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		name string
		sh   AttnShape
		seg  []int32
	}{
		{"mha", AttnShape{B: 1, T: 4, H: 2, KV: 2, D: 3}, []int32{0, 0, 0, 0}},
		{"gqa packed", AttnShape{B: 2, T: 4, H: 4, KV: 2, D: 2}, []int32{0, 0, 1, 1, 3, 4, 4, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sh := tc.sh
			N := sh.B * sh.T
			q := randVec(rng, N*sh.H*sh.D, 1)
			k := randVec(rng, N*sh.KV*sh.D, 1)
			v := randVec(rng, N*sh.KV*sh.D, 1)
			r := randVec(rng, N*sh.H*sh.D, 1)
			lse := make([]float64, sh.B*sh.H*sh.T)
			out := make([]float64, N*sh.H*sh.D)
			loss := func() float64 {
				Attention(out, lse, q, k, v, tc.seg, sh)
				return dot(out, r)
			}
			loss()
			o0, l0 := append([]float64(nil), out...), append([]float64(nil), lse...)
			dq, dk, dv := make([]float64, len(q)), make([]float64, len(k)), make([]float64, len(v))
			AttentionBackward(dq, dk, dv, r, o0, l0, q, k, v, tc.seg, sh)
			checkGrad(t, "dq", q, dq, loss)
			checkGrad(t, "dk", k, dk, loss)
			checkGrad(t, "dv", v, dv, loss)
		})
	}
}

// TestAttentionMask changes the value at one position and checks which
// outputs move: only later positions of the same segment.
func TestAttentionMask(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	sh := AttnShape{B: 1, T: 6, H: 2, KV: 1, D: 2}
	seg := []int32{7, 7, 7, 8, 8, 8}
	q, k, v := randVec(rng, 6*2*2, 1), randVec(rng, 6*2, 1), randVec(rng, 6*2, 1)
	lse := make([]float64, 2*6)
	base, moved := make([]float64, 6*2*2), make([]float64, 6*2*2)
	Attention(base, lse, q, k, v, seg, sh)
	const at = 1
	v[at*2] += 1
	Attention(moved, lse, q, k, v, seg, sh)
	for tt := range 6 {
		changed := false
		for i := range 4 {
			changed = changed || moved[tt*4+i] != base[tt*4+i]
		}
		if want := tt >= at && seg[tt] == seg[at]; changed != want {
			t.Errorf("position %d: output changed=%v, want %v", tt, changed, want)
		}
	}
}

func TestSwiGLUBackward(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const n = 10
	g, u, r := randVec(rng, n, 2), randVec(rng, n, 1), randVec(rng, n, 1)
	loss := func() float64 {
		out := make([]float64, n)
		SwiGLU(out, g, u)
		return dot(out, r)
	}
	dg, du := make([]float64, n), make([]float64, n)
	SwiGLUBackward(dg, du, r, g, u)
	checkGrad(t, "dgate", g, dg, loss)
	checkGrad(t, "dup", u, du, loss)
}

func TestCrossEntropy(t *testing.T) {
	for _, scale := range []float64{1, 1 / 0.6} { // plain, and temperature 0.6
		t.Run(fmt.Sprint(scale), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(15, 16))
			const N, V = 4, 7
			logits := randVec(rng, N*V, 2)
			targets := []int32{3, 0, 6, 2}
			weights := []float64{0.5, 0, 0.25, 0.25} // row 1 is masked out
			loss := func() float64 {
				l := append([]float64(nil), logits...)
				return CrossEntropy(make([]float64, N), l, targets, weights, V, scale)
			}
			grad := append([]float64(nil), logits...)
			losses := make([]float64, N)
			total := CrossEntropy(losses, grad, targets, weights, V, scale)
			checkGrad(t, "dlogits", logits, grad, loss)

			// Against the textbook formula.
			var want float64
			for n := range N {
				var z float64
				for _, x := range logits[n*V : (n+1)*V] {
					z += math.Exp(scale * x)
				}
				want += weights[n] * (math.Log(z) - scale*logits[n*V+int(targets[n])])
			}
			if math.Abs(total-want) > 1e-12 {
				t.Fatalf("loss %g, want %g", total, want)
			}
		})
	}
}

func TestAdamW(t *testing.T) {
	// One step from zero moments moves each parameter by lr·sign(g)
	// (bias correction makes m̂/√v̂ = g/|g|) plus the decay term.
	p := []float64{1, -2, 3}
	g := []float64{0.5, -4, 0}
	m, v := make([]float64, 3), make([]float64, 3)
	AdamW(p, g, m, v, AdamWParams{LR: 0.1, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 0.01, Step: 1, GradScale: 1})
	want := []float64{1 - 0.1*(1+0.01*1), -2 - 0.1*(-1+0.01*-2), 3 - 0.1*(0+0.01*3)}
	for i := range p {
		if math.Abs(p[i]-want[i]) > 1e-6 {
			t.Fatalf("p[%d] = %g, want %g", i, p[i], want[i])
		}
	}
}

func TestAddIsResidual(t *testing.T) {
	// The residual x + f(x) passes its gradient to both branches unchanged:
	// backward of Add is Add of the incoming gradient into each input's.
	rng := rand.New(rand.NewPCG(17, 18))
	x, y, r := randVec(rng, 9, 1), randVec(rng, 9, 1), randVec(rng, 9, 1)
	loss := func() float64 {
		out := append([]float64(nil), x...)
		Add(out, y)
		return dot(out, r)
	}
	dx, dy := make([]float64, 9), make([]float64, 9)
	Add(dx, r)
	Add(dy, r)
	checkGrad(t, "dx", x, dx, loss)
	checkGrad(t, "dy", y, dy, loss)
}
