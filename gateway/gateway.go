// Package gateway assembles the RLM gateway from a Config: the store, the
// trace service with its OpenTelemetry export and trajectory stream, the
// engine with its REPL pool and upstream client, the upstream probes, the
// store's retention sweeps and the OpenAI-compatible HTTP server over them
// all. `rlm serve` is flags around it; a program can embed it the same way.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/recursion/upstream"
	"github.com/rlm-project/rlm/server"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/spans"
	"github.com/rlm-project/rlm/tracing/traceapi"
)

// Gateway is an assembled gateway: serve it on a listener, shut it down,
// then close it.
type Gateway struct {
	log *slog.Logger
	srv *server.Server

	// What New opened, released by Close in the reverse order; nil until
	// opened, so that a New that fails half-way can close what it has.
	closeStore func() error
	closeOTel  func() error
	traces     *tracing.Service
	drain      time.Duration
	engine     *Engine

	// The background work (upstream probes, store sweeps): its context is
	// cancelled, and the goroutines waited for, by Close.
	cancel context.CancelFunc
	bg     sync.WaitGroup

	closing   atomic.Bool // Shutdown or Close was called: Serve refuses
	shutOnce  sync.Once
	shutErr   error
	closeOnce sync.Once
	closeErr  error
}

// New assembles a gateway from cfg and starts its background work: the
// first upstream probe and store sweep. ctx bounds what New itself does
// (connecting to Redis, starting the exporter); the gateway lasts until
// Close. A New that fails releases what it had opened.
func New(ctx context.Context, cfg Config) (*Gateway, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	g := &Gateway{log: cfg.Logger, drain: cfg.Tracing.Drain}
	if g.log == nil {
		g.log = slog.Default()
	}
	if g.drain == 0 {
		g.drain = DefaultTraceDrain
	}
	if err := g.assemble(ctx, cfg); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

// assemble opens and starts the parts in the order they need each other,
// leaving in g what Close must release.
func (g *Gateway) assemble(ctx context.Context, cfg Config) error {
	// Values but not cancellation: the background work stops at Close.
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	g.cancel = cancel
	st, err := g.openStore(ctx, cfg.Store)
	if err != nil {
		return err
	}
	kept := newRetention(cfg.Retention, st, g.log)
	if err := g.startTracing(ctx, cfg, st, kept.beforeSave); err != nil {
		return err
	}
	scfg := g.serverConfig(cfg, kept)
	var runner server.Runner
	if cfg.NotConfigured == "" {
		if g.engine, err = NewEngine(cfg.engine()); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		runner = g.traces.Wrap(g.engine.Engine)
		scfg.Workers = g.engine.Pool
		g.startProber(bg, cfg, scfg.ReadyChecks)
	}
	if g.srv, err = server.New(scfg, st, runner); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	if g.engine != nil && g.engine.Pool.MemoryBudget() != nil {
		// Sessions kept for follow-ups yield their memory to runs.
		g.engine.Pool.MemoryBudget().SetReclaim(g.srv.ReclaimREPLMemory)
	}
	g.goBackground(func() { kept.run(bg) })
	return nil
}

// openStore opens the store cfg names and keeps its Close for g.Close.
func (g *Gateway) openStore(ctx context.Context, cfg StoreConfig) (store.Store, error) {
	if cfg.Kind == StoreRedis {
		r, err := store.OpenRedis(ctx, cfg.Redis)
		if err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
		g.closeStore = r.Close
		return r, nil
	}
	d, err := store.OpenDisk(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	return d, nil
}

// startTracing starts the trace service that records every run in st: its
// OpenTelemetry export and trajectory stream first, when configured.
func (g *Gateway) startTracing(ctx context.Context, c Config, st store.Store,
	beforeSave func(ctx context.Context, owner, id string, n int64) error) error {
	cfg := c.Tracing
	var runSpans tracing.Spans
	if cfg.Getenv != nil {
		tp, shutdown, err := spans.SetupFromEnv(ctx, cfg.Getenv)
		if err != nil {
			return fmt.Errorf("OpenTelemetry: %w", err)
		}
		// Flushes the spans still buffered, however long the exporter takes,
		// as a process that exits next would want.
		g.closeOTel = func() error { return shutdown(context.Background()) }
		if tp != nil {
			runSpans = spans.New(spans.Config{TracerProvider: tp, CaptureContent: cfg.CaptureContent})
		}
	}
	var feed tracing.Stream
	if cfg.Stream != "" {
		maxLen := cfg.StreamMaxLen
		if maxLen == 0 {
			maxLen = tracing.DefaultStreamMaxLen
		}
		// Config.check refuses a stream without the Redis store: the
		// stream lives on the store's server.
		feed = st.(*store.Redis).Stream(cfg.Stream, maxLen)
	}
	g.traces = tracing.NewService(tracing.Config{Store: st, Spans: runSpans, Logger: g.log, Feed: feed,
		SaveQueue: cfg.SaveQueue, SaveTimeout: cfg.SaveTimeout, Record: cfg.Record,
		BeforeSave: beforeSave})
	return nil
}

// serverConfig is cfg.Server with the gateway's parts: the trace API and
// viewer, the trace and retention metrics, readiness of trace saving.
func (g *Gateway) serverConfig(cfg Config, kept *storeRetention) server.Config {
	scfg := cfg.Server
	scfg.Models = cfg.aliases()
	scfg.NotConfigured = cfg.NotConfigured
	if scfg.Logger == nil {
		scfg.Logger = g.log
	}
	// New slices and maps: the caller's stay as they were.
	scfg.Collectors = slices.Concat(cfg.Server.Collectors, g.traces.Collectors(), kept.collectors())
	scfg.ReadyChecks = map[string]func(context.Context) error{
		"trace_saving": func(context.Context) error { return g.traces.SaveHealth() },
	}
	maps.Copy(scfg.ReadyChecks, cfg.Server.ReadyChecks)
	traceAPI := traceapi.New(g.traces, traceapi.Config{Logger: g.log})
	scfg.Extend = func(e *echo.Echo, v1 *echo.Group, owner func(*echo.Context) string) {
		traceAPI.Register(v1, owner)
		traceapi.RegisterUI(e)
	}
	scfg.RunContext = func(ctx context.Context, owner string, h http.Header) context.Context {
		// The run's spans continue the caller's W3C trace context.
		return spans.Extract(tracing.WithOwner(ctx, owner), h)
	}
	return scfg
}

// startProber probes the upstream now, in the background, and with
// cfg.Probe.Ready again every interval, adding the upstream's readiness to
// checks. There is nothing to probe when a local model answers.
func (g *Gateway) startProber(ctx context.Context, cfg Config, checks map[string]func(context.Context) error) {
	if g.engine.Upstream == nil {
		return
	}
	p := &upstreamProber{client: g.engine.Upstream, url: upstream.RedactURL(cfg.Engine.Upstream.BaseURL),
		models: cfg.probedModels(), timeout: cfg.Probe.Timeout, log: g.log}
	var interval time.Duration
	if cfg.Probe.Ready {
		interval = cfg.Probe.Interval
		checks["upstream"] = p.ready
	}
	g.goBackground(func() { p.run(ctx, interval) })
}

// goBackground runs f in a goroutine Close waits for.
func (g *Gateway) goBackground(f func()) {
	g.bg.Add(1)
	go func() {
		defer g.bg.Done()
		f()
	}()
}

// Serve answers the API on ln until Shutdown; it returns nil after a
// graceful shutdown, and http.ErrServerClosed when called after it.
func (g *Gateway) Serve(ln net.Listener) error {
	if g.closing.Load() {
		return http.ErrServerClosed
	}
	return g.srv.Serve(ln)
}

// ServeMetrics answers GET /metrics, and nothing else, on ln until
// Shutdown. It needs Config.Server.MetricsSeparate, which takes /metrics
// off the API's listener.
func (g *Gateway) ServeMetrics(ln net.Listener) error {
	if g.closing.Load() {
		return http.ErrServerClosed
	}
	return g.srv.ServeMetrics(ln)
}

// Shutdown stops accepting requests and lets running ones finish until ctx
// is done; then it cancels the runs still going and waits for them to wind
// down. Close the gateway afterwards to release the rest.
func (g *Gateway) Shutdown(ctx context.Context) error {
	g.closing.Store(true)
	g.shutOnce.Do(func() { g.shutErr = g.srv.Shutdown(ctx) })
	return g.shutErr
}

// Close releases everything New opened: it shuts the server down at once
// when Shutdown was not called (cancelling the runs in flight), stops the
// probes and sweeps, stops the REPL workers, saves the traces still queued
// for up to the trace drain time, and closes the trajectory stream, the
// OpenTelemetry exporter and the store. Traces it could not save are
// logged, not returned: the runs they record have answered already.
func (g *Gateway) Close() error {
	g.closeOnce.Do(func() { g.closeErr = g.close() })
	return g.closeErr
}

func (g *Gateway) close() error {
	var errs []error
	if g.srv != nil {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // no grace: that is what Shutdown is for
		g.closing.Store(true)
		// Waits for a Shutdown under way; its error is its caller's.
		g.shutOnce.Do(func() {
			if g.shutErr = g.srv.Shutdown(ctx); g.shutErr != nil {
				errs = append(errs, g.shutErr)
			}
		})
	}
	g.cancel()
	g.bg.Wait()
	if g.engine != nil {
		if err := g.engine.Close(); err != nil {
			errs = append(errs, fmt.Errorf("engine: %w", err))
		}
	}
	if g.traces != nil {
		// After the server's shutdown: the runs have ended, their traces
		// are queued.
		ctx, cancel := context.WithTimeout(context.Background(), max(g.drain, 0))
		if err := g.traces.Close(ctx); err != nil {
			g.log.Error("traces not saved at shutdown", "err", err)
		}
		cancel()
	}
	for _, c := range []struct {
		what  string
		close func() error
	}{{"OpenTelemetry", g.closeOTel}, {"store", g.closeStore}} {
		if c.close == nil {
			continue
		}
		if err := c.close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", c.what, err))
		}
	}
	return errors.Join(errs...)
}
