// Package recursion is the RLM engine: a root model that never sees the
// huge input, only placeholders for it, and works on it by writing Go code
// that runs in a REPL session, with sub-calls to plain models (llm_query)
// and to child RLMs (rlm_query), all under one budget per request.
//
// Beside the loop (engine.go, node.go) and its budget (budget.go): the
// input offloaded into the REPL (offload.go, images.go), conversations that
// keep their session for follow-ups (conversation.go), client tools a
// cell calls, which pause the run until the client's outputs resume it
// (tools.go, clock.go), answers held to a response format (answer.go), and
// the prompt the root model is given (prompt.md). Models are reached
// through recursion/llm's Client; recursion/upstream is the one for an
// OpenAI-compatible endpoint.
package recursion

import (
	"cmp"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlm-project/rlm/internal/clip"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/repl"
)

//go:embed prompt.md
var promptTemplate string

// systemPrompt is prompt.md with the REPL's import allowlist filled in, so
// that the model is told exactly what the REPL accepts.
var systemPrompt = strings.Replace(promptTemplate, "{{ALLOWED_IMPORTS}}", strings.Join(repl.AllowedImports(), ", "), 1)

// SystemPrompt returns the system prompt every RLM node starts with.
func SystemPrompt() string { return systemPrompt }

// Sandbox starts REPL sessions. PoolSandbox adapts a *repl.Pool; tests may
// use their own.
type Sandbox interface {
	NewSession(ctx context.Context, cfg SessionConfig) (Session, error)
}

// SessionConfig is what a node asks of its REPL session.
type SessionConfig struct {
	Context *repl.ContextFile // nil when nothing was offloaded
	Query   string            // the node's question: its last user message, unless that was offloaded
	Host    repl.Host
	Limits  repl.Limits
	Budget  *repl.MemoryBudget // the request's, shared by its tree; nil: none
	Tools   []string           // the client's tools the session's cells call (the root's)
	Images  []string           // the request's images, by name (the root's)
}

// Session is one persistent REPL session.
type Session interface {
	Run(ctx context.Context, code string) (repl.CellResult, error)
	Close() error
}

// DefaultLimits returns the limits used for fields that neither the
// request nor Config.Defaults set; its budgets are the floors of
// InputBudget.
func DefaultLimits() Limits { return defaultLimits }

var defaultLimits = Limits{
	MaxDepth:         1,
	MaxIterations:    30,
	MaxLLMCalls:      200,
	MaxTotalTokens:   5_000_000,
	Timeout:          10 * time.Minute,
	OffloadThreshold: 16_000,
	Concurrency:      16,
	MaxFailedTurns:   LocalMaxFailedTurns,
}

// Defaults of Limits.MaxFailedTurns by the kind of model that answers the
// root's turns; Limits.MaxFailedTurns says what counts as a failed turn.
// A small local model such as the built-in one that fails three turns in
// a row is in a loop: let go on, it ends with a wrong FINAL, not a fix. A
// capable upstream model fixes a compile error over several turns: three
// or four failed turns, then working code. docs/engine.md ("Failed
// turns") has the transcripts behind both numbers. DefaultLimits has the
// local one; a caller that knows its root model is an upstream sets
// UpstreamMaxFailedTurns (rlm serve, query and eval do, with
// --max-failed-turns auto).
const (
	LocalMaxFailedTurns    = 3
	UpstreamMaxFailedTurns = 6
)

