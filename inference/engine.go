package inference

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/tokenizer"
)

// Config sizes an Engine. Zero fields take the defaults named.
type Config struct {
	// Name is the model name the engine reports (default: the checkpoint
	// directory's name).
	Name string
	// KVCacheBytes is the memory of the KV cache pool, allocated once at
	// start (default 1 GiB). KVCacheTokens, when positive, sizes it in
	// tokens instead. Each token takes model.Config.KVBytesPerToken bytes.
	KVCacheBytes  int64
	KVCacheTokens int
	// BlockSize is the number of tokens per cache block (default 16): the
	// unit of allocation and of prefix sharing.
	BlockSize int
	// MaxSeqs bounds the sequences decoded together in one step (default 64).
	MaxSeqs int
	// MaxBatchTokens bounds the tokens of one forward step (default 512):
	// long prompts are prefilled in chunks of at most this many tokens,
	// between decode steps of the running sequences. It sizes the
	// activation memory.
	MaxBatchTokens int
	// MaxModelLen is the longest sequence, prompt plus completion (default
	// the model's max_position_embeddings, at most the pool's tokens).
	MaxModelLen int
	// MaxQueued bounds the requests waiting to start (default 256); one
	// more fails at once with ErrQueueFull. QueueWait bounds how long a
	// request waits for cache memory to start (default 60s), then it fails
	// with ErrQueueTimeout.
	MaxQueued int
	QueueWait time.Duration
	// NoPrefixCache turns prefix reuse off (for comparisons).
	NoPrefixCache bool
	// LoRA is a PEFT LoRA adapter directory (adapter_config.json,
	// adapter_model.safetensors, e.g. from `rlm train sft -lora-rank`) that
	// Load merges into the base weights, so serving costs what the base
	// model costs. Empty: none.
	LoRA string
}

func (c *Config) defaults() {
	if c.KVCacheBytes <= 0 {
		c.KVCacheBytes = 1 << 30
	}
	if c.BlockSize <= 0 {
		c.BlockSize = 16
	}
	if c.MaxSeqs <= 0 {
		c.MaxSeqs = 64
	}
	if c.MaxBatchTokens <= 0 {
		c.MaxBatchTokens = 512
	}
	if c.MaxQueued <= 0 {
		c.MaxQueued = 256
	}
	if c.QueueWait <= 0 {
		c.QueueWait = 60 * time.Second
	}
}

// Errors a request can fail with besides *RequestError and its context's.
var (
	ErrQueueFull    = errors.New("inference: too many requests waiting")
	ErrQueueTimeout = errors.New("inference: timed out waiting for KV cache memory")
	ErrClosed       = errors.New("inference: engine closed")
)

// RequestError is a request that can never run as asked (an HTTP 400).
type RequestError struct {
	Param string // the request field at fault, when there is one
	Msg   string
}

func (e *RequestError) Error() string { return e.Msg }

func badRequest(param, format string, args ...any) error {
	return &RequestError{Param: param, Msg: fmt.Sprintf(format, args...)}
}

// Request is one generation.
type Request struct {
	Prompt []int32
	// MaxTokens bounds the completion; 0 means up to the context length.
	MaxTokens int
	// Stop strings end the completion; the text stops before them.
	Stop []string
	// StopTokenIDs end the completion too, as the model's end-of-sequence
	// tokens always do unless IgnoreEOS.
	StopTokenIDs []int32
	IgnoreEOS    bool
	Sampling
	// Choice selects an independent random stream for the same seed, so
	// the n choices of one seeded request differ but each is reproducible.
	Choice int
}

// Token is one sampled token. Logprob and Top are set when the request
// asked for logprobs.
type Token struct {
	ID      int32
	Logprob float64
	Top     []TokenLogprob
}

// Delta is what one step added to a completion: its tokens, and the text
// that became final (see textStream).
type Delta struct {
	Text   string
	Tokens []Token
}

