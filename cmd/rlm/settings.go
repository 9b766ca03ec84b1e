package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rlm-project/rlm/document"
	"github.com/rlm-project/rlm/eval"
	"github.com/rlm-project/rlm/internal/cli"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/upstream"
	"github.com/rlm-project/rlm/repl"
	"github.com/rlm-project/rlm/server"
	"github.com/rlm-project/rlm/tracing"
)

// config is everything `rlm serve`, `rlm query` and `rlm eval` can be told
// through settings. Each field is one row of settingsTable.
type config struct {
	// engineConfig's Limits are a run's limits for query and eval, and the
	// server's maxima (which are also the defaults of requests that set
	// none) for serve.
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
	MaxMessages     int
	MaxContentParts int
	// Retention and quotas of the store (see retention.go).
	RunLease             time.Duration
	RetentionInterval    time.Duration
	RetentionMaxBytes    int64
	TraceMaxAge          time.Duration
	CompletionMaxAge     time.Duration
	FileMaxAge           time.Duration
	QuotaFileBytes       int64
	QuotaFiles           int
	QuotaCompletionBytes int64
	QuotaCompletions     int
	QuotaTraceBytes      int64
	QuotaTraces          int
	// Reading attached documents and context files (PDF, HTML).
	DocumentTimeout   time.Duration
	MaxDocumentPieces int
	PDFMemoryBytes    int64
	PDFCacheDir       string
	MaxConcurrent     int
	QueueWait         time.Duration
	MaxQueued         int
	MaxBackground     int
	ResponsePoll      time.Duration
	CancelWait        time.Duration
	SessionTTL        time.Duration
	MaxSessions       int
	RetryAfter        time.Duration
	KeepAlive         time.Duration
	IdleTimeout       time.Duration
	HeaderTimeout     time.Duration
	MinBodyRate       int64
	BodyRateGrace     time.Duration
	MaxConns          int
	MaxConnsPerClient int
	ShutdownGrace     time.Duration
	LogLevel          string
	TraceContent      bool
	TraceFieldBytes   int64
	TraceBytes        int64
	// The in-process model of --local-model.
	LocalModel        string
	Device, Precision string
	KVCache           string
	MaxSeqs           int
	MaxBatchTokens    int
	// Upstream health on /readyz.
	ReadyUpstream bool
	ProbeInterval time.Duration
	// explicit names the settings given by flag, environment or file
	// rather than left at their defaults.
	explicit map[string]bool
}

// cmdSet is the commands a setting applies to.
type cmdSet uint8

const (
	forServe cmdSet = 1 << iota
	forQuery
	forEval
	allCommands = forServe | forQuery | forEval
)

// settingCommands are the commands that take settings, in cmdSet's order.
var settingCommands = []string{"serve", "query", "eval"}

func (s cmdSet) String() string {
	var names []string
	for i, name := range settingCommands {
		if s&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

func commandSet(name string) cmdSet {
	for i, n := range settingCommands {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// setting is one configuration setting: one name for every command that
// takes it, as a flag (--name), an environment variable (RLM_NAME) and a
// key of the --config YAML file (name with underscores). Precedence: flag,
// then environment variable, then the conventional fallback variable (for
// the upstream, OPENAI_BASE_URL and OPENAI_API_KEY), then YAML file, then
// the default.
type setting struct {
	name string
	cmds cmdSet
	def  string
	help string
	set  func(c *config, v string) error
}

func (s setting) env() string  { return "RLM_" + strings.ToUpper(strings.ReplaceAll(s.name, "-", "_")) }
func (s setting) yaml() string { return strings.ReplaceAll(s.name, "-", "_") }

// conventionalEnv are the environment variables OpenAI's own clients read,
// honoured by the settings of the same meaning when their RLM_ variable is
// unset.
var conventionalEnv = map[string]string{"upstream": "OPENAI_BASE_URL", "upstream-key": "OPENAI_API_KEY"}

// fallback is the conventional environment variable of the setting, if any.
func (s setting) fallback() string { return conventionalEnv[s.name] }

func str(f func(c *config) *string) func(*config, string) error {
	return func(c *config, v string) error { *f(c) = v; return nil }
}

func list(f func(c *config) *[]string) func(*config, string) error {
	return func(c *config, v string) error {
		*f(c) = nil
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				*f(c) = append(*f(c), s)
			}
		}
		return nil
	}
}

func num(f func(c *config) *int) func(*config, string) error {
	return func(c *config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("not an integer: %q", v)
		}
		*f(c) = n
		return nil
	}
}

func boolean(f func(c *config) *bool) func(*config, string) error {
	return func(c *config, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("not true or false: %q", v)
		}
		*f(c) = b
		return nil
	}
}

// window reads a context window: auto (0), a positive number of tokens
// (8192, 128k) or a negative one (no compaction, -1).
func window(f func(c *config) *int) func(*config, string) error {
	return func(c *config, v string) error {
		if v == "auto" {
			*f(c) = 0
			return nil
		}
		if n, err := strconv.Atoi(v); err == nil && n < 0 {
			*f(c) = -1
			return nil
		}
		n, err := eval.ParseLength(v)
		if err != nil {
			return fmt.Errorf("want auto, a number of tokens like 131072 or 128k, or a negative number (no compaction): %q", v)
		}
		*f(c) = n
		return nil
	}
}

