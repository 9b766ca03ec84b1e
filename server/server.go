package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/net/netutil"

	"github.com/rlm-project/rlm/document"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/store"
)

// Runner runs one RLM request; *recursion.Engine implements it.
type Runner interface {
	Run(ctx context.Context, req recursion.Request) (recursion.Result, error)
}

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

// Server is the OpenAI-compatible gateway.
type Server struct {
	cfg    Config
	store  store.Store
	runner Runner
	docs   *document.Extractor
	log    *slog.Logger
	m      *metrics
	e      *echo.Echo
	owners map[[32]byte]string // sha256 of an API key -> owner id
	slots  chan struct{}
	queued chan struct{} // requests waiting for a slot, at most MaxQueued
	// lastCompletion is the time, in unix nanoseconds, in the newest
	// completion id (see newCompletionID).
	lastCompletion atomic.Int64

	// base is the parent of every run's context; cancelling it (at the end
	// of the shutdown grace period) stops the runs still going.
	base       context.Context
	cancelBase context.CancelFunc
	runs       sync.WaitGroup
	draining   atomic.Bool

	// instance names this server's lease and its runs in progress.
	instance string
	upkeep   upkeep
	quotas   quotaLedgers

	// responses are the responses running here; background counts the
	// background ones, queued or running (MaxBackground).
	responses  liveResponses
	background atomic.Int64
	sessions   *sessionCache

	mu          sync.Mutex
	http        *http.Server
	metricsHTTP *http.Server
}

// New builds a server. runner may be nil only when cfg.NotConfigured says why.
// It starts the server's upkeep of the store (its lease, the sweep of runs
// orphaned by a stopped server), which Shutdown stops.
func New(cfg Config, st store.Store, runner Runner) (*Server, error) {
	cfg.setDefaults()
	if st == nil {
		return nil, errors.New("new server: no store")
	}
	if runner == nil && cfg.NotConfigured == "" {
		return nil, errors.New("new server: no runner and no explanation of what is missing")
	}
	s := &Server{cfg: cfg, store: st, runner: runner, docs: document.New(cfg.Documents), log: cfg.Logger, m: newMetrics(cfg.Workers, cfg.Collectors...),
		owners: map[[32]byte]string{}, slots: make(chan struct{}, cfg.MaxConcurrent),
		queued: make(chan struct{}, cfg.MaxQueued)}
	for _, k := range cfg.Keys {
		if k == "" {
			return nil, errors.New("new server: empty API key")
		}
		s.owners[sha256.Sum256([]byte(k))] = store.OwnerOfKey(k)
	}
	s.base, s.cancelBase = context.WithCancel(context.Background())
	s.instance = newID("rlm-")
	s.quotas = newQuotaLedgers(st)
	s.sessions = newSessionCache(cfg.SessionTTL, cfg.MaxSessions)

	e := echo.NewWithConfig(echo.Config{
		Logger: cfg.Logger,
		// Unknown URLs under /v1 must reach the router's 404 and 405
		// handlers, not a catch-all route of the group.
		NoGroupAutoRegister404Routes: true,
		Router: echo.NewRouter(echo.RouterConfig{
			NotFoundHandler:         func(c *echo.Context) error { return echo.ErrNotFound },
			MethodNotAllowedHandler: func(c *echo.Context) error { return echo.ErrMethodNotAllowed },
		}),
	})
	e.HTTPErrorHandler = errorHandler(s.log, s.m)
	e.Use(s.observe, s.recover, s.limitBodyRate)
	e.GET("/healthz", func(c *echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) })
	e.GET("/readyz", s.ready)
	if !cfg.MetricsSeparate {
		e.GET("/metrics", echo.WrapHandler(s.metricsHandler()))
	}
	v1 := e.Group("/v1", s.auth)
	v1.GET("/models", s.listModels)
	v1.GET("/models/:model", s.getModel)
	v1.POST("/files", s.uploadFile)
	v1.GET("/files", s.listFiles)
	v1.GET("/files/:id", s.getFile)
	v1.DELETE("/files/:id", s.deleteFile)
	v1.GET("/files/:id/content", s.fileContent)
	v1.POST("/chat/completions", s.chatCompletions)
	v1.GET("/chat/completions", s.listCompletions)
	v1.GET("/chat/completions/:id", s.getCompletion)
	v1.POST("/chat/completions/:id", s.updateCompletion)
	v1.DELETE("/chat/completions/:id", s.deleteCompletion)
	v1.GET("/chat/completions/:id/messages", s.completionMessages)
	v1.POST("/responses", s.createResponse)
	v1.GET("/responses/:id", s.getResponse)
	v1.DELETE("/responses/:id", s.deleteResponse)
	v1.POST("/responses/:id/cancel", s.cancelResponse)
	v1.GET("/responses/:id/input_items", s.responseInputItems)
	if cfg.Extend != nil {
		cfg.Extend(e, v1, owner)
	}
	s.e = e
	s.startUpkeep()
	return s, nil
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.e }