// Result is a finished completion.
type Result struct {
	PromptTokens []int32
	// Tokens are all sampled tokens, in order, with the one that ended the
	// completion (an end-of-sequence token, or the token that completed a
	// stop string); training on them reproduces exactly this completion.
	Tokens       []Token
	Text         string
	FinishReason string // "stop" (a stop token or string) or "length"
	// CachedTokens is how many prompt tokens came from the prefix cache.
	CachedTokens int
}

// Stats count the engine's work since it started.
type Stats struct {
	Requests         int64 // requests started
	PromptTokens     int64 // their prompt tokens
	CachedTokens     int64 // prompt tokens found in the prefix cache, not recomputed
	ComputedTokens   int64 // tokens run through the model (prefill and decode)
	GeneratedTokens  int64
	Steps            int64 // forward steps
	Preemptions      int64 // sequences evicted to make room, recomputed later
	Evictions        int64 // cached blocks reused for other tokens
	KVBlocks         int   // blocks in the pool
	KVBlocksHeld     int   // blocks held by running sequences
	KVBlockSize      int
	KVBytesPerToken  int
	Running, Waiting int
}

// Engine generates from one model for many concurrent requests: a single
// loop runs forward steps over every running sequence (continuous
// batching), sampling each sequence's next token after each step.
type Engine struct {
	m       *model.Model
	tok     *tokenizer.Tokenizer
	name    string
	cfg     Config
	kv      *model.KVCache
	eos     map[int32]bool
	special map[int32]bool

	mu      sync.Mutex
	pool    *blockPool
	waiting []*sequence // oldest first; preempted sequences go to the front
	running []*sequence // admission order, oldest first
	closed  bool
	stats   Stats
	order   uint64
	wake    chan struct{}
	done    chan struct{}
	logits  []float32
}

// sequence is one request in the engine.
type sequence struct {
	req       Request
	tokens    []int32 // prompt, then sampled tokens
	promptLen int
	maxLen    int // promptLen + max tokens
	computed  int // tokens whose K and V are in the cache
	blocks    []int32
	hashes    []uint64 // chain hashes of the full blocks registered so far
	rng       *rand.Rand
	deadline  time.Time
	started   bool // admitted at least once
	order     uint64

	// Guarded by Engine.mu.
	out     []Token
	cached  int
	finish  string
	err     error
	aborted bool
	notify  chan struct{}
}

// Load reads a checkpoint directory (config.json, safetensors weights,
// tokenizer.json: ours from `rlm train`, or a Hugging Face Qwen3 one,
// sharded or not) onto be and starts an engine for it.
func Load(be backend.Backend, dir string, cfg Config) (*Engine, error) {
	m, err := model.Load(backend.ForInference(be), dir)
	if err != nil {
		return nil, err
	}
	if cfg.LoRA != "" {
		if err := m.MergeLoRA(cfg.LoRA); err != nil {
			return nil, fmt.Errorf("load %s: %w", dir, err)
		}
	}
	tok, err := tokenizer.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", dir, err)
	}
	if cfg.Name == "" {
		abs, _ := filepath.Abs(dir)
		cfg.Name = filepath.Base(abs)
	}
	return start(m, tok, cfg, os.DirFS(dir))
}

// LoadFS is Load of a checkpoint in a file system, such as the model
// embedded in the binary (models/tinydemo): the files are read into memory,
// nothing is written to disk. cfg.Name is required; cfg.LoRA is not
// supported.
func LoadFS(be backend.Backend, fsys fs.FS, cfg Config) (*Engine, error) {
	if cfg.Name == "" {
		return nil, errors.New("inference: LoadFS needs a model name")
	}
	if cfg.LoRA != "" {
		return nil, fmt.Errorf("load %s: a LoRA adapter is merged only into a checkpoint directory", cfg.Name)
	}
	m, err := model.LoadFS(backend.ForInference(be), fsys, cfg.Name)
	if err != nil {
		return nil, err
	}
	raw, err := fs.ReadFile(fsys, "tokenizer.json")
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", cfg.Name, err)
	}
	tok, err := tokenizer.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", cfg.Name, err)
	}
	return start(m, tok, cfg, fsys)
}

