package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/repl"
)

// engineConfig is what `rlm query`, `rlm eval` and `rlm serve` need to run
// the engine: the upstream, its models, the budgets and the REPL. query and
// eval fill it from flags (engineConfig.register), serve from its settings
// table (serveOptions), where Limits are the server's maxima and defaults.
type engineConfig struct {
	Upstream        string // base URL of the OpenAI-compatible upstream
	UpstreamKey     string
	RootModel       string
	SubModel        string // empty: the root model
	UpstreamTimeout time.Duration
	UpstreamIdle    time.Duration // silence allowed while reading a response body
	UpstreamRetries int           // 0 or negative: none
	UpstreamConc    int           // 0: the engine's default
	Limits          recursion.Limits
	Temperature     string // empty: the upstream's default
	REPLWorkers     int    // idle workers kept ready; 0: none
	// REPLUID and REPLGID are the user and group of REPL workers when the
	// process runs as root; 0: 65534, -1: root's (see repl.PoolConfig).
	REPLUID, REPLGID int
	// REPL bounds every REPL session of a run; checkREPL refuses values
	// the REPL would silently replace with its defaults.
	REPL repl.Limits
	// Local, when set, answers every model call in-process instead of the
	// upstream (rlm serve --local-model).
	Local recursion.ModelClient
}

// engineFlagNames are what the flags of one command call its run: the
// budgets are per run for query and per instance for eval, whose own
// --concurrency counts instances.
type engineFlagNames struct {
	scope       string // "in the whole tree", "per instance"
	timeout     string // help of --timeout
	concurrency string // name of the sub-call concurrency flag
}

// register defines the upstream, budget and REPL flags of `rlm query` and
// `rlm eval` on fs. The upstream and models default to the environment.
func (c *engineConfig) register(fs *flag.FlagSet, n engineFlagNames) {
	d := recursion.DefaultLimits()
	fs.StringVar(&c.Upstream, "base-url", envOr("OPENAI_BASE_URL", "https://api.openai.com/v1"), "OpenAI-compatible upstream `URL` (env OPENAI_BASE_URL)")
	fs.StringVar(&c.UpstreamKey, "api-key", os.Getenv("OPENAI_API_KEY"), "upstream API `key` (env OPENAI_API_KEY)")
	fs.StringVar(&c.RootModel, "root-model", os.Getenv("RLM_ROOT_MODEL"), "root `model` (env RLM_ROOT_MODEL; required)")
	fs.StringVar(&c.SubModel, "sub-model", os.Getenv("RLM_SUB_MODEL"), "`model` for llm_query and child RLMs (env RLM_SUB_MODEL; default: the root model)")
	fs.IntVar(&c.Limits.MaxDepth, "max-depth", d.MaxDepth, "deepest rlm_query level; 0 makes rlm_query a plain llm_query")
	fs.IntVar(&c.Limits.MaxIterations, "max-iterations", d.MaxIterations, "root-model turns per RLM node")
	fs.IntVar(&c.Limits.MaxLLMCalls, "max-calls", d.MaxLLMCalls, "LLM calls "+n.scope+", root turns included")
	fs.IntVar(&c.Limits.MaxTotalTokens, "max-tokens", d.MaxTotalTokens, "prompt plus completion tokens "+n.scope)
	fs.DurationVar(&c.Limits.Timeout, "timeout", d.Timeout, n.timeout)
	fs.IntVar(&c.Limits.OffloadThreshold, "offload-threshold", d.OffloadThreshold, "messages longer than this many characters are offloaded into the REPL")
	fs.IntVar(&c.Limits.Concurrency, n.concurrency, d.Concurrency, "model calls in flight at once "+n.scope)
	fs.StringVar(&c.Temperature, "temperature", "", "sampling temperature of root turns and sub-calls (unset: the upstream's default; 0 is sent as 0)")
	fs.DurationVar(&c.UpstreamTimeout, "call-timeout", 120*time.Second, "timeout of one upstream call attempt")
	fs.DurationVar(&c.UpstreamIdle, "call-idle-timeout", recursion.DefaultIdleTimeout, "longest silence while an upstream response body is read; the attempt then fails and is retried")
	fs.IntVar(&c.UpstreamRetries, "retries", 4, "retries of an upstream call after 429, 5xx or connection errors")
	r := repl.DefaultLimits()
	fs.DurationVar(&c.REPL.CellTimeout, "cell-timeout", r.CellTimeout, "wall time per REPL cell")
	fs.DurationVar(&c.REPL.KillGrace, "kill-grace", r.KillGrace, "how long a cancelled cell may take to stop before its REPL worker is killed and replaced")
	c.REPL.MemoryBytes, c.REPL.HeapBytes, c.REPL.StackBytes = r.MemoryBytes, r.HeapBytes, r.StackBytes
	fs.Var(sizeFlag{&c.REPL.MemoryBytes}, "repl-memory-bytes", "address space for model data in a REPL worker (RLIMIT_AS), a `size` like 4GiB")
	fs.Var(sizeFlag{&c.REPL.HeapBytes}, "repl-heap-bytes", "live heap `size` above which a REPL worker is stopped")
	fs.Var(sizeFlag{&c.REPL.StackBytes}, "repl-stack-bytes", "largest stack `size` of one goroutine in the REPL (deeper recursion crashes the worker)")
	fs.IntVar(&c.REPL.MaxOutput, "max-output", r.MaxOutput, "characters of cell output shown to the model")
	fs.IntVar(&c.REPL.MaxGoroutines, "max-goroutines", r.MaxGoroutines, "goroutines model code may have alive at once in one REPL")
	// A one-off run keeps the pool's usual two workers ready: the root's
	// REPL and a child's then start without waiting for a process.
	fs.IntVar(&c.REPLWorkers, "repl-workers", 2, "idle REPL worker processes kept ready; 0: none")
	fs.IntVar(&c.REPLUID, "repl-uid", defaultREPLID, replUIDHelp)
	fs.IntVar(&c.REPLGID, "repl-gid", defaultREPLID, replGIDHelp)
}

