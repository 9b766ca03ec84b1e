package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rlm-project/rlm/document"
	"github.com/rlm-project/rlm/recursion"
)

// Config configures the HTTP layer. Zero fields take the defaults listed in
// docs/server.md (see Defaults).
type Config struct {
	// Keys are the accepted API keys. Empty: the server is open to anyone.
	Keys []string
	// Models are the model aliases clients may name; the first is listed
	// first by /v1/models. Empty: any model name is passed to the runner.
	Models []string
	// ModelInfo says what answers under each alias, shown by /v1/models in
	// each model's `rlm` object; an alias without an entry has none.
	ModelInfo map[string]ModelInfo
	// MaxRequestBytes bounds JSON request bodies (chat completions).
	MaxRequestBytes int64
	// MaxUploadBytes bounds one uploaded file.
	MaxUploadBytes int64
	// MaxMessages bounds the messages of one chat request, and
	// MaxContentParts the content parts of all its messages together;
	// both are counted while the body is decoded, and one past the cap
	// refuses the request with 400 before anything is built for the rest.
	MaxMessages     int
	MaxContentParts int
	// MaxConcurrent is how many runs execute at once.
	MaxConcurrent int
	// QueueWait is how long a request waits for a free run slot before 429.
	QueueWait time.Duration
	// MaxQueued is how many chat requests may wait for a run slot at once;
	// one more gets 429 at once, so that a flood of large requests cannot
	// hold unbounded memory while it waits.
	MaxQueued int
	// RetryAfter is the Retry-After sent with 429.
	RetryAfter time.Duration
	// KeepAlive is the interval of SSE comment lines on idle streams.
	KeepAlive time.Duration
	// IdleTimeout closes a kept-alive connection that has sent no new
	// request for this long.
	IdleTimeout time.Duration
	// ReadHeaderTimeout bounds reading a request's line and headers.
	ReadHeaderTimeout time.Duration
	// MinBodyRate is the slowest average rate, in bytes per second, at
	// which a request body may arrive once BodyRateGrace has passed: by t
	// after the request began, MinBodyRate*(t-BodyRateGrace) bytes must
	// have come. A slower body is cut with 408 and its connection closed;
	// a steady upload of any size at this rate or faster goes through.
	MinBodyRate int64
	// BodyRateGrace is the time a body may take before MinBodyRate applies.
	BodyRateGrace time.Duration
	// MaxConns bounds open client connections. When they are all open, a
	// new one takes the place of the oldest connection that is still
	// sending its request's headers, or idle between requests; when every
	// one is inside a request, the new one waits in the listen backlog.
	MaxConns int
	// MaxConnsPerClient bounds the connections open at once from one
	// client address (an IPv4 address, an IPv6 /64); one more is answered
	// 429 and closed. Negative: no bound (behind a proxy, where every
	// connection comes from the proxy's address).
	MaxConnsPerClient int
	// MaxLimits are the server's maxima for per-request `rlm` limits;
	// zero fields mean no maximum beyond the engine's own. A negative
	// MaxDepth is a maximum of the root alone, as in recursion.Config.Max.
	MaxLimits recursion.Limits
	// NotConfigured, when set, explains what is missing (no upstream): chat
	// requests fail with 503 and this text. The runner may then be nil.
	NotConfigured string
	// Logger gets the server's logs; nil means slog.Default().
	Logger *slog.Logger
	// Extend, when set, adds routes: e for unauthenticated ones (the trace
	// viewer's assets), v1 for ones behind the API-key check; owner gives a
	// request's owner id. rlm serve mounts the trace API and viewer with it.
	Extend func(e *echo.Echo, v1 *echo.Group, owner func(*echo.Context) string)
	// MetricsKey, when set, is the bearer key /metrics requires, wherever
	// it is served. Without it, /metrics on the API's listener is open
	// only when the server has no Keys: with keys, it answers 401, since
	// its series describe every client's traffic.
	MetricsKey string
	// MetricsSeparate takes /metrics off the API's handler: serve it with
	// ServeMetrics on a listener of its own (a private address).
	MetricsSeparate bool
	// StoreTimeout bounds each write of a stored completion (its record,
	// request messages and summary; see createStored): a store that hangs
	// fails the request instead of holding it.
	StoreTimeout time.Duration
	// Collectors are more Prometheus series for /metrics (the trace
	// service's saves).
	Collectors []prometheus.Collector
	// ReadyChecks are more conditions of readiness, by name: /readyz
	// answers 503 while one returns an error (whose text is shown, so it
	// must not hold addresses or paths).
	ReadyChecks map[string]func(context.Context) error
	// Workers, when set, reports the REPL worker processes behind the runs
	// (a *repl.Pool), exported as rlm_repl_workers.
	Workers WorkerCounter
	// Documents bound the extraction of attached files' text (PDF, HTML):
	// time per document, pieces per document, the PDF engine's memory.
	Documents document.Options
	// RunContext, when set, decorates each run's context with its owner and
	// the request's headers (trace recording reads them from there).
	RunContext func(ctx context.Context, owner string, h http.Header) context.Context
	// RunLease is the term of this server's lease in the store, renewed
	// every third of it: the stored runs in progress of a server whose
	// lease lapsed are recorded as interrupted (see runs.go).
	RunLease time.Duration
	// Quota bounds what one API key keeps in the store (see quota.go).
	Quota Quota
	// MaxBackground bounds the background responses (queued or running)
	// one server holds; one more is refused with 429.
	MaxBackground int
	// ResponsePoll is how often a background run checks the store for a
	// cancel request from another replica, and how often a resumed event
	// stream looks for new events.
	ResponsePoll time.Duration
	// CancelWait is how long POST /v1/responses/{id}/cancel waits for the
	// run to end before it answers with the response as it stands.
	CancelWait time.Duration
	// SessionTTL is how long the REPL session of a finished stored
	// response is kept for a follow-up (previous_response_id), and
	// MaxSessions how many are kept at once (see sessions.go).
	SessionTTL  time.Duration
	MaxSessions int
	// ToolWait is how long a run paused at client tool calls waits for
	// their outputs, and MaxPaused how many paused runs the server holds
	// at once (see paused.go): past either, the paused run ends, and the
	// client's outputs run the conversation again.
	ToolWait        time.Duration
	MaxPaused       int
	MaxPausedPerKey int
	// VisionModel is the model the runs' cells show images to
	// (recursion.Config.VisionModel); without one, requests with images
	// are refused (image_input_unsupported).
	VisionModel string
}

