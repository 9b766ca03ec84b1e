package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"
	"gopkg.in/yaml.v3"

	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/repl"
	"github.com/rlm-project/rlm/server"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/tracing"
)

// serveConfig is everything `rlm serve` can be told. Each field is one row
// of serveOptions, settable by flag, environment variable or YAML key.
type serveConfig struct {
	// engineConfig's Limits are the server's maxima, which are also the
	// defaults of requests that set none.
	engineConfig
	Listen          string
	APIKeys         []string
	MetricsAddr     string
	MetricsKey      string
	Models          []string // alias=upstream-model
	Store           string
	DataDir         string
	RedisURL        string
	RedisPrefix     string
	RedisCacheDir   string
	TraceStream     string
	TraceStreamMax  int
	StoreTimeout    time.Duration
	TraceSaveQueue  int
	TraceSaveTime   time.Duration
	TraceDrain      time.Duration
	MaxRequestBytes int64
	MaxUploadBytes  int64
	MaxConcurrent   int
	QueueWait       time.Duration
	MaxQueued       int
	RetryAfter      time.Duration
	KeepAlive       time.Duration
	IdleTimeout     time.Duration
	HeaderTimeout   time.Duration
	MinBodyRate     int64
	BodyRateGrace   time.Duration
	MaxConns        int
	ShutdownGrace   time.Duration
	LogLevel        string
	TraceContent    bool
	TraceFieldBytes int64
	TraceBytes      int64
	// The in-process model of --local-model.
	LocalModel          string
	LocalKVCache        string
	LocalMaxSeqs        int
	LocalMaxBatchTokens int
	LocalMaxModelLen    int
}

// option is one configuration setting. Precedence: flag, then environment
// variable, then YAML file, then the default.
type option struct {
	flag, env, yaml string
	def             string
	help            string
	set             func(c *serveConfig, v string) error
}

func str(f func(c *serveConfig) *string) func(*serveConfig, string) error {
	return func(c *serveConfig, v string) error { *f(c) = v; return nil }
}

func list(f func(c *serveConfig) *[]string) func(*serveConfig, string) error {
	return func(c *serveConfig, v string) error {
		*f(c) = nil
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				*f(c) = append(*f(c), s)
			}
		}
		return nil
	}
}

func num(f func(c *serveConfig) *int) func(*serveConfig, string) error {
	return func(c *serveConfig, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("not an integer: %q", v)
		}
		*f(c) = n
		return nil
	}
}

func dur(f func(c *serveConfig) *time.Duration) func(*serveConfig, string) error {
	return func(c *serveConfig, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("not a duration like 30s or 5m: %q", v)
		}
		*f(c) = d
		return nil
	}
}

func size(f func(c *serveConfig) *int64) func(*serveConfig, string) error {
	return func(c *serveConfig, v string) error {
		n, err := parseSize(v)
		if err != nil {
			return err
		}
		*f(c) = n
		return nil
	}
}

// sizeInt is size for an int setting.
func sizeInt(f func(c *serveConfig) *int) func(*serveConfig, string) error {
	return func(c *serveConfig, v string) error {
		n, err := parseSize(v)
		if err != nil {
			return err
		}
		if n > 1<<31-1 {
			return fmt.Errorf("size %q is too large", v)
		}
		*f(c) = int(n)
		return nil
	}
}

// parseSize reads a byte count with an optional unit: 512MiB, 64MB, 1048576.
func parseSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("not a positive size like 512MiB: %q", v)
	}
	return n * mult, nil
}

