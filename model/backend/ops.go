package backend

// The kernels below are the reference implementation of every operation the
// model uses, written as plain loops in the style of llm.c. They are generic
// over the float type so the finite-difference tests can run them in float64
// (where a central difference is accurate to ~1e-8) while the CPU backend
// runs them in float32.
//
// Conventions shared by all kernels:
//   - Row-major layouts; N is the number of token positions (batch*time).
//   - Backward kernels ADD into the gradients of their inputs (din += ...),
//     the way autograd accumulates. Callers zero a gradient before the
//     first contribution. This makes the residual stream free.
//   - Weight gradients also accumulate, so gradient accumulation over
//     micro-batches needs no extra buffer.

import (
	"math"
	"runtime"
	"slices"
	"sync"
)

// Float is the element type of the kernels.
type Float interface{ ~float32 | ~float64 }

// parallelFor splits [0,n) into contiguous chunks and runs f on each chunk in
// its own goroutine, returning when all are done. Small n runs inline.
func parallelFor(n, grain int, f func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if grain < 1 {
		grain = 1
	}
	if maxw := (n + grain - 1) / grain; workers > maxw {
		workers = maxw
	}
	if workers <= 1 {
		if n > 0 {
			f(0, n)
		}
		return
	}
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// MatMulRef computes c = a·b + beta·c for row-major a (m×k, or k×m when
// transA), b (k×n, or n×k when transB) and c (m×n). It is the plain-loop
// reference the BLAS path is tested against, and the float64 path of tests.
func MatMulRef[F Float](c, a, b []F, m, n, k int, transA, transB bool, beta F) {
	parallelFor(m, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for p := 0; p < k; p++ {
					var av, bv F
					if transA {
						av = a[p*m+i]
					} else {
						av = a[i*k+p]
					}
					if transB {
						bv = b[j*k+p]
					} else {
						bv = b[p*n+j]
					}
					s += float64(av) * float64(bv)
				}
				if beta == 0 {
					c[i*n+j] = F(s)
				} else {
					c[i*n+j] = F(s) + beta*c[i*n+j]
				}
			}
		}
	})
}

// Embedding gathers rows of table (V×C) for each id: out[n] = table[ids[n]].
func Embedding[F Float](out, table []F, ids []int32, C int) {
	parallelFor(len(ids), 64, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			id := int(ids[n])
			copy(out[n*C:(n+1)*C], table[id*C:(id+1)*C])
		}
	})
}

// EmbeddingBackward scatters dout into dtable: dtable[ids[n]] += dout[n].
// Rows can repeat, so work is split over columns, not rows.
func EmbeddingBackward[F Float](dtable, dout []F, ids []int32, C int) {
	parallelFor(C, 64, func(lo, hi int) {
		for n, id := range ids {
			dst := dtable[int(id)*C:]
			src := dout[n*C:]
			for c := lo; c < hi; c++ {
				dst[c] += src[c]
			}
		}
	})
}

// RMSNorm normalizes each row of in (rows×C): out = in / rms(in) * w, where
// rms = sqrt(mean(in²) + eps), accumulated in float64. rstd[r] keeps
// 1/rms for the backward pass.
func RMSNorm[F Float](out, rstd, in, w []F, rows, C int, eps float64) {
	parallelFor(rows, 16, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			x := in[r*C : (r+1)*C]
			var ss float64
			for _, v := range x {
				ss += float64(v) * float64(v)
			}
			s := F(1 / math.Sqrt(ss/float64(C)+eps))
			rstd[r] = s
			o := out[r*C : (r+1)*C]
			for c, v := range x {
				o[c] = v * s * w[c]
			}
		}
	})
}