// Config configures an Engine.
type Config struct {
	// Root answers root turns (required). Sub answers llm_query calls and
	// children's turns; nil means Root.
	Root llm.Client
	Sub  llm.Client
	// RootModel is the upstream model name for root turns when the request
	// names none (required). SubModel is the one for llm_query and children;
	// empty means the root model of the request.
	RootModel string
	SubModel  string
	// VisionModel is the model llm_query_image calls go to, answered by
	// Sub: it must take images. Empty: cells cannot show images to a model
	// (and a gateway refuses requests with images).
	VisionModel string
	// Models maps the aliases callers may put in Request.Model and
	// Limits.SubModel to upstream model names. When it is empty, names pass
	// through unchanged; when it is not, an unknown name is an invalid request.
	Models map[string]string
	// Defaults fill the zero fields of a request's Limits; what is still
	// zero then comes from DefaultLimits, except the call, token and time
	// budgets, which follow the run's input (InputBudget, whose floors are
	// DefaultLimits'). Max clamps them; a zero field
	// of Max means no maximum. A negative MaxDepth, in a request, Defaults
	// or Max, means the root alone (rlm_query acts as llm_query).
	Defaults Limits
	Max      Limits
	// UpstreamConcurrency bounds model calls in flight across all requests
	// of this engine (default 64).
	UpstreamConcurrency int
	// Sandbox starts the REPL sessions (required). REPLLimits bound each;
	// its MaxCallBytes is a floor that follows the run's input
	// (InputREPLLimits).
	// RequestREPLMemory, when positive, bounds the memory the REPL sessions
	// of one request (its root and every child RLM) reserve together (see
	// repl.MemoryBudget); the sandbox's pool bounds all requests together.
	Sandbox           Sandbox
	REPLLimits        repl.Limits
	RequestREPLMemory int64
	// TempDir holds the context files of running requests; empty means
	// os.TempDir(). Files are removed when their node ends.
	TempDir string
	// MaxFeedbackChars caps one message of cell output sent back to a model
	// (default 20,000 characters); the REPL truncates each cell first.
	MaxFeedbackChars int
	// CompletionReserve is the number of completion tokens reserved for a
	// call before it starts, on top of the prompt's estimate (default 1,024).
	// The reservation is replaced by the reported usage afterwards.
	CompletionReserve int
	// Logprobs asks upstreams for token log probabilities.
	Logprobs bool
	// ContextWindows maps upstream model names to their context windows in
	// tokens; DefaultContextWindow (default 131,072) is the window of a
	// model not listed, and a negative value turns compaction off. Before
	// a node's turn, when the transcript and the completion reserve would
	// not fit the window (estimated at 4 characters a token), the outputs
	// of the oldest cells are elided; the system prompt, the input, every
	// cell's code and the newest output are kept.
	ContextWindows       map[string]int
	DefaultContextWindow int
	// NoContextAnswer, when set, is the whole answer to a request that has
	// nothing to read (no document, no message long enough to offload),
	// given at once without a model call: for a model that answers only
	// questions about documents, such as the built-in one.
	NoContextAnswer string
	// NoAnswerNote, when set, ends the answer of a run that the model
	// could not bring to FINAL (out of turns, failed turns, budget, time;
	// not a cancelled run or a failed upstream): for a model that answers
	// only some questions, such as the built-in one, to say that another
	// model is needed.
	NoAnswerNote string
	// GroundedAnswers, when set, holds the root's FINAL to the input: an
	// answer saying there is none ("No answer", "not found") or one that
	// does not occur in the offloaded input (a count excepted) ends the
	// run with "No answer: ..." and StopNoAnswer instead of StopFinal. For
	// a model that only looks values up, such as the built-in one, whose
	// wrong answers would otherwise look like successes.
	GroundedAnswers bool
}

// Engine runs RLM requests. It is safe for concurrent use.
type Engine struct {
	cfg      Config
	upstream semaphore
}

// New checks cfg and returns an engine.
func New(cfg Config) (*Engine, error) {
	if cfg.Root == nil {
		return nil, errors.New("recursion: Config.Root (the upstream client) is required")
	}
	if cfg.RootModel == "" {
		return nil, errors.New("recursion: Config.RootModel is required")
	}
	if cfg.Sandbox == nil {
		return nil, errors.New("recursion: Config.Sandbox (the REPL pool) is required")
	}
	if cfg.Sub == nil {
		cfg.Sub = cfg.Root
	}
	if cfg.UpstreamConcurrency <= 0 {
		cfg.UpstreamConcurrency = 64
	}
	if cfg.MaxFeedbackChars <= 0 {
		cfg.MaxFeedbackChars = 20_000
	}
	if cfg.CompletionReserve <= 0 {
		cfg.CompletionReserve = 1024
	}
	if cfg.DefaultContextWindow == 0 {
		cfg.DefaultContextWindow = DefaultContextWindow
	}
	return &Engine{cfg: cfg, upstream: make(semaphore, cfg.UpstreamConcurrency)}, nil
}

// errTimeout is the cause of a run's context when its wall time runs out,
// which tells a timeout from a caller that went away.
var errTimeout = errors.New("wall time limit reached")