// serveOptions is the one table of `rlm serve` settings; docs/server.md
// lists the same rows (a test checks that it does).
var serveOptions = []option{
	{"listen", "RLM_LISTEN", "listen", "127.0.0.1:8080", "address to listen on", str(func(c *serveConfig) *string { return &c.Listen })},
	{"api-keys", "RLM_API_KEYS", "api_keys", "", "comma-separated API keys clients must send as Bearer tokens; empty: open server", list(func(c *serveConfig) *[]string { return &c.APIKeys })},
	{"metrics-addr", "RLM_METRICS_ADDR", "metrics_addr", "", "address to serve /metrics on, apart from --listen (which then has none); empty: /metrics on --listen", str(func(c *serveConfig) *string { return &c.MetricsAddr })},
	{"metrics-key", "RLM_METRICS_KEY", "metrics_key", "", "bearer key /metrics requires; empty: /metrics is open on a server without --api-keys and on --metrics-addr, and refused on --listen of a server with keys", str(func(c *serveConfig) *string { return &c.MetricsKey })},
	{"upstream", "RLM_UPSTREAM", "upstream", "", "base URL of the OpenAI-compatible upstream, e.g. https://api.openai.com/v1", str(func(c *serveConfig) *string { return &c.Upstream })},
	{"upstream-key", "RLM_UPSTREAM_KEY", "upstream_key", "", "API key for the upstream", str(func(c *serveConfig) *string { return &c.UpstreamKey })},
	{"local-model", "RLM_LOCAL_MODEL", "local_model", "", "checkpoint directory of a Qwen3 model to run in-process as the upstream of root turns and sub-calls, instead of --upstream (see docs/inference.md)", str(func(c *serveConfig) *string { return &c.LocalModel })},
	{"local-kv-cache", "RLM_LOCAL_KV_CACHE", "local_kv_cache", "1GiB", "KV cache pool of --local-model, allocated at start: a size like 4GiB, or tokens like 65536tokens", str(func(c *serveConfig) *string { return &c.LocalKVCache })},
	{"local-max-seqs", "RLM_LOCAL_MAX_SEQS", "local_max_seqs", "64", "sequences --local-model decodes together in one step", num(func(c *serveConfig) *int { return &c.LocalMaxSeqs })},
	{"local-max-batch-tokens", "RLM_LOCAL_MAX_BATCH_TOKENS", "local_max_batch_tokens", "512", "tokens in one forward step of --local-model; longer prompts are prefilled in chunks", num(func(c *serveConfig) *int { return &c.LocalMaxBatchTokens })},
	{"local-max-model-len", "RLM_LOCAL_MAX_MODEL_LEN", "local_max_model_len", "0", "longest prompt plus completion of --local-model in tokens; 0: the model's max_position_embeddings, at most the KV cache", num(func(c *serveConfig) *int { return &c.LocalMaxModelLen })},
	{"root-model", "RLM_ROOT_MODEL", "root_model", "", "upstream model for root turns when a request names an alias without mapping", str(func(c *serveConfig) *string { return &c.RootModel })},
	{"sub-model", "RLM_SUB_MODEL", "sub_model", "", "upstream model for llm_query and child RLMs; empty: the root model", str(func(c *serveConfig) *string { return &c.SubModel })},
	{"models", "RLM_MODELS", "models", "rlm", "comma-separated model aliases clients may name, each alias or alias=upstream-model; an alias without = runs the root model", list(func(c *serveConfig) *[]string { return &c.Models })},
	{"upstream-timeout", "RLM_UPSTREAM_TIMEOUT", "upstream_timeout", "120s", "timeout of one upstream call attempt", dur(func(c *serveConfig) *time.Duration { return &c.UpstreamTimeout })},
	{"upstream-idle-timeout", "RLM_UPSTREAM_IDLE_TIMEOUT", "upstream_idle_timeout", recursion.DefaultIdleTimeout.String(), "longest silence while an upstream response body is read, once its headers arrived; the attempt then fails and is retried", dur(func(c *serveConfig) *time.Duration { return &c.UpstreamIdle })},
	{"upstream-retries", "RLM_UPSTREAM_RETRIES", "upstream_retries", "4", "retries of an upstream call after 429, 5xx or connection errors", num(func(c *serveConfig) *int { return &c.UpstreamRetries })},
	{"upstream-concurrency", "RLM_UPSTREAM_CONCURRENCY", "upstream_concurrency", "64", "upstream calls in flight across all requests", num(func(c *serveConfig) *int { return &c.UpstreamConc })},
	{"store", "RLM_STORE", "store", "disk", "where files and stored completions live: disk or redis", str(func(c *serveConfig) *string { return &c.Store })},
	{"data-dir", "RLM_DATA_DIR", "data_dir", "./data", "directory of the disk store", str(func(c *serveConfig) *string { return &c.DataDir })},
	{"redis-url", "RLM_REDIS_URL", "redis_url", "redis://127.0.0.1:6379/0", "Redis URL for --store redis", str(func(c *serveConfig) *string { return &c.RedisURL })},
	{"redis-prefix", "RLM_REDIS_PREFIX", "redis_prefix", "rlm", "prefix of every Redis key the server writes", str(func(c *serveConfig) *string { return &c.RedisPrefix })},
	{"redis-cache-dir", "RLM_REDIS_CACHE_DIR", "redis_cache_dir", "", "local copies of uploaded files for the REPL with --store redis; empty: a directory under the system temp dir", str(func(c *serveConfig) *string { return &c.RedisCacheDir })},
	{"trace-stream", "RLM_TRACE_STREAM", "trace_stream", tracing.DefaultStream, "Redis Stream every finished trajectory is appended to with --store redis, for trainers' consumer groups; empty: none", str(func(c *serveConfig) *string { return &c.TraceStream })},
	{"trace-stream-maxlen", "RLM_TRACE_STREAM_MAXLEN", "trace_stream_maxlen", strconv.Itoa(tracing.DefaultStreamMaxLen), "entries the trajectory stream is trimmed to (approximately, MAXLEN ~); 0 or negative: never trimmed", num(func(c *serveConfig) *int { return &c.TraceStreamMax })},
	{"store-timeout", "RLM_STORE_TIMEOUT", "store_timeout", server.DefaultStoreTimeout.String(), "bound of each write of a stored completion (store: true: its record, request messages and summary); past it the request fails", dur(func(c *serveConfig) *time.Duration { return &c.StoreTimeout })},
	{"trace-save-queue", "RLM_TRACE_SAVE_QUEUE", "trace_save_queue", strconv.Itoa(tracing.DefaultSaveQueue), "finished runs' traces that may wait to be saved in the background; one more is dropped (counted in rlm_trace_saves_dropped_total)", num(func(c *serveConfig) *int { return &c.TraceSaveQueue })},
	{"trace-save-timeout", "RLM_TRACE_SAVE_TIMEOUT", "trace_save_timeout", "30s", "bound of saving (and publishing) one trace", dur(func(c *serveConfig) *time.Duration { return &c.TraceSaveTime })},
	{"trace-drain-timeout", "RLM_TRACE_DRAIN_TIMEOUT", "trace_drain_timeout", "10s", "how long shutdown keeps saving queued traces after the runs ended; what is left is dropped", dur(func(c *serveConfig) *time.Duration { return &c.TraceDrain })},
	{"max-request-bytes", "RLM_MAX_REQUEST_BYTES", "max_request_bytes", "64MiB", "largest chat request body", size(func(c *serveConfig) *int64 { return &c.MaxRequestBytes })},
	{"max-upload-bytes", "RLM_MAX_UPLOAD_BYTES", "max_upload_bytes", "512MiB", "largest uploaded file", size(func(c *serveConfig) *int64 { return &c.MaxUploadBytes })},
	{"max-concurrent", "RLM_MAX_CONCURRENT", "max_concurrent", "16", "runs executing at once", num(func(c *serveConfig) *int { return &c.MaxConcurrent })},
	{"queue-wait", "RLM_QUEUE_WAIT", "queue_wait", "2s", "how long a request waits for a run slot before 429", dur(func(c *serveConfig) *time.Duration { return &c.QueueWait })},
	{"max-queued", "RLM_MAX_QUEUED", "max_queued", strconv.Itoa(server.DefaultMaxQueued), "chat requests that may wait for a run slot at once; one more gets 429 at once", num(func(c *serveConfig) *int { return &c.MaxQueued })},
	{"retry-after", "RLM_RETRY_AFTER", "retry_after", "2s", "Retry-After sent with 429", dur(func(c *serveConfig) *time.Duration { return &c.RetryAfter })},
	{"keepalive", "RLM_KEEPALIVE", "keepalive", "15s", "interval of SSE keep-alive comments on idle streams", dur(func(c *serveConfig) *time.Duration { return &c.KeepAlive })},
	{"idle-timeout", "RLM_IDLE_TIMEOUT", "idle_timeout", server.DefaultIdleTimeout.String(), "how long a kept-alive client connection may sit idle between requests before it is closed", dur(func(c *serveConfig) *time.Duration { return &c.IdleTimeout })},
	{"read-header-timeout", "RLM_READ_HEADER_TIMEOUT", "read_header_timeout", server.DefaultReadHeaderTimeout.String(), "how long a client may take to send a request's headers", dur(func(c *serveConfig) *time.Duration { return &c.HeaderTimeout })},
	{"min-body-rate", "RLM_MIN_BODY_RATE", "min_body_rate", formatSize(server.DefaultMinBodyRate), "slowest average rate, per second, at which a request body may arrive after --body-rate-grace; a slower one is cut with 408", size(func(c *serveConfig) *int64 { return &c.MinBodyRate })},
	{"body-rate-grace", "RLM_BODY_RATE_GRACE", "body_rate_grace", server.DefaultBodyRateGrace.String(), "time a request body may take before --min-body-rate applies", dur(func(c *serveConfig) *time.Duration { return &c.BodyRateGrace })},
	{"max-conns", "RLM_MAX_CONNS", "max_conns", strconv.Itoa(server.DefaultMaxConns), "client connections open at once; more wait in the listen backlog", num(func(c *serveConfig) *int { return &c.MaxConns })},
	{"shutdown-grace", "RLM_SHUTDOWN_GRACE", "shutdown_grace", "30s", "how long shutdown lets running requests finish before cancelling them", dur(func(c *serveConfig) *time.Duration { return &c.ShutdownGrace })},
	{"max-depth", "RLM_MAX_DEPTH", "max_depth", "1", "server maximum (and default) of rlm.max_depth; 0: the root alone (rlm_query acts as llm_query)", num(func(c *serveConfig) *int { return &c.Limits.MaxDepth })},
	{"max-iterations", "RLM_MAX_ITERATIONS", "max_iterations", "30", "server maximum (and default) of rlm.max_iterations", num(func(c *serveConfig) *int { return &c.Limits.MaxIterations })},
	{"max-llm-calls", "RLM_MAX_LLM_CALLS", "max_llm_calls", "200", "server maximum (and default) of rlm.max_llm_calls", num(func(c *serveConfig) *int { return &c.Limits.MaxLLMCalls })},
	{"max-total-tokens", "RLM_MAX_TOTAL_TOKENS", "max_total_tokens", "5000000", "server maximum (and default) of rlm.max_total_tokens", num(func(c *serveConfig) *int { return &c.Limits.MaxTotalTokens })},
	{"max-timeout", "RLM_MAX_TIMEOUT", "max_timeout", "10m", "server maximum (and default) of rlm.timeout", dur(func(c *serveConfig) *time.Duration { return &c.Limits.Timeout })},
	{"repl-workers", "RLM_REPL_WORKERS", "repl_workers", "2", "idle REPL worker processes kept ready; 0: none", num(func(c *serveConfig) *int { return &c.REPLWorkers })},
	{"repl-uid", "RLM_REPL_UID", "repl_uid", strconv.Itoa(defaultREPLID), replUIDHelp, num(func(c *serveConfig) *int { return &c.REPLUID })},
	{"repl-gid", "RLM_REPL_GID", "repl_gid", strconv.Itoa(defaultREPLID), replGIDHelp, num(func(c *serveConfig) *int { return &c.REPLGID })},
	{"cell-timeout", "RLM_CELL_TIMEOUT", "cell_timeout", repl.DefaultLimits().CellTimeout.String(), "wall time per REPL cell", dur(func(c *serveConfig) *time.Duration { return &c.REPL.CellTimeout })},
	{"kill-grace", "RLM_KILL_GRACE", "kill_grace", repl.DefaultLimits().KillGrace.String(), "how long a cancelled cell may take to stop before its REPL worker is killed and replaced", dur(func(c *serveConfig) *time.Duration { return &c.REPL.KillGrace })},
	{"repl-memory-bytes", "RLM_REPL_MEMORY_BYTES", "repl_memory_bytes", formatSize(repl.DefaultLimits().MemoryBytes), "address space for model data in a REPL worker (RLIMIT_AS, on top of what it mapped at start)", size(func(c *serveConfig) *int64 { return &c.REPL.MemoryBytes })},
	{"repl-heap-bytes", "RLM_REPL_HEAP_BYTES", "repl_heap_bytes", formatSize(repl.DefaultLimits().HeapBytes), "live heap above which a REPL worker is stopped", size(func(c *serveConfig) *int64 { return &c.REPL.HeapBytes })},
	{"repl-stack-bytes", "RLM_REPL_STACK_BYTES", "repl_stack_bytes", formatSize(repl.DefaultLimits().StackBytes), "largest stack of one goroutine in the REPL (deeper recursion crashes the worker)", size(func(c *serveConfig) *int64 { return &c.REPL.StackBytes })},
	{"max-output", "RLM_MAX_OUTPUT", "max_output", strconv.Itoa(repl.DefaultLimits().MaxOutput), "characters of cell output shown to the model", num(func(c *serveConfig) *int { return &c.REPL.MaxOutput })},
	{"max-goroutines", "RLM_MAX_GOROUTINES", "max_goroutines", strconv.Itoa(repl.DefaultLimits().MaxGoroutines), "goroutines model code may have alive at once in one REPL", num(func(c *serveConfig) *int { return &c.REPL.MaxGoroutines })},
	{"max-prompt-bytes", "RLM_MAX_PROMPT_BYTES", "max_prompt_bytes", formatSize(repl.DefaultLimits().MaxPromptBytes), "largest prompt of one llm_query or rlm_query; a call with a larger one is refused before it leaves the REPL", size(func(c *serveConfig) *int64 { return &c.REPL.MaxPromptBytes })},
	{"max-call-bytes", "RLM_MAX_CALL_BYTES", "max_call_bytes", formatSize(repl.DefaultLimits().MaxCallBytes), "all prompts of one llm_query/rlm_query call (batched ones included) together; also bounds every message a REPL worker sends, refused from its header", size(func(c *serveConfig) *int64 { return &c.REPL.MaxCallBytes })},
	{"max-batch", "RLM_MAX_BATCH", "max_batch", strconv.Itoa(repl.DefaultLimits().MaxBatch), "prompts in one llm_query_batched or rlm_query_batched call; a batch larger than the LLM calls left is refused whole, with one trace record", num(func(c *serveConfig) *int { return &c.REPL.MaxBatch })},
	{"max-final-bytes", "RLM_MAX_FINAL_BYTES", "max_final_bytes", formatSize(repl.DefaultLimits().MaxFinalBytes), "largest answer FINAL accepts; a larger one is refused with a cell error the model sees", size(func(c *serveConfig) *int64 { return &c.REPL.MaxFinalBytes })},
	{"max-error-bytes", "RLM_MAX_ERROR_BYTES", "max_error_bytes", formatSize(int64(repl.DefaultLimits().MaxErrorBytes)), "largest cell error; long values an interpreter error quotes (the context, a constant) are named with their size first", sizeInt(func(c *serveConfig) *int { return &c.REPL.MaxErrorBytes })},
	{"max-host-calls", "RLM_MAX_HOST_CALLS", "max_host_calls", strconv.Itoa(repl.DefaultLimits().MaxHostCalls), "llm_query/rlm_query calls in flight at once per REPL worker; goroutines of model code that call beyond it wait", num(func(c *serveConfig) *int { return &c.REPL.MaxHostCalls })},
	{"max-trace-field-bytes", "RLM_MAX_TRACE_FIELD_BYTES", "max_trace_field_bytes", formatSize(tracing.DefaultMaxFieldBytes), "largest text field (prompt, response, message, output, answer) a trace keeps; longer ones are cut, with a note", size(func(c *serveConfig) *int64 { return &c.TraceFieldBytes })},
	{"max-trace-bytes", "RLM_MAX_TRACE_BYTES", "max_trace_bytes", formatSize(tracing.DefaultMaxTraceBytes), "largest trace of one run; past it text and sub-call records are left out and counted in the trace's truncated", size(func(c *serveConfig) *int64 { return &c.TraceBytes })},
	{"log-level", "RLM_LOG_LEVEL", "log_level", "info", "debug, info, warn or error", str(func(c *serveConfig) *string { return &c.LogLevel })},
	{"trace-content", "RLM_TRACE_CONTENT", "trace_content", "false", "put prompt and completion text on OpenTelemetry spans (traces in the store always keep them)", func(c *serveConfig, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("not true or false: %q", v)
		}
		c.TraceContent = b
		return nil
	}},
}

