package main

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/gateway"
	"github.com/rlm-project/rlm/inference/client"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/recursion/upstream"
	"github.com/rlm-project/rlm/repl"
)

// engineConfig is what `rlm query`, `rlm eval` and `rlm serve` need to run
// the engine: the upstream, its models, the budgets and the REPL. All three
// fill it from the one settings table (settingsTable); for serve, Limits are
// the server's maxima and defaults.
type engineConfig struct {
	Upstream        string // base URL of the OpenAI-compatible upstream
	UpstreamKey     string
	RootModel       string
	SubModel        string // empty: the root model
	VisionModel     string // the model llm_query_image calls; empty: images are refused
	UpstreamTimeout time.Duration
	UpstreamIdle    time.Duration // silence allowed while reading a response body
	UpstreamCheck   time.Duration // silence after which the upstream's liveness is checked; 0: never
	UpstreamStream  bool          // call the upstream with "stream": true
	UpstreamMaxBody int64         // largest upstream response body
	UpstreamRetries int           // 0 or negative: none
	UpstreamConc    int           // 0: the engine's default
	ProbeTimeout    time.Duration // of GET /models at start (and for readiness and liveness checks)
	Limits          recursion.Limits
	Temperature     string // empty: the upstream's default
	SamplingSeed    string // empty: none sent
	REPLWorkers     int    // idle workers kept ready; 0: none
	// REPLRefillDelay is how long the pool waits before replacing a taken
	// worker (repl.PoolConfig.RefillDelay); 0: at once.
	REPLRefillDelay time.Duration
	// oneRun is set by rlm query, which runs one request and exits: its
	// pool starts one worker at once and no spare or replacement after it
	// (repl.PoolConfig.NoRefill), which would only compete with the run.
	oneRun bool
	// REPLUID and REPLGID are the user and group of REPL workers when the
	// process runs as root; -1: root's (see repl.PoolConfig).
	REPLUID, REPLGID int
	// ContextWindow is the context window in tokens of models not listed
	// in ContextWindows ("model=tokens" entries); 0 is auto (see window);
	// a negative one turns transcript compaction off.
	ContextWindow  int
	ContextWindows []string
	// REPL bounds every REPL session of a run; checkREPL refuses values
	// the REPL would silently replace with its defaults.
	REPL repl.Limits
	// REPLMemoryTotal and RequestREPLMemory are the memory budgets of all
	// REPL sessions and of one request's ("auto" or a size; see
	// replMemory); REPLMemoryWait is how long a session waits for memory.
	REPLMemoryTotal, RequestREPLMemory string
	REPLMemoryWait                     time.Duration
	// UpstreamLog gets a warning for each upstream call that failed for
	// good, in detail with the credentials scrubbed; nil: none (query and
	// eval, whose output names the failure).
	UpstreamLog *slog.Logger
	// Local, when set, answers every model call in-process instead of the
	// upstream (rlm serve --local-model).
	Local llm.Client
	// NoContextAnswer answers at once a request with nothing to read, and
	// NoAnswerNote ends the answer of a run the model could not finish
	// (see recursion.Config): set for the built-in model.
	NoContextAnswer, NoAnswerNote string
	// GroundedAnswers holds answers to the input (see recursion.Config):
	// set for the built-in model, whose lookups must say "No answer"
	// rather than return a value the input does not hold.
	GroundedAnswers bool
}

// checkLimits refuses limits that cannot be enforced. A zero max-* means
// "no maximum", except --max-depth 0, which is the root alone (runLimits
// turns it into the -1 the server and the engine read so).
func (c *engineConfig) checkLimits() error {
	l := c.Limits
	for _, m := range []struct {
		name string
		v    any
		neg  bool
		zero string
	}{{"max-depth", l.MaxDepth, l.MaxDepth < 0, "the root alone"}, {"max-iterations", l.MaxIterations, l.MaxIterations < 0, "no maximum"},
		{"max-llm-calls", l.MaxLLMCalls, l.MaxLLMCalls < 0, "no maximum"}, {"max-total-tokens", l.MaxTotalTokens, l.MaxTotalTokens < 0, "no maximum"},
		{"timeout", l.Timeout, l.Timeout < 0, "no maximum"}, {"max-failed-turns", l.MaxFailedTurns, l.MaxFailedTurns < 0, "auto"}} {
		if m.neg {
			return fmt.Errorf("%s %v: must not be negative (0: %s)", m.name, m.v, m.zero)
		}
	}
	if c.ProbeTimeout <= 0 {
		return fmt.Errorf("upstream-probe-timeout %v: must be positive", c.ProbeTimeout)
	}
	return nil
}

