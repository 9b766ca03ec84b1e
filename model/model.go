package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/rlm-project/rlm/model/backend"
)

// Param is one named tensor inside the parameter buffer.
type Param struct {
	Name   string // Hugging Face name, e.g. model.layers.0.self_attn.q_proj.weight
	Shape  []int
	Offset int
}

// Size is the number of elements.
func (p Param) Size() int {
	n := 1
	for _, d := range p.Shape {
		n *= d
	}
	return n
}

// Matrix reports whether the parameter is a weight matrix (the tensors that
// get weight decay; norms do not).
func (p Param) Matrix() bool { return len(p.Shape) == 2 }

// layer holds views into the parameter (or gradient) buffer for one block.
type layer struct {
	ln1, wq, wk, wv, wo, qNorm, kNorm, ln2, wGate, wUp, wDown backend.Buffer
}

// weights is a set of views with the parameter layout, over either the
// parameters or the gradients.
type weights struct {
	embed, norm, lmHead backend.Buffer
	layers              []layer
}

// Model is a Qwen3 dense model on a backend.
type Model struct {
	Cfg    Config
	be     backend.Backend
	params []Param
	nParam int

	// Params holds every parameter, in the order of ParamList; nil in a
	// model made by NewLoRA or LoadLoRA, whose parameters each have a
	// buffer of their own (own) so the frozen base can be kept as the
	// backend's products read it (see keepFrozen).
	Params backend.Buffer
	Grads  backend.Buffer // same layout; accumulates until ZeroGrads. Allocated at the first Loss, Backward or ZeroGrads; never with LoRA (frozen base)
	w, g   weights
	own    []backend.Buffer // by index in params, when Params is nil

	acts       *activations
	checkpoint bool       // see SetCheckpointActivations
	lora       *loraState // adapters (lora.go); with them the base weights are frozen
	stepActs   *stepActs  // inference (step.go)
	lossTemp   float64    // see SetLossTemperature; 0 means 1
}

// SetLossTemperature makes Loss and TargetLogprobs work on the distribution
// softmax(logits/t) instead of softmax(logits): the one a sampler at
// temperature t draws from, which a policy trained on its own samples
// (reinforcement learning) must score them with. It is 1 until set.
func (m *Model) SetLossTemperature(t float64) error {
	if !(t > 0) || math.IsInf(t, 0) {
		return fmt.Errorf("loss temperature %g: must be positive", t)
	}
	m.lossTemp = t
	return nil
}

func (m *Model) logitScale() float32 {
	if m.lossTemp == 0 {
		return 1
	}
	return float32(1 / m.lossTemp)
}

// New allocates a model with zero parameters; call InitRandom or Load.
func New(be backend.Backend, cfg Config) (*Model, error) { return newModel(be, cfg, false) }

// NewLoRA is New and EnableLoRA(lora) for a model whose base weights will
// not train, laid out for that: each parameter has a buffer of its own
// (Params is nil), so that on a backend whose products read reduced
// operands (backend.ProductOperands: a GPU in bf16) the base's weight
// matrices are kept in that form alone: on a GPU, 2 bytes a weight
// instead of 4 plus the 2 of the copy the products read. LoadLoRA is the
// same for a checkpoint.
func NewLoRA(be backend.Backend, cfg Config, lora LoRAConfig) (*Model, error) {
	m, err := newModel(be, cfg, true)
	if err != nil {
		return nil, err
	}
	if err := m.EnableLoRA(lora); err != nil {
		return nil, err
	}
	return m, nil
}

