package backend

// F32 is the CPU backend's Buffer: a plain slice in host memory.
type F32 []float32

// Len returns the number of elements.
func (b F32) Len() int { return len(b) }

// I32 is the CPU backend's Ints.
type I32 []int32

// Len returns the number of elements.
func (b I32) Len() int { return len(b) }

// CPU runs the model on the host: the kernels of ops.go in float32 over all
// cores (GOMAXPROCS), and SGEMMs with AVX-512 or AVX2+FMA kernels.
type CPU struct {
	// BatchInvariant computes every row of x·Wᵀ the same way whatever the
	// number of rows (the inner-product path of sgemm_skinny.go at every
	// size), so a sequence's logits do not depend on the batch it decodes
	// in or on how much of its prompt the prefix cache supplied: seeded
	// sampling then reproduces under continuous batching. Inference wants
	// it (see ForInference); training leaves it off, since at hundreds of
	// rows the packed path is about twice as fast.
	BatchInvariant bool
}

// ForInference returns be set up for inference: the CPU backend batch
// invariant, any other backend as it is.
func ForInference(be Backend) Backend {
	if c, ok := be.(CPU); ok {
		c.BatchInvariant = true
		return c
	}
	return be
}

var _ Backend = CPU{}

// Name reports "cpu".
func (CPU) Name() string { return "cpu" }

func f(b Buffer) []float32 { return b.(F32) }
func ints(b Ints) []int32  { return b.(I32) }

func (CPU) Alloc(n int) Buffer                 { return make(F32, n) }
func (CPU) AllocInts(n int) Ints               { return make(I32, n) }
func (CPU) Slice(b Buffer, off, n int) Buffer  { return b.(F32)[off : off+n : off+n] }
func (CPU) SliceInts(b Ints, off, n int) Ints  { return b.(I32)[off : off+n : off+n] }
func (CPU) Upload(dst Buffer, src []float32)   { copy(f(dst), src) }
func (CPU) UploadInts(dst Ints, src []int32)   { copy(ints(dst), src) }
func (CPU) Download(dst []float32, src Buffer) { copy(dst, f(src)) }
func (CPU) Copy(dst, src Buffer)               { copy(f(dst), f(src)) }
func (CPU) Zero(b Buffer) {
	// The gradients of a 0.6B model are 2.4 GB: one core alone clears them
	// in about a quarter of a second.
	x := f(b)
	parallelFor(len(x), 1<<20, func(lo, hi int) { clear(x[lo:hi]) })
}
func (CPU) SumSquares(x Buffer) float64 { return SumSquares(f(x)) }
func (CPU) Add(dst, src Buffer)         { Add(f(dst), f(src)) }
func (CPU) SwiGLU(out, gate, up Buffer) { swigluF32(f(out), f(gate), f(up)) }
func (CPU) Embedding(out, table Buffer, ids Ints, C int) {
	Embedding(f(out), f(table), ints(ids), C)
}

// MatMul runs the SGEMM of sgemm.go (row-major, so no transposition tricks
// are needed).
func (cpu CPU) MatMul(c, a, b Buffer, m, n, k int, transA, transB bool, beta float32) {
	lda, ldb := k, n
	if transA {
		lda = m
	}
	if transB {
		ldb = k
	}
	if cpu.BatchInvariant && !transA && transB {
		sgemmSkinnyNT(m, n, k, f(a), lda, f(b), ldb, beta, f(c), n)
		return
	}
	sgemm(transA, transB, m, n, k, f(a), lda, f(b), ldb, beta, f(c), n)
}

func (CPU) EmbeddingBackward(dtable, dout Buffer, ids Ints, C int) {
	EmbeddingBackward(f(dtable), f(dout), ints(ids), C)
}

func (CPU) RMSNorm(out, rstd, in, w Buffer, rows, C int, eps float64) {
	RMSNorm(f(out), f(rstd), f(in), f(w), rows, C, eps)
}

func (CPU) RMSNormBackward(din, dw, dout, in, w, rstd Buffer, rows, C int) {
	RMSNormBackward(f(din), f(dw), f(dout), f(in), f(w), f(rstd), rows, C)
}

func (CPU) RoPE(x Buffer, pos Ints, H, D int, theta float64, inverse bool) {
	RoPE(f(x), ints(pos), H, D, theta, inverse)
}

func (CPU) Attention(out, lse, q, k, v Buffer, seg Ints, sh AttnShape) {
	attentionF32(f(out), f(lse), f(q), f(k), f(v), ints(seg), sh)
}

func (CPU) AttentionBackward(dq, dk, dv, dout, out, lse, q, k, v Buffer, seg Ints, sh AttnShape) {
	attentionBackwardF32(f(dq), f(dk), f(dv), f(dout), f(out), f(lse), f(q), f(k), f(v), ints(seg), sh)
}

func (CPU) SwiGLUBackward(dgate, dup, dout, gate, up Buffer) {
	swigluBackwardF32(f(dgate), f(dup), f(dout), f(gate), f(up))
}

func (CPU) CrossEntropy(losses, logits Buffer, targets Ints, weights Buffer, V int, scale float32) float64 {
	return crossEntropyF32(f(losses), f(logits), ints(targets), f(weights), V, scale)
}

func (CPU) AdamW(params, grads, m, v Buffer, p AdamWParams) {
	AdamW(f(params), f(grads), f(m), f(v), p)
}

func (CPU) ScatterRows(dst, src Buffer, idx Ints, C int) {
	ScatterRows(f(dst), f(src), ints(idx), C)
}

func (CPU) PagedAttention(out, q, kCache, vCache Buffer, blockTable, seq, pos Ints, sh PagedShape) {
	pagedAttentionF32(f(out), f(q), f(kCache), f(vCache), ints(blockTable), ints(seq), ints(pos), sh)
}
