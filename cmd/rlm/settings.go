package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/document"
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
	ToolWait          time.Duration
	MaxPaused         int
	MaxPausedPerKey   int
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

// settingsTable is the one table of settings of every command;
// docs/settings.md lists the same rows (a test checks that it does).
var settingsTable = []cli.Setting[config]{
	{Name: "listen", Cmds: cli.ForServe, Def: "127.0.0.1:8080", Help: "address to listen on", Value: cli.Str(func(c *config) *string { return &c.Listen })},
	{Name: "api-key", Cmds: cli.ForServe, Def: "", Help: "API key clients must send as a Bearer token, or several separated by commas; empty: open server", Value: cli.List(func(c *config) *[]string { return &c.APIKeys })},
	{Name: "metrics-addr", Cmds: cli.ForServe, Def: "", Help: "address to serve /metrics on, apart from --listen (which then has none); empty: /metrics on --listen", Value: cli.Str(func(c *config) *string { return &c.MetricsAddr })},
	{Name: "metrics-key", Cmds: cli.ForServe, Def: "", Help: "bearer key /metrics requires; empty: /metrics is open on a server without --api-key and on --metrics-addr, and refused on --listen of a server with keys", Value: cli.Str(func(c *config) *string { return &c.MetricsKey })},
	{Name: "upstream", Cmds: cli.AllCommands, Def: "", Help: "base URL of the OpenAI-compatible upstream, e.g. https://api.openai.com/v1", Value: cli.Str(func(c *config) *string { return &c.Upstream })},
	{Name: "upstream-key", Cmds: cli.AllCommands, Def: "", Help: "API key for the upstream", Value: cli.Str(func(c *config) *string { return &c.UpstreamKey })},
	{Name: "local-model", Cmds: cli.AllCommands, Def: "", Help: "checkpoint directory of a Qwen3 model to run in-process as the upstream of root turns and sub-calls, instead of --upstream; builtin: the model built into rlm (rlm-tiny-demo); none: no local model. Empty: serve and query use builtin when no --upstream is set (see docs/inference.md)", Value: cli.Str(func(c *config) *string { return &c.LocalModel })},
	{Name: "device", Cmds: cli.AllCommands, Def: "auto", Help: "where --local-model runs: auto (a GPU when there is one, and the log says so; else the CPU), cpu, cuda or cuda:N", Value: cli.Str(func(c *config) *string { return &c.Device })},
	{Name: "precision", Cmds: cli.AllCommands, Def: "bf16", Help: "arithmetic of --local-model's matrix products and attention on a GPU: bf16, tf32 or fp32", Value: cli.Str(func(c *config) *string { return &c.Precision })},
	{Name: "kv-cache", Cmds: cli.AllCommands, Def: "1GiB", Help: "KV cache pool of --local-model, allocated at start: a size like 4GiB, or tokens like 65536tokens; left at its default, the built-in model takes 65536tokens", Value: cli.Str(func(c *config) *string { return &c.KVCache })},
	{Name: "max-seqs", Cmds: cli.AllCommands, Def: "64", Help: "sequences --local-model decodes together in one step", Value: cli.Num(func(c *config) *int { return &c.MaxSeqs })},
	{Name: "max-batch-tokens", Cmds: cli.AllCommands, Def: "512", Help: "tokens in one forward step of --local-model; longer prompts are prefilled in chunks", Value: cli.Num(func(c *config) *int { return &c.MaxBatchTokens })},
	{Name: "root-model", Cmds: cli.AllCommands, Def: "", Help: "upstream model of root turns; serve: of requests naming an alias without a mapping", Value: cli.Str(func(c *config) *string { return &c.RootModel })},
	{Name: "sub-model", Cmds: cli.AllCommands, Def: "", Help: "upstream model for llm_query and child RLMs; empty: the root model", Value: cli.Str(func(c *config) *string { return &c.SubModel })},
	{Name: "vision-model", Cmds: cli.ForServe, Def: "", Help: "upstream model that takes images: cells show a request's images to it with llm_query_image; empty: requests with images are refused (image_input_unsupported)", Value: cli.Str(func(c *config) *string { return &c.VisionModel })},
	{Name: "temperature", Cmds: cli.ForQuery | cli.ForEval, Def: "", Help: "sampling temperature of root turns and sub-calls; unset: the upstream's default (0 is sent as 0)", Value: cli.Str(func(c *config) *string { return &c.Temperature })},
	{Name: "seed", Cmds: cli.ForQuery | cli.ForEval, Def: "", Help: "query: seed sent with every model call (OpenAI's seed), so that sampled runs repeat where the upstream honours it (the local models do), unset: none; eval: seed of the generated instances and, one derived per instance, of their model calls, unset: 1", Value: cli.Str(func(c *config) *string { return &c.SamplingSeed })},
	{Name: "models", Cmds: cli.ForServe, Def: "rlm", Help: "comma-separated model aliases clients may name, each alias or alias=upstream-model; an alias without = runs the root model", Value: cli.List(func(c *config) *[]string { return &c.Models })},
	{Name: "upstream-timeout", Cmds: cli.AllCommands, Def: "120s", Help: "timeout of one upstream call attempt", Value: cli.Dur(func(c *config) *time.Duration { return &c.UpstreamTimeout })},
	{Name: "upstream-check-after", Cmds: cli.AllCommands, Def: upstream.DefaultCheckAfter.String(), Help: "silence of an upstream call (no response headers yet, or no byte of the body) after which rlm checks that the upstream still answers GET /models within --upstream-probe-timeout: one that does not fails the call at once, without retry (a hung upstream fails a request in about 15s); one that does is waited for, up to --upstream-timeout; 0: never checked", Value: cli.Dur(func(c *config) *time.Duration { return &c.UpstreamCheck })},
	{Name: "upstream-idle-timeout", Cmds: cli.AllCommands, Def: upstream.DefaultIdleTimeout.String(), Help: "longest silence while an upstream response body is read, once its headers arrived; the attempt then fails and is retried", Value: cli.Dur(func(c *config) *time.Duration { return &c.UpstreamIdle })},
	{Name: "upstream-stream", Cmds: cli.AllCommands, Def: "false", Help: "call the upstream with \"stream\": true and assemble the streamed chunks: for upstreams that only stream, and proxies that cut a connection silent while a long answer is generated (the idle timeout then bounds the gap between chunks)", Value: cli.Bool(func(c *config) *bool { return &c.UpstreamStream })},
	{Name: "upstream-max-response-bytes", Cmds: cli.AllCommands, Def: "64MiB", Help: "largest upstream response body, streamed or not (and so the longest line of a stream); a larger one fails the call without a retry", Value: cli.Size(func(c *config) *int64 { return &c.UpstreamMaxBody })},
	{Name: "upstream-retries", Cmds: cli.AllCommands, Def: "4", Help: "retries of an upstream call after 429, 5xx or connection errors", Value: cli.Num(func(c *config) *int { return &c.UpstreamRetries })},
	{Name: "upstream-concurrency", Cmds: cli.AllCommands, Def: "64", Help: "upstream calls in flight across all requests", Value: cli.Num(func(c *config) *int { return &c.UpstreamConc })},
	{Name: "upstream-probe-timeout", Cmds: cli.AllCommands, Def: "5s", Help: "timeout of the upstream probe (GET /models) made at start, which logs whether the upstream is reachable, accepts the key and lists the models, and of the liveness check of a silent call (--upstream-check-after)", Value: cli.Dur(func(c *config) *time.Duration { return &c.ProbeTimeout })},
	{Name: "ready-upstream", Cmds: cli.ForServe, Def: "false", Help: "/readyz reports not ready while the upstream probe fails (unreachable, key refused, 5xx), probed again every --upstream-probe-interval", Value: cli.Bool(func(c *config) *bool { return &c.ReadyUpstream })},
	{Name: "upstream-probe-interval", Cmds: cli.ForServe, Def: "30s", Help: "how often the upstream is probed again while --ready-upstream is on", Value: cli.Dur(func(c *config) *time.Duration { return &c.ProbeInterval })},
	{Name: "store", Cmds: cli.ForServe, Def: "disk", Help: "where files and stored completions live: disk or redis", Value: cli.Str(func(c *config) *string { return &c.Store })},
	{Name: "data-dir", Cmds: cli.ForServe, Def: "./data", Help: "directory of the disk store", Value: cli.Str(func(c *config) *string { return &c.DataDir })},
	{Name: "redis-url", Cmds: cli.ForServe, Def: "redis://127.0.0.1:6379/0", Help: "Redis URL for --store redis", Value: cli.Str(func(c *config) *string { return &c.RedisURL })},
	{Name: "redis-prefix", Cmds: cli.ForServe, Def: "rlm", Help: "prefix of every Redis key the server writes", Value: cli.Str(func(c *config) *string { return &c.RedisPrefix })},
	{Name: "redis-cache-dir", Cmds: cli.ForServe, Def: "", Help: "local copies of uploaded files for the REPL with --store redis; empty: a directory under the system temp dir", Value: cli.Str(func(c *config) *string { return &c.RedisCacheDir })},
	{Name: "trace-stream", Cmds: cli.ForServe, Def: tracing.DefaultStream, Help: "Redis Stream every finished trajectory is appended to with --store redis, for trainers' consumer groups; empty: none", Value: cli.Str(func(c *config) *string { return &c.TraceStream })},
	{Name: "trace-stream-maxlen", Cmds: cli.ForServe, Def: strconv.Itoa(tracing.DefaultStreamMaxLen), Help: "entries the trajectory stream is trimmed to (approximately, MAXLEN ~); 0 or negative: never trimmed", Value: cli.Num(func(c *config) *int { return &c.TraceStreamMax })},
	{Name: "store-timeout", Cmds: cli.ForServe, Def: server.DefaultStoreTimeout.String(), Help: "bound of each write of a stored completion (store: true: its record, request messages and summary); past it the request fails", Value: cli.Dur(func(c *config) *time.Duration { return &c.StoreTimeout })},
	{Name: "trace-save-queue", Cmds: cli.ForServe, Def: strconv.Itoa(tracing.DefaultSaveQueue), Help: "finished runs' traces that may wait to be saved in the background; one more is dropped (counted in rlm_trace_saves_dropped_total)", Value: cli.Num(func(c *config) *int { return &c.TraceSaveQueue })},
	{Name: "trace-save-timeout", Cmds: cli.ForServe, Def: "30s", Help: "bound of saving (and publishing) one trace", Value: cli.Dur(func(c *config) *time.Duration { return &c.TraceSaveTime })},
	{Name: "trace-drain-timeout", Cmds: cli.ForServe, Def: "10s", Help: "how long shutdown keeps saving queued traces after the runs ended; what is left is dropped", Value: cli.Dur(func(c *config) *time.Duration { return &c.TraceDrain })},
	{Name: "run-lease", Cmds: cli.ForServe, Def: server.DefaultRunLease.String(), Help: "term of a server's lease in the store, renewed every third of it (at least 1s): the stored runs in progress of a server whose lease ended (killed, crashed, cut off from the store) are recorded as interrupted by any server on the store. On the disk store a dead process's lease ends with it", Value: cli.Dur(func(c *config) *time.Duration { return &c.RunLease })},
	{Name: "retention-interval", Cmds: cli.ForServe, Def: "10m", Help: "how often the store is swept (and once at start): traces, stored completions and files past their max age, the oldest traces and stored completions past --retention-max-bytes, and what interrupted writes left; 0: never", Value: cli.Dur(func(c *config) *time.Duration { return &c.RetentionInterval })},
	{Name: "retention-max-bytes", Cmds: cli.ForServe, Def: "4GiB", Help: "traces and stored completions of every key together; a sweep deletes the oldest past it; 0: no bound", Value: cli.SizeOrZero(func(c *config) *int64 { return &c.RetentionMaxBytes })},
	{Name: "trace-max-age", Cmds: cli.ForServe, Def: "720h", Help: "age (since last written) past which a sweep deletes a trace; 0: none", Value: cli.Dur(func(c *config) *time.Duration { return &c.TraceMaxAge })},
	{Name: "completion-max-age", Cmds: cli.ForServe, Def: "720h", Help: "age (since last written) past which a sweep deletes a stored completion or response (with its events); 0: none", Value: cli.Dur(func(c *config) *time.Duration { return &c.CompletionMaxAge })},
	{Name: "file-max-age", Cmds: cli.ForServe, Def: "0s", Help: "age past which a sweep deletes an uploaded file; 0: kept until its key deletes it", Value: cli.Dur(func(c *config) *time.Duration { return &c.FileMaxAge })},
	{Name: "quota-file-bytes", Cmds: cli.ForServe, Def: "2GiB", Help: "uploaded files (with their text) one API key may keep; an upload past it gets 400 storage_quota_exceeded; 0: no quota", Value: cli.SizeOrZero(func(c *config) *int64 { return &c.QuotaFileBytes })},
	{Name: "quota-files", Cmds: cli.ForServe, Def: "1000", Help: "uploaded files one API key may keep; one more gets 400 storage_quota_exceeded; 0: no quota", Value: cli.Num(func(c *config) *int { return &c.QuotaFiles })},
	{Name: "quota-completion-bytes", Cmds: cli.ForServe, Def: "1GiB", Help: "stored completions (records and request messages) one API key may keep; a store: true request past it gets 400 storage_quota_exceeded; 0: no quota", Value: cli.SizeOrZero(func(c *config) *int64 { return &c.QuotaCompletionBytes })},
	{Name: "quota-completions", Cmds: cli.ForServe, Def: "10000", Help: "stored completions one API key may keep; one more gets 400 storage_quota_exceeded; 0: no quota", Value: cli.Num(func(c *config) *int { return &c.QuotaCompletions })},
	{Name: "quota-trace-bytes", Cmds: cli.ForServe, Def: "1GiB", Help: "traces one API key may keep (at least --max-trace-bytes); saving one past it first deletes the key's oldest traces; 0: no quota", Value: cli.SizeOrZero(func(c *config) *int64 { return &c.QuotaTraceBytes })},
	{Name: "quota-traces", Cmds: cli.ForServe, Def: "10000", Help: "traces one API key may keep; saving one more first deletes the key's oldest; 0: no quota", Value: cli.Num(func(c *config) *int { return &c.QuotaTraces })},
	{Name: "max-request-bytes", Cmds: cli.ForServe, Def: "64MiB", Help: "largest chat request body", Value: cli.Size(func(c *config) *int64 { return &c.MaxRequestBytes })},
	{Name: "max-upload-bytes", Cmds: cli.ForServe, Def: "512MiB", Help: "largest uploaded file", Value: cli.Size(func(c *config) *int64 { return &c.MaxUploadBytes })},
	{Name: "max-messages", Cmds: cli.ForServe, Def: strconv.Itoa(server.DefaultMaxMessages), Help: "messages in one chat request (OpenAI's limit); counted while the body is decoded, one more is refused with 400", Value: cli.Num(func(c *config) *int { return &c.MaxMessages })},
	{Name: "max-content-parts", Cmds: cli.ForServe, Def: strconv.Itoa(server.DefaultMaxContentParts), Help: "content parts (text and file) of all messages of one chat request together; counted while the body is decoded, one more is refused with 400", Value: cli.Num(func(c *config) *int { return &c.MaxContentParts })},
	{Name: "document-timeout", Cmds: cli.ForServe | cli.ForQuery, Def: document.DefaultTimeout.String(), Help: "longest time reading one attached document's or context file's text (a PDF's pages, an HTML page's text) may take; past it the request gets 400", Value: cli.Dur(func(c *config) *time.Duration { return &c.DocumentTimeout })},
	{Name: "max-document-pieces", Cmds: cli.ForServe | cli.ForQuery, Def: strconv.Itoa(document.DefaultMaxPieces), Help: "most contexts pieces one document may become (a PDF's pages); a longer PDF gets 400", Value: cli.Num(func(c *config) *int { return &c.MaxDocumentPieces })},
	{Name: "pdf-memory-bytes", Cmds: cli.ForServe | cli.ForQuery, Def: cli.FormatSize(document.DefaultPDFMemoryBytes), Help: "memory cap of the PDF engine for one document, the file included (32MiB to 2GiB); PDFs larger than half of it, or needing more, get 400", Value: cli.Size(func(c *config) *int64 { return &c.PDFMemoryBytes })},
	{Name: "pdf-cache-dir", Cmds: cli.ForServe | cli.ForQuery, Def: "", Help: "directory keeping the PDF engine's compiled code between starts (without it the first PDF after each start waits seconds for the compile); empty: rlm/pdf-engine in the user's cache directory; none: no cache", Value: cli.Str(func(c *config) *string { return &c.PDFCacheDir })},
	{Name: "max-concurrent", Cmds: cli.ForServe, Def: "16", Help: "runs executing at once", Value: cli.Num(func(c *config) *int { return &c.MaxConcurrent })},
	{Name: "queue-wait", Cmds: cli.ForServe, Def: "2s", Help: "how long a request waits for a run slot before 429", Value: cli.Dur(func(c *config) *time.Duration { return &c.QueueWait })},
	{Name: "max-queued", Cmds: cli.ForServe, Def: strconv.Itoa(server.DefaultMaxQueued), Help: "chat requests that may wait for a run slot at once; one more gets 429 at once", Value: cli.Num(func(c *config) *int { return &c.MaxQueued })},
	{Name: "max-background", Cmds: cli.ForServe, Def: strconv.Itoa(server.DefaultMaxBackground), Help: "background responses (POST /v1/responses with background: true) one server holds, queued or running; one more gets 429. They wait for a run slot as long as it takes, not --queue-wait", Value: cli.Num(func(c *config) *int { return &c.MaxBackground })},
	{Name: "response-poll", Cmds: cli.ForServe, Def: server.DefaultResponsePoll.String(), Help: "how often a background response checks the store for a cancel sent to another replica, and a resumed response stream for new events", Value: cli.Dur(func(c *config) *time.Duration { return &c.ResponsePoll })},
	{Name: "cancel-wait", Cmds: cli.ForServe, Def: server.DefaultCancelWait.String(), Help: "how long POST /v1/responses/{id}/cancel waits for the run to stop before it answers with the response as it stands", Value: cli.Dur(func(c *config) *time.Duration { return &c.CancelWait })},
	{Name: "session-ttl", Cmds: cli.ForServe, Def: server.DefaultSessionTTL.String(), Help: "how long the REPL session of a finished stored response is kept for a follow-up (previous_response_id) that continues it, variables included; a follow-up after it starts a new session with the earlier turns as messages", Value: cli.Dur(func(c *config) *time.Duration { return &c.SessionTTL })},
	{Name: "max-sessions", Cmds: cli.ForServe, Def: strconv.Itoa(server.DefaultMaxSessions), Help: "REPL sessions kept for follow-ups at once; the oldest of the API key that keeps the most is closed for a new one. Each holds a stopped REPL worker and its memory (counted in --repl-memory-total)", Value: cli.Num(func(c *config) *int { return &c.MaxSessions })},
	{Name: "tool-wait", Cmds: cli.ForServe, Def: server.DefaultToolWait.String(), Help: "how long a run paused at client tool calls waits for their outputs, its REPL worker stopped; outputs that come later run the conversation again, without calling the tools again", Value: cli.Dur(func(c *config) *time.Duration { return &c.ToolWait })},
	{Name: "max-paused-runs", Cmds: cli.ForServe, Def: strconv.Itoa(server.DefaultMaxPaused), Help: "runs paused at client tool calls held at once; the oldest of the API key that holds the most ends for a new one. Each holds a stopped REPL worker and its memory (counted in --repl-memory-total; a run that finds none left ends the oldest paused run after the kept sessions)", Value: cli.Num(func(c *config) *int { return &c.MaxPaused })},
	{Name: "max-paused-runs-per-key", Cmds: cli.ForServe, Def: strconv.Itoa(server.DefaultMaxPausedKey), Help: "runs paused at client tool calls one API key holds at once; its oldest ends for a new one", Value: cli.Num(func(c *config) *int { return &c.MaxPausedPerKey })},
	{Name: "retry-after", Cmds: cli.ForServe, Def: "2s", Help: "Retry-After sent with 429", Value: cli.Dur(func(c *config) *time.Duration { return &c.RetryAfter })},
	{Name: "keepalive", Cmds: cli.ForServe, Def: "15s", Help: "interval of SSE keep-alive comments on idle streams", Value: cli.Dur(func(c *config) *time.Duration { return &c.KeepAlive })},
	{Name: "idle-timeout", Cmds: cli.ForServe, Def: server.DefaultIdleTimeout.String(), Help: "how long a kept-alive client connection may sit idle between requests before it is closed", Value: cli.Dur(func(c *config) *time.Duration { return &c.IdleTimeout })},
	{Name: "read-header-timeout", Cmds: cli.ForServe, Def: server.DefaultReadHeaderTimeout.String(), Help: "how long a client may take to send a request's headers", Value: cli.Dur(func(c *config) *time.Duration { return &c.HeaderTimeout })},
	{Name: "min-body-rate", Cmds: cli.ForServe, Def: cli.FormatSize(server.DefaultMinBodyRate), Help: "slowest average rate, per second, at which a request body may arrive after --body-rate-grace; a slower one is cut with 408", Value: cli.Size(func(c *config) *int64 { return &c.MinBodyRate })},
	{Name: "body-rate-grace", Cmds: cli.ForServe, Def: server.DefaultBodyRateGrace.String(), Help: "time a request body may take before --min-body-rate applies", Value: cli.Dur(func(c *config) *time.Duration { return &c.BodyRateGrace })},
	{Name: "max-conns", Cmds: cli.ForServe, Def: strconv.Itoa(server.DefaultMaxConns), Help: "client connections open at once; when all are open, a new one takes the place of the oldest that is still sending its request's headers or idle between requests, and waits in the listen backlog only while every one is inside a request", Value: cli.Num(func(c *config) *int { return &c.MaxConns })},
	{Name: "max-conns-per-client", Cmds: cli.ForServe, Def: strconv.Itoa(server.DefaultMaxConnsPerClient), Help: "client connections open at once from one address (an IPv4 address, an IPv6 /64); one more is answered 429 and closed. 0: no limit (behind a reverse proxy, whose address every connection has)", Value: cli.Num(func(c *config) *int { return &c.MaxConnsPerClient })},
	{Name: "shutdown-grace", Cmds: cli.ForServe, Def: "30s", Help: "how long shutdown lets running requests finish before cancelling them", Value: cli.Dur(func(c *config) *time.Duration { return &c.ShutdownGrace })},
	{Name: "max-failed-turns", Cmds: cli.AllCommands, Def: "auto", Help: "turns in a row in which no cell ran without an error (or no code and no FINAL came) after which a node stops with \"No answer: ...\"; auto: " + strconv.Itoa(recursion.LocalMaxFailedTurns) + " with a local model (the built-in one, --local-model), " + strconv.Itoa(recursion.UpstreamMaxFailedTurns) + " with an upstream, which may fix a compile error over several turns (docs/engine.md); serve: the maximum and default", Value: cli.Auto(func(c *config) *int { return &c.Limits.MaxFailedTurns })},
	{Name: "max-depth", Cmds: cli.AllCommands, Def: "1", Help: "deepest rlm_query level of a run; 0: the root alone (rlm_query acts as llm_query); serve: the maximum and default of a request's rlm.max_depth", Value: cli.Num(func(c *config) *int { return &c.Limits.MaxDepth })},
	{Name: "max-iterations", Cmds: cli.AllCommands, Def: "30", Help: "root-model turns per RLM node; serve: the maximum and default of rlm.max_iterations", Value: cli.Num(func(c *config) *int { return &c.Limits.MaxIterations })},
	{Name: "max-llm-calls", Cmds: cli.AllCommands, Def: "2000", Help: "LLM calls of a run's whole tree, root turns included. Set, it is the budget of a query or eval run; left at its default, it caps the budget that follows the input, max(200, input tokens / 10,000) (docs/engine.md). serve: the maximum of rlm.max_llm_calls and of that default", Value: cli.Num(func(c *config) *int { return &c.Limits.MaxLLMCalls })},
	{Name: "max-total-tokens", Cmds: cli.AllCommands, Def: "50000000", Help: "prompt plus completion tokens of a run's whole tree. Set, it is the budget of a query or eval run; left at its default, it caps the budget that follows the input, max(5,000,000, 3 × input tokens). serve: the maximum of rlm.max_total_tokens and of that default", Value: cli.Num(func(c *config) *int { return &c.Limits.MaxTotalTokens })},
	{Name: "timeout", Cmds: cli.AllCommands, Def: "1h", Help: "wall time of a run's whole tree (eval: of one instance). Set, it is the limit of a query or eval run; left at its default, it caps the limit that follows the input, max(10m, 2m per million input tokens). serve: the maximum of rlm.timeout and of that default", Value: cli.Dur(func(c *config) *time.Duration { return &c.Limits.Timeout })},
	{Name: "offload-threshold", Cmds: cli.AllCommands, Def: strconv.Itoa(recursion.DefaultLimits().OffloadThreshold), Help: "messages longer than this many characters are offloaded into the REPL; serve: the default of rlm.offload_threshold; unset, 1000 with the built-in model", Value: cli.Num(func(c *config) *int { return &c.Limits.OffloadThreshold })},
	{Name: "call-concurrency", Cmds: cli.AllCommands, Def: strconv.Itoa(recursion.DefaultLimits().Concurrency), Help: "model calls of one run in flight at once (root turns and sub-calls); serve: of every request", Value: cli.Num(func(c *config) *int { return &c.Limits.Concurrency })},
	{Name: "model-window", Cmds: cli.AllCommands, Def: "auto", Help: "context window in tokens of root and child models not in --model-windows: before a turn that would overflow it, older cell outputs are elided; --local-model runs with it as its longest prompt plus completion; eval's direct baseline skips longer inputs. auto: a local model's own (its max_position_embeddings, at most the KV cache), else " + strconv.Itoa(recursion.DefaultContextWindow) + "; negative: no compaction", Value: cli.Window(func(c *config) *int { return &c.ContextWindow })},
	{Name: "model-windows", Cmds: cli.AllCommands, Def: "", Help: "comma-separated model=tokens context windows of upstream models", Value: cli.List(func(c *config) *[]string { return &c.ContextWindows })},
	{Name: "repl-workers", Cmds: cli.AllCommands, Def: "2", Help: "idle REPL worker processes kept ready; 0: none; query, which runs one request, starts one at once and none after", Value: cli.Num(func(c *config) *int { return &c.REPLWorkers })},
	{Name: "repl-refill-delay", Cmds: cli.AllCommands, Def: "25ms", Help: "how long the REPL pool waits before replacing a worker a request took, so that starting one (tens of ms of CPU) does not compete with that request's start; sooner when another request takes one; 0: at once", Value: cli.Dur(func(c *config) *time.Duration { return &c.REPLRefillDelay })},
	{Name: "repl-uid", Cmds: cli.AllCommands, Def: strconv.Itoa(defaultREPLID), Help: replUIDHelp, Value: cli.Num(func(c *config) *int { return &c.REPLUID })},
	{Name: "repl-gid", Cmds: cli.AllCommands, Def: strconv.Itoa(defaultREPLID), Help: replGIDHelp, Value: cli.Num(func(c *config) *int { return &c.REPLGID })},
	{Name: "cell-timeout", Cmds: cli.AllCommands, Def: repl.DefaultLimits().CellTimeout.String(), Help: "time a REPL cell may run, not counting the time it waits for its llm_query/rlm_query calls", Value: cli.Dur(func(c *config) *time.Duration { return &c.REPL.CellTimeout })},
	{Name: "kill-grace", Cmds: cli.AllCommands, Def: repl.DefaultLimits().KillGrace.String(), Help: "how long a cancelled cell may take to stop before its REPL worker is killed and replaced", Value: cli.Dur(func(c *config) *time.Duration { return &c.REPL.KillGrace })},
	{Name: "repl-memory-bytes", Cmds: cli.AllCommands, Def: cli.FormatSize(repl.DefaultLimits().MemoryBytes), Help: "address space for model data in a REPL worker (RLIMIT_AS, on top of what it mapped at start)", Value: cli.Size(func(c *config) *int64 { return &c.REPL.MemoryBytes })},
	{Name: "repl-heap-bytes", Cmds: cli.AllCommands, Def: cli.FormatSize(repl.DefaultLimits().HeapBytes), Help: "live heap above which a REPL worker is stopped", Value: cli.Size(func(c *config) *int64 { return &c.REPL.HeapBytes })},
	{Name: "repl-memory-total", Cmds: cli.AllCommands, Def: "auto", Help: "memory all REPL sessions reserve together: each reserves its --repl-memory-bytes, its context and 64 MiB, and one that finds none left waits for others to end (--repl-memory-wait); auto: half the machine's memory; more than the machine has is refused at start", Value: cli.Str(func(c *config) *string { return &c.REPLMemoryTotal })},
	{Name: "request-repl-memory", Cmds: cli.AllCommands, Def: "auto", Help: "memory the REPL sessions of one request (its root and every child RLM) reserve together; auto: half of --repl-memory-total, or room for two sessions where that is more and the total has it", Value: cli.Str(func(c *config) *string { return &c.RequestREPLMemory })},
	{Name: "repl-memory-wait", Cmds: cli.AllCommands, Def: "30s", Help: "how long a REPL session waits for memory others hold; then serve answers 503 repl_memory_exhausted (a child's rlm_query returns an error to its cell)", Value: cli.Dur(func(c *config) *time.Duration { return &c.REPLMemoryWait })},
	{Name: "repl-stack-bytes", Cmds: cli.AllCommands, Def: cli.FormatSize(repl.DefaultLimits().StackBytes), Help: "largest stack of one goroutine in the REPL (deeper recursion crashes the worker)", Value: cli.Size(func(c *config) *int64 { return &c.REPL.StackBytes })},
	{Name: "max-output", Cmds: cli.AllCommands, Def: strconv.Itoa(repl.DefaultLimits().MaxOutput), Help: "characters of cell output shown to the model", Value: cli.Num(func(c *config) *int { return &c.REPL.MaxOutput })},
	{Name: "max-goroutines", Cmds: cli.AllCommands, Def: strconv.Itoa(repl.DefaultLimits().MaxGoroutines), Help: "goroutines model code may have alive at once in one REPL", Value: cli.Num(func(c *config) *int { return &c.REPL.MaxGoroutines })},
	{Name: "max-prompt-bytes", Cmds: cli.AllCommands, Def: cli.FormatSize(repl.DefaultLimits().MaxPromptBytes), Help: "largest prompt of one llm_query or rlm_query; a call with a larger one is refused before it leaves the REPL", Value: cli.Size(func(c *config) *int64 { return &c.REPL.MaxPromptBytes })},
	{Name: "max-call-bytes", Cmds: cli.AllCommands, Def: cli.FormatSize(repl.DefaultLimits().MaxCallBytes), Help: "all prompts of one llm_query/rlm_query call (batched ones included) together, at least: a run's cap follows its input, twice its bytes, up to --repl-memory-bytes, so that one batch over the whole input passes; also bounds every message a REPL worker sends, refused from its header", Value: cli.Size(func(c *config) *int64 { return &c.REPL.MaxCallBytes })},
	{Name: "max-batch", Cmds: cli.AllCommands, Def: strconv.Itoa(repl.DefaultLimits().MaxBatch), Help: "prompts in one llm_query_batched or rlm_query_batched call; a batch larger than the LLM calls left is refused whole, with one trace record", Value: cli.Num(func(c *config) *int { return &c.REPL.MaxBatch })},
	{Name: "max-final-bytes", Cmds: cli.AllCommands, Def: cli.FormatSize(repl.DefaultLimits().MaxFinalBytes), Help: "largest answer FINAL accepts; a larger one is refused with a cell error the model sees", Value: cli.Size(func(c *config) *int64 { return &c.REPL.MaxFinalBytes })},
	{Name: "max-error-bytes", Cmds: cli.AllCommands, Def: cli.FormatSize(int64(repl.DefaultLimits().MaxErrorBytes)), Help: "largest cell error; long values an interpreter error quotes (the context, a constant) are named with their size first", Value: cli.SizeInt(func(c *config) *int { return &c.REPL.MaxErrorBytes })},
	{Name: "max-host-calls", Cmds: cli.AllCommands, Def: strconv.Itoa(repl.DefaultLimits().MaxHostCalls), Help: "llm_query/rlm_query and client tool calls in flight at once per REPL worker; goroutines of model code that call beyond it wait (a batched call is one)", Value: cli.Num(func(c *config) *int { return &c.REPL.MaxHostCalls })},
	{Name: "max-trace-field-bytes", Cmds: cli.ForServe, Def: cli.FormatSize(tracing.DefaultMaxFieldBytes), Help: "largest text field (prompt, response, message, output, answer) a trace keeps; longer ones are cut, with a note", Value: cli.Size(func(c *config) *int64 { return &c.TraceFieldBytes })},
	{Name: "max-trace-bytes", Cmds: cli.ForServe, Def: cli.FormatSize(tracing.DefaultMaxTraceBytes), Help: "largest trace of one run; past it text and sub-call records are left out and counted in the trace's truncated", Value: cli.Size(func(c *config) *int64 { return &c.TraceBytes })},
	{Name: "log-level", Cmds: cli.ForServe, Def: "info", Help: "debug, info, warn or error", Value: cli.Str(func(c *config) *string { return &c.LogLevel })},
	{Name: "trace-content", Cmds: cli.ForServe, Def: "false", Help: "put prompt and completion text on OpenTelemetry spans (traces in the store always keep them)", Value: cli.Bool(func(c *config) *bool { return &c.TraceContent })},
}