// newModel lays out cfg's parameters in Params, or with frozen each in a
// buffer of its own.
func newModel(be backend.Backend, cfg Config, frozen bool) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Model{Cfg: cfg, be: be}
	C, F, V := cfg.HiddenSize, cfg.IntermediateSize, cfg.VocabSize
	HD, KD := cfg.NumAttentionHeads*cfg.HeadDim, cfg.NumKeyValueHeads*cfg.HeadDim
	add := func(name string, shape ...int) {
		p := Param{Name: name, Shape: shape, Offset: m.nParam}
		m.params = append(m.params, p)
		m.nParam += p.Size()
	}
	add("model.embed_tokens.weight", V, C)
	for l := range cfg.NumHiddenLayers {
		pre := fmt.Sprintf("model.layers.%d.", l)
		add(pre+"input_layernorm.weight", C)
		add(pre+"self_attn.q_proj.weight", HD, C)
		add(pre+"self_attn.k_proj.weight", KD, C)
		add(pre+"self_attn.v_proj.weight", KD, C)
		add(pre+"self_attn.o_proj.weight", C, HD)
		add(pre+"self_attn.q_norm.weight", cfg.HeadDim)
		add(pre+"self_attn.k_norm.weight", cfg.HeadDim)
		add(pre+"post_attention_layernorm.weight", C)
		add(pre+"mlp.gate_proj.weight", F, C)
		add(pre+"mlp.up_proj.weight", F, C)
		add(pre+"mlp.down_proj.weight", C, F)
	}
	add("model.norm.weight", C)
	if !cfg.TieWordEmbeddings {
		add("lm_head.weight", V, C)
	}
	if frozen {
		m.own = make([]backend.Buffer, len(m.params))
		for i, p := range m.params {
			m.own[i] = be.Alloc(p.Size())
			m.keepFrozen(i)
		}
		m.w = m.viewsOf(func(i int) backend.Buffer { return m.own[i] })
		return m, nil
	}
	m.Params = be.Alloc(m.nParam)
	m.w = m.views(m.Params)
	return m, nil
}

// param is the buffer of parameter i: a view of Params, or its own.
func (m *Model) param(i int) backend.Buffer {
	if m.Params == nil {
		return m.own[i]
	}
	p := m.params[i]
	return m.be.Slice(m.Params, p.Offset, p.Size())
}

// keepFrozen keeps parameter i of a frozen base (own buffers) in the form
// the backend's products read it, where the backend has one and only
// products read it: every weight matrix but the embedding table, which the
// embedding lookup reads as float32. Products compute what they did;
// DownloadParams then returns the matrices as products see them
// (bf16-rounded on a GPU). Each parameter is kept so as soon as it is
// written, so that a frozen base never has all its float32 storage at once.
func (m *Model) keepFrozen(i int) {
	po, ok := m.be.(backend.ProductOperands)
	if p := m.params[i]; ok && m.own != nil && p.Matrix() && p.Name != "model.embed_tokens.weight" {
		po.KeepForProducts(m.own[i])
	}
}

// ensureGrads allocates the gradient buffer on first need, so a model used
// only for inference, or with frozen base weights, never holds one. With
// LoRA on, the base weights get no gradients: the norm weights' backward,
// which always computes one, writes into small discarded buffers.
func (m *Model) ensureGrads() {
	if m.Grads != nil || m.g.norm != nil {
		return
	}
	if m.lora == nil {
		m.Grads = m.be.Alloc(m.nParam)
		m.g = m.views(m.Grads)
		return
	}
	C, D := m.Cfg.HiddenSize, m.Cfg.HeadDim
	sinkC, sinkD := m.be.Alloc(C), m.be.Alloc(D)
	m.g = weights{norm: sinkC, layers: make([]layer, m.Cfg.NumHiddenLayers)}
	for l := range m.g.layers {
		m.g.layers[l] = layer{ln1: sinkC, ln2: sinkC, qNorm: sinkD, kNorm: sinkD}
	}
}

func (m *Model) views(buf backend.Buffer) weights {
	return m.viewsOf(func(i int) backend.Buffer {
		p := m.params[i]
		return m.be.Slice(buf, p.Offset, p.Size())
	})
}

// viewsOf sets out the parameters' buffers, given by index in m.params.
func (m *Model) viewsOf(buf func(i int) backend.Buffer) weights {
	var w weights
	w.layers = make([]layer, m.Cfg.NumHiddenLayers)
	for i, p := range m.params {
		v := buf(i)
		switch {
		case p.Name == "model.embed_tokens.weight":
			w.embed = v
		case p.Name == "model.norm.weight":
			w.norm = v
		case p.Name == "lm_head.weight":
			w.lmHead = v
		default:
			var l int
			fmt.Sscanf(p.Name, "model.layers.%d.", &l)
			rest := strings.TrimPrefix(p.Name, fmt.Sprintf("model.layers.%d.", l))
			ly := &w.layers[l]
			switch rest {
			case "input_layernorm.weight":
				ly.ln1 = v
			case "self_attn.q_proj.weight":
				ly.wq = v
			case "self_attn.k_proj.weight":
				ly.wk = v
			case "self_attn.v_proj.weight":
				ly.wv = v
			case "self_attn.o_proj.weight":
				ly.wo = v
			case "self_attn.q_norm.weight":
				ly.qNorm = v
			case "self_attn.k_norm.weight":
				ly.kNorm = v
			case "post_attention_layernorm.weight":
				ly.ln2 = v
			case "mlp.gate_proj.weight":
				ly.wGate = v
			case "mlp.up_proj.weight":
				ly.wUp = v
			case "mlp.down_proj.weight":
				ly.wDown = v
			}
		}
	}
	if w.lmHead == nil {
		w.lmHead = w.embed // tied
	}
	return w
}

