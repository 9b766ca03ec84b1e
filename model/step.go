package model

import (
	"context"
	"fmt"

	"github.com/rlm-project/rlm/model/backend"
)

// KVCache is the paged key/value memory of inference: for every layer, a K
// and a V buffer of NumBlocks·BlockSize rows of KV·D floats (the layout of
// backend.PagedShape). Which blocks belong to which sequence is the
// caller's business (see package inference); the model only reads and
// writes the rows a Step names.
type KVCache struct {
	K, V                 []backend.Buffer
	NumBlocks, BlockSize int
}

// KVBytesPerToken is the cache memory one token takes: K and V rows of
// every layer, in float32.
func (c Config) KVBytesPerToken() int {
	return 2 * c.NumHiddenLayers * c.NumKeyValueHeads * c.HeadDim * 4
}

// NewKVCache allocates a cache of numBlocks blocks of blockSize tokens on
// the model's backend.
func (m *Model) NewKVCache(numBlocks, blockSize int) (*KVCache, error) {
	if numBlocks <= 0 || blockSize <= 0 {
		return nil, fmt.Errorf("kv cache: %d blocks of %d tokens", numBlocks, blockSize)
	}
	rows := numBlocks * blockSize * m.Cfg.NumKeyValueHeads * m.Cfg.HeadDim
	c := &KVCache{NumBlocks: numBlocks, BlockSize: blockSize}
	for range m.Cfg.NumHiddenLayers {
		c.K = append(c.K, m.be.Alloc(rows))
		c.V = append(c.V, m.be.Alloc(rows))
	}
	return c, nil
}

// Step is one forward step of inference: N new tokens, from any number of
// sequences, each appended to its sequence's cached tokens. A decode step
// has one token per running sequence; a prefill chunk has many tokens of
// one sequence; one Step may mix both.
type Step struct {
	IDs []int32 // the N new tokens
	Pos []int32 // their positions in their sequences
	Seq []int32 // the row of BlockTable each token belongs to
	// Slots are the cache rows where the tokens' K and V go:
	// BlockTable[Seq[n]·MaxBlocks + Pos[n]/BlockSize]·BlockSize + Pos[n]%BlockSize.
	Slots      []int32
	BlockTable []int32 // S×MaxBlocks block ids (see backend.PagedShape)
	MaxBlocks  int
	// Logits lists the tokens (indices into IDs) whose next-token logits
	// ForwardStep returns, in this order: the last token of each sequence
	// that samples after this step.
	Logits []int32
}

func (s *Step) validate(cfg Config, kv *KVCache) error {
	n := len(s.IDs)
	if n == 0 || len(s.Pos) != n || len(s.Seq) != n || len(s.Slots) != n {
		return fmt.Errorf("step: ids/pos/seq/slots lengths %d/%d/%d/%d", n, len(s.Pos), len(s.Seq), len(s.Slots))
	}
	if s.MaxBlocks <= 0 || len(s.BlockTable)%s.MaxBlocks != 0 {
		return fmt.Errorf("step: block table of %d entries is not rows of %d", len(s.BlockTable), s.MaxBlocks)
	}
	rows := len(s.BlockTable) / s.MaxBlocks
	for _, b := range s.BlockTable {
		if b < 0 || int(b) >= kv.NumBlocks {
			return fmt.Errorf("step: block %d outside the cache of %d", b, kv.NumBlocks)
		}
	}
	for i := range n {
		if s.IDs[i] < 0 || int(s.IDs[i]) >= cfg.VocabSize {
			return fmt.Errorf("step: token id %d outside vocabulary of %d", s.IDs[i], cfg.VocabSize)
		}
		if s.Seq[i] < 0 || int(s.Seq[i]) >= rows {
			return fmt.Errorf("step: sequence %d outside the block table of %d rows", s.Seq[i], rows)
		}
		if s.Pos[i] < 0 || int(s.Pos[i]) >= s.MaxBlocks*kv.BlockSize {
			return fmt.Errorf("step: position %d outside %d blocks of %d", s.Pos[i], s.MaxBlocks, kv.BlockSize)
		}
		want := int(s.BlockTable[int(s.Seq[i])*s.MaxBlocks+int(s.Pos[i])/kv.BlockSize])*kv.BlockSize + int(s.Pos[i])%kv.BlockSize
		if int(s.Slots[i]) != want {
			return fmt.Errorf("step: token %d has slot %d, its block table says %d", i, s.Slots[i], want)
		}
	}
	for _, r := range s.Logits {
		if r < 0 || int(r) >= n {
			return fmt.Errorf("step: logits of token %d outside the step of %d", r, n)
		}
	}
	return nil
}