// RMSNormBackward adds the gradients of RMSNorm to din and dw.
// With xhat = x·s: dx = s·(g − xhat·mean(g·xhat)), g = dout·w.
func RMSNormBackward[F Float](din, dw, dout, in, w, rstd []F, rows, C int) {
	parallelFor(rows, 16, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			x := in[r*C : (r+1)*C]
			d := dout[r*C : (r+1)*C]
			s := rstd[r]
			var dot float64
			for c := range x {
				dot += float64(d[c]) * float64(w[c]) * float64(x[c]*s)
			}
			m := F(dot / float64(C))
			di := din[r*C : (r+1)*C]
			for c := range x {
				di[c] += s * (d[c]*w[c] - x[c]*s*m)
			}
		}
	})
	parallelFor(C, 16, func(lo, hi int) {
		for r := 0; r < rows; r++ {
			x := in[r*C:]
			d := dout[r*C:]
			s := rstd[r]
			for c := lo; c < hi; c++ {
				dw[c] += d[c] * x[c] * s
			}
		}
	})
}

// ropeInvFreq returns the Hugging Face inverse frequencies theta^(-2i/D),
// i < D/2.
func ropeInvFreq(D int, theta float64) []float64 {
	inv := make([]float64, D/2)
	for i := range inv {
		inv[i] = 1 / math.Pow(theta, float64(2*i)/float64(D))
	}
	return inv
}

// ropeAngles fills cos and sin (D/2 each) for one position.
func ropeAngles[F Float](cos, sin []F, pos int32, invFreq []float64) {
	for i, f := range invFreq {
		a := float64(pos) * f
		cos[i] = F(math.Cos(a))
		sin[i] = F(math.Sin(a))
	}
}

// RoPE rotates x (N×H×D) in place by its position, in the rotate-half layout
// Hugging Face uses: pairs are (i, i+D/2), not adjacent elements.
// When inverse is set it applies the transpose rotation, which is the
// backward pass (the rotation is orthogonal).
func RoPE[F Float](x []F, pos []int32, H, D int, theta float64, inverse bool) {
	half := D / 2
	invFreq := ropeInvFreq(D, theta)
	parallelFor(len(pos), 8, func(lo, hi int) {
		cos := make([]F, half)
		sin := make([]F, half)
		for n := lo; n < hi; n++ {
			ropeAngles(cos, sin, pos[n], invFreq)
			for h := 0; h < H; h++ {
				v := x[(n*H+h)*D : (n*H+h+1)*D]
				for i := 0; i < half; i++ {
					x1, x2 := v[i], v[i+half]
					c, s := cos[i], sin[i]
					if inverse {
						s = -s
					}
					v[i] = x1*c - x2*s
					v[i+half] = x2*c + x1*s
				}
			}
		}
	})
}

// AttnShape describes a packed batch for attention: B sequences of T
// positions, H query heads sharing KV key/value heads (GQA), head size D.
type AttnShape struct{ B, T, H, KV, D int }

// attends reports whether position t may attend to position s of the same
// row: causal, and only inside its own segment (packed samples never see
// each other).
func attends(seg []int32, s, t int) bool { return s <= t && seg[s] == seg[t] }

// Attention computes causal softmax attention within segments. q is N×H×D,
// k and v are N×KV×D, out is N×H×D. Instead of the T×T probabilities it
// keeps, for the backward pass, the log-sum-exp of each query row's scaled
// scores in lse (B×H×T): the backward pass recomputes the probabilities as
// exp(score − lse), so memory grows with T, not T².
func Attention[F Float](out, lse, q, k, v []F, seg []int32, sh AttnShape) {
	B, T, H, KV, D := sh.B, sh.T, sh.H, sh.KV, sh.D
	group := H / KV
	scale := 1 / math.Sqrt(float64(D))
	parallelFor(B*H, 1, func(lo, hi int) {
		score := make([]float64, T)
		for bh := lo; bh < hi; bh++ {
			b, h := bh/H, bh%H
			kh := h / group
			sg := seg[b*T : (b+1)*T]
			for t := 0; t < T; t++ {
				nt := b*T + t
				qv := q[(nt*H+h)*D : (nt*H+h+1)*D]
				maxv := math.Inf(-1)
				for s := 0; s <= t; s++ {
					if !attends(sg, s, t) {
						continue
					}
					ns := b*T + s
					kv := k[(ns*KV+kh)*D : (ns*KV+kh+1)*D]
					var dot float64
					for i := range D {
						dot += float64(qv[i]) * float64(kv[i])
					}
					score[s] = dot * scale
					maxv = max(maxv, score[s])
				}
				var sum float64
				for s := 0; s <= t; s++ {
					if attends(sg, s, t) {
						score[s] = math.Exp(score[s] - maxv)
						sum += score[s]
					}
				}
				lse[bh*T+t] = F(maxv + math.Log(sum))
				o := out[(nt*H+h)*D : (nt*H+h+1)*D]
				clear(o)
				for s := 0; s <= t; s++ {
					if !attends(sg, s, t) {
						continue
					}
					p := F(score[s] / sum)
					ns := b*T + s
					vv := v[(ns*KV+kh)*D : (ns*KV+kh+1)*D]
					for i := range D {
						o[i] += p * vv[i]
					}
				}
			}
		}
	})
}