// Backend returns the backend the model lives on.
func (m *Model) Backend() backend.Backend { return m.be }

// ParamList lists the parameters in buffer order.
func (m *Model) ParamList() []Param { return m.params }

// NumParams is the total number of parameters.
func (m *Model) NumParams() int { return m.nParam }

// InitRandom fills matrices with N(0, std²) and norm weights with 1, the
// way transformers initializes Qwen3, from a seeded generator.
func (m *Model) InitRandom(seed uint64, std float64) {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	host := make([]float32, m.nParam)
	for _, p := range m.params {
		v := host[p.Offset : p.Offset+p.Size()]
		for i := range v {
			if p.Matrix() {
				v[i] = float32(rng.NormFloat64() * std)
			} else {
				v[i] = 1
			}
		}
	}
	if m.Params != nil {
		m.be.Upload(m.Params, host)
		return
	}
	for i, p := range m.params {
		m.be.Upload(m.own[i], host[p.Offset:p.Offset+p.Size()])
		m.keepFrozen(i)
	}
}

// ZeroGrads clears the gradients of the trainable parameters.
func (m *Model) ZeroGrads() {
	_, g, _ := m.Trainable()
	m.be.Zero(g)
}

// Batch is a packed, tokenized batch: B rows of T positions each.
type Batch struct {
	B, T    int
	IDs     []int32   // B·T input token ids
	Targets []int32   // B·T next-token targets (any valid id where Weights is 0)
	Weights []float32 // B·T loss weight per position: mask / trained tokens in the step
	Pos     []int32   // B·T position ids, restarting at 0 for each packed sample
	Seg     []int32   // B·T segment ids; attention stays inside a segment
}

// Validate checks lengths and ranges against the config.
func (b *Batch) Validate(cfg Config) error {
	n := b.B * b.T
	if b.B <= 0 || b.T <= 0 {
		return fmt.Errorf("batch: B=%d T=%d must be positive", b.B, b.T)
	}
	if len(b.IDs) != n || len(b.Pos) != n || len(b.Seg) != n {
		return fmt.Errorf("batch: ids/pos/seg lengths %d/%d/%d, want %d", len(b.IDs), len(b.Pos), len(b.Seg), n)
	}
	if b.Targets != nil && (len(b.Targets) != n || len(b.Weights) != n) {
		return fmt.Errorf("batch: targets/weights lengths %d/%d, want %d", len(b.Targets), len(b.Weights), n)
	}
	for i, id := range b.IDs {
		if id < 0 || int(id) >= cfg.VocabSize {
			return fmt.Errorf("batch: token id %d at %d outside vocabulary of %d", id, i, cfg.VocabSize)
		}
		if b.Targets != nil && (b.Targets[i] < 0 || int(b.Targets[i]) >= cfg.VocabSize) {
			return fmt.Errorf("batch: target %d at %d outside vocabulary of %d", b.Targets[i], i, cfg.VocabSize)
		}
		if b.Pos[i] < 0 {
			return fmt.Errorf("batch: negative position at %d", i)
		}
	}
	return nil
}

// layerActs are the activations one block keeps for its backward pass.
type layerActs struct {
	x          backend.Buffer // block input (residual stream), N×C
	ln1, rstd1 backend.Buffer
	qRaw, kRaw backend.Buffer // projections before q/k norm
	q, k, v    backend.Buffer // after norm and RoPE (v has neither)
	qRstd      backend.Buffer // N·H
	kRstd      backend.Buffer // N·KV
	lse        backend.Buffer // B×H×T log-sum-exp of the attention scores
	atty       backend.Buffer // attention output, N×H·D
	xMid       backend.Buffer // after the attention residual
	ln2, rstd2 backend.Buffer
	gate, up   backend.Buffer             // N×F
	h          backend.Buffer             // silu(gate)·up
	xOutNext   backend.Buffer             // block output = next block's x
	lora       [numTargets]backend.Buffer // s·in·Aᵀ of each adapted linear layer, N×r
}