// stepActs are the buffers of inference steps, for up to capN tokens and
// capS logits rows. Nothing is kept for a backward pass, so every layer
// reuses one set; x and xOutNext swap between layers.
type stepActs struct {
	capN, capL, capB              int
	ids, pos, seq, slots, lrows   backend.Ints
	blockTable                    backend.Ints
	x, ln1, rstd1, qRaw, kRaw     backend.Buffer
	q, k, v, qRstd, kRstd, atty   backend.Buffer
	xMid, ln2, rstd2, gate, up, h backend.Buffer
	xOut, lnf, rstdf, last, logit backend.Buffer
}

func (m *Model) ensureStepActs(N, L, B int) *stepActs {
	a := m.stepActs
	if a != nil && a.capN >= N && a.capL >= L && a.capB >= B {
		return a
	}
	m.stepActs = nil
	if a != nil { // grow geometrically so a slowly growing batch reallocates rarely
		N, L, B = max(N, 2*a.capN), max(L, 2*a.capL), max(B, 2*a.capB)
	}
	L = max(L, 1)
	cfg, be := m.Cfg, m.be
	C, F, V, H, KV, D := cfg.HiddenSize, cfg.IntermediateSize, cfg.VocabSize, cfg.NumAttentionHeads, cfg.NumKeyValueHeads, cfg.HeadDim
	a = &stepActs{capN: N, capL: L, capB: B}
	a.ids, a.pos, a.seq, a.slots, a.lrows = be.AllocInts(N), be.AllocInts(N), be.AllocInts(N), be.AllocInts(N), be.AllocInts(L)
	a.blockTable = be.AllocInts(B)
	a.x, a.ln1, a.rstd1 = be.Alloc(N*C), be.Alloc(N*C), be.Alloc(N)
	a.qRaw, a.kRaw = be.Alloc(N*H*D), be.Alloc(N*KV*D)
	a.q, a.k, a.v = be.Alloc(N*H*D), be.Alloc(N*KV*D), be.Alloc(N*KV*D)
	a.qRstd, a.kRstd, a.atty = be.Alloc(N*H), be.Alloc(N*KV), be.Alloc(N*H*D)
	a.xMid, a.ln2, a.rstd2 = be.Alloc(N*C), be.Alloc(N*C), be.Alloc(N)
	a.gate, a.up, a.h = be.Alloc(N*F), be.Alloc(N*F), be.Alloc(N*F)
	a.xOut, a.lnf, a.rstdf = be.Alloc(N*C), be.Alloc(N*C), be.Alloc(N)
	a.last, a.logit = be.Alloc(L*C), be.Alloc(L*V)
	m.stepActs = a
	return a
}

// ForwardStep runs one inference step: it writes the K and V of the new
// tokens into their cache slots, lets each token attend to its sequence's
// cached tokens (itself included), and writes the logits of the tokens
// listed in st.Logits into logits (len(st.Logits)×V). Each new token is
// computed exactly as the full Forward of its whole sequence would compute
// it, so decoding token by token gives the logits of one long forward.
func (m *Model) ForwardStep(ctx context.Context, kv *KVCache, st *Step, logits []float32) error {
	L, V := len(st.Logits), m.Cfg.VocabSize
	if len(logits) < L*V {
		return fmt.Errorf("step: logits buffer of %d for %d rows of %d", len(logits), L, V)
	}
	out, err := m.StepLogits(ctx, kv, st)
	if err != nil || out == nil {
		return err
	}
	m.be.Download(logits[:L*V], out)
	return nil
}

