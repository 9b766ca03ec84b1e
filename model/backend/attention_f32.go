package backend

import "math"

// attnBlock is the number of query rows the SGEMM attention handles at a
// time; its scratch is attnBlock×T floats per worker, so memory stays linear
// in T.
const attnBlock = 128

// firstKeys returns, for every position, the first position of the same row
// with the same segment id: no query attends to a key before it, so tiles
// skip those keys (the earlier samples of a packed row).
func firstKeys(seg []int32, B, T int) []int {
	first := make([]int, B*T)
	for b := range B {
		seen := map[int32]int{}
		for t := range T {
			s := seg[b*T+t]
			if _, ok := seen[s]; !ok {
				seen[s] = t
			}
			first[b*T+t] = seen[s]
		}
	}
	return first
}

// attnTile is one block of query rows [t0,t1) of a row b, and the keys
// [k0,t1) any of them may attend to.
type attnTile struct{ b, t0, t1, k0 int }

func tileAt(first []int, b, blk, T int) attnTile {
	t0 := blk * attnBlock
	t1 := min(t0+attnBlock, T)
	k0 := t0
	for t := t0; t < t1; t++ {
		k0 = min(k0, first[b*T+t])
	}
	return attnTile{b, t0, t1, k0}
}

// softmaxTile turns the raw scores of a tile (rows × w, keys from k0) into
// probabilities in place, masked, and, when lse is not nil, records each
// row's log-sum-exp. With recompute set it instead rebuilds the
// probabilities from a recorded lse.
func softmaxTile(p []float32, tl attnTile, sg []int32, scale float32, lse []float32, recompute bool) {
	w := tl.t1 - tl.k0
	for r := range tl.t1 - tl.t0 {
		t := tl.t0 + r
		row := p[r*w : (r+1)*w]
		// The keys a query attends to are one run (its segment up to
		// itself) when segments are contiguous, as packing makes them:
		// then the exponentials go to the vector kernel in one call.
		a, b, n := -1, 0, 0
		for j := range row {
			if attends(sg, tl.k0+j, t) {
				if a < 0 {
					a = j
				}
				b, n = j+1, n+1
			}
		}
		if n != b-a { // (n > 0: every query attends to itself)
			softmaxRowMasked(row, tl, sg, t, scale, lse, recompute)
			continue
		}
		clear(row[:a])
		clear(row[b:])
		run := row[a:b]
		if recompute {
			expScaled(run, scale, lse[t])
			continue
		}
		maxv := float32(math.Inf(-1))
		for j := range run {
			run[j] *= scale
			maxv = max(maxv, run[j])
		}
		sum := expScaled(run, 1, maxv)
		inv := float32(1 / sum)
		for j := range run {
			run[j] *= inv
		}
		lse[t] = maxv + float32(math.Log(sum))
	}
}

// softmaxRowMasked is one row of softmaxTile when the keys it attends to
// are not one run (segments that are not contiguous), one key at a time.
func softmaxRowMasked(row []float32, tl attnTile, sg []int32, t int, scale float32, lse []float32, recompute bool) {
	if recompute {
		l := float64(lse[t])
		for j := range row {
			if s := tl.k0 + j; attends(sg, s, t) {
				row[j] = float32(math.Exp(float64(row[j]*scale) - l))
			} else {
				row[j] = 0
			}
		}
		return
	}
	maxv := float32(math.Inf(-1))
	for j := range row {
		if attends(sg, tl.k0+j, t) {
			row[j] *= scale
			maxv = max(maxv, row[j])
		}
	}
	var sum float64
	for j := range row {
		if !attends(sg, tl.k0+j, t) {
			row[j] = 0
			continue
		}
		e := math.Exp(float64(row[j] - maxv))
		row[j] = float32(e)
		sum += e
	}
	inv := float32(1 / sum)
	for j := range row {
		row[j] *= inv
	}
	lse[t] = maxv + float32(math.Log(sum))
}