type activations struct {
	B, T                         int
	ids, targets, pos, seg       backend.Ints
	weights, losses              backend.Buffer
	layers                       []layerActs
	xOut, lnf, rstdf             backend.Buffer
	head, logitRow               backend.Buffer // headRows×V logits of one chunk; one row for Logits
	dres, dln, dh, dgate, dup    backend.Buffer
	datty, dq, dk, dv, dqr, dkr  backend.Buffer
	hasTargets, lossDone, fwdRan bool
	loraTmp, loraTmp2            backend.Buffer // N×r scratch of the adapters
	checkpoint                   bool           // layers share one set of buffers; Backward recomputes them
	bytes                        int64          // everything allocated for this set
}

// SetCheckpointActivations turns activation checkpointing on or off. With it
// on, Forward keeps only each block's input (the residual stream) and one
// block's worth of buffers shared by all blocks; Backward recomputes a
// block's forward from its input just before that block's backward. Memory
// falls from about 22 floats per hidden unit per layer to about one, for
// one more forward pass per step. Gradients are the same bits either way.
func (m *Model) SetCheckpointActivations(on bool) {
	if m.checkpoint != on {
		m.checkpoint = on
		m.acts = nil
	}
}

// ActivationBytes is the memory the model's activation buffers take for its
// current batch shape (0 before the first Forward).
func (m *Model) ActivationBytes() int64 {
	if m.acts == nil {
		return 0
	}
	return m.acts.bytes
}

// ActivationBytes is the memory the activation buffers of a model with cfg
// take for B rows of T tokens, with or without checkpointing: the same
// layout the model allocates, counted instead of allocated.
func ActivationBytes(cfg Config, B, T int, checkpoint bool) int64 {
	return layoutActs(nil, cfg, nil, B, T, checkpoint).bytes
}

func (m *Model) ensureActs(B, T int) *activations {
	if a := m.acts; a != nil && a.B == B && a.T == T {
		return a
	}
	m.acts = nil // let the old set go before allocating the new one
	m.acts = layoutActs(m.be, m.Cfg, m.lora, B, T, m.checkpoint)
	return m.acts
}

// layoutActs allocates the activations of one batch shape on be, or with a
// nil be only counts their bytes.
func layoutActs(be backend.Backend, cfg Config, lora *loraState, B, T int, checkpoint bool) *activations {
	N := B * T
	C, F, V, H, KV, D := cfg.HiddenSize, cfg.IntermediateSize, cfg.VocabSize, cfg.NumAttentionHeads, cfg.NumKeyValueHeads, cfg.HeadDim
	a := &activations{B: B, T: T, checkpoint: checkpoint}
	alloc := func(n int) backend.Buffer {
		a.bytes += 4 * int64(n)
		if be == nil {
			return nil
		}
		return be.Alloc(n)
	}
	allocInts := func(n int) backend.Ints {
		a.bytes += 4 * int64(n)
		if be == nil {
			return nil
		}
		return be.AllocInts(n)
	}
	a.ids, a.targets, a.pos, a.seg = allocInts(N), allocInts(N), allocInts(N), allocInts(N)
	a.weights, a.losses = alloc(N), alloc(N)
	// inner allocates the buffers of one block between its input and output.
	inner := func(la *layerActs) {
		la.ln1, la.rstd1 = alloc(N*C), alloc(N)
		la.qRaw, la.kRaw = alloc(N*H*D), alloc(N*KV*D)
		la.q, la.k, la.v = alloc(N*H*D), alloc(N*KV*D), alloc(N*KV*D)
		la.qRstd, la.kRstd = alloc(N*H), alloc(N*KV)
		la.lse = alloc(B * H * T)
		la.atty = alloc(N * H * D)
		la.xMid = alloc(N * C)
		la.ln2, la.rstd2 = alloc(N*C), alloc(N)
		la.gate, la.up, la.h = alloc(N*F), alloc(N*F), alloc(N*F)
		for t := range numTargets {
			if lora != nil && lora.on[t] {
				la.lora[t] = alloc(N * lora.cfg.Rank)
			}
		}
	}
	if lora != nil {
		a.loraTmp, a.loraTmp2 = alloc(N*lora.cfg.Rank), alloc(N*lora.cfg.Rank)
	}
	var shared layerActs
	if checkpoint {
		inner(&shared)
	}
	a.layers = make([]layerActs, cfg.NumHiddenLayers)
	for l := range a.layers {
		la := &a.layers[l]
		if checkpoint {
			*la = shared
		} else {
			inner(la)
		}
		if l == 0 {
			la.x = alloc(N * C)
		} else {
			la.x = a.layers[l-1].xOutNext
		}
		la.xOutNext = alloc(N * C)
	}
	a.xOut = a.layers[len(a.layers)-1].xOutNext
	a.lnf, a.rstdf = alloc(N*C), alloc(N)
	a.head, a.logitRow = alloc(min(N, headRows)*V), alloc(V)
	a.dres, a.dln = alloc(N*C), alloc(N*C)
	a.dh, a.dgate, a.dup = alloc(N*F), alloc(N*F), alloc(N*F)
	a.datty, a.dq, a.dqr = alloc(N*H*D), alloc(N*H*D), alloc(N*H*D)
	a.dk, a.dv, a.dkr = alloc(N*KV*D), alloc(N*KV*D), alloc(N*KV*D)
	return a
}