// ModelInfo is what answers under a model alias: /v1/models shows it in the
// model object's `rlm` extension, so a client sees which model it talks to.
type ModelInfo struct {
	// Model is the model the alias's root turns call.
	Model string `json:"model"`
	// ServedBy is where that model runs: "upstream" (an OpenAI-compatible
	// server), "local" (a checkpoint run in-process) or "builtin" (the
	// model built into the binary).
	ServedBy string `json:"served_by"`
	// Description says what the model is, when the server knows.
	Description string `json:"description,omitempty"`
}

// WorkerCounter reports live REPL worker processes: idle ones kept ready
// and busy ones serving a session. *repl.Pool is one.
type WorkerCounter interface {
	Workers() (idle, busy int)
}

// Defaults of Config, used for zero fields.
const (
	DefaultMaxRequestBytes = 64 << 20
	DefaultMaxUploadBytes  = 512 << 20
	DefaultMaxConcurrent   = 16
	DefaultQueueWait       = 2 * time.Second
	DefaultMaxQueued       = 64
	DefaultRetryAfter      = 2 * time.Second
	DefaultKeepAlive       = 15 * time.Second
	DefaultStoreTimeout    = 5 * time.Second
	// A keep-alive a little longer than common proxies' (60s), so that
	// they, not the server, close idle pooled connections.
	DefaultIdleTimeout       = 90 * time.Second
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultMinBodyRate       = 8 << 10 // 8 KiB/s: a 512 MiB upload may take 18 hours
	DefaultBodyRateGrace     = 10 * time.Second
	DefaultMaxConns          = 1024
	// A client's connection pool rarely needs more than the requests it
	// can have running and queued (DefaultMaxConcurrent+DefaultMaxQueued);
	// eight such clients fill DefaultMaxConns.
	DefaultMaxConnsPerClient = 128
	// OpenAI's own limit on the messages of a chat request.
	DefaultMaxMessages = 2048
	// Room for a conversation of DefaultMaxMessages sent as parts, a few
	// to a message.
	DefaultMaxContentParts = 8192
)

// Defaults of the Responses API's settings.
const (
	DefaultMaxBackground = 1024
	DefaultResponsePoll  = 250 * time.Millisecond
	DefaultCancelWait    = 5 * time.Second
	DefaultSessionTTL    = 10 * time.Minute
	DefaultMaxSessions   = 16
	DefaultToolWait      = 10 * time.Minute
	DefaultMaxPaused     = 64
	DefaultMaxPausedKey  = 16
)

func (c *Config) setDefaults() {
	if c.MaxBackground <= 0 {
		c.MaxBackground = DefaultMaxBackground
	}
	if c.ResponsePoll <= 0 {
		c.ResponsePoll = DefaultResponsePoll
	}
	if c.CancelWait <= 0 {
		c.CancelWait = DefaultCancelWait
	}
	if c.SessionTTL <= 0 {
		c.SessionTTL = DefaultSessionTTL
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.ToolWait <= 0 {
		c.ToolWait = DefaultToolWait
	}
	if c.MaxPaused <= 0 {
		c.MaxPaused = DefaultMaxPaused
	}
	if c.MaxPausedPerKey <= 0 {
		c.MaxPausedPerKey = DefaultMaxPausedKey
	}
	if c.MaxRequestBytes <= 0 {
		c.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if c.MaxUploadBytes <= 0 {
		c.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = DefaultMaxConcurrent
	}
	if c.QueueWait <= 0 {
		c.QueueWait = DefaultQueueWait
	}
	if c.MaxQueued <= 0 {
		c.MaxQueued = DefaultMaxQueued
	}
	if c.RetryAfter <= 0 {
		c.RetryAfter = DefaultRetryAfter
	}
	if c.KeepAlive <= 0 {
		c.KeepAlive = DefaultKeepAlive
	}
	if c.StoreTimeout <= 0 {
		c.StoreTimeout = DefaultStoreTimeout
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.ReadHeaderTimeout <= 0 {
		c.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if c.MinBodyRate <= 0 {
		c.MinBodyRate = DefaultMinBodyRate
	}
	if c.BodyRateGrace <= 0 {
		c.BodyRateGrace = DefaultBodyRateGrace
	}
	if c.MaxConns <= 0 {
		c.MaxConns = DefaultMaxConns
	}
	if c.MaxConnsPerClient == 0 {
		c.MaxConnsPerClient = DefaultMaxConnsPerClient
	}
	if c.MaxMessages <= 0 {
		c.MaxMessages = DefaultMaxMessages
	}
	if c.MaxContentParts <= 0 {
		c.MaxContentParts = DefaultMaxContentParts
	}
	if c.RunLease <= 0 {
		c.RunLease = DefaultRunLease
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// withDefaults is c with its zero fields set to their defaults.
func (c Config) withDefaults() Config {
	c.setDefaults()
	return c
}