// attentionF32 is Attention (contract in ops.go) with the products of each
// tile done by the packed SGEMM: S = Q·Kᵀ for up to attnBlock query rows
// against the keys they can reach (causality and segments bound them), the
// masked softmax row by row, then O = P·V. Heads are read in place from the
// N×H×D layout through the leading dimensions.
func attentionF32(out, lse, q, k, v []float32, seg []int32, sh AttnShape) {
	B, T, H, KV, D := sh.B, sh.T, sh.H, sh.KV, sh.D
	group := H / KV
	scale := float32(1 / math.Sqrt(float64(D)))
	first := firstKeys(seg, B, T)
	nb := (T + attnBlock - 1) / attnBlock
	parallelFor(B*H*nb, 1, func(lo, hi int) {
		scratch := make([]float32, attnBlock*T)
		for job := lo; job < hi; job++ {
			bh, blk := job/nb, job%nb
			b, h := bh/H, bh%H
			kh := h / group
			tl := tileAt(first, b, blk, T)
			rows, w := tl.t1-tl.t0, tl.t1-tl.k0
			p := scratch[:rows*w]
			qOff := (b*T+tl.t0)*H*D + h*D
			kOff := (b*T+tl.k0)*KV*D + kh*D
			sgemmSerial(false, true, rows, w, D, q[qOff:], H*D, k[kOff:], KV*D, 0, p, w)
			softmaxTile(p, tl, seg[b*T:(b+1)*T], scale, lse[bh*T:(bh+1)*T], false)
			sgemmSerial(false, false, rows, D, w, p, w, v[kOff:], KV*D, 0, out[qOff:], H*D)
		}
	})
}

// attentionBackwardF32 is AttentionBackward tile by tile: P is recomputed
// from lse, dP = dO·Vᵀ, dV += Pᵀ·dO, dS = P⊙(dP − rowsum(dO⊙O))·scale,
// dQ += dS·K, dK += dSᵀ·Q. Work is split over (batch, KV head) so the query
// heads that share a KV head accumulate into dK/dV one after another.
func attentionBackwardF32(dq, dk, dv, dout, out, lse, q, k, v []float32, seg []int32, sh AttnShape) {
	B, T, H, KV, D := sh.B, sh.T, sh.H, sh.KV, sh.D
	group := H / KV
	scale := float32(1 / math.Sqrt(float64(D)))
	first := firstKeys(seg, B, T)
	nb := (T + attnBlock - 1) / attnBlock
	parallelFor(B*KV, 1, func(lo, hi int) {
		scratchP := make([]float32, attnBlock*T)
		scratchD := make([]float32, attnBlock*T)
		for bk := lo; bk < hi; bk++ {
			b, kh := bk/KV, bk%KV
			sg := seg[b*T : (b+1)*T]
			for h := kh * group; h < (kh+1)*group; h++ {
				bh := b*H + h
				for blk := range nb {
					tl := tileAt(first, b, blk, T)
					rows, w := tl.t1-tl.t0, tl.t1-tl.k0
					p, ds := scratchP[:rows*w], scratchD[:rows*w]
					qOff := (b*T+tl.t0)*H*D + h*D
					kOff := (b*T+tl.k0)*KV*D + kh*D
					sgemmSerial(false, true, rows, w, D, q[qOff:], H*D, k[kOff:], KV*D, 0, p, w)
					softmaxTile(p, tl, sg, scale, lse[bh*T:(bh+1)*T], true)
					sgemmSerial(false, true, rows, w, D, dout[qOff:], H*D, v[kOff:], KV*D, 0, ds, w)
					sgemmSerial(true, false, w, D, rows, p, w, dout[qOff:], H*D, 1, dv[kOff:], KV*D)
					for r := range rows {
						do := dout[qOff+r*H*D : qOff+r*H*D+D]
						o := out[qOff+r*H*D : qOff+r*H*D+D]
						var dsum float64
						for i := range D {
							dsum += float64(do[i]) * float64(o[i])
						}
						d := float32(dsum)
						pr, dr := p[r*w:(r+1)*w], ds[r*w:(r+1)*w]
						for j := range dr {
							dr[j] = pr[j] * (dr[j] - d) * scale
						}
					}
					sgemmSerial(false, false, rows, D, w, ds, w, k[kOff:], KV*D, 1, dq[qOff:], H*D)
					sgemmSerial(true, false, w, D, rows, ds, w, q[qOff:], H*D, 1, dk[kOff:], KV*D)
				}
			}
		}
	})
}