// Serve answers requests on ln until Shutdown, under MaxConns and
// MaxConnsPerClient (see connLimiter). It returns nil after a graceful
// shutdown.
func (s *Server) Serve(ln net.Listener) error {
	// No ReadTimeout or WriteTimeout: bodies are bounded by rate
	// (limitBodyRate), and answers may stream for as long as a run takes.
	limited := newConnLimiter(ln, s.cfg.MaxConns, s.cfg.MaxConnsPerClient,
		max(1, int(s.cfg.RetryAfter.Round(time.Second)/time.Second)), s.m.connsDropped)
	hs := &http.Server{
		Handler:           s.e,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		ConnState:         limited.connState,
		BaseContext:       func(net.Listener) context.Context { return context.Background() },
	}
	s.mu.Lock()
	s.http = hs
	s.mu.Unlock()
	if err := hs.Serve(limited); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	}
	return nil
}

// ServeMetrics answers GET /metrics, and nothing else, on ln until
// Shutdown: for Config.MetricsSeparate, a listener apart from the API's.
func (s *Server) ServeMetrics(ln net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.metricsHandler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: s.cfg.ReadHeaderTimeout, IdleTimeout: s.cfg.IdleTimeout,
		ReadTimeout: s.cfg.ReadHeaderTimeout, WriteTimeout: time.Minute}
	s.mu.Lock()
	s.metricsHTTP = hs
	s.mu.Unlock()
	if err := hs.Serve(netutil.LimitListener(ln, s.cfg.MaxConns)); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve metrics %s: %w", ln.Addr(), err)
	}
	return nil
}

// metricsHandler is the Prometheus endpoint behind its access rule (see
// Config.MetricsKey).
func (s *Server) metricsHandler() http.Handler {
	prom := promhttp.HandlerFor(s.m.reg, promhttp.HandlerOpts{})
	want := sha256.Sum256([]byte(s.cfg.MetricsKey))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ae *apiError
		switch {
		case s.cfg.MetricsKey != "":
			scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
			got := sha256.Sum256([]byte(strings.TrimSpace(key)))
			if !ok || !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
				ae = &apiError{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "invalid_api_key", Kind: "auth",
					Message: "/metrics needs the metrics key: send it as \"Authorization: Bearer <key>\""}
			}
		case len(s.owners) > 0 && !s.cfg.MetricsSeparate:
			ae = &apiError{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "metrics_not_public", Kind: "auth",
				Message: "/metrics is not public on a server with API keys; the operator can set --metrics-key or --metrics-addr"}
		}
		if ae != nil {
			s.m.errors.WithLabelValues(ae.Kind).Inc()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(ae.Status)
			json.NewEncoder(w).Encode(ae.body())
			return
		}
		prom.ServeHTTP(w, r)
	})
}

// Shutdown stops accepting requests and lets running ones finish until ctx
// is done; then it cancels the runs still going (stored ones are recorded as
// interrupted) and waits for them to wind down.
func (s *Server) Shutdown(ctx context.Context) error {
	s.draining.Store(true)
	s.mu.Lock()
	hs, ms := s.http, s.metricsHTTP
	s.mu.Unlock()
	if ms != nil {
		// Scrapes are short; the metrics listener closes at once.
		defer ms.Close()
	}
	done := make(chan struct{})
	go func() { s.runs.Wait(); close(done) }()
	var err error
	if hs != nil {
		err = hs.Shutdown(ctx)
	}
	// Stored runs whose clients left are not handlers; wait for them too.
	select {
	case <-done:
	case <-ctx.Done():
	}
	s.cancelBase()
	// Cancelled runs end promptly; bound the wait anyway so that a stuck
	// runner cannot hang the process.
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.log.Error("runs did not stop within 10s of cancellation")
	}
	if hs != nil && err != nil {
		// Let the handlers of the cancelled runs send their answers.
		ctx2, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		hs.Shutdown(ctx2)
		cancel()
		hs.Close()
	}
	s.stopUpkeep()
	s.sessions.closeAll()
	s.docs.Close()
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

func (s *Server) ready(c *echo.Context) error {
	if s.draining.Load() {
		return &apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "shutting_down",
			Kind: "shutting_down", Message: "server is shutting down"}
	}
	if s.runner == nil {
		return &apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "not_configured",
			Kind: "not_configured", Message: s.cfg.NotConfigured}
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if _, err := s.store.List(ctx, collFileMeta, "readyz/"); err != nil {
		s.log.Error("readiness: store unavailable", "err", err)
		return &apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "store_unavailable",
			Kind: "internal", Message: "store unavailable"}
	}
	names := make([]string, 0, len(s.cfg.ReadyChecks))
	for name := range s.cfg.ReadyChecks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := s.cfg.ReadyChecks[name](ctx); err != nil {
			return &apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: name + "_unhealthy",
				Kind: "internal", Message: name + ": " + err.Error()}
		}
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}