// newSettings defines on fs the settings of cmd (serve, query or eval):
// --config and the rows of settingsTable that cmd takes, read into the
// config returned, which Load completes.
func newSettings(cmd string, fs *flag.FlagSet, env cli.Env) (*cli.Settings, *config) {
	s := cli.NewSettings(cmd, fs, env)
	c := &config{}
	cli.RegisterTable(s, settingsTable, cli.CommandSet(cmd), c)
	return s, c
}

// loaded notes which settings of s were given rather than left at their
// defaults, once s is loaded.
func (c *config) loaded(s *cli.Settings) *config {
	c.explicit = map[string]bool{}
	for _, r := range s.Rows() {
		c.explicit[r.Name] = s.Explicit(r.Name)
	}
	return c
}

// newServeSettings are the settings of `rlm serve`, whose help goes to
// stderr.
func newServeSettings(env cli.Env, stderr io.Writer) (*cli.Settings, *config) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	s, c := newSettings("serve", fs, env)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: rlm serve [flags]

Runs the OpenAI-compatible RLM gateway. See docs/server.md.
`)
		s.PrintUsage(stderr)
	}
	return s, c
}

// loadServeConfig reads the settings of `rlm serve` from args, the
// environment and the --config file.
func loadServeConfig(args []string, env cli.Env, stderr io.Writer) (*config, error) {
	s, c := newServeSettings(env, stderr)
	if err := s.Parse(args, stderr); err != nil {
		return nil, err
	}
	return c.loaded(s), nil
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