// AttentionBackward adds the gradients of Attention to dq, dk and dv, given
// the forward's out and lse. With P = exp(S − lse) recomputed, dP = dO·Vᵀ
// and Σₛ P·dP = dO·O, the score gradient is dS = P·(dP − dO·O)·scale. Work
// is split over (batch, KV head) so the query heads that share a KV head
// never write the same dk/dv rows concurrently.
func AttentionBackward[F Float](dq, dk, dv, dout, out, lse, q, k, v []F, seg []int32, sh AttnShape) {
	B, T, H, KV, D := sh.B, sh.T, sh.H, sh.KV, sh.D
	group := H / KV
	scale := 1 / math.Sqrt(float64(D))
	parallelFor(B*KV, 1, func(lo, hi int) {
		for bk := lo; bk < hi; bk++ {
			b, kh := bk/KV, bk%KV
			sg := seg[b*T : (b+1)*T]
			for h := kh * group; h < (kh+1)*group; h++ {
				bh := b*H + h
				for t := 0; t < T; t++ {
					nt := b*T + t
					qv := q[(nt*H+h)*D : (nt*H+h+1)*D]
					dqv := dq[(nt*H+h)*D : (nt*H+h+1)*D]
					do := dout[(nt*H+h)*D : (nt*H+h+1)*D]
					ov := out[(nt*H+h)*D : (nt*H+h+1)*D]
					var dsum float64
					for i := range D {
						dsum += float64(do[i]) * float64(ov[i])
					}
					l := float64(lse[bh*T+t])
					for s := 0; s <= t; s++ {
						if !attends(sg, s, t) {
							continue
						}
						ns := b*T + s
						kv := k[(ns*KV+kh)*D : (ns*KV+kh+1)*D]
						vv := v[(ns*KV+kh)*D : (ns*KV+kh+1)*D]
						var dot, dp float64
						for i := range D {
							dot += float64(qv[i]) * float64(kv[i])
							dp += float64(do[i]) * float64(vv[i])
						}
						p := math.Exp(dot*scale - l)
						ds := F(p * (dp - dsum) * scale)
						dkv := dk[(ns*KV+kh)*D : (ns*KV+kh+1)*D]
						dvv := dv[(ns*KV+kh)*D : (ns*KV+kh+1)*D]
						for i := range D {
							dvv[i] += F(p) * do[i]
							dqv[i] += ds * kv[i]
							dkv[i] += ds * qv[i]
						}
					}
				}
			}
		}
	})
}

// ScatterRows writes each row of src (N×C, N = len(idx)) into row idx[n]
// of dst: dst[idx[n]] = src[n]. It is the inverse of Embedding's gather;
// inference uses it to put the K and V rows of new tokens into their KV
// cache slots. The indices must be distinct (rows are written in parallel)
// and inside dst; src rows are not modified.
func ScatterRows[F Float](dst, src []F, idx []int32, C int) {
	parallelFor(len(idx), 64, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			r := int(idx[n])
			copy(dst[r*C:(r+1)*C], src[n*C:(n+1)*C])
		}
	})
}