// defaultREPLID is the uid and gid of REPL workers of a root process:
// nobody and nogroup on Debian.
const defaultREPLID = 65534

const (
	replUIDHelp = "user id REPL workers run as when rlm runs as root (otherwise they keep rlm's); -1: root, capabilities still dropped"
	replGIDHelp = "group id REPL workers run as when rlm runs as root (otherwise they keep rlm's); -1: root's group"
)

// sizeFlag is a flag of a byte count written with an optional unit (see parseSize).
type sizeFlag struct{ p *int64 }

func (f sizeFlag) String() string {
	if f.p == nil {
		return ""
	}
	return formatSize(*f.p)
}

func (f sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*f.p = n
	return nil
}

// formatSize writes n the way parseSize reads it, in the largest binary
// unit that divides it.
func formatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
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
	// Sizes a worker may send: zero is the REPL's default, which `rlm
	// query` and `rlm eval` rely on (they have no flags for these).
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

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// runLimits are the Limits of one run as the flags mean them: --max-depth 0
// is the root alone, which recursion.Limits writes as -1 (0 is its default).
func (c *engineConfig) runLimits() recursion.Limits {
	l := c.Limits
	if l.MaxDepth == 0 {
		l.MaxDepth = -1
	}
	return l
}

func (c *engineConfig) sampling() (recursion.Sampling, error) {
	var s recursion.Sampling
	if c.Temperature != "" {
		t, err := strconv.ParseFloat(c.Temperature, 64)
		if err != nil {
			return s, badFlag("--temperature %q: not a number", c.Temperature)
		}
		s.Temperature = &t
	}
	return s, nil
}

// client returns the upstream client.
func (c *engineConfig) client() (*recursion.OpenAIClient, error) {
	retries := c.UpstreamRetries
	if retries <= 0 {
		retries = -1 // UpstreamConfig reads 0 as "default"
	}
	return recursion.NewOpenAIClient(recursion.UpstreamConfig{BaseURL: c.Upstream, APIKey: c.UpstreamKey,
		Timeout: c.UpstreamTimeout, IdleTimeout: c.UpstreamIdle, MaxRetries: retries})
}

// engine is an Engine with its upstream client and the REPL pool its
// sessions run in.
type engine struct {
	*recursion.Engine
	client *recursion.OpenAIClient
	pool   *repl.Pool
}

// Close stops the REPL workers.
func (e *engine) Close() error { return e.pool.Close() }

// newEngine starts the REPL pool and the engine. base carries what only
// one command sets (Models, Defaults, Max, TempDir, and RootModel when it
// is not c's); the upstream client, sub-model, upstream concurrency and
// REPL come from c. Close the engine to stop the pool.
func (c *engineConfig) newEngine(base recursion.Config) (*engine, error) {
	if err := c.checkREPL(); err != nil {
		return nil, err
	}
	var client *recursion.OpenAIClient
	if c.Local == nil {
		var err error
		if client, err = c.client(); err != nil {
			return nil, err
		}
	}
	size := c.REPLWorkers
	if size <= 0 {
		size = -1 // PoolConfig reads 0 as "default"
	}
	pool, err := repl.NewPool(repl.PoolConfig{Size: size, Limits: c.REPL, WorkerUID: c.REPLUID, WorkerGID: c.REPLGID})
	if err != nil {
		return nil, fmt.Errorf("start REPL pool: %w", err)
	}
	base.Root, base.SubModel = c.Local, c.SubModel
	if client != nil {
		base.Root = client
	}
	if base.RootModel == "" {
		base.RootModel = c.RootModel
	}
	base.UpstreamConcurrency = c.UpstreamConc
	base.Sandbox = recursion.PoolSandbox(pool)
	base.REPLLimits = c.REPL
	eng, err := recursion.New(base)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &engine{Engine: eng, client: client, pool: pool}, nil
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