// StepLogits is ForwardStep leaving the logits where the backend keeps
// them: a buffer of len(st.Logits)×V rows (nil when st.Logits is empty),
// valid until the next step. A GPU's inference samples from it on the
// device (backend.RowSampler).
func (m *Model) StepLogits(ctx context.Context, kv *KVCache, st *Step) (backend.Buffer, error) {
	cfg, be := m.Cfg, m.be
	if len(kv.K) != cfg.NumHiddenLayers {
		return nil, fmt.Errorf("step: cache has %d layers, model %d", len(kv.K), cfg.NumHiddenLayers)
	}
	if m.lora != nil {
		return nil, fmt.Errorf("step: the model has unmerged LoRA adapters; serve base weights with the adapter merged (MergeLoRA)")
	}
	if err := st.validate(cfg, kv); err != nil {
		return nil, err
	}
	N, L, V := len(st.IDs), len(st.Logits), cfg.VocabSize
	C, H, KV, D := cfg.HiddenSize, cfg.NumAttentionHeads, cfg.NumKeyValueHeads, cfg.HeadDim
	full := m.ensureStepActs(N, L, len(st.BlockTable))
	ints := func(b backend.Ints, src []int32) backend.Ints {
		v := be.SliceInts(b, 0, len(src))
		be.UploadInts(v, src)
		return v
	}
	ids, pos, seq, slots := ints(full.ids, st.IDs), ints(full.pos, st.Pos), ints(full.seq, st.Seq), ints(full.slots, st.Slots)
	blockTable := ints(full.blockTable, st.BlockTable)
	rows := func(b backend.Buffer, n int) backend.Buffer { return be.Slice(b, 0, n) }
	la := layerActs{
		x: rows(full.x, N*C), ln1: rows(full.ln1, N*C), rstd1: rows(full.rstd1, N),
		qRaw: rows(full.qRaw, N*H*D), kRaw: rows(full.kRaw, N*KV*D),
		q: rows(full.q, N*H*D), k: rows(full.k, N*KV*D), v: rows(full.v, N*KV*D),
		qRstd: rows(full.qRstd, N*H), kRstd: rows(full.kRstd, N*KV), atty: rows(full.atty, N*H*D),
		xMid: rows(full.xMid, N*C), ln2: rows(full.ln2, N*C), rstd2: rows(full.rstd2, N),
		gate: rows(full.gate, N*cfg.IntermediateSize), up: rows(full.up, N*cfg.IntermediateSize), h: rows(full.h, N*cfg.IntermediateSize),
		xOutNext: rows(full.xOut, N*C),
	}
	sh := backend.PagedShape{H: H, KV: KV, D: D, BlockSize: kv.BlockSize, MaxBlocks: st.MaxBlocks}

	be.Embedding(la.x, m.w.embed, ids, C)
	for l := range cfg.NumHiddenLayers {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("step: %w", err)
		}
		m.attentionInputs(l, &la, pos, N)
		be.ScatterRows(kv.K[l], la.k, slots, KV*D)
		be.ScatterRows(kv.V[l], la.v, slots, KV*D)
		be.PagedAttention(la.atty, la.q, kv.K[l], kv.V[l], blockTable, seq, pos, sh)
		m.blockOutput(l, &la, N)
		la.x, la.xOutNext = la.xOutNext, la.x
	}
	if L == 0 {
		return nil, nil
	}
	// Only the rows that sample go through the final norm and the LM head.
	last := rows(full.last, L*C)
	be.Embedding(last, la.x, ints(full.lrows, st.Logits), C)
	lnf := rows(full.lnf, L*C)
	be.RMSNorm(lnf, rows(full.rstdf, L), last, m.w.norm, L, C, cfg.RMSNormEps)
	out := rows(full.logit, L*V)
	be.MatMul(out, lnf, m.w.lmHead, L, V, C, false, true, 0)
	return out, nil
}