// loadServeConfig applies defaults, then the YAML file, then the
// environment, then the flags given in args.
func loadServeConfig(args []string, getenv func(string) string, stderr io.Writer) (*serveConfig, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configFile := fs.String("config", getenv("RLM_CONFIG"), "optional YAML `file` of settings (env RLM_CONFIG); flags override environment variables, which override the file")
	vals := map[string]*string{}
	for _, o := range serveOptions {
		v := new(string)
		vals[o.flag] = v
		fs.StringVar(v, o.flag, o.def, fmt.Sprintf("%s (env %s, YAML %s)", o.help, o.env, o.yaml))
	}
	// The settings are listed in the table's order, which groups them as
	// docs/server.md does, rather than the flag package's alphabetical one.
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: rlm serve [flags]

Runs the OpenAI-compatible RLM gateway. Every setting is a flag, an environment
variable and a key of the YAML file given by --config; a flag wins over the
environment, which wins over the file. See docs/server.md. Settings:
  --config file
    	optional YAML file of settings (env RLM_CONFIG)
`)
		for _, o := range serveOptions {
			def := ""
			if o.def != "" {
				def = "; default " + o.def
			}
			fmt.Fprintf(stderr, "  --%s %s\n    \t%s (env %s, YAML %s%s)\n", o.flag, placeholder(o.def), o.help, o.env, o.yaml, def)
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, flag.ErrHelp
		}
		return nil, errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rlm serve: unexpected argument %q\n", fs.Arg(0))
		return nil, errUsage
	}
	setByFlag := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { setByFlag[f.Name] = true })
	fileVals := map[string]string{}
	if *configFile != "" {
		b, err := os.ReadFile(*configFile)
		if err != nil {
			return nil, fmt.Errorf("serve: config file: %w", err)
		}
		var raw map[string]any
		if err := yaml.Unmarshal(b, &raw); err != nil {
			return nil, fmt.Errorf("serve: config file %s: %w", *configFile, err)
		}
		known := map[string]bool{}
		for _, o := range serveOptions {
			known[o.yaml] = true
		}
		for k, v := range raw {
			if !known[k] {
				return nil, fmt.Errorf("serve: config file %s: unknown key %q (see docs/server.md)", *configFile, k)
			}
			fileVals[k] = yamlString(v)
		}
	}
	c := &serveConfig{}
	for _, o := range serveOptions {
		v, from := o.def, "default"
		if fv, ok := fileVals[o.yaml]; ok {
			v, from = fv, "config file key "+o.yaml
		}
		if ev := getenv(o.env); ev != "" {
			v, from = ev, "environment variable "+o.env
		}
		if setByFlag[o.flag] {
			v, from = *vals[o.flag], "flag --"+o.flag
		}
		if v == "" {
			continue
		}
		if err := o.set(c, v); err != nil {
			if setByFlag[o.flag] {
				return nil, badFlag("serve: %s: %w", from, err)
			}
			return nil, fmt.Errorf("serve: %s: %w", from, err)
		}
	}
	return c, nil
}

// checkMaxima refuses maxima the server cannot enforce. A zero max-* means
// "no maximum", except --max-depth 0, which is the root alone (runLimits
// turns it into the -1 the server and the engine read so).
func (c *serveConfig) checkMaxima() error {
	l := c.Limits
	for _, m := range []struct {
		name string
		v    any
		neg  bool
		zero string
	}{{"max-depth", l.MaxDepth, l.MaxDepth < 0, "the root alone"}, {"max-iterations", l.MaxIterations, l.MaxIterations < 0, "no maximum"},
		{"max-llm-calls", l.MaxLLMCalls, l.MaxLLMCalls < 0, "no maximum"}, {"max-total-tokens", l.MaxTotalTokens, l.MaxTotalTokens < 0, "no maximum"},
		{"max-timeout", l.Timeout, l.Timeout < 0, "no maximum"}} {
		if m.neg {
			return fmt.Errorf("%s %v: must not be negative (0: %s)", m.name, m.v, m.zero)
		}
	}
	// The server reads a non-positive queue bound as its default, which is
	// not what an operator writing 0 means.
	if c.MaxQueued <= 0 {
		return fmt.Errorf("max-queued %d: must be positive", c.MaxQueued)
	}
	if c.MaxConns <= 0 {
		return fmt.Errorf("max-conns %d: must be positive", c.MaxConns)
	}
	if c.TraceSaveQueue <= 0 {
		return fmt.Errorf("trace-save-queue %d: must be positive", c.TraceSaveQueue)
	}
	if c.REPL.MaxBatch <= 0 || c.REPL.MaxHostCalls <= 0 {
		return fmt.Errorf("max-batch %d and max-host-calls %d: must be positive", c.REPL.MaxBatch, c.REPL.MaxHostCalls)
	}
	if c.TraceFieldBytes > c.TraceBytes/4 {
		return fmt.Errorf("max-trace-field-bytes %d: must be at most a quarter of max-trace-bytes %d", c.TraceFieldBytes, c.TraceBytes)
	}
	return nil
}

// placeholder names the kind of value a setting takes in its help, judged
// by its default.
func placeholder(def string) string {
	if _, err := strconv.Atoi(def); err == nil {
		return "int"
	}
	if _, err := strconv.ParseBool(def); err == nil {
		return "bool"
	}
	if _, err := time.ParseDuration(def); err == nil {
		return "duration"
	}
	if _, err := parseSize(def); err == nil {
		return "size"
	}
	return "string"
}

// yamlString renders a YAML value the way the flag would be written: lists
// become comma-separated, maps alias=value pairs.
func yamlString(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = yamlString(e)
		}
		return strings.Join(parts, ",")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + yamlString(x[k])
		}
		return strings.Join(parts, ",")
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

// startLocalModel loads --local-model and makes it the upstream of root
// turns and sub-calls; the root model defaults to its name.
func (c *serveConfig) startLocalModel() (*inference.Engine, error) {
	ic, err := parseKVCache(c.LocalKVCache)
	if err != nil {
		return nil, fmt.Errorf("local-kv-cache: %w", err)
	}
	if c.LocalMaxSeqs <= 0 || c.LocalMaxBatchTokens <= 0 || c.LocalMaxModelLen < 0 {
		return nil, fmt.Errorf("local-max-seqs and local-max-batch-tokens must be positive, local-max-model-len not negative")
	}
	ic.MaxSeqs, ic.MaxBatchTokens, ic.MaxModelLen = c.LocalMaxSeqs, c.LocalMaxBatchTokens, c.LocalMaxModelLen
	e, err := loadLocalModel(c.LocalModel, ic)
	if err != nil {
		return nil, err
	}
	if c.RootModel == "" {
		c.RootModel = e.Name()
	}
	c.Local = localClient{e}
	return e, nil
}

// runServe is `rlm serve`.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := loadServeConfig(args, os.Getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		return fmt.Errorf("serve: log level %q: %w", cfg.LogLevel, err)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	if cfg.LocalModel != "" {
		local, err := cfg.startLocalModel()
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		defer func() {
			st := local.Stats()
			saved := 0.0
			if st.PromptTokens > 0 {
				saved = float64(st.CachedTokens) / float64(st.PromptTokens)
			}
			log.Info("local model stats", "requests", st.Requests, "prompt_tokens", st.PromptTokens,
				"prefix_cached_tokens", st.CachedTokens, "prefill_saved", fmt.Sprintf("%.1f%%", 100*saved),
				"computed_tokens", st.ComputedTokens, "generated_tokens", st.GeneratedTokens, "steps", st.Steps,
				"preemptions", st.Preemptions, "evictions", st.Evictions)
			local.Close()
		}()
		st := local.Stats()
		log.Info("local model loaded", "model", local.Name(), "dir", cfg.LocalModel,
			"kv_cache_tokens", st.KVBlocks*st.KVBlockSize, "max_model_len", local.MaxModelLen())
	}
	aliases := map[string]string{}
	var names []string
	for _, m := range cfg.Models {
		alias, upstream, ok := strings.Cut(m, "=")
		if !ok {
			upstream = cfg.RootModel
		}
		if alias == "" {
			return fmt.Errorf("serve: models: empty alias in %q", m)
		}
		aliases[alias] = upstream
		names = append(names, alias)
	}
	if len(names) == 0 {
		return errors.New("serve: models: no model alias: set --models or RLM_MODELS (e.g. rlm)")
	}
	if err := cfg.checkMaxima(); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if err := cfg.checkREPL(); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	st, closeStore, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeStore()
	scfg := server.Config{
		Keys: cfg.APIKeys, Models: names, MaxRequestBytes: cfg.MaxRequestBytes, MaxUploadBytes: cfg.MaxUploadBytes,
		MaxConcurrent: cfg.MaxConcurrent, MaxQueued: cfg.MaxQueued, QueueWait: cfg.QueueWait, RetryAfter: cfg.RetryAfter, KeepAlive: cfg.KeepAlive,
		IdleTimeout: cfg.IdleTimeout, ReadHeaderTimeout: cfg.HeaderTimeout, MinBodyRate: cfg.MinBodyRate, BodyRateGrace: cfg.BodyRateGrace,
		MaxConns: cfg.MaxConns, MetricsKey: cfg.MetricsKey, MetricsSeparate: cfg.MetricsAddr != "", StoreTimeout: cfg.StoreTimeout,
		MaxLimits: cfg.runLimits(),
		Logger:    log,
	}
	// Every run is recorded as a trace under its caller's owner, in the same
	// store; OpenTelemetry export is configured by the standard OTEL_* env.
	tp, shutdownOTel, err := tracing.SetupFromEnv(ctx, os.Getenv)
	if err != nil {
		return fmt.Errorf("serve: OpenTelemetry: %w", err)
	}
	defer shutdownOTel(context.Background())
	var spans *tracing.SpanConfig
	if tp != nil {
		spans = &tracing.SpanConfig{TracerProvider: tp, CaptureContent: cfg.TraceContent}
	}
	feed, closeFeed, err := openFeed(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeFeed()
	traces := tracing.NewService(tracing.Config{Store: st, Spans: spans, Logger: log, Feed: feed,
		SaveQueue: cfg.TraceSaveQueue, SaveTimeout: cfg.TraceSaveTime,
		Record:     tracing.RecordLimits{MaxFieldBytes: int(cfg.TraceFieldBytes), MaxTraceBytes: cfg.TraceBytes},
		IsNotFound: func(err error) bool { return errors.Is(err, store.ErrNotFound) }})
	defer func() {
		// After the server's shutdown: the runs have ended, their traces
		// are queued.
		dctx, cancel := context.WithTimeout(context.Background(), cfg.TraceDrain)
		defer cancel()
		if err := traces.Close(dctx); err != nil {
			log.Error("traces not saved at shutdown", "err", err)
		}
	}()
	scfg.Collectors = traces.Collectors()
	scfg.ReadyChecks = map[string]func(context.Context) error{
		"trace_saving": func(context.Context) error { return traces.SaveHealth() },
	}
	traceAPI := tracing.NewAPI(traces, tracing.APIConfig{})
	scfg.Extend = func(e *echo.Echo, v1 *echo.Group, owner func(*echo.Context) string) {
		traceAPI.Register(v1, owner)
		ui := echo.WrapHandler(tracing.UIHandler())
		e.GET("/ui", ui)
		e.GET("/ui/*", ui)
	}
	scfg.RunContext = func(ctx context.Context, owner string, h http.Header) context.Context {
		return tracing.WithHeaders(tracing.WithOwner(ctx, owner), h)
	}
	var missing []string
	if cfg.Upstream == "" && cfg.Local == nil {
		missing = append(missing, "no upstream configured: set --upstream or RLM_UPSTREAM (e.g. https://api.openai.com/v1)")
	}
	if cfg.RootModel == "" {
		for _, u := range aliases {
			if u == "" {
				missing = append(missing, "no root model configured: set --root-model or RLM_ROOT_MODEL, or map every alias with --models alias=upstream-model")
				break
			}
		}
	}
	var runner server.Runner
	if len(missing) > 0 {
		scfg.NotConfigured = strings.Join(missing, "; ")
		for _, m := range missing {
			log.Warn("NOT CONFIGURED: chat completions will fail with 503 until this is fixed: " + m)
		}
	} else {
		root := cfg.RootModel
		if root == "" {
			root = aliases[names[0]]
		}
		eng, err := cfg.newEngine(recursion.Config{RootModel: root, Models: aliases, Defaults: cfg.runLimits(), Max: cfg.runLimits()})
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		defer eng.Close()
		runner = traces.Wrap(eng.Engine)
		scfg.Workers = eng.pool
	}
	if len(cfg.APIKeys) == 0 {
		log.Warn("NO API KEYS: the server is open to anyone who can reach " + cfg.Listen + "; set --api-keys or RLM_API_KEYS")
	}
	srv, err := server.New(scfg, st, runner)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	attrs := []any{"addr", "http://" + ln.Addr().String(), "store", cfg.Store, "models", strings.Join(names, ",")}
	var mln net.Listener
	if cfg.MetricsAddr != "" {
		if mln, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			ln.Close()
			return fmt.Errorf("serve: --metrics-addr: %w", err)
		}
		attrs = append(attrs, "metrics", "http://"+mln.Addr().String()+"/metrics")
	}
	if feed != nil {
		attrs = append(attrs, "trace_stream", feed.Stream())
	}
	log.Info("rlm serve listening", attrs...)
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	done := make(chan error, 2)
	go func() { done <- srv.Serve(ln) }()
	if mln != nil {
		fmt.Fprintf(stdout, "metrics on http://%s/metrics\n", mln.Addr())
		go func() {
			if err := srv.ServeMetrics(mln); err != nil {
				done <- err
			}
		}()
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", cfg.ShutdownGrace)
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	return <-done
}

func openStore(ctx context.Context, cfg *serveConfig) (store.Store, func(), error) {
	switch cfg.Store {
	case "disk":
		d, err := store.OpenDisk(cfg.DataDir)
		if err != nil {
			return nil, nil, fmt.Errorf("serve: %w", err)
		}
		return d, func() {}, nil
	case "redis":
		r, err := store.OpenRedis(ctx, store.RedisConfig{URL: cfg.RedisURL, Prefix: cfg.RedisPrefix, CacheDir: cfg.RedisCacheDir})
		if err != nil {
			return nil, nil, fmt.Errorf("serve: %w", err)
		}
		return r, func() { r.Close() }, nil
	}
	return nil, nil, fmt.Errorf("serve: unknown store %q: use disk or redis", cfg.Store)
}

// openFeed opens the Redis Stream of finished trajectories: with the Redis
// store, on the same server, unless --trace-stream is empty. Without it the
// feed is nil, which tracing reads as "no stream".
func openFeed(ctx context.Context, cfg *serveConfig) (*tracing.Feed, func(), error) {
	if cfg.Store != "redis" || cfg.TraceStream == "" {
		return nil, func() {}, nil
	}
	maxLen := int64(cfg.TraceStreamMax)
	if maxLen == 0 {
		maxLen = -1 // NewFeed reads 0 as its default; here 0 means no trimming, as documented
	}
	feed, closeFeed, err := tracing.OpenFeed(ctx, cfg.RedisURL, cfg.TraceStream, maxLen)
	if err != nil {
		return nil, nil, fmt.Errorf("serve: --trace-stream %s: %w", cfg.TraceStream, err)
	}
	return feed, func() { closeFeed() }, nil
}