// headRows bounds how many positions' logits exist at once: the LM head and
// cross-entropy run in chunks of this many rows, so memory does not grow
// with seq×vocab (151936 for Qwen3).
const headRows = 256

// Forward runs the model on a batch up to the final norm, leaving the
// hidden states for Logits, Loss and Backward. The batch's Targets and
// Weights may be nil for inference.
func (m *Model) Forward(ctx context.Context, b *Batch) error {
	if err := b.Validate(m.Cfg); err != nil {
		return err
	}
	cfg, be := m.Cfg, m.be
	a := m.ensureActs(b.B, b.T)
	a.fwdRan, a.lossDone = false, false
	N := b.B * b.T
	C, H, KV, D := cfg.HiddenSize, cfg.NumAttentionHeads, cfg.NumKeyValueHeads, cfg.HeadDim
	be.UploadInts(a.ids, b.IDs)
	be.UploadInts(a.pos, b.Pos)
	be.UploadInts(a.seg, b.Seg)
	a.hasTargets = b.Targets != nil
	if a.hasTargets {
		be.UploadInts(a.targets, b.Targets)
		be.Upload(a.weights, b.Weights)
	}
	sh := backend.AttnShape{B: b.B, T: b.T, H: H, KV: KV, D: D}

	// Activations that only products read until Backward can be kept in
	// the products' precision alone (a GPU's bf16), for a third of the
	// memory of float32 storage plus the copy. Not with checkpointing,
	// whose shared buffers are rewritten by the next block at once.
	keep := func(...backend.Buffer) {}
	if po, ok := be.(backend.ProductOperands); ok && !a.checkpoint {
		keep = po.KeepForProducts
	}
	be.Embedding(a.layers[0].x, m.w.embed, a.ids, C)
	for l := range a.layers {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("forward: %w", err)
		}
		la := &a.layers[l]
		m.attentionInputs(l, la, a.pos, N)
		keep(la.ln1)
		be.Attention(la.atty, la.lse, la.q, la.k, la.v, a.seg, sh)
		keep(la.q, la.k, la.v)
		m.blockOutput(l, la, N)
		keep(la.ln2, la.h)
	}
	be.RMSNorm(a.lnf, a.rstdf, a.xOut, m.w.norm, N, C, cfg.RMSNormEps)
	a.fwdRan = true
	return nil
}

// The forward of one block is split around its attention, which is the one
// step training (Attention within packed segments) and inference
// (PagedAttention over the KV cache) do differently; both run the code
// before and after it from here.

