package backend

import "math"

// The float32 kernels of the CPU backend whose cost is exponentials: the
// cross-entropy over a vocabulary and SwiGLU. They compute what the generic
// kernels of ops.go compute (the reference their tests compare with), with
// the exponentials done eight at a time by expScaled and the arithmetic
// around them in float32, as PyTorch does.

// siluChunk is how many of SwiGLU's exponentials go to expScaled at once,
// from a buffer on the stack.
const siluChunk = 256

// crossEntropyF32 is CrossEntropy (contract in ops.go) for a scale s > 0.
func crossEntropyF32(losses, logits []float32, targets []int32, weights []float32, V int, s float32) float64 {
	N := len(targets)
	parallelFor(N, 4, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			row := logits[n*V : (n+1)*V]
			w := weights[n]
			if w == 0 {
				losses[n] = 0
				clear(row)
				continue
			}
			maxv := float32(math.Inf(-1))
			for _, x := range row {
				maxv = max(maxv, x)
			}
			tgt := targets[n]
			xt := s * row[tgt]
			shift := s * maxv // the largest scaled logit, as s > 0
			sum := expScaled(row, s, shift)
			losses[n] = float32(math.Log(sum) + float64(shift) - float64(xt))
			scale := float32(float64(s) * float64(w) / sum)
			for i := range row {
				row[i] *= scale
			}
			row[tgt] -= s * w
		}
	})
	var total float64
	for n := range N {
		total += float64(weights[n]) * float64(losses[n])
	}
	return total
}

// swigluF32 is SwiGLU: out = silu(gate)·up.
func swigluF32(out, gate, up []float32) {
	parallelFor(len(out), 4096, func(lo, hi int) {
		var e [siluChunk]float32
		for c := lo; c < hi; c += siluChunk {
			g := gate[c:min(c+siluChunk, hi)]
			copy(e[:], g)
			expScaled(e[:len(g)], -1, 0) // e^−g
			for i, gi := range g {
				out[c+i] = gi / (1 + e[i]) * up[c+i]
			}
		}
	})
}

// swigluBackwardF32 is SwiGLUBackward: it adds the gradients of SwiGLU to
// dgate and dup.
func swigluBackwardF32(dgate, dup, dout, gate, up []float32) {
	parallelFor(len(dout), 4096, func(lo, hi int) {
		var e [siluChunk]float32
		for c := lo; c < hi; c += siluChunk {
			g := gate[c:min(c+siluChunk, hi)]
			copy(e[:], g)
			expScaled(e[:len(g)], -1, 0)
			for i, gi := range g {
				j := c + i
				sig := 1 / (1 + e[i])
				silu := gi * sig
				dsilu := sig * (1 + gi*(1-sig))
				dgate[j] += dout[j] * up[j] * dsilu
				dup[j] += dout[j] * silu
			}
		}
	})
}
