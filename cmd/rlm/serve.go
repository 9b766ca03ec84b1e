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
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/inference/client"
	"github.com/rlm-project/rlm/models/tinydemo"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/server"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/tracing"
)

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
		{"timeout", l.Timeout, l.Timeout < 0, "no maximum"}, {"max-failed-turns", l.MaxFailedTurns, l.MaxFailedTurns < 0, "the default"}} {
		if m.neg {
			return fmt.Errorf("%s %v: must not be negative (0: %s)", m.name, m.v, m.zero)
		}
	}
	if c.ProbeTimeout <= 0 {
		return fmt.Errorf("upstream-probe-timeout %v: must be positive", c.ProbeTimeout)
	}
	return nil
}

// perClientConns is --max-conns-per-client as server.Config takes it,
// where 0 is the default and a negative bound none.
func perClientConns(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// checkServe refuses server settings that cannot be enforced.
func (c *config) checkServe() error {
	if err := c.checkLimits(); err != nil {
		return err
	}
	if c.ReadyUpstream && c.ProbeInterval <= 0 {
		return fmt.Errorf("upstream-probe-interval %v: must be positive with --ready-upstream", c.ProbeInterval)
	}
	// The server reads a non-positive queue bound as its default, which is
	// not what an operator writing 0 means.
	if c.MaxQueued <= 0 {
		return fmt.Errorf("max-queued %d: must be positive", c.MaxQueued)
	}
	if c.MaxConns <= 0 {
		return fmt.Errorf("max-conns %d: must be positive", c.MaxConns)
	}
	if c.MaxConnsPerClient < 0 {
		return fmt.Errorf("max-conns-per-client %d: must not be negative (0: no limit)", c.MaxConnsPerClient)
	}
	if c.MaxMessages <= 0 || c.MaxContentParts <= 0 {
		return fmt.Errorf("max-messages %d and max-content-parts %d: must be positive", c.MaxMessages, c.MaxContentParts)
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
	if err := c.checkRetention(); err != nil {
		return err
	}
	return c.checkDocuments()
}

// fallBackToBuiltin makes the built-in model the local model of serve and
// query when neither an upstream nor --local-model is configured.
func (c *config) fallBackToBuiltin() {
	if c.Upstream == "" && c.LocalModel == "" {
		c.LocalModel = localBuiltin
	}
}

// wantsLocal reports whether --local-model names a model to run.
func (c *config) wantsLocal() bool { return c.LocalModel != "" && c.LocalModel != localNone }

// startLocalModel loads --local-model on --device and makes it the
// upstream of root turns and sub-calls; the root model defaults to its
// name. A GPU it runs on is named on log.
func (c *config) startLocalModel(log io.Writer) (*inference.Engine, error) {
	dev, err := parseDevice(c.Device, c.Precision)
	if err != nil {
		return nil, err
	}
	kv := c.KVCache
	if c.LocalModel == localBuiltin && !c.explicit["kv-cache"] {
		// The default pool is sized for real checkpoints; the small
		// built-in model needs a fraction of it.
		kv = builtinKVCache
	}
	ic, err := parseKVCache(kv)
	if err != nil {
		return nil, fmt.Errorf("kv-cache: %w", err)
	}
	if c.MaxSeqs <= 0 || c.MaxBatchTokens <= 0 {
		return nil, fmt.Errorf("max-seqs and max-batch-tokens must be positive")
	}
	// --model-window is the local model's window; auto (0) and off
	// (negative) leave it the model's own.
	ic.MaxSeqs, ic.MaxBatchTokens, ic.MaxModelLen = c.MaxSeqs, c.MaxBatchTokens, max(c.ContextWindow, 0)
	e, err := loadLocalModel(c.LocalModel, ic, dev, log)
	if err != nil {
		return nil, err
	}
	if c.RootModel == "" {
		c.RootModel = e.Name()
	}
	// An unset temperature is OpenAI's default, 1, except for the built-in
	// model: it was trained and evaluated (eval.json) greedy, and a demo
	// should answer the same question the same way every time.
	temp := 1.0
	if c.LocalModel == localBuiltin {
		temp = 0
	}
	c.Local = &client.Client{Engine: e, Temperature: temp}
	if c.LocalModel == localBuiltin {
		c.NoContextAnswer = builtinNoContext
	}
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

	if err := cfg.checkServe(); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if err := cfg.checkREPL(); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	cfg.fallBackToBuiltin()
	var local *inference.Engine
	if cfg.wantsLocal() {
		local, err = cfg.startLocalModel(stderr)
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
		attrs := []any{"model", local.Name(), "kv_cache_tokens", st.KVBlocks * st.KVBlockSize, "max_model_len", local.MaxModelLen()}
		if cfg.LocalModel == localBuiltin {
			log.Warn(builtinNotice(), attrs...)
		} else {
			log.Info("local model loaded", append(attrs, "dir", cfg.LocalModel)...)
		}
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
	st, closeStore, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeStore()
	scfg := server.Config{
		Keys: cfg.APIKeys, Models: names, ModelInfo: modelInfo(cfg, aliases, local), MaxRequestBytes: cfg.MaxRequestBytes, MaxUploadBytes: cfg.MaxUploadBytes,
		MaxMessages: cfg.MaxMessages, MaxContentParts: cfg.MaxContentParts,
		MaxConcurrent: cfg.MaxConcurrent, MaxQueued: cfg.MaxQueued, QueueWait: cfg.QueueWait, RetryAfter: cfg.RetryAfter, KeepAlive: cfg.KeepAlive,
		IdleTimeout: cfg.IdleTimeout, ReadHeaderTimeout: cfg.HeaderTimeout, MinBodyRate: cfg.MinBodyRate, BodyRateGrace: cfg.BodyRateGrace,
		MaxConns: cfg.MaxConns, MaxConnsPerClient: perClientConns(cfg.MaxConnsPerClient), MetricsKey: cfg.MetricsKey, MetricsSeparate: cfg.MetricsAddr != "", StoreTimeout: cfg.StoreTimeout,
		MaxLimits: cfg.runLimits(),
		Documents: cfg.documentOptions(),
		Logger:    log,
		RunLease:  cfg.RunLease,
		Quota:     cfg.quota(),
	}
	kept := newRetention(cfg, st, log)
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
		IsNotFound: func(err error) bool { return errors.Is(err, store.ErrNotFound) },
		BeforeSave: kept.beforeSave})
	defer func() {
		// After the server's shutdown: the runs have ended, their traces
		// are queued.
		dctx, cancel := context.WithTimeout(context.Background(), cfg.TraceDrain)
		defer cancel()
		if err := traces.Close(dctx); err != nil {
			log.Error("traces not saved at shutdown", "err", err)
		}
	}()
	scfg.Collectors = append(traces.Collectors(), kept.collectors()...)
	scfg.ReadyChecks = map[string]func(context.Context) error{
		"trace_saving": func(context.Context) error { return traces.SaveHealth() },
	}
	traceAPI := tracing.NewAPI(traces, tracing.APIConfig{})
	scfg.Extend = func(e *echo.Echo, v1 *echo.Group, owner func(*echo.Context) string) {
		traceAPI.Register(v1, owner)
		tracing.RegisterUI(e)
	}
	scfg.RunContext = func(ctx context.Context, owner string, h http.Header) context.Context {
		return tracing.WithHeaders(tracing.WithOwner(ctx, owner), h)
	}
	var missing []string
	if cfg.Upstream == "" && cfg.Local == nil {
		missing = append(missing, "no upstream configured: set --upstream, RLM_UPSTREAM or OPENAI_BASE_URL (e.g. https://api.openai.com/v1), "+
			"or leave --local-model unset for the built-in model")
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
		defaults, maxima := cfg.serveLimits()
		cfg.UpstreamLog = log
		eng, err := cfg.newEngine(recursion.Config{RootModel: root, Models: aliases, Defaults: defaults, Max: maxima})
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		defer eng.Close()
		log.Info(eng.memory.String())
		runner = traces.Wrap(eng.Engine)
		scfg.Workers = eng.pool
		if eng.client != nil {
			models := []string{cfg.RootModel, cfg.SubModel}
			for _, u := range aliases {
				models = append(models, u)
			}
			prober := &upstreamProber{client: eng.client, url: recursion.RedactURL(cfg.Upstream), models: models, timeout: cfg.ProbeTimeout, log: log}
			interval := time.Duration(0)
			if cfg.ReadyUpstream {
				interval = cfg.ProbeInterval
				scfg.ReadyChecks["upstream"] = prober.ready
			}
			go prober.run(ctx, interval)
		}
	}
	if len(cfg.APIKeys) == 0 {
		log.Warn("NO API KEYS: the server is open to anyone who can reach " + cfg.Listen + "; set --api-key or RLM_API_KEY")
	}
	srv, err := server.New(scfg, st, runner)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	viewer := "http://" + ln.Addr().String() + "/ui/"
	attrs := []any{"addr", "http://" + ln.Addr().String(), "viewer", viewer, "store", cfg.Store, "models", strings.Join(names, ",")}
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
	stopSweeps := kept.start(ctx)
	defer stopSweeps()
	log.Info("rlm serve listening", attrs...)
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	fmt.Fprintf(stdout, "trace viewer on %s\n", viewer)
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

// modelInfo says what answers under each alias, for /v1/models: the local
// engine for every alias when there is one (it serves every model name),
// otherwise the upstream model the alias maps to.
func modelInfo(cfg *config, aliases map[string]string, local *inference.Engine) map[string]server.ModelInfo {
	out := map[string]server.ModelInfo{}
	for alias, upstream := range aliases {
		info := server.ModelInfo{Model: upstream, ServedBy: "upstream"}
		if upstream == "" {
			info.Model = cfg.RootModel
		}
		switch {
		case local != nil && cfg.LocalModel == localBuiltin:
			info = server.ModelInfo{Model: local.Name(), ServedBy: "builtin", Description: tinydemo.About}
		case local != nil:
			info = server.ModelInfo{Model: local.Name(), ServedBy: "local"}
		}
		if info.Model != "" {
			out[alias] = info
		}
	}
	return out
}

func openStore(ctx context.Context, cfg *config) (store.Store, func(), error) {
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
func openFeed(ctx context.Context, cfg *config) (*tracing.Feed, func(), error) {
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