// observe records request counts and latency.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		start := time.Now()
		err := next(c)
		route := c.Path()
		if route == "" {
			route = "unmatched"
		}
		status := http.StatusOK
		if err != nil {
			status = toAPIError(err).Status
		} else if resp, uerr := echo.UnwrapResponse(c.Response()); uerr == nil && resp.Status != 0 {
			status = resp.Status
		}
		if code, ok := c.Get(ctxStatus).(int); ok {
			status = code // what happened to a run whose client went away
		}
		d := time.Since(start)
		s.m.requests.WithLabelValues(c.Request().Method, route, strconv.Itoa(status)).Inc()
		s.m.latency.WithLabelValues(c.Request().Method, route).Observe(d.Seconds())
		s.log.Info("request", "method", c.Request().Method, "path", c.Request().URL.Path, "status", status,
			"duration", d.Round(time.Millisecond), "trace_id", c.Response().Header().Get("X-RLM-Trace-Id"))
		return err
	}
}

// recover turns a panic into a 500 with no detail for the client and the
// stack in the log.
func (s *Server) recover(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				s.log.Error("panic in handler", "path", c.Request().URL.Path, "panic", r, "stack", string(debug.Stack()))
				err = serverError("internal error")
			}
		}()
		return next(c)
	}
}

// Context keys.
const (
	ctxOwner  = "rlm.owner"
	ctxStatus = "rlm.status"
)

// openOwner owns everything on a server without keys.
const openOwner = "open"

// auth checks the bearer key and records its owner id (a hash of the key),
// which prefixes every store key the request touches.
func (s *Server) auth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if len(s.owners) == 0 {
			c.Set(ctxOwner, openOwner)
			return next(c)
		}
		h := c.Request().Header.Get("Authorization")
		scheme, key, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return &apiError{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "invalid_api_key", Kind: "auth",
				Message: "missing API key: send it as \"Authorization: Bearer <key>\""}
		}
		owner, ok := s.owners[sha256.Sum256([]byte(strings.TrimSpace(key)))]
		if !ok {
			return &apiError{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "invalid_api_key", Kind: "auth",
				Message: "incorrect API key provided"}
		}
		c.Set(ctxOwner, owner)
		return next(c)
	}
}

func owner(c *echo.Context) string {
	o, _ := c.Get(ctxOwner).(string)
	return o
}

// ownedBy is the owned_by of the model aliases: the RLMs this server runs
// are this project's, whatever model answers their calls (see ModelInfo).
const ownedBy = "rlm-project"

// modelObject is an alias as OpenAI's model object, with the `rlm`
// extension naming the model behind it.
type modelObject struct {
	ID      string     `json:"id"`
	Object  string     `json:"object"`
	Created int64      `json:"created"`
	OwnedBy string     `json:"owned_by"`
	RLM     *ModelInfo `json:"rlm,omitempty"`
}

func (s *Server) modelObject(alias string) modelObject {
	m := modelObject{ID: alias, Object: "model", OwnedBy: ownedBy}
	if info, ok := s.cfg.ModelInfo[alias]; ok {
		m.RLM = &info
	}
	return m
}

func (s *Server) listModels(c *echo.Context) error {
	data := []modelObject{}
	for _, m := range s.cfg.Models {
		data = append(data, s.modelObject(m))
	}
	return c.JSON(http.StatusOK, map[string]any{"object": "list", "data": data})
}

func (s *Server) getModel(c *echo.Context) error {
	id := c.Param("model")
	for _, m := range s.cfg.Models {
		if m == id {
			return c.JSON(http.StatusOK, s.modelObject(m))
		}
	}
	return &apiError{Status: http.StatusNotFound, Type: "invalid_request_error", Param: "model", Code: "model_not_found",
		Kind: "not_found", Message: fmt.Sprintf("the model %q does not exist", id)}
}

func newID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// validID accepts the ids this server hands out, so that a path parameter
// can never reach the store as something else.
func validID(id, prefix string) bool {
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok || len(rest) != 24 {
		return false
	}
	_, err := hex.DecodeString(rest)
	return err == nil
}

// countingReader counts bytes and fails once more than limit have passed.
type countingReader struct {
	r     io.Reader
	n     int64
	limit int64
	err   error // the last read error other than io.EOF: the client's fault
}

var errTooLarge = errors.New("file too large")

func (cr *countingReader) Read(p []byte) (int, error) {
	n, err := cr.r.Read(p)
	cr.n += int64(n)
	if cr.n > cr.limit {
		cr.err = errTooLarge
		return n, errTooLarge
	}
	if err != nil && err != io.EOF {
		cr.err = err
	}
	return n, err
}