// Budgets that follow the input. A run whose request and Config.Defaults
// set no budget gets, for an input of n tokens (characters / 4, offloaded
// parts and messages together):
//
//	calls   = max(200, n / InputTokensPerCall)
//	tokens  = max(5,000,000, TokensPerInputToken × n)
//	timeout = max(10m, TimePerMillionInputTokens × n / 1,000,000)
//
// each capped by Config.Max. Covering a 10M-token input once with sub-calls
// sends about 10M prompt tokens; 3× leaves room for a second pass and the
// root's own turns.
const (
	InputTokensPerCall        = 10_000
	TokensPerInputToken       = 3
	TimePerMillionInputTokens = 2 * time.Minute
)

// InputBudget returns the call, token and time budgets (MaxLLMCalls,
// MaxTotalTokens, Timeout) of a run over an input of inputTokens tokens
// that sets none.
func InputBudget(inputTokens int) Limits {
	d := defaultLimits
	return Limits{
		MaxLLMCalls:    max(d.MaxLLMCalls, inputTokens/InputTokensPerCall),
		MaxTotalTokens: max(d.MaxTotalTokens, TokensPerInputToken*inputTokens),
		Timeout:        max(d.Timeout, time.Duration(inputTokens)*TimePerMillionInputTokens/1_000_000),
	}
}

// CallBytesPerInputByte scales the bytes one llm_query or rlm_query call
// may carry (all its prompts together, repl.Limits.MaxCallBytes) with the
// run's input: a batch of prompts that covers the whole input once, with
// room for instructions and overlapping chunks, is let through whatever
// the input's size, as the budgets follow it (InputBudget).
const CallBytesPerInputByte = 2

// InputREPLLimits returns the REPL limits of a run over an input of
// inputBytes bytes under the configured l: MaxCallBytes is l's
// (a floor) or CallBytesPerInputByte × inputBytes, whichever is more, but
// no more than the memory a worker has for model data (MemoryBytes), which
// every prompt of a call passes through. Zero fields of l are the REPL's
// defaults.
func InputREPLLimits(l repl.Limits, inputBytes int64) repl.Limits {
	d := repl.DefaultLimits()
	floor, mem := cmp.Or(l.MaxCallBytes, d.MaxCallBytes), cmp.Or(l.MemoryBytes, d.MemoryBytes)
	l.MaxCallBytes = max(floor, min(CallBytesPerInputByte*inputBytes, mem))
	return l
}

// Limits returns the limits a request asking for l would run with, before
// its input is known (the budgets are those of a small input; Run scales
// them to the input, see InputBudget).
func (e *Engine) Limits(l Limits) Limits { return e.limitsFor(l, 0) }

// limitsFor returns the limits of a request asking for l over an input of
// inputTokens tokens.
func (e *Engine) limitsFor(l Limits, inputTokens int) Limits {
	in := InputBudget(inputTokens)
	pick := func(req, def, builtin, max int) int {
		v := req
		if v == 0 {
			v = def
		}
		if v == 0 {
			v = builtin
		}
		if max > 0 && v > max {
			v = max
		}
		return v
	}
	d, m := e.cfg.Defaults, e.cfg.Max
	out := Limits{
		MaxDepth:         pick(l.MaxDepth, d.MaxDepth, defaultLimits.MaxDepth, m.MaxDepth),
		MaxIterations:    pick(l.MaxIterations, d.MaxIterations, defaultLimits.MaxIterations, m.MaxIterations),
		MaxLLMCalls:      pick(l.MaxLLMCalls, d.MaxLLMCalls, in.MaxLLMCalls, m.MaxLLMCalls),
		MaxTotalTokens:   pick(l.MaxTotalTokens, d.MaxTotalTokens, in.MaxTotalTokens, m.MaxTotalTokens),
		Timeout:          time.Duration(pick(int(l.Timeout), int(d.Timeout), int(in.Timeout), int(m.Timeout))),
		OffloadThreshold: pick(l.OffloadThreshold, d.OffloadThreshold, defaultLimits.OffloadThreshold, m.OffloadThreshold),
		Concurrency:      pick(l.Concurrency, d.Concurrency, defaultLimits.Concurrency, m.Concurrency),
		MaxFailedTurns:   pick(l.MaxFailedTurns, d.MaxFailedTurns, defaultLimits.MaxFailedTurns, m.MaxFailedTurns),
		SubModel:         l.SubModel,
	}
	// A negative depth asks for the root alone; zero already meant
	// "default" in a request and "no maximum" in Max. A negative Max depth
	// is likewise a maximum of the root alone.
	if m.MaxDepth < 0 || out.MaxDepth < 0 {
		out.MaxDepth = 0
	}
	return out
}

