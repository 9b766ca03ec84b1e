package backend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSgemm checks the packed SGEMM against the plain-loop reference on
// shapes that exercise partial micro-tiles, several kc panels, several mc
// blocks, the parallel split in both directions, transposes and beta.
func TestSgemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, sh := range [][3]int{{1, 1, 1}, {5, 15, 3}, {6, 16, 256}, {7, 17, 257}, {100, 33, 600}, {13, 200, 40}, {97, 130, 70}, {200, 8, 9}, {3, 9, 2100}, {16, 37, 1040},
		{401, 1600, 300}, {777, 40, 513}, {50, 3100, 70}} { // the last three cross the parallel blocks (mcPar, ncPar, kc)
		m, n, k := sh[0], sh[1], sh[2]
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			for _, beta := range []float32{0, 1, 0.5} {
				name := fmt.Sprintf("%dx%dx%d/tA=%v/tB=%v/beta=%g", m, n, k, tr[0], tr[1], beta)
				a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
				for _, s := range [][]float32{a, b, c} {
					for i := range s {
						s[i] = float32(rng.NormFloat64())
					}
				}
				want := append([]float32(nil), c...)
				MatMulRef(want, a, b, m, n, k, tr[0], tr[1], beta)
				lda, ldb := k, n
				if tr[0] {
					lda = m
				}
				if tr[1] {
					ldb = k
				}
				sgemm(tr[0], tr[1], m, n, k, a, lda, b, ldb, beta, c, n)
				for i := range c {
					if d := math.Abs(float64(c[i] - want[i])); d > 1e-4*math.Sqrt(float64(k))*(1+math.Abs(float64(want[i]))) {
						t.Fatalf("%s: c[%d] = %g, want %g", name, i, c[i], want[i])
					}
				}
			}
		}
	}
}

// TestMicroKernels checks the assembly micro-kernels (AVX2 and, where the
// CPU has it, AVX-512) against the portable one.
func TestMicroKernels(t *testing.T) {
	if !hasFMA {
		t.Skip("no AVX2+FMA on this machine: only the portable kernel runs")
	}
	for _, avx512 := range []bool{false, true} {
		if avx512 && !hasAVX512 {
			continue
		}
		t.Run(fmt.Sprintf("avx512=%v", avx512), func(t *testing.T) {
			defer setAVX512(setAVX512(avx512))
			testMicroKernel(t)
		})
	}
}

func testMicroKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 9))
	for _, k := range []int{0, 1, 7, 256} {
		a, b := make([]float32, k*mr+1), make([]float32, k*nr+1)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		for _, add := range []bool{true, false} {
			const ldc = nr + 5 // the 5 columns past the tile must stay as they are
			c1, c2 := make([]float32, mr*ldc), make([]float32, mr*ldc)
			for i := range c1 {
				c1[i] = float32(i)
				c2[i] = float32(i)
			}
			microKernel(k, a, b, c1, ldc, add)
			microKernelGo(k, a, b, c2, ldc, add)
			for i := range c1 {
				if math.Abs(float64(c1[i]-c2[i])) > 1e-4*(1+math.Abs(float64(c2[i]))) {
					t.Fatalf("k=%d add=%v: c[%d] = %g (asm), %g (Go)", k, add, i, c1[i], c2[i])
				}
			}
		}
	}
}