// start is the engine of a loaded checkpoint: its config files add their
// eos_token_id to the tokens that end a completion.
func start(m *model.Model, tok *tokenizer.Tokenizer, cfg Config, fsys fs.FS) (*Engine, error) {
	e, err := New(m, tok, cfg)
	if err != nil {
		return nil, err
	}
	for _, f := range []string{"config.json", "generation_config.json"} {
		for _, id := range eosIDs(fsys, f) {
			e.eos[id] = true
		}
	}
	return e, nil
}

// eosIDs reads eos_token_id (a number or a list) from a JSON file, if any.
func eosIDs(fsys fs.FS, name string) []int32 {
	raw, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil
	}
	var f struct {
		EOS json.RawMessage `json:"eos_token_id"`
	}
	if json.Unmarshal(raw, &f) != nil || f.EOS == nil {
		return nil
	}
	var one int32
	if json.Unmarshal(f.EOS, &one) == nil {
		return []int32{one}
	}
	var many []int32
	json.Unmarshal(f.EOS, &many)
	return many
}

// New starts an engine for a loaded model and its tokenizer. The chat end tokens <|im_end|> and <|endoftext|>
// end a completion when the tokenizer has them. Build the model on backend.ForInference(be) (Load does) so
// that a sequence's results do not depend on the batch it runs in.
func New(m *model.Model, tok *tokenizer.Tokenizer, cfg Config) (*Engine, error) {
	cfg.defaults()
	mc := m.Cfg
	perToken := mc.KVBytesPerToken()
	tokens := cfg.KVCacheTokens
	if tokens <= 0 {
		tokens = int(cfg.KVCacheBytes / int64(perToken))
	}
	numBlocks := tokens / cfg.BlockSize
	if numBlocks < 1 {
		return nil, fmt.Errorf("inference: a KV cache of %d tokens holds no block of %d (each token takes %d bytes)", tokens, cfg.BlockSize, perToken)
	}
	poolTokens := numBlocks * cfg.BlockSize
	if cfg.MaxModelLen <= 0 {
		cfg.MaxModelLen = mc.MaxPositionEmbeddings
	}
	cfg.MaxModelLen = min(cfg.MaxModelLen, poolTokens)
	kv, err := m.NewKVCache(numBlocks, cfg.BlockSize)
	if err != nil {
		return nil, err
	}
	e := &Engine{m: m, tok: tok, name: cfg.Name, cfg: cfg, kv: kv, eos: map[int32]bool{}, special: map[int32]bool{},
		pool: newBlockPool(numBlocks, cfg.BlockSize), wake: make(chan struct{}, 1), done: make(chan struct{})}
	for _, a := range tok.AddedTokens() {
		if a.Special {
			e.special[int32(a.ID)] = true
		}
	}
	for _, s := range []string{"<|im_end|>", "<|endoftext|>"} {
		if id, ok := tok.TokenID(s); ok {
			e.eos[int32(id)] = true
		}
	}
	e.stats.KVBlocks, e.stats.KVBlockSize, e.stats.KVBytesPerToken = numBlocks, cfg.BlockSize, perToken
	go e.loop()
	return e, nil
}

// Name is the model name the engine reports.
func (e *Engine) Name() string { return e.name }

// Tokenizer is the model's tokenizer.
func (e *Engine) Tokenizer() *tokenizer.Tokenizer { return e.tok }

// EncodeChat renders msgs with the model's chat template, ending with the
// assistant's header, as the prompt of a Request.
func (e *Engine) EncodeChat(msgs []tokenizer.Message) ([]int32, error) {
	ids, err := e.tok.EncodePrompt(msgs)
	if err != nil {
		return nil, err
	}
	prompt := make([]int32, len(ids))
	for i, id := range ids {
		prompt[i] = int32(id)
	}
	return prompt, nil
}