func (e *Engine) model(name string) (string, error) {
	if name == "" {
		return "", nil
	}
	if len(e.cfg.Models) == 0 {
		return name, nil
	}
	if m, ok := e.cfg.Models[name]; ok {
		return m, nil
	}
	return "", fmt.Errorf("unknown model %q", name)
}

// Run answers one request. The error is only for an invalid request (one
// the root client's RequestChecker refuses, or whose first root turn the
// model refuses as longer than its context: ErrContextLengthExceeded) or a
// broken setup (the REPL cannot start); every other stop at run time
// (budget, time, cancellation, upstream failure) is a Result with a
// StopReason and the best partial answer.
func (e *Engine) Run(ctx context.Context, req Request) (Result, error) {
	start := time.Now()
	if len(req.Messages) == 0 && len(req.Documents) == 0 {
		return Result{}, errors.New("recursion: request has no messages and no documents")
	}
	rootModel, err := e.model(req.Model)
	if err != nil {
		return Result{}, fmt.Errorf("recursion: %w", err)
	}
	if rootModel == "" {
		rootModel = e.cfg.RootModel
	}
	if rc, ok := e.cfg.Root.(llm.RequestChecker); ok {
		if err := rc.CheckRequest(rootModel, req.Sampling); err != nil {
			return Result{}, err
		}
	}
	if err := e.checkMaxTokens(rootModel, req.Sampling); err != nil {
		return Result{}, err
	}
	lim := e.Limits(req.Limits)
	subModel, err := e.model(lim.SubModel)
	if err != nil {
		return Result{}, fmt.Errorf("recursion: sub model: %w", err)
	}
	if subModel == "" {
		subModel = e.cfg.SubModel
	}
	if subModel == "" {
		subModel = rootModel
	}
	traceID := req.TraceID
	if traceID == "" {
		var b [8]byte
		rand.Read(b[:])
		traceID = hex.EncodeToString(b[:])
	}
	dir, err := os.MkdirTemp(e.cfg.TempDir, "rlm-run-*")
	if err != nil {
		return Result{}, fmt.Errorf("recursion: temp dir: %w", err)
	}
	removeDir := func() { os.RemoveAll(dir) }

	off, err := offload(dir, req.Messages, req.Documents, lim.OffloadThreshold, e.viewLimit(rootModel, req.Sampling))
	if err != nil {
		removeDir()
		return Result{}, fmt.Errorf("recursion: offload input: %w", err)
	}
	var replMemory *repl.MemoryBudget
	if e.cfg.RequestREPLMemory > 0 {
		replMemory = repl.NewMemoryBudget("this request", e.cfg.RequestREPLMemory)
	}
	if conv := req.Continue; conv != nil {
		if off.File != nil {
			removeDir()
			return Result{}, fmt.Errorf("recursion: %w: the follow-up's input would be offloaded (documents, or text past the offload threshold)", ErrCannotContinue)
		}
		// The kept session counts against this run's budget from now on.
		if err := conv.take(ctx, replMemory); err != nil {
			removeDir()
			return Result{}, fmt.Errorf("recursion: %w: %v", ErrCannotContinue, err)
		}
	}
	lim = e.limitsFor(req.Limits, off.inputTokens())
	replLimits := InputREPLLimits(e.cfg.REPLLimits, off.inputBytes())

	// The run's context is its own, so that a paused run (client tools)
	// outlives the call that paused it: Run's ctx, and Resume's, cancel it
	// while they wait (see wait). Its wall time runs on a clock that stops
	// while the run waits for the client.
	runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	bud := newBudget(lim.MaxLLMCalls, lim.MaxTotalTokens, time.Now().Add(lim.Timeout))
	clock := newRunClock(lim.Timeout, func() { cancel(errTimeout) }, bud)
	r := &runState{
		e:          e,
		traceID:    traceID,
		lim:        lim,
		budget:     bud,
		reqSem:     make(semaphore, lim.Concurrency),
		obs:        req.Observer,
		dir:        dir,
		rootModel:  rootModel,
		subModel:   subModel,
		rootSamp:   req.Sampling,
		keep:       req.Keep || req.Continue != nil,
		cont:       req.Continue,
		subSamp:    llm.Sampling{Temperature: req.Sampling.Temperature, TopP: req.Sampling.TopP, Seed: req.Sampling.Seed},
		replLimits: replLimits,
		nodeUsage:  map[string]llm.Usage{},
		childSem:   make([]semaphore, lim.MaxDepth+1),
		replMemory: replMemory,
		tools:      newToolDesk(req.Tools, req.ToolChoice, !req.SerialToolCalls, req.ToolOutputs),
		answer:     req.Answer,
		images:     req.Images,
	}
	for i := range r.childSem {
		r.childSem[i] = make(semaphore, lim.Concurrency)
	}
	root := &node{r: r, id: "0", depth: 0, model: rootModel, sampling: req.Sampling, client: e.cfg.Root}
	a := &activeRun{r: r, start: start, cancel: cancel, clock: clock, done: make(chan rootOutcome, 1),
		cleanup: func() { clock.stop(); cancel(nil); removeDir() }}
	go func() {
		nr, err := root.run(runCtx, off)
		a.done <- rootOutcome{nr, err}
	}()
	return a.wait(ctx)
}