// PagedShape describes attention over a paged KV cache.
//
// The cache of one layer is two buffers, kCache and vCache, each
// NumBlocks·BlockSize rows of KV·D floats (row r holds the KV heads of one
// token, head-major as in the k and v projections). A sequence's tokens live
// in blocks of BlockSize consecutive rows that need not be adjacent:
// row i of blockTable (S×MaxBlocks, S sequences) lists the blocks of
// sequence i in order, so the token at position j of sequence i is cache row
//
//	blockTable[i·MaxBlocks + j/BlockSize]·BlockSize + j%BlockSize.
//
// Entries past a sequence's last block are never read.
type PagedShape struct{ H, KV, D, BlockSize, MaxBlocks int }

// CacheRow returns the cache row of position j of sequence i (see PagedShape).
func (sh PagedShape) CacheRow(blockTable []int32, i, j int) int {
	return int(blockTable[i*sh.MaxBlocks+j/sh.BlockSize])*sh.BlockSize + j%sh.BlockSize
}

// PagedAttention is causal softmax attention of N new query rows over the
// KV cache, for prefill and decode alike. q and out are N×H×D (N =
// len(pos)). Query row n belongs to sequence seq[n] (a row of blockTable)
// and sits at position pos[n]; it attends to positions 0..pos[n] of its
// sequence, all of which must already be in the cache (ScatterRows the new
// rows' K and V first). Scores are scaled by 1/√D and query head h reads KV
// head h/(H/KV). Rows of different sequences, of any lengths, may be mixed
// in one call. There is no backward: it is for inference only.
func PagedAttention[F Float](out, q, kCache, vCache []F, blockTable, seq, pos []int32, sh PagedShape) {
	H, KV, D := sh.H, sh.KV, sh.D
	group := H / KV
	scale := 1 / math.Sqrt(float64(D))
	parallelFor(len(pos)*H, 1, func(lo, hi int) {
		var score []float64
		for nh := lo; nh < hi; nh++ {
			n, h := nh/H, nh%H
			kh := h / group
			ctx := int(pos[n]) + 1
			score = append(score[:0], make([]float64, ctx)...)
			qv := q[(n*H+h)*D : (n*H+h+1)*D]
			maxv := math.Inf(-1)
			for j := range ctx {
				r := sh.CacheRow(blockTable, int(seq[n]), j)
				kv := kCache[(r*KV+kh)*D : (r*KV+kh+1)*D]
				var dot float64
				for i := range D {
					dot += float64(qv[i]) * float64(kv[i])
				}
				score[j] = dot * scale
				maxv = max(maxv, score[j])
			}
			var sum float64
			for j := range score {
				score[j] = math.Exp(score[j] - maxv)
				sum += score[j]
			}
			acc := make([]float64, D)
			for j := range ctx {
				r := sh.CacheRow(blockTable, int(seq[n]), j)
				vv := vCache[(r*KV+kh)*D : (r*KV+kh+1)*D]
				p := score[j] / sum
				for i := range D {
					acc[i] += p * float64(vv[i])
				}
			}
			o := out[(n*H+h)*D : (n*H+h+1)*D]
			for i := range D {
				o[i] = F(acc[i])
			}
		}
	})
}

// SwiGLU computes out = silu(gate) * up elementwise.
func SwiGLU[F Float](out, gate, up []F) {
	parallelFor(len(out), 4096, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			g := float64(gate[i])
			out[i] = F(g/(1+math.Exp(-g))) * up[i]
		}
	})
}

// SwiGLUBackward adds the gradients of SwiGLU to dgate and dup.
func SwiGLUBackward[F Float](dgate, dup, dout, gate, up []F) {
	parallelFor(len(dout), 4096, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			g := float64(gate[i])
			sig := 1 / (1 + math.Exp(-g))
			silu := g * sig
			dsilu := sig * (1 + g*(1-sig))
			dgate[i] += F(float64(dout[i]) * float64(up[i]) * dsilu)
			dup[i] += F(float64(dout[i]) * silu)
		}
	})
}

// Add does dst += src elementwise (the residual connection and its backward).
func Add[F Float](dst, src []F) {
	parallelFor(len(dst), 8192, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] += src[i]
		}
	})
}