func dur(f func(c *config) *time.Duration) func(*config, string) error {
	return func(c *config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("not a duration like 30s or 5m: %q", v)
		}
		*f(c) = d
		return nil
	}
}

func size(f func(c *config) *int64) func(*config, string) error {
	return func(c *config, v string) error {
		n, err := cli.ParseSize(v)
		if err != nil {
			return err
		}
		*f(c) = n
		return nil
	}
}

// sizeOrZero is size for a setting where 0 means no bound.
func sizeOrZero(f func(c *config) *int64) func(*config, string) error {
	return func(c *config, v string) error {
		if strings.TrimSpace(v) == "0" {
			*f(c) = 0
			return nil
		}
		return size(f)(c, v)
	}
}

// sizeInt is size for an int setting.
func sizeInt(f func(c *config) *int) func(*config, string) error {
	return func(c *config, v string) error {
		n, err := cli.ParseSize(v)
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

// settingsTable is the one table of settings of every command;
// docs/settings.md lists the same rows (a test checks that it does).
var settingsTable = []setting{
	{"listen", forServe, "127.0.0.1:8080", "address to listen on", str(func(c *config) *string { return &c.Listen })},
	{"api-key", forServe, "", "API key clients must send as a Bearer token, or several separated by commas; empty: open server", list(func(c *config) *[]string { return &c.APIKeys })},
	{"metrics-addr", forServe, "", "address to serve /metrics on, apart from --listen (which then has none); empty: /metrics on --listen", str(func(c *config) *string { return &c.MetricsAddr })},
	{"metrics-key", forServe, "", "bearer key /metrics requires; empty: /metrics is open on a server without --api-keys and on --metrics-addr, and refused on --listen of a server with keys", str(func(c *config) *string { return &c.MetricsKey })},
	{"upstream", allCommands, "", "base URL of the OpenAI-compatible upstream, e.g. https://api.openai.com/v1", str(func(c *config) *string { return &c.Upstream })},
	{"upstream-key", allCommands, "", "API key for the upstream", str(func(c *config) *string { return &c.UpstreamKey })},
	{"local-model", allCommands, "", "checkpoint directory of a Qwen3 model to run in-process as the upstream of root turns and sub-calls, instead of --upstream; builtin: the model built into rlm (rlm-tiny-demo); none: no local model. Empty: serve and query use builtin when no --upstream is set (see docs/inference.md)", str(func(c *config) *string { return &c.LocalModel })},
	{"device", allCommands, "auto", "where --local-model runs: auto (a GPU when there is one, and the log says so; else the CPU), cpu, cuda or cuda:N", str(func(c *config) *string { return &c.Device })},
	{"precision", allCommands, "bf16", "arithmetic of --local-model's matrix products and attention on a GPU: bf16, tf32 or fp32", str(func(c *config) *string { return &c.Precision })},
	{"kv-cache", allCommands, "1GiB", "KV cache pool of --local-model, allocated at start: a size like 4GiB, or tokens like 65536tokens; left at its default, the built-in model takes 65536tokens", str(func(c *config) *string { return &c.KVCache })},
	{"max-seqs", allCommands, "64", "sequences --local-model decodes together in one step", num(func(c *config) *int { return &c.MaxSeqs })},
	{"max-batch-tokens", allCommands, "512", "tokens in one forward step of --local-model; longer prompts are prefilled in chunks", num(func(c *config) *int { return &c.MaxBatchTokens })},
	{"root-model", allCommands, "", "upstream model of root turns; serve: of requests naming an alias without a mapping", str(func(c *config) *string { return &c.RootModel })},
	{"sub-model", allCommands, "", "upstream model for llm_query and child RLMs; empty: the root model", str(func(c *config) *string { return &c.SubModel })},
	{"temperature", forQuery | forEval, "", "sampling temperature of root turns and sub-calls; unset: the upstream's default (0 is sent as 0)", str(func(c *config) *string { return &c.Temperature })},
	{"seed", forQuery | forEval, "", "query: seed sent with every model call (OpenAI's seed), so that sampled runs repeat where the upstream honours it (the local models do), unset: none; eval: seed of the generated instances and, one derived per instance, of their model calls, unset: 1", str(func(c *config) *string { return &c.SamplingSeed })},
	{"models", forServe, "rlm", "comma-separated model aliases clients may name, each alias or alias=upstream-model; an alias without = runs the root model", list(func(c *config) *[]string { return &c.Models })},
	{"upstream-timeout", allCommands, "120s", "timeout of one upstream call attempt", dur(func(c *config) *time.Duration { return &c.UpstreamTimeout })},
	{"upstream-check-after", allCommands, upstream.DefaultCheckAfter.String(), "silence of an upstream call (no response headers yet, or no byte of the body) after which rlm checks that the upstream still answers GET /models within --upstream-probe-timeout: one that does not fails the call at once, without retry (a hung upstream fails a request in about 15s); one that does is waited for, up to --upstream-timeout; 0: never checked", dur(func(c *config) *time.Duration { return &c.UpstreamCheck })},
	{"upstream-idle-timeout", allCommands, upstream.DefaultIdleTimeout.String(), "longest silence while an upstream response body is read, once its headers arrived; the attempt then fails and is retried", dur(func(c *config) *time.Duration { return &c.UpstreamIdle })},
	{"upstream-stream", allCommands, "false", "call the upstream with \"stream\": true and assemble the streamed chunks: for upstreams that only stream, and proxies that cut a connection silent while a long answer is generated (the idle timeout then bounds the gap between chunks)", boolean(func(c *config) *bool { return &c.UpstreamStream })},
	{"upstream-max-response-bytes", allCommands, "64MiB", "largest upstream response body, streamed or not (and so the longest line of a stream); a larger one fails the call without a retry", size(func(c *config) *int64 { return &c.UpstreamMaxBody })},
	{"upstream-retries", allCommands, "4", "retries of an upstream call after 429, 5xx or connection errors", num(func(c *config) *int { return &c.UpstreamRetries })},
	{"upstream-concurrency", allCommands, "64", "upstream calls in flight across all requests", num(func(c *config) *int { return &c.UpstreamConc })},
	{"upstream-probe-timeout", allCommands, "5s", "timeout of the upstream probe (GET /models) made at start, which logs whether the upstream is reachable, accepts the key and lists the models, and of the liveness check of a silent call (--upstream-check-after)", dur(func(c *config) *time.Duration { return &c.ProbeTimeout })},
	{"ready-upstream", forServe, "false", "/readyz reports not ready while the upstream probe fails (unreachable, key refused, 5xx), probed again every --upstream-probe-interval", boolean(func(c *config) *bool { return &c.ReadyUpstream })},
	{"upstream-probe-interval", forServe, "30s", "how often the upstream is probed again while --ready-upstream is on", dur(func(c *config) *time.Duration { return &c.ProbeInterval })},
	{"store", forServe, "disk", "where files and stored completions live: disk or redis", str(func(c *config) *string { return &c.Store })},
	{"data-dir", forServe, "./data", "directory of the disk store", str(func(c *config) *string { return &c.DataDir })},
	{"redis-url", forServe, "redis://127.0.0.1:6379/0", "Redis URL for --store redis", str(func(c *config) *string { return &c.RedisURL })},
	{"redis-prefix", forServe, "rlm", "prefix of every Redis key the server writes", str(func(c *config) *string { return &c.RedisPrefix })},
	{"redis-cache-dir", forServe, "", "local copies of uploaded files for the REPL with --store redis; empty: a directory under the system temp dir", str(func(c *config) *string { return &c.RedisCacheDir })},
	{"trace-stream", forServe, tracing.DefaultStream, "Redis Stream every finished trajectory is appended to with --store redis, for trainers' consumer groups; empty: none", str(func(c *config) *string { return &c.TraceStream })},
	{"trace-stream-maxlen", forServe, strconv.Itoa(tracing.DefaultStreamMaxLen), "entries the trajectory stream is trimmed to (approximately, MAXLEN ~); 0 or negative: never trimmed", num(func(c *config) *int { return &c.TraceStreamMax })},
	{"store-timeout", forServe, server.DefaultStoreTimeout.String(), "bound of each write of a stored completion (store: true: its record, request messages and summary); past it the request fails", dur(func(c *config) *time.Duration { return &c.StoreTimeout })},
	{"trace-save-queue", forServe, strconv.Itoa(tracing.DefaultSaveQueue), "finished runs' traces that may wait to be saved in the background; one more is dropped (counted in rlm_trace_saves_dropped_total)", num(func(c *config) *int { return &c.TraceSaveQueue })},
	{"trace-save-timeout", forServe, "30s", "bound of saving (and publishing) one trace", dur(func(c *config) *time.Duration { return &c.TraceSaveTime })},
	{"trace-drain-timeout", forServe, "10s", "how long shutdown keeps saving queued traces after the runs ended; what is left is dropped", dur(func(c *config) *time.Duration { return &c.TraceDrain })},
	{"run-lease", forServe, server.DefaultRunLease.String(), "term of a server's lease in the store, renewed every third of it (at least 1s): the stored runs in progress of a server whose lease ended (killed, crashed, cut off from the store) are recorded as interrupted by any server on the store. On the disk store a dead process's lease ends with it", dur(func(c *config) *time.Duration { return &c.RunLease })},
	{"retention-interval", forServe, "10m", "how often the store is swept (and once at start): traces, stored completions and files past their max age, the oldest traces and stored completions past --retention-max-bytes, and what interrupted writes left; 0: never", dur(func(c *config) *time.Duration { return &c.RetentionInterval })},
	{"retention-max-bytes", forServe, "4GiB", "traces and stored completions of every key together; a sweep deletes the oldest past it; 0: no bound", sizeOrZero(func(c *config) *int64 { return &c.RetentionMaxBytes })},
	{"trace-max-age", forServe, "720h", "age (since last written) past which a sweep deletes a trace; 0: none", dur(func(c *config) *time.Duration { return &c.TraceMaxAge })},
	{"completion-max-age", forServe, "720h", "age (since last written) past which a sweep deletes a stored completion or response (with its events); 0: none", dur(func(c *config) *time.Duration { return &c.CompletionMaxAge })},
	{"file-max-age", forServe, "0s", "age past which a sweep deletes an uploaded file; 0: kept until its key deletes it", dur(func(c *config) *time.Duration { return &c.FileMaxAge })},
	{"quota-file-bytes", forServe, "2GiB", "uploaded files (with their text) one API key may keep; an upload past it gets 400 storage_quota_exceeded; 0: no quota", sizeOrZero(func(c *config) *int64 { return &c.QuotaFileBytes })},
	{"quota-files", forServe, "1000", "uploaded files one API key may keep; one more gets 400 storage_quota_exceeded; 0: no quota", num(func(c *config) *int { return &c.QuotaFiles })},
	{"quota-completion-bytes", forServe, "1GiB", "stored completions (records and request messages) one API key may keep; a store: true request past it gets 400 storage_quota_exceeded; 0: no quota", sizeOrZero(func(c *config) *int64 { return &c.QuotaCompletionBytes })},
	{"quota-completions", forServe, "10000", "stored completions one API key may keep; one more gets 400 storage_quota_exceeded; 0: no quota", num(func(c *config) *int { return &c.QuotaCompletions })},
	{"quota-trace-bytes", forServe, "1GiB", "traces one API key may keep (at least --max-trace-bytes); saving one past it first deletes the key's oldest traces; 0: no quota", sizeOrZero(func(c *config) *int64 { return &c.QuotaTraceBytes })},
	{"quota-traces", forServe, "10000", "traces one API key may keep; saving one more first deletes the key's oldest; 0: no quota", num(func(c *config) *int { return &c.QuotaTraces })},
	{"max-request-bytes", forServe, "64MiB", "largest chat request body", size(func(c *config) *int64 { return &c.MaxRequestBytes })},
	{"max-upload-bytes", forServe, "512MiB", "largest uploaded file", size(func(c *config) *int64 { return &c.MaxUploadBytes })},
	{"max-messages", forServe, strconv.Itoa(server.DefaultMaxMessages), "messages in one chat request (OpenAI's limit); counted while the body is decoded, one more is refused with 400", num(func(c *config) *int { return &c.MaxMessages })},
	{"max-content-parts", forServe, strconv.Itoa(server.DefaultMaxContentParts), "content parts (text and file) of all messages of one chat request together; counted while the body is decoded, one more is refused with 400", num(func(c *config) *int { return &c.MaxContentParts })},
	{"document-timeout", forServe | forQuery, document.DefaultTimeout.String(), "longest time reading one attached document's or context file's text (a PDF's pages, an HTML page's text) may take; past it the request gets 400", dur(func(c *config) *time.Duration { return &c.DocumentTimeout })},
	{"max-document-pieces", forServe | forQuery, strconv.Itoa(document.DefaultMaxPieces), "most contexts pieces one document may become (a PDF's pages); a longer PDF gets 400", num(func(c *config) *int { return &c.MaxDocumentPieces })},
	{"pdf-memory-bytes", forServe | forQuery, cli.FormatSize(document.DefaultPDFMemoryBytes), "memory cap of the PDF engine for one document, the file included (32MiB to 2GiB); PDFs larger than half of it, or needing more, get 400", size(func(c *config) *int64 { return &c.PDFMemoryBytes })},
	{"pdf-cache-dir", forServe | forQuery, "", "directory keeping the PDF engine's compiled code between starts (without it the first PDF after each start waits seconds for the compile); empty: rlm/pdf-engine in the user's cache directory; none: no cache", str(func(c *config) *string { return &c.PDFCacheDir })},
	{"max-concurrent", forServe, "16", "runs executing at once", num(func(c *config) *int { return &c.MaxConcurrent })},
	{"queue-wait", forServe, "2s", "how long a request waits for a run slot before 429", dur(func(c *config) *time.Duration { return &c.QueueWait })},
	{"max-queued", forServe, strconv.Itoa(server.DefaultMaxQueued), "chat requests that may wait for a run slot at once; one more gets 429 at once", num(func(c *config) *int { return &c.MaxQueued })},
	{"max-background", forServe, strconv.Itoa(server.DefaultMaxBackground), "background responses (POST /v1/responses with background: true) one server holds, queued or running; one more gets 429. They wait for a run slot as long as it takes, not --queue-wait", num(func(c *config) *int { return &c.MaxBackground })},
	{"response-poll", forServe, server.DefaultResponsePoll.String(), "how often a background response checks the store for a cancel sent to another replica, and a resumed response stream for new events", dur(func(c *config) *time.Duration { return &c.ResponsePoll })},
	{"cancel-wait", forServe, server.DefaultCancelWait.String(), "how long POST /v1/responses/{id}/cancel waits for the run to stop before it answers with the response as it stands", dur(func(c *config) *time.Duration { return &c.CancelWait })},
	{"session-ttl", forServe, server.DefaultSessionTTL.String(), "how long the REPL session of a finished stored response is kept for a follow-up (previous_response_id) that continues it, variables included; a follow-up after it starts a new session with the earlier turns as messages", dur(func(c *config) *time.Duration { return &c.SessionTTL })},
	{"max-sessions", forServe, strconv.Itoa(server.DefaultMaxSessions), "REPL sessions kept for follow-ups at once; the oldest is closed for a new one. Each holds an idle REPL worker and its memory (counted in --repl-memory-total)", num(func(c *config) *int { return &c.MaxSessions })},
	{"retry-after", forServe, "2s", "Retry-After sent with 429", dur(func(c *config) *time.Duration { return &c.RetryAfter })},
	{"keepalive", forServe, "15s", "interval of SSE keep-alive comments on idle streams", dur(func(c *config) *time.Duration { return &c.KeepAlive })},
	{"idle-timeout", forServe, server.DefaultIdleTimeout.String(), "how long a kept-alive client connection may sit idle between requests before it is closed", dur(func(c *config) *time.Duration { return &c.IdleTimeout })},
	{"read-header-timeout", forServe, server.DefaultReadHeaderTimeout.String(), "how long a client may take to send a request's headers", dur(func(c *config) *time.Duration { return &c.HeaderTimeout })},
	{"min-body-rate", forServe, cli.FormatSize(server.DefaultMinBodyRate), "slowest average rate, per second, at which a request body may arrive after --body-rate-grace; a slower one is cut with 408", size(func(c *config) *int64 { return &c.MinBodyRate })},
	{"body-rate-grace", forServe, server.DefaultBodyRateGrace.String(), "time a request body may take before --min-body-rate applies", dur(func(c *config) *time.Duration { return &c.BodyRateGrace })},
	{"max-conns", forServe, strconv.Itoa(server.DefaultMaxConns), "client connections open at once; when all are open, a new one takes the place of the oldest that is still sending its request's headers or idle between requests, and waits in the listen backlog only while every one is inside a request", num(func(c *config) *int { return &c.MaxConns })},
	{"max-conns-per-client", forServe, strconv.Itoa(server.DefaultMaxConnsPerClient), "client connections open at once from one address (an IPv4 address, an IPv6 /64); one more is answered 429 and closed. 0: no limit (behind a reverse proxy, whose address every connection has)", num(func(c *config) *int { return &c.MaxConnsPerClient })},
	{"shutdown-grace", forServe, "30s", "how long shutdown lets running requests finish before cancelling them", dur(func(c *config) *time.Duration { return &c.ShutdownGrace })},
	{"max-failed-turns", allCommands, strconv.Itoa(recursion.DefaultLimits().MaxFailedTurns), "turns in a row in which no cell ran without an error (or no code and no FINAL came) after which a node stops with \"No answer: ...\"; serve: the maximum and default", num(func(c *config) *int { return &c.Limits.MaxFailedTurns })},
	{"max-depth", allCommands, "1", "deepest rlm_query level of a run; 0: the root alone (rlm_query acts as llm_query); serve: the maximum and default of a request's rlm.max_depth", num(func(c *config) *int { return &c.Limits.MaxDepth })},
	{"max-iterations", allCommands, "30", "root-model turns per RLM node; serve: the maximum and default of rlm.max_iterations", num(func(c *config) *int { return &c.Limits.MaxIterations })},
	{"max-llm-calls", allCommands, "2000", "LLM calls of a run's whole tree, root turns included. Set, it is the budget of a query or eval run; left at its default, it caps the budget that follows the input, max(200, input tokens / 10,000) (docs/engine.md). serve: the maximum of rlm.max_llm_calls and of that default", num(func(c *config) *int { return &c.Limits.MaxLLMCalls })},
	{"max-total-tokens", allCommands, "50000000", "prompt plus completion tokens of a run's whole tree. Set, it is the budget of a query or eval run; left at its default, it caps the budget that follows the input, max(5,000,000, 3 × input tokens). serve: the maximum of rlm.max_total_tokens and of that default", num(func(c *config) *int { return &c.Limits.MaxTotalTokens })},
	{"timeout", allCommands, "1h", "wall time of a run's whole tree (eval: of one instance). Set, it is the limit of a query or eval run; left at its default, it caps the limit that follows the input, max(10m, 2m per million input tokens). serve: the maximum of rlm.timeout and of that default", dur(func(c *config) *time.Duration { return &c.Limits.Timeout })},
	{"offload-threshold", allCommands, strconv.Itoa(recursion.DefaultLimits().OffloadThreshold), "messages longer than this many characters are offloaded into the REPL; serve: the default of rlm.offload_threshold", num(func(c *config) *int { return &c.Limits.OffloadThreshold })},
	{"call-concurrency", allCommands, strconv.Itoa(recursion.DefaultLimits().Concurrency), "model calls of one run in flight at once (root turns and sub-calls); serve: of every request", num(func(c *config) *int { return &c.Limits.Concurrency })},
	{"model-window", allCommands, "auto", "context window in tokens of root and child models not in --model-windows: before a turn that would overflow it, older cell outputs are elided; --local-model runs with it as its longest prompt plus completion; eval's direct baseline skips longer inputs. auto: a local model's own (its max_position_embeddings, at most the KV cache), else " + strconv.Itoa(recursion.DefaultContextWindow) + "; negative: no compaction", window(func(c *config) *int { return &c.ContextWindow })},
	{"model-windows", allCommands, "", "comma-separated model=tokens context windows of upstream models", list(func(c *config) *[]string { return &c.ContextWindows })},
	{"repl-workers", allCommands, "2", "idle REPL worker processes kept ready; 0: none", num(func(c *config) *int { return &c.REPLWorkers })},
	{"repl-refill-delay", allCommands, "25ms", "how long the REPL pool waits before replacing a worker a request took, so that starting one (tens of ms of CPU) does not compete with that request's start; sooner when another request takes one; 0: at once", dur(func(c *config) *time.Duration { return &c.REPLRefillDelay })},
	{"repl-uid", allCommands, strconv.Itoa(defaultREPLID), replUIDHelp, num(func(c *config) *int { return &c.REPLUID })},
	{"repl-gid", allCommands, strconv.Itoa(defaultREPLID), replGIDHelp, num(func(c *config) *int { return &c.REPLGID })},
	{"cell-timeout", allCommands, repl.DefaultLimits().CellTimeout.String(), "time a REPL cell may run, not counting the time it waits for its llm_query/rlm_query calls", dur(func(c *config) *time.Duration { return &c.REPL.CellTimeout })},
	{"kill-grace", allCommands, repl.DefaultLimits().KillGrace.String(), "how long a cancelled cell may take to stop before its REPL worker is killed and replaced", dur(func(c *config) *time.Duration { return &c.REPL.KillGrace })},
	{"repl-memory-bytes", allCommands, cli.FormatSize(repl.DefaultLimits().MemoryBytes), "address space for model data in a REPL worker (RLIMIT_AS, on top of what it mapped at start)", size(func(c *config) *int64 { return &c.REPL.MemoryBytes })},
	{"repl-heap-bytes", allCommands, cli.FormatSize(repl.DefaultLimits().HeapBytes), "live heap above which a REPL worker is stopped", size(func(c *config) *int64 { return &c.REPL.HeapBytes })},
	{"repl-memory-total", allCommands, "auto", "memory all REPL sessions reserve together: each reserves its --repl-memory-bytes, its context and 64 MiB, and one that finds none left waits for others to end (--repl-memory-wait); auto: half the machine's memory; more than the machine has is refused at start", str(func(c *config) *string { return &c.REPLMemoryTotal })},
	{"request-repl-memory", allCommands, "auto", "memory the REPL sessions of one request (its root and every child RLM) reserve together; auto: half of --repl-memory-total, or room for two sessions where that is more and the total has it", str(func(c *config) *string { return &c.RequestREPLMemory })},
	{"repl-memory-wait", allCommands, "30s", "how long a REPL session waits for memory others hold; then serve answers 503 repl_memory_exhausted (a child's rlm_query returns an error to its cell)", dur(func(c *config) *time.Duration { return &c.REPLMemoryWait })},
	{"repl-stack-bytes", allCommands, cli.FormatSize(repl.DefaultLimits().StackBytes), "largest stack of one goroutine in the REPL (deeper recursion crashes the worker)", size(func(c *config) *int64 { return &c.REPL.StackBytes })},
	{"max-output", allCommands, strconv.Itoa(repl.DefaultLimits().MaxOutput), "characters of cell output shown to the model", num(func(c *config) *int { return &c.REPL.MaxOutput })},
	{"max-goroutines", allCommands, strconv.Itoa(repl.DefaultLimits().MaxGoroutines), "goroutines model code may have alive at once in one REPL", num(func(c *config) *int { return &c.REPL.MaxGoroutines })},
	{"max-prompt-bytes", allCommands, cli.FormatSize(repl.DefaultLimits().MaxPromptBytes), "largest prompt of one llm_query or rlm_query; a call with a larger one is refused before it leaves the REPL", size(func(c *config) *int64 { return &c.REPL.MaxPromptBytes })},
	{"max-call-bytes", allCommands, cli.FormatSize(repl.DefaultLimits().MaxCallBytes), "all prompts of one llm_query/rlm_query call (batched ones included) together; also bounds every message a REPL worker sends, refused from its header", size(func(c *config) *int64 { return &c.REPL.MaxCallBytes })},
	{"max-batch", allCommands, strconv.Itoa(repl.DefaultLimits().MaxBatch), "prompts in one llm_query_batched or rlm_query_batched call; a batch larger than the LLM calls left is refused whole, with one trace record", num(func(c *config) *int { return &c.REPL.MaxBatch })},
	{"max-final-bytes", allCommands, cli.FormatSize(repl.DefaultLimits().MaxFinalBytes), "largest answer FINAL accepts; a larger one is refused with a cell error the model sees", size(func(c *config) *int64 { return &c.REPL.MaxFinalBytes })},
	{"max-error-bytes", allCommands, cli.FormatSize(int64(repl.DefaultLimits().MaxErrorBytes)), "largest cell error; long values an interpreter error quotes (the context, a constant) are named with their size first", sizeInt(func(c *config) *int { return &c.REPL.MaxErrorBytes })},
	{"max-host-calls", allCommands, strconv.Itoa(repl.DefaultLimits().MaxHostCalls), "llm_query/rlm_query calls in flight at once per REPL worker; goroutines of model code that call beyond it wait", num(func(c *config) *int { return &c.REPL.MaxHostCalls })},
	{"max-trace-field-bytes", forServe, cli.FormatSize(tracing.DefaultMaxFieldBytes), "largest text field (prompt, response, message, output, answer) a trace keeps; longer ones are cut, with a note", size(func(c *config) *int64 { return &c.TraceFieldBytes })},
	{"max-trace-bytes", forServe, cli.FormatSize(tracing.DefaultMaxTraceBytes), "largest trace of one run; past it text and sub-call records are left out and counted in the trace's truncated", size(func(c *config) *int64 { return &c.TraceBytes })},
	{"log-level", forServe, "info", "debug, info, warn or error", str(func(c *config) *string { return &c.LogLevel })},
	{"trace-content", forServe, "false", "put prompt and completion text on OpenTelemetry spans (traces in the store always keep them)", boolean(func(c *config) *bool { return &c.TraceContent })},
}

// renamedSettings are the retired names of settings (see cli.RenamedFlags),
// whose environment variables are refused.
var renamedSettings = []string{"api-keys", "local-kv-cache", "local-max-seqs", "local-max-batch-tokens", "local-max-model-len", "sampling-seed"}

// settingsFlags are the settings of one command registered on its FlagSet.
type settingsFlags struct {
	cmd    string
	fs     *flag.FlagSet
	file   *string
	vals   map[string]*string
	getenv func(string) string
}

// registerSettings defines --config and a flag for every setting of the
// command cmd on fs. Values are strings until load, which reads them with
// the environment and the YAML file in the order of precedence.
func registerSettings(fs *flag.FlagSet, cmd string, getenv func(string) string) *settingsFlags {
	s := &settingsFlags{cmd: cmd, fs: fs, vals: map[string]*string{}, getenv: getenv}
	s.file = fs.String("config", getenv("RLM_CONFIG"), "optional YAML `file` of settings (env RLM_CONFIG); flags override environment variables, which override the file")
	for _, o := range s.settings() {
		v := new(string)
		s.vals[o.name] = v
		if o.def == "true" || o.def == "false" {
			*v = o.def
			fs.Var(boolString{v}, o.name, o.usage()) // --name alone means true
			continue
		}
		fs.StringVar(v, o.name, o.def, o.usage())
	}
	return s
}

// boolString is a boolean setting's flag: its value is kept as text, like
// every setting's until load, but --name alone means --name=true.
type boolString struct{ p *string }

func (b boolString) String() string {
	if b.p == nil {
		return ""
	}
	return *b.p
}
func (b boolString) Set(v string) error { *b.p = v; return nil }
func (b boolString) IsBoolFlag() bool   { return true }

func (o setting) usage() string {
	env := o.env()
	if o.fallback() != "" {
		env += ", then " + o.fallback()
	}
	return fmt.Sprintf("%s (env %s, YAML %s)", o.help, env, o.yaml())
}

func (s *settingsFlags) settings() []setting {
	var out []setting
	for _, o := range settingsTable {
		if o.cmds&commandSet(s.cmd) != 0 {
			out = append(out, o)
		}
	}
	return out
}

// printUsage writes the command's own flags (those of fs that are not
// settings), then its settings in the table's order, which groups them as
// docs/settings.md does.
func (s *settingsFlags) printUsage(w io.Writer) {
	fmt.Fprintln(w, "Flags:")
	cli.PrintFlags(w, s.fs, func(name string) bool {
		_, ok := s.vals[name]
		return ok || name == "config"
	})
	fmt.Fprintf(w, "Settings (a flag wins over the environment, which wins over the --config file; see docs/settings.md):\n")
	fmt.Fprintln(w, "  --config file\n    \toptional YAML file of settings (env RLM_CONFIG)")
	for _, o := range s.settings() {
		def := ""
		if o.def != "" {
			def = "; default " + o.def
		}
		env := o.env()
		if o.fallback() != "" {
			env += ", then " + o.fallback()
		}
		fmt.Fprintf(w, "  --%s %s\n    \t%s (env %s, YAML %s%s)\n", o.name, placeholder(o.def), o.help, env, o.yaml(), def)
	}
}

// load applies defaults, then the YAML file, then the environment, then the
// flags fs was given. A YAML key that no command knows is an error; one of
// another command's settings is ignored, so one file can serve them all.
func (s *settingsFlags) load() (*config, error) {
	setByFlag := map[string]bool{}
	s.fs.Visit(func(f *flag.Flag) { setByFlag[f.Name] = true })
	fileVals := map[string]string{}
	if *s.file != "" {
		b, err := os.ReadFile(*s.file)
		if err != nil {
			return nil, fmt.Errorf("%s: config file: %w", s.cmd, err)
		}
		var raw map[string]any
		if err := yaml.Unmarshal(b, &raw); err != nil {
			return nil, fmt.Errorf("%s: config file %s: %w", s.cmd, *s.file, err)
		}
		known := map[string]bool{}
		for _, o := range settingsTable {
			known[o.yaml()] = true
		}
		for k, v := range raw {
			if !known[k] {
				for _, to := range cli.RenamedFlags[strings.ReplaceAll(k, "_", "-")] {
					if to := strings.ReplaceAll(to, "-", "_"); known[to] {
						return nil, fmt.Errorf("%s: config file %s: key %s was renamed %s", s.cmd, *s.file, k, to)
					}
				}
			}
			if !known[k] {
				return nil, fmt.Errorf("%s: config file %s: unknown key %q (see docs/settings.md)", s.cmd, *s.file, k)
			}
			fileVals[k] = yamlString(v)
		}
	}
	for _, old := range renamedSettings {
		// An old variable left in a deployment must not be ignored
		// silently: RLM_API_KEYS ignored would open the server.
		if env := (setting{name: old}).env(); s.getenv(env) != "" {
			return nil, fmt.Errorf("%s: environment variable %s was renamed %s", s.cmd, env, setting{name: cli.RenamedFlags[old][0]}.env())
		}
	}
	c := &config{explicit: map[string]bool{}}
	for _, o := range s.settings() {
		v, from := o.def, "default"
		if fv, ok := fileVals[o.yaml()]; ok {
			v, from = fv, "config file key "+o.yaml()
		}
		if o.fallback() != "" {
			if ev := s.getenv(o.fallback()); ev != "" {
				v, from = ev, "environment variable "+o.fallback()
			}
		}
		if ev := s.getenv(o.env()); ev != "" {
			v, from = ev, "environment variable "+o.env()
		}
		if setByFlag[o.name] {
			v, from = *s.vals[o.name], "flag --"+o.name
		}
		if v == "" {
			continue
		}
		c.explicit[o.name] = from != "default"
		if err := o.set(c, v); err != nil {
			if setByFlag[o.name] {
				return nil, cli.BadFlag("%s: %s: %w", s.cmd, from, err)
			}
			return nil, fmt.Errorf("%s: %s: %w", s.cmd, from, err)
		}
	}
	return c, nil
}

// loadServeConfig reads the settings of `rlm serve` from args, the
// environment getenv reads and the --config file.
func loadServeConfig(args []string, getenv func(string) string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	s := registerSettings(fs, "serve", getenv)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: rlm serve [flags]

Runs the OpenAI-compatible RLM gateway. Every setting is a flag, an environment
variable and a key of the YAML file given by --config. See docs/server.md.
`)
		s.printUsage(stderr)
	}
	if err := cli.ParseFlags(fs, args, stderr, fs.Usage); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rlm serve: unexpected argument %q; `rlm serve -h` lists its flags\n", fs.Arg(0))
		return nil, cli.ErrUsage
	}
	return s.load()
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
	if _, err := cli.ParseSize(def); err == nil {
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

// checkDocuments refuses document settings that cannot be enforced.
func (c *config) checkDocuments() error {
	if c.DocumentTimeout <= 0 {
		return fmt.Errorf("document-timeout %v: must be positive", c.DocumentTimeout)
	}
	if c.MaxDocumentPieces <= 0 {
		return fmt.Errorf("max-document-pieces %d: must be positive", c.MaxDocumentPieces)
	}
	if c.PDFMemoryBytes < document.MinPDFMemoryBytes || c.PDFMemoryBytes > document.MaxPDFMemoryBytes {
		return fmt.Errorf("pdf-memory-bytes %s: must be between %s and %s", cli.FormatSize(c.PDFMemoryBytes),
			cli.FormatSize(document.MinPDFMemoryBytes), cli.FormatSize(document.MaxPDFMemoryBytes))
	}
	return nil
}

// documentOptions are the extractor's options from the settings.
func (c *config) documentOptions() document.Options {
	return document.Options{Timeout: c.DocumentTimeout, MaxPieces: c.MaxDocumentPieces, PDFMemoryBytes: c.PDFMemoryBytes,
		CacheDir: pdfCacheDir(c.PDFCacheDir)}
}

// pdfCacheDir resolves --pdf-cache-dir: empty is the user's cache
// directory (as the Go build cache), "none" is no cache.
func pdfCacheDir(v string) string {
	switch v {
	case "none":
		return ""
	case "":
		dir, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(dir, "rlm", "pdf-engine")
	}
	return v
}