// activeRun is a run in flight: its root node runs in a goroutine, which
// Run, and Resume after a pause, wait for.
type activeRun struct {
	r       *runState
	start   time.Time
	cancel  context.CancelCauseFunc
	clock   *runClock
	done    chan rootOutcome
	cleanup func() // once the root has returned
	paused  time.Duration

	mu    sync.Mutex
	state runPhase
}

type runPhase int

const (
	phaseRunning runPhase = iota
	phasePaused
	phaseEnded
)

// rootOutcome is what the root node returned.
type rootOutcome struct {
	nr  nodeResult
	err error
}

// wait waits for the run's end, or its next pause for client tools. ctx
// cancels the run while wait waits.
func (a *activeRun) wait(ctx context.Context) (Result, error) {
	stop := context.AfterFunc(ctx, func() { a.cancel(context.Cause(ctx)) })
	defer stop()
	var signal <-chan struct{}
	if a.r.tools != nil {
		signal = a.r.tools.signal
	}
	for {
		select {
		case o := <-a.done:
			return a.finish(o)
		case <-signal:
		}
		// Calls made at once are handed out together: wait until none has
		// come for toolGather.
		gather := time.NewTimer(toolGather)
	gathering:
		for {
			select {
			case <-signal:
				gather.Reset(toolGather)
			case <-gather.C:
				break gathering
			case o := <-a.done:
				gather.Stop()
				return a.finish(o)
			}
		}
		calls := a.r.tools.handOut()
		if len(calls) == 0 {
			continue // their cells ended meanwhile
		}
		if !stop() {
			// ctx ended during the gathering: the run is being cancelled.
			return a.finish(<-a.done)
		}
		return a.pause(calls), nil
	}
}

// pause stops the run's clock and its root's worker and returns the
// Result of a run that waits for calls.
func (a *activeRun) pause(calls []ToolCall) Result {
	a.mu.Lock()
	a.state = phasePaused
	a.mu.Unlock()
	a.clock.pause()
	a.r.freezeRoot(true)
	a.r.emit(Event{Kind: EventPause, NodeID: "0", Tool: &ToolEvent{Calls: calls}})
	n, usage := a.r.budget.snapshot()
	return Result{TraceID: a.r.traceID, StopReason: StopToolCalls, ToolCalls: calls, Paused: &PausedRun{a: a},
		Usage: usage, LLMCalls: n, MaxDepth: int(a.r.maxDepth.Load()), Duration: time.Since(a.start) - a.paused,
		NodeUsage: a.r.usageByNode(), Limits: a.r.lim}
}

