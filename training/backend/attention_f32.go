package backend

import "math"

// attentionF32 is Attention (see ops.go for the contract) with the two
// products of each head done by the packed SGEMM: S = Q·Kᵀ over the whole
// T×T block, then the causal+segment mask and softmax row by row, then
// O = P·V. Masked entries cost multiply-adds that the loop version skips,
// but SGEMM is an order of magnitude faster than the scalar loops. Heads
// are read in place from the N×H×D layout through the leading dimensions.
func attentionF32(out, probs, q, k, v []float32, seg []int32, sh AttnShape) {
	B, T, H, KV, D := sh.B, sh.T, sh.H, sh.KV, sh.D
	group := H / KV
	scale := float32(1 / math.Sqrt(float64(D)))
	parallelFor(B*H, 1, func(lo, hi int) {
		for bh := lo; bh < hi; bh++ {
			b, h := bh/H, bh%H
			kh := h / group
			qh := q[b*T*H*D+h*D:]
			kk := k[b*T*KV*D+kh*D:]
			vv := v[b*T*KV*D+kh*D:]
			p := probs[bh*T*T : (bh+1)*T*T]
			sgemmSerial(false, true, T, T, D, qh, H*D, kk, KV*D, 0, p, T)
			sg := seg[b*T : (b+1)*T]
			for t := range T {
				row := p[t*T : (t+1)*T]
				maxv := float32(math.Inf(-1))
				for s := 0; s <= t; s++ {
					if sg[s] == sg[t] {
						row[s] *= scale
						maxv = max(maxv, row[s])
					}
				}
				var sum float64
				for s := range T {
					if s > t || sg[s] != sg[t] {
						row[s] = 0
						continue
					}
					e := math.Exp(float64(row[s] - maxv))
					row[s] = float32(e)
					sum += e
				}
				inv := float32(1 / sum)
				for s := 0; s <= t; s++ {
					row[s] *= inv
				}
			}
			sgemmSerial(false, false, T, D, T, p, T, vv, KV*D, 0, out[b*T*H*D+h*D:], H*D)
		}
	})
}

// attentionBackwardF32 is AttentionBackward with SGEMM products:
// dP = dO·Vᵀ, dV += Pᵀ·dO, dS = P⊙(dP − rowsum(P⊙dP))·scale, dQ += dS·K,
// dK += dSᵀ·Q. Work is split over (batch, KV head) so the query heads that
// share a KV head accumulate into dK/dV one after another.
func attentionBackwardF32(dq, dk, dv, dout, probs, q, k, v []float32, sh AttnShape) {
	B, T, H, KV, D := sh.B, sh.T, sh.H, sh.KV, sh.D
	group := H / KV
	scale := float32(1 / math.Sqrt(float64(D)))
	parallelFor(B*KV, 1, func(lo, hi int) {
		ds := make([]float32, T*T)
		for bk := lo; bk < hi; bk++ {
			b, kh := bk/KV, bk%KV
			kOff := b*T*KV*D + kh*D
			for h := kh * group; h < (kh+1)*group; h++ {
				bh := b*H + h
				qOff := b*T*H*D + h*D
				p := probs[bh*T*T : (bh+1)*T*T]
				sgemmSerial(false, true, T, T, D, dout[qOff:], H*D, v[kOff:], KV*D, 0, ds, T)
				sgemmSerial(true, false, T, D, T, p, T, dout[qOff:], H*D, 1, dv[kOff:], KV*D)
				for t := range T {
					pr, dr := p[t*T:(t+1)*T], ds[t*T:(t+1)*T]
					var dot float64
					for s := 0; s <= t; s++ {
						dot += float64(pr[s]) * float64(dr[s])
					}
					d := float32(dot)
					for s := range T {
						dr[s] = pr[s] * (dr[s] - d) * scale
					}
				}
				sgemmSerial(false, false, T, D, T, ds, T, k[kOff:], KV*D, 1, dq[qOff:], H*D)
				sgemmSerial(true, false, T, D, T, ds, T, q[qOff:], H*D, 1, dk[kOff:], KV*D)
			}
		}
	})
}