// attentionInputs runs the first half of block l on its N input rows la.x:
// the pre-attention norm, the q, k and v projections, the per-head q and k
// norms and RoPE at positions pos. It leaves la.q, la.k and la.v ready for
// attention.
func (m *Model) attentionInputs(l int, la *layerActs, pos backend.Ints, N int) {
	cfg, be, w := m.Cfg, m.be, &m.w.layers[l]
	C, H, KV, D, eps := cfg.HiddenSize, cfg.NumAttentionHeads, cfg.NumKeyValueHeads, cfg.HeadDim, cfg.RMSNormEps
	be.RMSNorm(la.ln1, la.rstd1, la.x, w.ln1, N, C, eps)
	m.linear(la.qRaw, la.ln1, w.wq, l, tgQ, la, N, H*D, C, 0)
	m.linear(la.kRaw, la.ln1, w.wk, l, tgK, la, N, KV*D, C, 0)
	m.linear(la.v, la.ln1, w.wv, l, tgV, la, N, KV*D, C, 0)
	be.RMSNorm(la.q, la.qRstd, la.qRaw, w.qNorm, N*H, D, eps)
	be.RMSNorm(la.k, la.kRstd, la.kRaw, w.kNorm, N*KV, D, eps)
	be.RoPE(la.q, pos, H, D, cfg.RopeTheta, false)
	be.RoPE(la.k, pos, KV, D, cfg.RopeTheta, false)
}

// blockOutput runs the second half of block l from the attention output
// la.atty: the output projection and its residual into la.xMid, then the
// SwiGLU MLP and its residual into la.xOutNext.
func (m *Model) blockOutput(l int, la *layerActs, N int) {
	cfg, be := m.Cfg, m.be
	C, F := cfg.HiddenSize, cfg.IntermediateSize
	m.mlpInputs(l, la, N)
	be.Copy(la.xOutNext, la.xMid)
	m.linear(la.xOutNext, la.h, m.w.layers[l].wDown, l, tgDown, la, N, C, F, 1)
}

// mlpInputs runs blockOutput up to the down projection: everything a
// block's backward reads. A checkpointed Backward recomputes only this far.
func (m *Model) mlpInputs(l int, la *layerActs, N int) {
	cfg, be, w := m.Cfg, m.be, &m.w.layers[l]
	C, F, HD := cfg.HiddenSize, cfg.IntermediateSize, cfg.NumAttentionHeads*cfg.HeadDim
	be.Copy(la.xMid, la.x)
	m.linear(la.xMid, la.atty, w.wo, l, tgO, la, N, C, HD, 1)
	be.RMSNorm(la.ln2, la.rstd2, la.xMid, w.ln2, N, C, cfg.RMSNormEps)
	m.linear(la.gate, la.ln2, w.wGate, l, tgGate, la, N, F, C, 0)
	m.linear(la.up, la.ln2, w.wUp, l, tgUp, la, N, F, C, 0)
	be.SwiGLU(la.h, la.gate, la.up)
}

// Logits computes the logits of position n of the last Forward into dst.
func (m *Model) Logits(n int, dst []float32) error {
	a := m.acts
	if a == nil || !a.fwdRan {
		return fmt.Errorf("logits: no forward pass to read")
	}
	if n < 0 || n >= a.B*a.T {
		return fmt.Errorf("logits: position %d outside the batch of %d", n, a.B*a.T)
	}
	C, V := m.Cfg.HiddenSize, m.Cfg.VocabSize
	m.be.MatMul(a.logitRow, m.be.Slice(a.lnf, n*C, C), m.w.lmHead, 1, V, C, false, true, 0)
	m.be.Download(dst[:V], a.logitRow)
	return nil
}

// Loss returns Σ weights·cross-entropy over the batch of the last Forward.
// It also runs the backward pass of the LM head, chunk by chunk while each
// chunk's logits exist: the head's weight gradient is added to Grads and the
// gradient of the final hidden states is kept for Backward, which must
// follow before the next Forward.
func (m *Model) Loss() (float64, error) {
	a := m.acts
	if a == nil || !a.fwdRan || !a.hasTargets || a.lossDone {
		return 0, fmt.Errorf("loss: needs a forward pass with targets")
	}
	a.lossDone = true
	m.ensureGrads()
	be := m.be
	N, C, V := a.B*a.T, m.Cfg.HiddenSize, m.Cfg.VocabSize
	var total float64
	for r0 := 0; r0 < N; r0 += headRows {
		rows := min(headRows, N-r0)
		logits := be.Slice(a.head, 0, rows*V)
		lnf := be.Slice(a.lnf, r0*C, rows*C)
		be.MatMul(logits, lnf, m.w.lmHead, rows, V, C, false, true, 0)
		total += be.CrossEntropy(be.Slice(a.losses, r0, rows), logits,
			be.SliceInts(a.targets, r0, rows), be.Slice(a.weights, r0, rows), V, m.logitScale())
		// logits now holds dlogits.
		be.MatMul(be.Slice(a.dln, r0*C, rows*C), logits, m.w.lmHead, rows, C, V, false, false, 0)
		if m.g.lmHead != nil { // nil when the base weights are frozen
			be.MatMul(m.g.lmHead, logits, lnf, V, C, rows, true, false, 1)
		}
	}
	return total, nil
}