// finish builds the Result of a run whose root returned, and gives back
// what the run held.
func (a *activeRun) finish(o rootOutcome) (Result, error) {
	a.mu.Lock()
	a.state = phaseEnded
	a.mu.Unlock()
	a.cleanup()
	if o.err != nil {
		return Result{}, o.err
	}
	r, nr := a.r, a.r.invalidAnswer(o.nr)
	if note := r.e.cfg.NoAnswerNote; note != "" && nr.reason != StopFinal && nr.reason != StopNoContext &&
		nr.reason != StopCancelled && nr.reason != StopUpstreamError {
		nr.answer += " " + note
	}
	calls, usage := r.budget.snapshot()
	res := Result{
		TraceID:      r.traceID,
		Answer:       nr.answer,
		StopReason:   nr.reason,
		Error:        nr.err,
		Usage:        usage,
		Iterations:   nr.iterations,
		LLMCalls:     calls,
		MaxDepth:     int(r.maxDepth.Load()),
		Duration:     time.Since(a.start) - a.paused,
		NodeUsage:    r.usageByNode(),
		Limits:       r.lim,
		Conversation: r.kept,
	}
	if nr.iterations == 0 && errors.Is(nr.cause, llm.ErrContextLengthExceeded) {
		// The model refused the run's very first call as longer than its
		// context: that prompt is the caller's input and max_tokens, so
		// the request is at fault, not the run.
		return res, nr.cause
	}
	return res, nil
}

// Paused is a run waiting for the outputs of its client tool calls
// (Result.ToolCalls): resume it with them, or close it. A paused run
// holds its REPL session (its worker stopped) until then. *PausedRun is
// the engine's; a recorder wraps it to follow the run past its pauses.
type Paused interface {
	Resume(ctx context.Context, outputs map[string]string) (Result, error)
	Close()
}

// PausedRun is the engine's Paused.
type PausedRun struct{ a *activeRun }

// ErrNotPaused is returned by Resume of a run that is not paused: resumed
// already, closed, or ended.
var ErrNotPaused = errors.New("recursion: the run is not paused")

// Resume gives the calls their outputs (by call id; every call of the
// pause needs one: else *MissingOutputsError, and the run stays paused)
// and waits for the run's end or its next pause, as Run does. ctx cancels
// the run while Resume waits.
func (p *PausedRun) Resume(ctx context.Context, outputs map[string]string) (Result, error) {
	a := p.a
	a.mu.Lock()
	if a.state != phasePaused {
		a.mu.Unlock()
		return Result{}, ErrNotPaused
	}
	if err := a.r.tools.deliver(outputs); err != nil {
		a.mu.Unlock()
		return Result{}, err
	}
	a.state = phaseRunning
	a.mu.Unlock()
	a.paused += a.clock.resume()
	a.r.freezeRoot(false)
	a.r.emit(Event{Kind: EventResume, NodeID: "0"})
	return a.wait(ctx)
}

// Close ends a paused run: its calls fail, its root stops (cancelled), and
// what it held is given back, in the background.
func (p *PausedRun) Close() {
	a := p.a
	a.mu.Lock()
	if a.state != phasePaused {
		a.mu.Unlock()
		return
	}
	a.state = phaseEnded
	a.mu.Unlock()
	a.cancel(errPausedClosed)
	a.r.freezeRoot(false)
	go func() { a.finish(<-a.done) }()
}

// errPausedClosed is the cause of a paused run closed before its outputs
// came.
var errPausedClosed = errors.New("the run paused for client tool outputs that never came")

// runState is shared by all nodes of one request tree.
type runState struct {
	e         *Engine
	traceID   string
	lim       Limits
	budget    *budget
	reqSem    semaphore
	obs       Observer
	dir       string
	rootModel string
	subModel  string
	rootSamp  llm.Sampling
	subSamp   llm.Sampling
	// childSem[d] bounds the children running at once at depth d, so a
	// batch of rlm_query calls does not start a worker process for each at
	// once. One semaphore per depth: a child holds a slot of its own level
	// while its descendants wait on deeper levels, which cannot deadlock.
	childSem []semaphore
	maxDepth atomic.Int64
	subCalls atomic.Int64
	// replLimits bound every REPL session of the run (InputREPLLimits);
	// replMemory is the request's REPL memory budget (nil: none).
	replLimits repl.Limits
	replMemory *repl.MemoryBudget
	// keep asks the root node to keep its session (Request.Keep); cont is
	// the conversation it continues; kept is what it kept.
	keep bool
	cont *Conversation
	kept *Conversation
	// tools are the client's tools (nil: none); rootSess is the root's
	// session, stopped while the run waits for them.
	tools    *toolDesk
	rootSess Session
	// answer is the format of the root's answer (nil: any); answerRefused
	// is why its last FINAL was refused for it.
	answer        *AnswerFormat
	answerRefused atomic.Value
	// images are the request's images (Request.Images).
	images []Image

	mu        sync.Mutex
	nodeUsage map[string]llm.Usage
}