// checkREPL refuses REPL settings that are not positive: the REPL reads a
// zero limit as its default and a negative one as nothing, and an operator
// who writes --max-output 0 means neither.
func (c *engineConfig) checkREPL() error {
	l := c.REPL
	for _, s := range []struct {
		name string
		v    any
		bad  bool
	}{{"cell-timeout", l.CellTimeout, l.CellTimeout <= 0}, {"kill-grace", l.KillGrace, l.KillGrace <= 0},
		{"repl-memory-bytes", l.MemoryBytes, l.MemoryBytes <= 0}, {"repl-heap-bytes", l.HeapBytes, l.HeapBytes <= 0},
		{"repl-stack-bytes", l.StackBytes, l.StackBytes <= 0}, {"max-output", l.MaxOutput, l.MaxOutput <= 0},
		{"max-goroutines", l.MaxGoroutines, l.MaxGoroutines <= 0}} {
		if s.bad {
			return fmt.Errorf("%s %v: must be positive", s.name, s.v)
		}
	}
	// Sizes a worker may send: zero is the REPL's default (an engineConfig
	// not filled from the settings table), negative is refused.
	for _, s := range []struct {
		name string
		v    any
		bad  bool
	}{{"max-prompt-bytes", l.MaxPromptBytes, l.MaxPromptBytes < 0}, {"max-call-bytes", l.MaxCallBytes, l.MaxCallBytes < 0},
		{"max-batch", l.MaxBatch, l.MaxBatch < 0}, {"max-final-bytes", l.MaxFinalBytes, l.MaxFinalBytes < 0},
		{"max-error-bytes", l.MaxErrorBytes, l.MaxErrorBytes < 0}, {"max-host-calls", l.MaxHostCalls, l.MaxHostCalls < 0}} {
		if s.bad {
			return fmt.Errorf("%s %v: must be positive", s.name, s.v)
		}
	}
	if c.REPLRefillDelay < 0 {
		return fmt.Errorf("repl-refill-delay %s: must not be negative (0: at once)", c.REPLRefillDelay)
	}
	if _, err := c.replMemory(); err != nil {
		return err
	}
	if c.REPLWorkers < 0 {
		return fmt.Errorf("repl-workers %d: must not be negative (0: none)", c.REPLWorkers)
	}
	for _, id := range []struct {
		name string
		v    int
	}{{"repl-uid", c.REPLUID}, {"repl-gid", c.REPLGID}} {
		// 0 would read as the default; an operator who wants workers to
		// keep root's id says so with -1.
		if id.v == 0 || id.v < -1 || id.v > math.MaxUint32-1 {
			return fmt.Errorf("%s %d: must be an unprivileged id (-1: keep the server's, when it runs as root)", id.name, id.v)
		}
	}
	return nil
}

// check refuses what `rlm query` and `rlm eval` cannot run with: no
// upstream, no root model, limits and REPL settings out of range.
func (c *engineConfig) check() error {
	if err := c.checkRun(); err != nil {
		return err
	}
	if c.Upstream == "" && c.Local == nil {
		return errors.New("no upstream: set --upstream, RLM_UPSTREAM or OPENAI_BASE_URL (e.g. https://api.openai.com/v1)")
	}
	if c.RootModel == "" {
		return errors.New("no root model: set --root-model or RLM_ROOT_MODEL")
	}
	return nil
}