// TargetLogprobs returns log p(target) at each position of the last
// Forward's batch (0 where the batch's weight is 0), at the loss
// temperature. Objectives whose per-token weights depend on the current
// probabilities (reinforcement learning's importance ratios) read them here,
// set the weights with SetWeights, then call Loss and Backward as usual.
func (m *Model) TargetLogprobs() ([]float32, error) {
	a := m.acts
	if a == nil || !a.fwdRan || !a.hasTargets || a.lossDone {
		return nil, fmt.Errorf("target logprobs: needs a forward pass with targets")
	}
	be := m.be
	N, C, V := a.B*a.T, m.Cfg.HiddenSize, m.Cfg.VocabSize
	out := make([]float32, N)
	for r0 := 0; r0 < N; r0 += headRows {
		rows := min(headRows, N-r0)
		logits := be.Slice(a.head, 0, rows*V)
		be.MatMul(logits, be.Slice(a.lnf, r0*C, rows*C), m.w.lmHead, rows, V, C, false, true, 0)
		be.CrossEntropy(be.Slice(a.losses, r0, rows), logits,
			be.SliceInts(a.targets, r0, rows), be.Slice(a.weights, r0, rows), V, m.logitScale())
	}
	be.Download(out, a.losses)
	for i := range out {
		out[i] = -out[i]
	}
	return out, nil
}

// SetWeights replaces the loss weights of the last Forward's batch, before
// Loss. Weights may be negative: Loss is then Σ w·cross-entropy with the
// gradient −w at each target's log probability.
func (m *Model) SetWeights(w []float32) error {
	a := m.acts
	if a == nil || !a.fwdRan || !a.hasTargets || a.lossDone {
		return fmt.Errorf("set weights: needs a forward pass with targets")
	}
	if len(w) != a.B*a.T {
		return fmt.Errorf("set weights: %d weights for %d positions", len(w), a.B*a.T)
	}
	m.be.Upload(a.weights, w)
	return nil
}