// Model is the model the engine runs.
func (e *Engine) Model() *model.Model { return e.m }

// MaxModelLen is the longest sequence the engine accepts.
func (e *Engine) MaxModelLen() int { return e.cfg.MaxModelLen }

// Capacity is how many sequences the engine holds at once, running or
// waiting to start (Config.MaxSeqs + Config.MaxQueued): past it a request
// fails with ErrQueueFull.
func (e *Engine) Capacity() int { return e.cfg.MaxSeqs + e.cfg.MaxQueued }

// ErrBusy is SetWeights called while requests are in the engine.
var ErrBusy = errors.New("inference: requests are running; weights change only between them")

// SetWeights replaces the model's parameters with src (a buffer of the
// same backend and layout as model.Model.Params, such as a trainer's copy
// of the same architecture), in memory, and forgets the prefix cache,
// whose K and V were computed with the old weights. It fails with ErrBusy
// unless the engine is idle: a request then never mixes two policies,
// which reinforcement learning relies on (the sampler's logprobs must be
// those of one set of weights).
func (e *Engine) SetWeights(src backend.Buffer) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.running) > 0 || len(e.waiting) > 0 {
		return ErrBusy
	}
	if e.closed {
		return ErrClosed
	}
	// Holding e.mu with nothing running, no forward step is in flight
	// and none can start (schedule needs the lock).
	e.m.Backend().Copy(e.m.Params, src)
	e.pool.forget()
	return nil
}

// Stats returns the counters.
func (e *Engine) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.stats
	s.Evictions = e.pool.evictions
	s.KVBlocksHeld = s.KVBlocks - e.pool.available()
	s.Running, s.Waiting = len(e.running), len(e.waiting)
	return s
}

// Close stops the engine; requests still running fail with ErrClosed.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.signal()
	<-e.done
	return nil
}

func (e *Engine) signal() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

func (e *Engine) validate(req *Request) error {
	if len(req.Prompt) == 0 {
		return badRequest("prompt", "the prompt is empty")
	}
	V := e.m.Cfg.VocabSize
	for i, id := range req.Prompt {
		if id < 0 || int(id) >= V {
			return badRequest("prompt", "prompt token %d at index %d is outside the vocabulary of %d", id, i, V)
		}
	}
	s := &req.Sampling
	switch {
	case req.MaxTokens < 0:
		return badRequest("max_tokens", "max_tokens must be at least 1, got %d", req.MaxTokens)
	case s.Temperature < 0 || math.IsNaN(s.Temperature) || math.IsInf(s.Temperature, 0):
		return badRequest("temperature", "temperature must be a non-negative number, got %g", s.Temperature)
	case s.TopP < 0 || s.TopP > 1 || math.IsNaN(s.TopP):
		return badRequest("top_p", "top_p must be in (0, 1], got %g", s.TopP)
	case s.TopK < 0:
		return badRequest("top_k", "top_k must be non-negative (0: off), got %d", s.TopK)
	case s.TopLogprobs < 0 || s.TopLogprobs > 20:
		return badRequest("top_logprobs", "top_logprobs must be between 0 and 20, got %d", s.TopLogprobs)
	}
	n, limit := len(req.Prompt), e.cfg.MaxModelLen
	if n >= limit {
		return badRequest("messages", "This model's maximum context length is %d tokens. However, your prompt has %d tokens, which leaves no room for a completion.", limit, n)
	}
	if req.MaxTokens == 0 {
		req.MaxTokens = limit - n
	} else if n+req.MaxTokens > limit {
		return badRequest("max_tokens", "This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the prompt, %d in the completion). Please reduce the prompt or the completion length.", limit, n+req.MaxTokens, n, req.MaxTokens)
	}
	return nil
}