// checkRun is check without the model: sampling, limits and REPL
// settings, which can be refused before a local model loads.
func (c *engineConfig) checkRun() error {
	if _, err := c.sampling(); err != nil {
		return err
	}
	if err := c.checkLimits(); err != nil {
		return cli.BadFlag("--%w", err)
	}
	if err := c.checkREPL(); err != nil {
		return cli.BadFlag("--%w", err)
	}
	return nil
}

// runLimits are the Limits of one run as the flags mean them: --max-depth 0
// is the root alone, which recursion.Limits writes as -1 (0 is its
// default), and --max-failed-turns auto (0) is the default of the kind of
// model that answers, known once a local model is loaded.
func (c *engineConfig) runLimits() recursion.Limits {
	l := c.Limits
	if l.MaxDepth == 0 {
		l.MaxDepth = -1
	}
	if l.MaxFailedTurns == 0 {
		l.MaxFailedTurns = recursion.UpstreamMaxFailedTurns
		if c.Local != nil {
			l.MaxFailedTurns = recursion.LocalMaxFailedTurns
		}
	}
	return l
}

// runBudgets splits the limits of `rlm query` and `rlm eval` into a run's
// Limits and the engine's maxima: a budget set explicitly is the run's own;
// one left at its default is only a maximum, under which the run's budget
// follows its input (recursion.InputBudget).
func (c *config) runBudgets() (run, maxima recursion.Limits) {
	run = c.runLimits()
	maxima.MaxLLMCalls, maxima.MaxTotalTokens, maxima.Timeout = run.MaxLLMCalls, run.MaxTotalTokens, run.Timeout
	if !c.explicit["max-llm-calls"] {
		run.MaxLLMCalls = 0
	}
	if !c.explicit["max-total-tokens"] {
		run.MaxTotalTokens = 0
	}
	if !c.explicit["timeout"] {
		run.Timeout = 0
	}
	return run, maxima
}

// serveLimits are the engine's defaults and maxima for `rlm serve`: the
// limits are the maxima of requests and their defaults, except the budgets,
// whose default follows each request's input under the maximum, and the
// offload threshold, which a request may raise.
func (c *config) serveLimits() (defaults, maxima recursion.Limits) {
	defaults, maxima = c.runLimits(), c.runLimits()
	defaults.MaxLLMCalls, defaults.MaxTotalTokens, defaults.Timeout = 0, 0, 0
	maxima.OffloadThreshold = 0
	return defaults, maxima
}

func (c *engineConfig) sampling() (llm.Sampling, error) {
	var s llm.Sampling
	if c.Temperature != "" {
		t, err := strconv.ParseFloat(c.Temperature, 64)
		if err != nil {
			return s, cli.BadFlag("--temperature %q: not a number", c.Temperature)
		}
		s.Temperature = &t
	}
	if c.SamplingSeed != "" {
		seed, err := strconv.Atoi(c.SamplingSeed)
		if err != nil {
			return s, cli.BadFlag("--seed %q: not an integer", c.SamplingSeed)
		}
		s.Seed = &seed
	}
	return s, nil
}

// upstream is the upstream's configuration from the settings.
func (c *engineConfig) upstream() upstream.Config {
	retries := c.UpstreamRetries
	if retries <= 0 {
		retries = -1 // Config reads 0 as "default"
	}
	check := c.UpstreamCheck
	if check <= 0 {
		check = -1 // Config reads 0 as "default"
	}
	return upstream.Config{BaseURL: c.Upstream, APIKey: c.UpstreamKey,
		Timeout: c.UpstreamTimeout, IdleTimeout: c.UpstreamIdle, MaxRetries: retries,
		CheckAfter: check, CheckTimeout: c.ProbeTimeout, Logger: c.UpstreamLog,
		Stream: c.UpstreamStream, MaxResponseBytes: c.UpstreamMaxBody}
}

// newEngine starts the REPL pool and the engine (gateway.NewEngine) from
// the settings and base (see engineSetup). Close the engine to stop the
// pool.
func (c *engineConfig) newEngine(base recursion.Config) (*gateway.Engine, error) {
	ec, _, err := c.engineSetup(base)
	if err != nil {
		return nil, err
	}
	return gateway.NewEngine(ec)
}

