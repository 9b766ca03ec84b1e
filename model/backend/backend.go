// Package backend is the seam between the model and the hardware it runs on.
//
// The model holds its parameters, gradients and activations in Buffers owned
// by a Backend and calls only the operations below; it never touches the
// memory itself. ops.go holds the reference kernels (plain loops, generic
// over float32/float64, each backward checked by finite differences); the
// CPU backend runs them in float32 over all cores, except matrix products
// and attention, which go through the packed SGEMM of sgemm.go (checked
// against the loops). A GPU backend implements the same interface with
// device memory and kernels, and the model code does not change.
//
// The interface holds exactly what the Qwen3 forward, backward and AdamW step
// need, plus the two operations of inference over a paged KV cache
// (ScatterRows and PagedAttention), nothing speculative.
package backend

// RowSampler is implemented by backends whose memory is not the host's (a
// GPU): SampleRows reduces each row of next-token logits to what choosing
// the token needs (see SampleParams), so an inference step hands a few
// numbers per row to the host instead of the whole vocabulary. The
// contract and its reference implementation are SampleRows in ops.go.
type RowSampler interface {
	SampleRows(out []SampleResult, logits Buffer, V int, params []SampleParams)
}

// ProductOperands is implemented by backends whose matrix products and
// attention read their operands in a reduced precision (bf16 on a GPU) and
// can keep a buffer in that form alone, giving its float32 storage back:
// KeepForProducts(b) promises that until b is next written it is read only
// as an operand of MatMul, or as q, k or v of Attention and
// AttentionBackward. Products then compute exactly what they would have.
// Any other read still works but sees the rounded values.
type ProductOperands interface {
	KeepForProducts(bufs ...Buffer)
}

// Buffer is a float32 array in a backend's memory.
type Buffer interface{ Len() int }

// Ints is an int32 array in a backend's memory (token ids, positions, segments).
type Ints interface{ Len() int }

// Backend allocates memory and runs the model's operations. All operations
// are synchronous from the caller's point of view. Shapes are row-major; see
// ops.go for each operation's exact contract (backward operations add into
// their outputs).
type Backend interface {
	Name() string

	// Memory.
	Alloc(n int) Buffer // zeroed
	AllocInts(n int) Ints
	Slice(b Buffer, off, n int) Buffer // a view sharing memory
	SliceInts(b Ints, off, n int) Ints
	Upload(dst Buffer, src []float32)
	UploadInts(dst Ints, src []int32)
	Download(dst []float32, src Buffer)
	Copy(dst, src Buffer)
	Zero(b Buffer)

	// MatMul computes c = a·b + beta·c (m×n result, inner size k), with a
	// and/or b read transposed.
	MatMul(c, a, b Buffer, m, n, k int, transA, transB bool, beta float32)

	Embedding(out, table Buffer, ids Ints, C int)
	EmbeddingBackward(dtable, dout Buffer, ids Ints, C int)
	RMSNorm(out, rstd, in, w Buffer, rows, C int, eps float64)
	RMSNormBackward(din, dw, dout, in, w, rstd Buffer, rows, C int)
	RoPE(x Buffer, pos Ints, H, D int, theta float64, inverse bool)
	Attention(out, lse, q, k, v Buffer, seg Ints, sh AttnShape)
	AttentionBackward(dq, dk, dv, dout, out, lse, q, k, v Buffer, seg Ints, sh AttnShape)
	SwiGLU(out, gate, up Buffer)
	SwiGLUBackward(dgate, dup, dout, gate, up Buffer)
	Add(dst, src Buffer)
	// Inference over a paged KV cache (see PagedShape): ScatterRows writes
	// the new tokens' K and V rows into their cache slots, PagedAttention
	// lets each new token attend to its sequence's cached rows.
	ScatterRows(dst, src Buffer, idx Ints, C int)
	PagedAttention(out, q, kCache, vCache Buffer, blockTable, seq, pos Ints, sh PagedShape)
	// CrossEntropy of scale·logits returns Σ weights·loss and leaves the
	// loss gradient in logits.
	CrossEntropy(losses, logits Buffer, targets Ints, weights Buffer, V int, scale float32) float64

	// Optimizer support.
	SumSquares(x Buffer) float64
	AdamW(params, grads, m, v Buffer, p AdamWParams)
}