// Backward adds the gradient of the last Loss to Grads.
func (m *Model) Backward(ctx context.Context) error {
	a := m.acts
	if a == nil || !a.lossDone {
		return fmt.Errorf("backward: call Forward and Loss first")
	}
	a.lossDone = false // one backward per loss
	a.fwdRan = false
	cfg, be := m.Cfg, m.be
	N := a.B * a.T
	C, F, H, KV, D := cfg.HiddenSize, cfg.IntermediateSize, cfg.NumAttentionHeads, cfg.NumKeyValueHeads, cfg.HeadDim
	sh := backend.AttnShape{B: a.B, T: a.T, H: H, KV: KV, D: D}
	m.ensureGrads()
	g := &m.g

	// Final norm; Loss left the gradient of its output in a.dln.
	be.Zero(a.dres)
	be.RMSNormBackward(a.dres, g.norm, a.dln, a.xOut, m.w.norm, a.rstdf, N, C)

	for l := len(a.layers) - 1; l >= 0; l-- {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("backward: %w", err)
		}
		la, w, gl := &a.layers[l], &m.w.layers[l], &g.layers[l]
		if a.checkpoint {
			// The shared buffers hold the last block's forward; redo this
			// block's from its kept input, with the same kernels on the same
			// inputs, so the values are the ones Forward computed.
			m.attentionInputs(l, la, a.pos, N)
			be.Attention(la.atty, la.lse, la.q, la.k, la.v, a.seg, sh)
			m.mlpInputs(l, la, N)
			m.adapterInput(la.h, l, tgDown, la, N, F)
		}
		// MLP: x_out = x_mid + down(silu(gate(ln2))·up(ln2)); dres is d x_out.
		m.linearBackward(a.dh, a.dres, la.h, w.wDown, gl.wDown, l, tgDown, la, N, C, F, 0)
		be.Zero(a.dgate)
		be.Zero(a.dup)
		be.SwiGLUBackward(a.dgate, a.dup, a.dh, la.gate, la.up)
		m.linearBackward(a.dln, a.dgate, la.ln2, w.wGate, gl.wGate, l, tgGate, la, N, F, C, 0)
		m.linearBackward(a.dln, a.dup, la.ln2, w.wUp, gl.wUp, l, tgUp, la, N, F, C, 1)
		be.RMSNormBackward(a.dres, gl.ln2, a.dln, la.xMid, w.ln2, la.rstd2, N, C)

		// Attention: x_mid = x + o(attn(rope(qnorm(q(ln1))), ...)).
		m.linearBackward(a.datty, a.dres, la.atty, w.wo, gl.wo, l, tgO, la, N, C, H*D, 0)
		be.Zero(a.dq)
		be.Zero(a.dk)
		be.Zero(a.dv)
		be.AttentionBackward(a.dq, a.dk, a.dv, a.datty, la.atty, la.lse, la.q, la.k, la.v, a.seg, sh)
		be.RoPE(a.dq, a.pos, H, D, cfg.RopeTheta, true)
		be.RoPE(a.dk, a.pos, KV, D, cfg.RopeTheta, true)
		be.Zero(a.dqr)
		be.Zero(a.dkr)
		be.RMSNormBackward(a.dqr, gl.qNorm, a.dq, la.qRaw, w.qNorm, la.qRstd, N*H, D)
		be.RMSNormBackward(a.dkr, gl.kNorm, a.dk, la.kRaw, w.kNorm, la.kRstd, N*KV, D)
		m.linearBackward(a.dln, a.dqr, la.ln1, w.wq, gl.wq, l, tgQ, la, N, H*D, C, 0)
		m.linearBackward(a.dln, a.dkr, la.ln1, w.wk, gl.wk, l, tgK, la, N, KV*D, C, 1)
		m.linearBackward(a.dln, a.dv, la.ln1, w.wv, gl.wv, l, tgV, la, N, KV*D, C, 1)
		be.RMSNormBackward(a.dres, gl.ln1, a.dln, la.x, w.ln1, la.rstd1, N, C)
	}
	if g.embed != nil {
		be.EmbeddingBackward(g.embed, a.dres, a.ids, C)
	}
	return nil
}

// GradNorm returns the global L2 norm of the trainable parameters' gradients.
func (m *Model) GradNorm() float64 {
	_, g, _ := m.Trainable()
	return math.Sqrt(m.be.SumSquares(g))
}

// DownloadParams returns a host copy of every parameter.
func (m *Model) DownloadParams() []float32 {
	host := make([]float32, m.nParam)
	if m.Params != nil {
		m.be.Download(host, m.Params)
		return host
	}
	for i, p := range m.params {
		m.be.Download(host[p.Offset:p.Offset+p.Size()], m.own[i])
	}
	return host
}

// DownloadGrads returns a host copy of the trainable parameters' gradients
// (every parameter's, or the adapters' with LoRA on).
func (m *Model) DownloadGrads() []float32 {
	_, g, _ := m.Trainable()
	host := make([]float32, g.Len())
	m.be.Download(host, g)
	return host
}

// Greedy extends prompt one argmax token at a time until a stop token or
// maxNew new tokens, and returns the new tokens (the stop token included).
// It recomputes the whole sequence each step (no KV cache): it is for tests
// and small checks, not serving.
func (m *Model) Greedy(ctx context.Context, prompt []int32, maxNew int, stop func(int32) bool) ([]int32, error) {
	seq := append([]int32(nil), prompt...)
	logits := make([]float32, m.Cfg.VocabSize)
	var out []int32
	for range maxNew {
		T := len(seq)
		b := &Batch{B: 1, T: T, IDs: seq, Pos: make([]int32, T), Seg: make([]int32, T)}
		for i := range b.Pos {
			b.Pos[i] = int32(i)
		}
		if err := m.Forward(ctx, b); err != nil {
			return out, fmt.Errorf("greedy: %w", err)
		}
		if err := m.Logits(T-1, logits); err != nil {
			return out, err
		}
		best := 0
		for i, v := range logits {
			if v > logits[best] {
				best = i
			}
		}
		tok := int32(best)
		out = append(out, tok)
		seq = append(seq, tok)
		if stop != nil && stop(tok) {
			break
		}
	}
	return out, nil
}