func (r *runState) emit(ev Event) {
	if r.obs == nil {
		return
	}
	ev.Time = time.Now()
	r.obs.Observe(ev)
}

func (r *runState) addUsage(nodeID string, u llm.Usage) {
	r.mu.Lock()
	r.nodeUsage[nodeID] = r.nodeUsage[nodeID].Add(u)
	r.mu.Unlock()
}

func (r *runState) usageByNode() map[string]llm.Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]llm.Usage, len(r.nodeUsage))
	for k, v := range r.nodeUsage {
		out[k] = v
	}
	return out
}

// complete makes one model call for a node under the budget and the
// concurrency limits: reserve first (refusing up front), then queue for a
// slot of the request and of the engine, then call and settle.
func (r *runState) complete(ctx context.Context, nodeID string, client llm.Client, req llm.Request) (llm.Completion, error) {
	res, err := r.admit(req)
	if err != nil {
		return llm.Completion{}, err
	}
	return r.call(ctx, res, nodeID, client, req)
}

// admit reserves a call and its estimated tokens, or refuses it with a
// *BudgetError.
func (r *runState) admit(req llm.Request) (*reservation, error) {
	chars := 0
	for _, m := range req.Messages {
		chars += len(m.Content)
	}
	completion := r.e.cfg.CompletionReserve
	if req.Sampling.MaxTokens != nil && *req.Sampling.MaxTokens > 0 {
		completion = *req.Sampling.MaxTokens
	}
	return r.budget.reserve(llm.EstimateTokens(chars), completion)
}

// call makes an admitted call and settles its reservation.
func (r *runState) call(ctx context.Context, res *reservation, nodeID string, client llm.Client, req llm.Request) (llm.Completion, error) {
	if err := r.reqSem.acquire(ctx); err != nil {
		res.settle(llm.Usage{}, false)
		return llm.Completion{}, err
	}
	defer r.reqSem.release()
	if err := r.e.upstream.acquire(ctx); err != nil {
		res.settle(llm.Usage{}, false)
		return llm.Completion{}, err
	}
	req.Logprobs = r.e.cfg.Logprobs
	c, err := client.Complete(ctx, req)
	r.e.upstream.release()
	res.settle(c.Usage, true)
	r.addUsage(nodeID, c.Usage)
	return c, err
}

// stopReason classifies why a call or a node could not go on.
func stopReason(ctx context.Context, err error) StopReason {
	var be *BudgetError
	switch {
	case errors.As(err, &be):
		return be.Reason
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), errTimeout):
		return StopTimeout
	case ctx.Err() != nil:
		return StopCancelled
	default:
		return StopUpstreamError
	}
}

func clipWithNote(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head := clip.Head(s, n)
	return head + fmt.Sprintf("\n[... truncated: %d of %d characters shown]", len(head), len(s))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// checkMaxTokens refuses, before a run starts, a max_tokens that leaves no
// room for a prompt in the root model's context window (Config's
// ContextWindows): the run's token budget would refuse its first call and
// answer with no answer, where the request is at fault. The error is the
// one a model gives a prompt over its context.
func (e *Engine) checkMaxTokens(model string, s llm.Sampling) error {
	w := e.contextWindow(model)
	if s.MaxTokens == nil || w <= 0 || *s.MaxTokens < w {
		return nil
	}
	msg := fmt.Sprintf("This model's maximum context length is %d tokens (--model-window). However, you requested %d tokens "+
		"for the completion alone, which leaves no room for the prompt. Please reduce the completion length.", w, *s.MaxTokens)
	return &llm.Error{Upstream: "model " + model, Status: http.StatusBadRequest, Code: llm.CodeContextLength, Param: "max_tokens",
		Message: msg, Reason: msg, Err: llm.ErrContextLengthExceeded}
}