// Generate runs one request to the end and returns its result. onDelta,
// when not nil, is called with each piece of the completion as it is
// sampled (from the caller's goroutine); an error from it cancels the
// request. Errors: *RequestError for a request that cannot run,
// ErrQueueFull, ErrQueueTimeout, ErrClosed, or the context's error.
func (e *Engine) Generate(ctx context.Context, req Request, onDelta func(Delta) error) (Result, error) {
	req.Prompt = slices.Clone(req.Prompt)
	if err := e.validate(&req); err != nil {
		return Result{}, err
	}
	seed := rand.Uint64()
	if req.Seed != nil {
		seed = *req.Seed
	}
	s := &sequence{req: req, tokens: req.Prompt, promptLen: len(req.Prompt), maxLen: len(req.Prompt) + req.MaxTokens,
		rng: rand.New(rand.NewPCG(seed, uint64(req.Choice))), deadline: time.Now().Add(e.cfg.QueueWait),
		notify: make(chan struct{}, 1)}
	e.mu.Lock()
	switch {
	case e.closed:
		e.mu.Unlock()
		return Result{}, ErrClosed
	case len(e.waiting) >= e.cfg.MaxQueued:
		e.mu.Unlock()
		return Result{}, ErrQueueFull
	}
	e.waiting = append(e.waiting, s)
	e.mu.Unlock()
	e.signal()

	res := Result{PromptTokens: req.Prompt}
	text := newTextStream(e.tok, e.special, req.Stop)
	taken := 0
	for {
		select {
		case <-s.notify:
		case <-ctx.Done():
			e.abort(s)
			return Result{}, ctx.Err()
		}
		e.mu.Lock()
		toks := s.out[taken:]
		taken = len(s.out)
		finish, err, cached := s.finish, s.err, s.cached
		e.mu.Unlock()
		var d Delta
		stopped := false
		for _, t := range toks {
			d.Tokens = append(d.Tokens, t)
			piece, stop := text.push(t.ID)
			d.Text += piece
			if stop {
				stopped = true
				break
			}
		}
		res.Tokens = append(res.Tokens, d.Tokens...)
		if stopped {
			e.abort(s)
			finish, err = "stop", nil
		}
		if finish != "" && !stopped {
			d.Text += text.flush()
		}
		if err != nil {
			return Result{}, err
		}
		if onDelta != nil && (d.Text != "" || len(d.Tokens) > 0) {
			if cbErr := onDelta(d); cbErr != nil {
				e.abort(s)
				return Result{}, cbErr
			}
		}
		if finish != "" {
			res.Text, res.FinishReason, res.CachedTokens = text.text(), finish, cached
			return res, nil
		}
	}
}

// abort takes a sequence out of the engine; the loop frees its blocks.
func (e *Engine) abort(s *sequence) {
	e.mu.Lock()
	s.aborted = true
	if i := slices.Index(e.waiting, s); i >= 0 {
		e.waiting = slices.Delete(e.waiting, i, i+1)
		e.pool.release(s.blocks)
		s.blocks = nil
	}
	e.mu.Unlock()
	e.signal()
}

// work is one sequence's part of a step: n tokens from position computed.
type work struct {
	s      *sequence
	n      int
	logits bool
}

func (e *Engine) loop() {
	defer close(e.done)
	for {
		e.mu.Lock()
		if e.closed {
			// finishSeq edits e.running in place, so range over a copy.
			for _, s := range slices.Concat(e.running, e.waiting) {
				e.finishSeq(s, "", ErrClosed)
			}
			e.running, e.waiting = nil, nil
			e.mu.Unlock()
			return
		}
		plan := e.schedule()
		e.mu.Unlock()
		if len(plan) == 0 {
			select {
			case <-e.wake:
			case <-time.After(100 * time.Millisecond): // queue deadlines
			}
			continue
		}
		e.step(plan)
	}
}

