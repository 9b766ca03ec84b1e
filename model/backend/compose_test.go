package backend

import (
	"math/rand/v2"
	"testing"
)

// The model chains the kernels in two places where a reshape or a shared
// buffer could go wrong even though each kernel is right on its own; these
// finite-difference checks run the chains exactly as model does.

// TestQKNormRoPEBackward checks the per-head RMSNorm of q and k (rows of
// head_dim, one weight vector shared by every head) followed by RoPE, and
// its backward as the model runs it: inverse RoPE, then RMSNormBackward.
func TestQKNormRoPEBackward(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const N, H, D, eps, theta = 3, 2, 6, 1e-6, 10000.0
	pos := []int32{0, 4, 1}
	x, w, r := randVec(rng, N*H*D, 1), randVec(rng, D, 1), randVec(rng, N*H*D, 1)
	forward := func(y, rstd []float64) {
		RMSNorm(y, rstd, x, w, N*H, D, eps)
		RoPE(y, pos, H, D, theta, false)
	}
	loss := func() float64 {
		y := make([]float64, N*H*D)
		forward(y, make([]float64, N*H))
		return dot(y, r)
	}
	y, rstd := make([]float64, N*H*D), make([]float64, N*H)
	forward(y, rstd)
	dy := append([]float64(nil), r...)
	RoPE(dy, pos, H, D, theta, true)
	dx, dw := make([]float64, len(x)), make([]float64, D)
	RMSNormBackward(dx, dw, dy, x, w, rstd, N*H, D)
	checkGrad(t, "dx", x, dx, loss)
	checkGrad(t, "dnorm", w, dw, loss)
}

// TestLMHeadBackward checks embedding → LM head → cross-entropy with the
// head tied to the embedding table (both gradients add into one table) and
// untied (a separate matrix).
func TestLMHeadBackward(t *testing.T) {
	for _, tied := range []bool{true, false} {
		rng := rand.New(rand.NewPCG(23, 24))
		const V, C = 7, 4
		ids, targets := []int32{2, 5, 2, 0}, []int32{5, 2, 6, 1}
		weights := []float64{0.25, 0.5, 0, 0.25}
		N := len(ids)
		table := randVec(rng, V*C, 1)
		head := table
		if !tied {
			head = randVec(rng, V*C, 1)
		}
		loss := func() float64 {
			h := make([]float64, N*C)
			Embedding(h, table, ids, C)
			logits := make([]float64, N*V)
			MatMulRef(logits, h, head, N, V, C, false, true, 0)
			return CrossEntropy(make([]float64, N), logits, targets, weights, V, 1)
		}
		h := make([]float64, N*C)
		Embedding(h, table, ids, C)
		dlogits := make([]float64, N*V)
		MatMulRef(dlogits, h, head, N, V, C, false, true, 0)
		CrossEntropy(make([]float64, N), dlogits, targets, weights, V, 1)
		dtable, dhead := make([]float64, V*C), make([]float64, V*C)
		if tied {
			dhead = dtable
		}
		dh := make([]float64, N*C)
		MatMulRef(dh, dlogits, head, N, C, V, false, false, 0)
		MatMulRef(dhead, dlogits, h, V, C, N, true, false, 1)
		EmbeddingBackward(dtable, dh, ids, C)
		name := "untied"
		if tied {
			name = "tied"
		}
		checkGrad(t, name+" dtable", table, dtable, loss)
		if !tied {
			checkGrad(t, "untied dhead", head, dhead, loss)
		}
	}
}
