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
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/net/netutil"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/document"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/store"
)

// Runner runs one RLM request; *recursion.Engine implements it.
type Runner interface {
	Run(ctx context.Context, req recursion.Request) (recursion.Result, error)
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
	sessions   *sessionCache[*recursion.Conversation]
	feeds      feeds
	paused     *sessionCache[*pausedRun]

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
	s.sessions = newSessionCache[*recursion.Conversation](cfg.SessionTTL, cfg.MaxSessions, sessionWords)
	s.paused = newSessionCache[*pausedRun](cfg.ToolWait, cfg.MaxPaused, pausedWords)
	s.paused.perOwner = cfg.MaxPausedPerKey
	s.feeds.s = s

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
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
	}
	if !s.adopt(&s.http, hs) {
		return nil
	}
	if err := hs.Serve(limited); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	}
	return nil
}

// adopt records hs in *slot for Shutdown to stop, unless Shutdown has
// begun: then it found no server to stop, and adopt reports false so that
// hs never serves (it would serve for ever).
func (s *Server) adopt(slot **http.Server, hs *http.Server) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining.Load() {
		return false
	}
	*slot = hs
	return true
}

// ServeMetrics answers GET /metrics, and nothing else, on ln until
// Shutdown: for Config.MetricsSeparate, a listener apart from the API's.
func (s *Server) ServeMetrics(ln net.Listener) error {
	e := echo.New()
	e.HTTPErrorHandler = errorHandler(s.log, s.m)
	e.GET("/metrics", echo.WrapHandler(s.metricsHandler()))
	hs := &http.Server{Handler: e, ReadHeaderTimeout: s.cfg.ReadHeaderTimeout, IdleTimeout: s.cfg.IdleTimeout,
		ReadTimeout: s.cfg.ReadHeaderTimeout, WriteTimeout: time.Minute}
	if !s.adopt(&s.metricsHTTP, hs) {
		return nil
	}
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
		var ae *api.Error
		switch {
		case s.cfg.MetricsKey != "":
			scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
			got := sha256.Sum256([]byte(strings.TrimSpace(key)))
			if !ok || !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
				ae = &api.Error{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "invalid_api_key", Kind: "auth",
					Message: "/metrics needs the metrics key: send it as \"Authorization: Bearer <key>\""}
			}
		case len(s.owners) > 0 && !s.cfg.MetricsSeparate:
			ae = &api.Error{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "metrics_not_public", Kind: "auth",
				Message: "/metrics is not public on a server with API keys; the operator can set --metrics-key or --metrics-addr"}
		}
		if ae != nil {
			s.m.errors.WithLabelValues(ae.Kind).Inc()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(ae.Status)
			json.NewEncoder(w).Encode(ae.Body())
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
	s.paused.closeAll()
	s.docs.Close()
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

func (s *Server) ready(c *echo.Context) error {
	if s.draining.Load() {
		return &api.Error{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "shutting_down",
			Kind: "shutting_down", Message: "server is shutting down"}
	}
	if s.runner == nil {
		return &api.Error{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "not_configured",
			Kind: "not_configured", Message: s.cfg.NotConfigured}
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if _, err := s.store.List(ctx, collFileMeta, "readyz/"); err != nil {
		s.log.Error("readiness: store unavailable", "err", err)
		return &api.Error{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "store_unavailable",
			Kind: "internal", Message: "store unavailable"}
	}
	names := make([]string, 0, len(s.cfg.ReadyChecks))
	for name := range s.cfg.ReadyChecks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := s.cfg.ReadyChecks[name](ctx); err != nil {
			return &api.Error{Status: http.StatusServiceUnavailable, Type: "server_error", Code: name + "_unhealthy",
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
			status = api.ErrorOf(err).Status
		} else if resp, uerr := echo.UnwrapResponse(c.Response()); uerr == nil && resp.Status != 0 {
			status = resp.Status
		}
		if code, ok := c.Get(ctxStatus).(int); ok {
			status = code // what happened to a run whose client went away
		}
		d := time.Since(start)
		s.m.requests.WithLabelValues(c.Request().Method, route, strconv.Itoa(status)).Inc()
		s.m.latency.WithLabelValues(c.Request().Method, route).Observe(d.Seconds())
		attrs := []any{"method", c.Request().Method, "path", c.Request().URL.Path, "status", status,
			"duration", d.Round(time.Millisecond)}
		if id := c.Response().Header().Get("X-RLM-Trace-Id"); id != "" {
			attrs = append(attrs, "trace_id", id)
		}
		if code, ok := c.Get(ctxOutcome).(string); ok {
			attrs = append(attrs, "stream_error", code)
		}
		s.log.Info("request", attrs...)
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
				err = api.ServerError("internal error")
			}
		}()
		return next(c)
	}
}

// Context keys.
const (
	ctxOwner  = "rlm.owner"
	ctxStatus = "rlm.status"
	// ctxOutcome is the error code of a stream that failed after its 200:
	// the access log shows the status that went out and this beside it.
	ctxOutcome = "rlm.outcome"
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
			return &api.Error{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "invalid_api_key", Kind: "auth",
				Message: "missing API key: send it as \"Authorization: Bearer <key>\""}
		}
		owner, ok := s.owners[sha256.Sum256([]byte(strings.TrimSpace(key)))]
		if !ok {
			return &api.Error{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "invalid_api_key", Kind: "auth",
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
func (s *Server) modelObject(alias string) api.Model {
	m := api.Model{ID: alias, Object: "model", OwnedBy: ownedBy}
	if info, ok := s.cfg.ModelInfo[alias]; ok {
		m.RLM = &info
	}
	return m
}

func (s *Server) listModels(c *echo.Context) error {
	var data []api.Model
	for _, m := range s.cfg.Models {
		data = append(data, s.modelObject(m))
	}
	return c.JSON(http.StatusOK, api.NewList(data))
}

func (s *Server) getModel(c *echo.Context) error {
	id := c.Param("model")
	for _, m := range s.cfg.Models {
		if m == id {
			return c.JSON(http.StatusOK, s.modelObject(m))
		}
	}
	return &api.Error{Status: http.StatusNotFound, Type: "invalid_request_error", Param: "model", Code: "model_not_found",
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