// schedule picks the work of the next step; e.mu is held. Running
// sequences go first, oldest first (a decode is one token each, a prefill
// a chunk within the token budget); then waiting sequences start while
// budget, sequence slots and cache blocks allow. A sequence that needs a
// block when none is left preempts the newest running sequence, which
// returns to the front of the queue to be recomputed later (its full
// blocks usually survive in the prefix cache).
func (e *Engine) schedule() []work {
	now := time.Now()
	e.running = slices.DeleteFunc(e.running, func(s *sequence) bool {
		if s.aborted {
			e.pool.release(s.blocks)
			s.blocks = nil
		}
		return s.aborted
	})
	e.waiting = slices.DeleteFunc(e.waiting, func(s *sequence) bool {
		if !s.started && now.After(s.deadline) {
			e.finishSeq(s, "", ErrQueueTimeout)
			return true
		}
		return false
	})
	budget := e.cfg.MaxBatchTokens
	var plan []work
	for i := 0; i < len(e.running) && budget > 0; {
		s := e.running[i]
		n := min(len(s.tokens)-s.computed, budget)
		if !e.ensureBlocks(s, s.computed+n) {
			victim := e.running[len(e.running)-1]
			e.preempt(victim)
			if victim == s {
				break
			}
			continue
		}
		plan = append(plan, work{s: s, n: n, logits: s.computed+n == len(s.tokens)})
		budget -= n
		i++
	}
	for len(e.waiting) > 0 && budget > 0 && len(e.running) < e.cfg.MaxSeqs {
		s := e.waiting[0]
		if !e.cfg.NoPrefixCache {
			s.blocks, s.hashes = e.pool.match(s.tokens, (len(s.tokens)-1)/e.cfg.BlockSize)
		}
		s.computed = len(s.blocks) * e.cfg.BlockSize
		n := min(len(s.tokens)-s.computed, budget)
		if !e.ensureBlocks(s, s.computed+n) {
			e.pool.release(s.blocks)
			s.blocks, s.hashes, s.computed = nil, nil, 0
			break
		}
		if !s.started {
			s.started = true
			s.cached = s.computed
			e.stats.Requests++
			e.stats.PromptTokens += int64(s.promptLen)
			e.stats.CachedTokens += int64(s.computed)
		}
		e.order++
		s.order = e.order
		e.waiting = e.waiting[1:]
		e.running = append(e.running, s)
		plan = append(plan, work{s: s, n: n, logits: s.computed+n == len(s.tokens)})
		budget -= n
	}
	return plan
}

// ensureBlocks gives s blocks for its first upto tokens, if the pool can.
func (e *Engine) ensureBlocks(s *sequence, upto int) bool {
	need := (upto+e.cfg.BlockSize-1)/e.cfg.BlockSize - len(s.blocks)
	if need > e.pool.available() {
		return false
	}
	for range need {
		b, _ := e.pool.allocate()
		s.blocks = append(s.blocks, b)
	}
	return true
}

func (e *Engine) preempt(s *sequence) {
	e.pool.release(s.blocks)
	s.blocks, s.hashes, s.computed = nil, nil, 0
	e.running = slices.DeleteFunc(e.running, func(x *sequence) bool { return x == s })
	e.waiting = append([]*sequence{s}, e.waiting...)
	e.stats.Preemptions++
}