// TestAttentionF32MatchesReference checks the tiled SGEMM attention of the
// CPU backend against the loop kernels, whose backward the finite-difference
// test verifies, on shapes with several query tiles, GQA and packed segments.
func TestAttentionF32MatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, tc := range []struct {
		sh     AttnShape
		segLen int
	}{
		{AttnShape{B: 1, T: 5, H: 2, KV: 2, D: 3}, 100},
		{AttnShape{B: 2, T: 37, H: 4, KV: 2, D: 16}, 7},
		{AttnShape{B: 1, T: 300, H: 6, KV: 2, D: 8}, 90},   // three tiles, segments across tile edges
		{AttnShape{B: 1, T: 260, H: 2, KV: 1, D: 4}, 1000}, // one segment: causal only
		{AttnShape{B: 1, T: 150, H: 2, KV: 2, D: 4}, -9},   // segments 0,1,0,1,...: keys not one run
	} {
		sh := tc.sh
		N := sh.B * sh.T
		seg := make([]int32, N)
		for i := range seg {
			if tc.segLen < 0 { // alternating segment ids, 9 positions each
				seg[i] = int32(i / -tc.segLen % 2)
				continue
			}
			seg[i] = int32(i / tc.segLen)
		}
		rnd := func(n int) []float32 {
			v := make([]float32, n)
			for i := range v {
				v[i] = float32(rng.NormFloat64())
			}
			return v
		}
		q, k, v, dout := rnd(N*sh.H*sh.D), rnd(N*sh.KV*sh.D), rnd(N*sh.KV*sh.D), rnd(N*sh.H*sh.D)
		type res struct{ out, lse, dq, dk, dv []float32 }
		run := func(fast bool) res {
			r := res{make([]float32, N*sh.H*sh.D), make([]float32, sh.B*sh.H*sh.T),
				make([]float32, len(q)), make([]float32, len(k)), make([]float32, len(v))}
			// The same nonzero starting gradients both times: backward must add to them.
			rr := rand.New(rand.NewPCG(5, 5))
			for _, g := range [][]float32{r.dq, r.dk, r.dv} {
				for i := range g {
					g[i] = float32(rr.NormFloat64())
				}
			}
			if fast {
				attentionF32(r.out, r.lse, q, k, v, seg, sh)
				attentionBackwardF32(r.dq, r.dk, r.dv, dout, r.out, r.lse, q, k, v, seg, sh)
			} else {
				Attention(r.out, r.lse, q, k, v, seg, sh)
				AttentionBackward(r.dq, r.dk, r.dv, dout, r.out, r.lse, q, k, v, seg, sh)
			}
			return r
		}
		want, got := run(false), run(true)
		for _, c := range []struct {
			name      string
			got, want []float32
		}{{"out", got.out, want.out}, {"lse", got.lse, want.lse}, {"dq", got.dq, want.dq}, {"dk", got.dk, want.dk}, {"dv", got.dv, want.dv}} {
			for i := range c.want {
				if math.Abs(float64(c.got[i]-c.want[i])) > 2e-4*(1+math.Abs(float64(c.want[i]))) {
					t.Fatalf("%+v %s[%d] = %g, want %g", sh, c.name, i, c.got[i], c.want[i])
				}
			}
		}
	}
}

// TestBatchInvariantRows checks that with BatchInvariant a row of x·Wᵀ is
// the same, bit for bit, whether it is computed alone or among other rows:
// what makes batched decoding and prefix reuse give exactly the unbatched
// logits.
func TestBatchInvariantRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	be := ForInference(CPU{})
	for _, sh := range [][2]int{{37, 2100}, {4099, 300}, {5, 1024}} {
		n, k := sh[0], sh[1]
		const m = 100 // beyond skinnyMaxM: the default would pack
		a, w := make(F32, m*k), make(F32, n*k)
		for _, v := range []F32{a, w} {
			for i := range v {
				v[i] = float32(rng.NormFloat64())
			}
		}
		all := make(F32, m*n)
		be.MatMul(all, a, w, m, n, k, false, true, 0)
		for _, rows := range [][2]int{{0, 1}, {5, 6}, {3, 20}, {22, 90}, {99, 100}} {
			part := make(F32, (rows[1]-rows[0])*n)
			be.MatMul(part, a[rows[0]*k:rows[1]*k], w, rows[1]-rows[0], n, k, false, true, 0)
			if !slices.Equal(part, all[rows[0]*n:rows[1]*n]) {
				t.Fatalf("n=%d k=%d: rows %d..%d computed apart differ from the same rows in a batch of %d", n, k, rows[0], rows[1], m)
			}
		}
	}
}