// engineSetup is what gateway.NewEngine needs, from the settings, and the
// REPL memory budgets it resolved. base carries what only one command sets
// (Models, Defaults, Max, TempDir, and RootModel when it is not c's); the
// local model or the upstream, the sub-model, upstream concurrency and
// REPL come from c.
func (c *engineConfig) engineSetup(base recursion.Config) (gateway.EngineConfig, replBudget, error) {
	if err := c.checkREPL(); err != nil {
		return gateway.EngineConfig{}, replBudget{}, err
	}
	mem, err := c.replMemory()
	if err != nil {
		return gateway.EngineConfig{}, replBudget{}, err
	}
	windows, err := parseWindows(c.ContextWindows)
	if err != nil {
		return gateway.EngineConfig{}, replBudget{}, err
	}
	size := c.REPLWorkers
	if size <= 0 {
		size = -1 // PoolConfig reads 0 as "default"
	}
	refill := c.REPLRefillDelay
	if refill == 0 {
		refill = -1 // PoolConfig reads 0 as "default"
	}
	// Root stays nil without a local model: gateway.NewEngine makes it a
	// client of the upstream.
	base.Root, base.SubModel, base.NoContextAnswer, base.NoAnswerNote = c.Local, c.SubModel, c.NoContextAnswer, c.NoAnswerNote
	base.GroundedAnswers = c.GroundedAnswers
	base.VisionModel = c.visionModel()
	base.RequestREPLMemory = mem.request
	if base.RootModel == "" {
		base.RootModel = c.RootModel
	}
	base.ContextWindows, base.DefaultContextWindow = windows, c.window()
	base.UpstreamConcurrency = c.UpstreamConc
	base.REPLLimits = c.REPL
	if c.oneRun && size > 0 {
		size = 1
	}
	return gateway.EngineConfig{Recursion: base, Upstream: c.upstream(),
		Pool: repl.PoolConfig{Size: size, RefillDelay: refill, NoRefill: c.oneRun, Limits: c.REPL, WorkerUID: c.REPLUID, WorkerGID: c.REPLGID,
			MemoryBudget: mem.total, MemoryWait: c.REPLMemoryWait}}, mem, nil
}

// window is --model-window with auto resolved: a local model's own
// window, else recursion's default.
func (c *engineConfig) window() int {
	if c.ContextWindow != 0 {
		return c.ContextWindow
	}
	if lc, ok := c.Local.(*client.Client); ok {
		return lc.Engine.MaxModelLen()
	}
	return recursion.DefaultContextWindow
}

// defaultREPLID is the uid and gid of REPL workers of a root process:
// nobody and nogroup on Debian.
const defaultREPLID = 65534

const (
	replUIDHelp = "user id REPL workers run as when rlm runs as root (otherwise they keep rlm's); -1: root, capabilities still dropped"
	replGIDHelp = "group id REPL workers run as when rlm runs as root (otherwise they keep rlm's); -1: root's group"
)

// parseWindows reads "model=tokens" entries (each may hold several,
// comma-separated).
func parseWindows(entries []string) (map[string]int, error) {
	m := map[string]int{}
	for _, e := range entries {
		for _, kv := range strings.Split(e, ",") {
			if strings.TrimSpace(kv) == "" {
				continue
			}
			model, tokens, ok := strings.Cut(kv, "=")
			n, err := strconv.Atoi(strings.TrimSpace(tokens))
			if !ok || strings.TrimSpace(model) == "" || err != nil || n <= 0 {
				return nil, cli.BadFlag("--model-windows %q: want model=tokens with a positive number of tokens", kv)
			}
			m[strings.TrimSpace(model)] = n
		}
	}
	return m, nil
}

// visionModel is the model images go to, "" when none takes them (the
// built-in and local models take none).
func (c *engineConfig) visionModel() string {
	if c.Local != nil {
		return ""
	}
	return c.VisionModel
}