// step runs one forward step over plan and samples the sequences whose
// prompt and sampled tokens are now all in the cache.
func (e *Engine) step(plan []work) {
	bs := e.cfg.BlockSize
	st := &model.Step{}
	for _, w := range plan {
		st.MaxBlocks = max(st.MaxBlocks, len(w.s.blocks))
	}
	st.BlockTable = make([]int32, len(plan)*st.MaxBlocks)
	for i, w := range plan {
		s := w.s
		copy(st.BlockTable[i*st.MaxBlocks:], s.blocks)
		for p := s.computed; p < s.computed+w.n; p++ {
			st.IDs = append(st.IDs, s.tokens[p])
			st.Pos = append(st.Pos, int32(p))
			st.Seq = append(st.Seq, int32(i))
			st.Slots = append(st.Slots, s.blocks[p/bs]*int32(bs)+int32(p%bs))
		}
		if w.logits {
			st.Logits = append(st.Logits, int32(len(st.IDs)-1))
		}
	}
	sampled, err := e.forward(st, plan)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stats.Steps++
	e.stats.ComputedTokens += int64(len(st.IDs))
	for i, w := range plan {
		s := w.s
		if err != nil {
			e.finishSeq(s, "", fmt.Errorf("inference step: %w", err))
			continue
		}
		s.computed += w.n
		for b := len(s.hashes); (b+1)*bs <= s.computed; b++ {
			var parent uint64
			if b > 0 {
				parent = s.hashes[b-1]
			}
			s.hashes = append(s.hashes, e.pool.register(s.blocks[b], parent, s.tokens[b*bs:(b+1)*bs]))
		}
		if !w.logits || s.aborted {
			continue
		}
		t := sampled[i]
		s.tokens = append(s.tokens, t.ID)
		s.out = append(s.out, t)
		e.stats.GeneratedTokens++
		switch {
		case !s.req.IgnoreEOS && e.eos[t.ID], slices.Contains(s.req.StopTokenIDs, t.ID):
			e.finishSeq(s, "stop", nil)
		case len(s.tokens) >= s.maxLen:
			e.finishSeq(s, "length", nil)
		default:
			notify(s)
		}
	}
	if err != nil {
		e.running = slices.DeleteFunc(e.running, func(s *sequence) bool { return s.finish != "" || s.err != nil })
	}
}

// finishSeq ends s and frees its blocks; e.mu is held.
func (e *Engine) finishSeq(s *sequence, reason string, err error) {
	s.finish, s.err = reason, err
	e.pool.release(s.blocks)
	s.blocks = nil
	e.running = slices.DeleteFunc(e.running, func(x *sequence) bool { return x == s })
	notify(s)
}

func notify(s *sequence) {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// forward runs the step and chooses the next token of every sequence that
// samples after it (by plan index). A backend that samples where its
// logits are (backend.RowSampler: a GPU) hands back a few numbers per row;
// otherwise the rows come to the host and backend.SampleRows runs here.
func (e *Engine) forward(st *model.Step, plan []work) ([]Token, error) {
	V := e.m.Cfg.VocabSize
	params := make([]backend.SampleParams, 0, len(st.Logits))
	for _, w := range plan {
		if w.logits {
			params = append(params, sampleParams(&w.s.req.Sampling, w.s.rng, V))
		}
	}
	logits, err := e.m.StepLogits(context.Background(), e.kv, st)
	if err != nil || logits == nil {
		return nil, err
	}
	be := e.m.Backend()
	results := make([]backend.SampleResult, len(params))
	var row func(i int) []float32
	if rs, ok := be.(backend.RowSampler); ok {
		rs.SampleRows(results, logits, V, params)
		row = func(i int) []float32 { // rare: a nucleus wider than the top 64
			r := make([]float32, V)
			be.Download(r, be.Slice(logits, i*V, V))
			return r
		}
	} else {
		if need := len(params) * V; cap(e.logits) < need {
			e.logits = make([]float32, need)
		}
		host := e.logits[:len(params)*V]
		be.Download(host, logits)
		backend.SampleRows(results, host, V, params)
		row = func(i int) []float32 { return host[i*V : (i+1)*V] }
	}
	sampled := make([]Token, len(plan))
	i := 0
	for j, w := range plan {
		if !w.logits {
			continue
		}
		s, r := &w.s.req.Sampling, results[i]
		id, logit := choose(r, s, w.s.rng, V, func() []float32 { return row(i) })
		sampled[j] = Token{ID: id}
		logprobs(&sampled[j], logit, r, s)
		i++
	}
	return sampled, nil
}