// CrossEntropy computes, for each row of logits (N×V) scaled by s, the loss
// −log softmax(s·logits)[target] into losses, and overwrites logits with the
// gradient of Σ weights[n]·loss[n] with respect to the unscaled logits:
// s·(softmax(s·logits) − onehot(target))·weights[n]. Rows with weight 0 get
// loss 0 and zero gradient. It returns Σ w·loss. The scale is 1 for plain
// cross-entropy; s = 1/T gives the distribution a sampler at temperature T
// draws from, which reinforcement learning trains on.
func CrossEntropy[F Float](losses, logits []F, targets []int32, weights []F, V int, s float64) float64 {
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
			maxv := math.Inf(-1)
			for _, x := range row {
				maxv = max(maxv, s*float64(x))
			}
			tgt := int(targets[n])
			xt := s * float64(row[tgt])
			// One exponential per logit: keep exp(s·x−max) in the row, then scale.
			var sum float64
			for i, x := range row {
				e := math.Exp(s*float64(x) - maxv)
				row[i] = F(e)
				sum += e
			}
			losses[n] = F(math.Log(sum) + maxv - xt)
			scale := s * float64(w) / sum
			for i, e := range row {
				row[i] = F(float64(e) * scale)
			}
			row[tgt] -= F(s * float64(w))
		}
	})
	var total float64
	for n := range N {
		total += float64(weights[n]) * float64(losses[n])
	}
	return total
}

// SumSquares returns Σ x² accumulated in float64 (for the global gradient
// norm). Partial sums over fixed 64K-element chunks are added in chunk
// order, so the result does not depend on the number of cores.
func SumSquares[F Float](x []F) float64 {
	const chunk = 1 << 16
	partial := make([]float64, (len(x)+chunk-1)/chunk)
	parallelFor(len(partial), 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			var s float64
			for _, v := range x[c*chunk : min((c+1)*chunk, len(x))] {
				s += float64(v) * float64(v)
			}
			partial[c] = s
		}
	})
	var total float64
	for _, s := range partial {
		total += s
	}
	return total
}

// AdamWParams are the hyperparameters of one AdamW update.
type AdamWParams struct {
	LR, Beta1, Beta2, Eps, WeightDecay float64
	Step                               int     // 1-based, for bias correction
	GradScale                          float64 // multiplies the gradient first (clipping)
}

// AdamW updates params in place from grads, keeping the first and second
// moments in m and v (decoupled weight decay, bias-corrected moments).
func AdamW[F Float](params, grads, m, v []F, p AdamWParams) {
	bc1 := 1 - math.Pow(p.Beta1, float64(p.Step))
	bc2 := 1 - math.Pow(p.Beta2, float64(p.Step))
	parallelFor(len(params), 8192, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			g := float64(grads[i]) * p.GradScale
			mi := p.Beta1*float64(m[i]) + (1-p.Beta1)*g
			vi := p.Beta2*float64(v[i]) + (1-p.Beta2)*g*g
			m[i], v[i] = F(mi), F(vi)
			x := float64(params[i])
			x -= p.LR * ((mi/bc1)/(math.Sqrt(vi/bc2)+p.Eps) + p.WeightDecay*x)
			params[i] = F(x)
		}
	})
}

// MaxSampleTopK bounds SampleParams.TopK.
const MaxSampleTopK = 64

// SampleParams say what SampleRows computes for one row of logits.
type SampleParams struct {
	// InvTemp is 1/temperature, or 0 for greedy decoding.
	InvTemp float32
	// Walk draws a token: with m the row's maximum, the first id at which
	// U·Σexp(x·InvTemp − m·InvTemp) minus the running sum of the same terms,
	// in id order, reaches 0 (the last id if rounding leaves some over).
	Walk bool
	U    float64 // uniform in [0, 1), for Walk
	// TopK lists that many largest logits (at most MaxSampleTopK and V).
	TopK int
	// Logprobs asks for SumExp (SumExpTemp is computed whenever InvTemp > 0).
	Logprobs bool
}

