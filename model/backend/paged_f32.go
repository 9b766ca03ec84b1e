package backend

import "math"

// pagedRun is a range [n0,n1) of consecutive query rows of one sequence
// (a decode step is a run of one row, a prefill chunk a run of many) and
// the number of cache positions any of them reads.
type pagedRun struct{ n0, n1, seq, ctx int }

func pagedRuns(seq, pos []int32) []pagedRun {
	var runs []pagedRun
	for n := range pos {
		if k := len(runs) - 1; k >= 0 && runs[k].seq == int(seq[n]) {
			runs[k].n1 = n + 1
			runs[k].ctx = max(runs[k].ctx, int(pos[n])+1)
			continue
		}
		runs = append(runs, pagedRun{n0: n, n1: n + 1, seq: int(seq[n]), ctx: int(pos[n]) + 1})
	}
	return runs
}

// pagedAttentionF32 is PagedAttention (contract in ops.go) with the products
// done by the packed SGEMM. Work is split over (run, KV head): the run's
// keys and values for that head are gathered from their blocks into
// contiguous scratch once, then every query head of the group computes
// S = Q·Kᵀ, a masked softmax row by row, and O = P·V, in tiles of attnBlock
// query rows. A decode run (one row) stacks the group's query heads into
// one group×D matrix, so a GQA decode step is one product per KV head.
func pagedAttentionF32(out, q, kc, vc []float32, blockTable, seq, pos []int32, sh PagedShape) {
	H, KV, D, BS := sh.H, sh.KV, sh.D, sh.BlockSize
	group := H / KV
	scale := float32(1 / math.Sqrt(float64(D)))
	runs := pagedRuns(seq, pos)
	parallelFor(len(runs)*KV, 1, func(lo, hi int) {
		var kbuf, vbuf, p []float32
		for job := lo; job < hi; job++ {
			ru, kh := runs[job/KV], job%KV
			ctx := ru.ctx
			kbuf, vbuf = growF32(kbuf, ctx*D), growF32(vbuf, ctx*D)
			for j := 0; j < ctx; j += BS {
				r0 := int(blockTable[ru.seq*sh.MaxBlocks+j/BS]) * BS
				for t := range min(BS, ctx-j) {
					src := ((r0+t)*KV + kh) * D
					copy(kbuf[(j+t)*D:(j+t+1)*D], kc[src:src+D])
					copy(vbuf[(j+t)*D:(j+t+1)*D], vc[src:src+D])
				}
			}
			if ru.n1-ru.n0 == 1 {
				n := ru.n0
				off := (n*H + kh*group) * D
				p = growF32(p, group*ctx)
				sgemmSerial(false, true, group, ctx, D, q[off:], D, kbuf, D, 0, p, ctx)
				for r := range group {
					softmaxPrefix(p[r*ctx:(r+1)*ctx], int(pos[n])+1, scale)
				}
				sgemmSerial(false, false, group, D, ctx, p, ctx, vbuf, D, 0, out[off:], D)
				continue
			}
			for h := kh * group; h < (kh+1)*group; h++ {
				for t0 := ru.n0; t0 < ru.n1; t0 += attnBlock {
					t1 := min(t0+attnBlock, ru.n1)
					w := 0
					for n := t0; n < t1; n++ {
						w = max(w, int(pos[n])+1)
					}
					rows := t1 - t0
					p = growF32(p, rows*w)
					off := (t0*H + h) * D
					sgemmSerial(false, true, rows, w, D, q[off:], H*D, kbuf, D, 0, p, w)
					for r := range rows {
						softmaxPrefix(p[r*w:(r+1)*w], int(pos[t0+r])+1, scale)
					}
					sgemmSerial(false, false, rows, D, w, p, w, vbuf, D, 0, out[off:], H*D)
				}
			}
		}
	})
}

// softmaxPrefix turns row[:n]·scale into probabilities and zeroes the rest
// of the row (the keys after this query's position).
func softmaxPrefix(row []float32, n int, scale float32) {
	maxv := float32(math.Inf(-1))
	for j := range n {
		row[j] *= scale
		maxv = max(maxv, row[j])
	}
	inv := float32(1 / expScaled(row[:n], 1, maxv))
	for j := range n {
		row[j] *= inv
	}
	clear(row[n:])
}

func growF32(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}