// SampleResult is what SampleRows found in one row.
type SampleResult struct {
	ID    int32   // the drawn id when Walk, else the argmax (the lowest id among equal maxima)
	Logit float32 // the row's logit of ID
	Max   float32 // the row's largest logit
	// SumExp is Σexp(x − Max) (with Logprobs) and SumExpTemp is
	// Σexp(x·InvTemp − Max·InvTemp) (with InvTemp > 0), in float64: the
	// log-sum-exps are Max + log SumExp and Max·InvTemp + log SumExpTemp.
	SumExp, SumExpTemp float64
	Top                []TokenLogit // the TopK largest logits, largest first, lower id first on ties
}

// TokenLogit is a token id and its logit.
type TokenLogit struct {
	ID    int32
	Logit float32
}

// LSE is the log-sum-exp of the row (with Logprobs).
func (r SampleResult) LSE() float64 { return float64(r.Max) + math.Log(r.SumExp) }

// LSETemp is the log-sum-exp of the row times invTemp (invTemp > 0).
func (r SampleResult) LSETemp(invTemp float32) float64 {
	return float64(float32(r.Max*invTemp)) + math.Log(r.SumExpTemp)
}

// SampleRows is the reference of RowSampler.SampleRows over rows of
// logits on the host (len(params) rows of V): the CPU path of inference
// uses it, and a GPU's kernel must choose the same ids. Every sum runs in
// id order in float64; the products x·InvTemp are float32.
func SampleRows(out []SampleResult, logits []float32, V int, params []SampleParams) {
	for r, p := range params {
		row := logits[r*V : (r+1)*V]
		res := SampleResult{ID: 0}
		for i, x := range row {
			if x > row[res.ID] {
				res.ID = int32(i)
			}
		}
		m := row[res.ID]
		res.Max = m
		if p.Logprobs {
			for _, x := range row {
				res.SumExp += math.Exp(float64(x - m))
			}
		}
		if inv := p.InvTemp; inv > 0 {
			// float32(x*inv): rounded on its own, never fused into the
			// subtraction (the GPU's kernel rounds the same way).
			mT := float32(m * inv)
			for _, x := range row {
				res.SumExpTemp += math.Exp(float64(float32(x*inv) - mT))
			}
			if p.Walk {
				u := p.U * res.SumExpTemp
				res.ID = int32(V - 1)
				for i, x := range row {
					u -= math.Exp(float64(float32(x*inv) - mT))
					if u <= 0 {
						res.ID = int32(i)
						break
					}
				}
			}
		}
		res.Logit = row[res.ID]
		res.Top = TopLogits(row, p.TopK)
		out[r] = res
	}
}

// TopLogits returns the k largest logits of row, largest first, lower id
// first on ties, in O(V log k).
func TopLogits(row []float32, k int) []TokenLogit {
	k = min(k, len(row))
	if k <= 0 {
		return nil
	}
	// A min-heap of the k best seen, worst on top.
	worse := func(a, b TokenLogit) bool { return a.Logit < b.Logit || a.Logit == b.Logit && a.ID > b.ID }
	h := make([]TokenLogit, 0, k)
	down := func(i int) {
		for {
			l, s := 2*i+1, i
			if l < len(h) && worse(h[l], h[s]) {
				s = l
			}
			if r := l + 1; r < len(h) && worse(h[r], h[s]) {
				s = r
			}
			if s == i {
				return
			}
			h[i], h[s] = h[s], h[i]
			i = s
		}
	}
	for i, x := range row {
		c := TokenLogit{int32(i), x}
		if len(h) < k {
			h = append(h, c)
			for j := len(h) - 1; j > 0 && worse(h[j], h[(j-1)/2]); j = (j - 1) / 2 {
				h[j], h[(j-1)/2] = h[(j-1)/2], h[j]
			}
		} else if worse(h[0], c) {
			h[0] = c
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b TokenLogit) int {
		switch {
		case worse(b, a):
			return -1
		case worse(a, b):
			return 1
		}
		return 0
	})
	return h
}
