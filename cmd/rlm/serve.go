package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/gateway"
	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/models/tinydemo"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/server"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/tracing"
)

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
	if c.MaxBackground <= 0 || c.ResponsePoll <= 0 || c.CancelWait <= 0 || c.SessionTTL <= 0 || c.MaxSessions <= 0 || c.ToolWait <= 0 || c.MaxPaused <= 0 {
		return fmt.Errorf("max-background %d, response-poll %v, cancel-wait %v, session-ttl %v, max-sessions %d, tool-wait %v and max-paused-runs %d: must be positive",
			c.MaxBackground, c.ResponsePoll, c.CancelWait, c.SessionTTL, c.MaxSessions, c.ToolWait, c.MaxPaused)
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

// runServe is `rlm serve`: the settings, checked, make a gateway.Config;
// the gateway serves until ctx is done.
func runServe(ctx context.Context, env cli.Env, args []string, stdout, stderr io.Writer) error {
	cfg, err := loadServeConfig(args, env, stderr)
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
		if local, err = cfg.startServeModel(log, stderr); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		defer closeServeModel(local, log)
	}
	gcfg, err := cfg.gatewayConfig(log, local)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	g, err := gateway.New(ctx, gcfg)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer func() {
		if err := g.Close(); err != nil {
			log.Warn("closing the gateway", "err", err)
		}
	}()
	if len(cfg.APIKeys) == 0 {
		log.Warn("NO API KEYS: the server is open to anyone who can reach " + cfg.Listen + "; set --api-key or RLM_API_KEY")
	}
	return cfg.listenAndServe(ctx, g, gcfg.Models, log, stdout)
}

// startServeModel loads --local-model and logs what it is.
func (c *config) startServeModel(log *slog.Logger, stderr io.Writer) (*inference.Engine, error) {
	local, err := c.startLocalModel(stderr)
	if err != nil {
		return nil, err
	}
	st := local.Stats()
	attrs := []any{"model", local.Name(), "kv_cache_tokens", st.KVBlocks * st.KVBlockSize, "max_model_len", local.MaxModelLen()}
	if c.LocalModel == cli.ModelBuiltin {
		log.Warn(builtinNotice(), attrs...)
	} else {
		log.Info("local model loaded", append(attrs, "dir", c.LocalModel)...)
	}
	return local, nil
}

// closeServeModel logs what the local model did, then closes it.
func closeServeModel(local *inference.Engine, log *slog.Logger) {
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
}

// modelAliases reads --models: "alias" (the root model) or
// "alias=upstream-model" entries.
func (c *config) modelAliases() ([]gateway.Model, map[string]string, error) {
	var models []gateway.Model
	aliases := map[string]string{}
	for _, m := range c.Models {
		alias, upstream, ok := strings.Cut(m, "=")
		if !ok {
			upstream = c.RootModel
		}
		if alias == "" {
			return nil, nil, fmt.Errorf("models: empty alias in %q", m)
		}
		aliases[alias] = upstream
		models = append(models, gateway.Model{Alias: alias, Upstream: upstream})
	}
	if len(models) == 0 {
		return nil, nil, errors.New("models: no model alias: set --models or RLM_MODELS (e.g. rlm)")
	}
	return models, aliases, nil
}

// notConfigured lists what serve lacks to run chats, in the words of its
// settings; nothing when it can run them.
func (c *config) notConfigured(aliases map[string]string) []string {
	var missing []string
	if c.Upstream == "" && c.Local == nil {
		missing = append(missing, "no upstream configured: set --upstream, RLM_UPSTREAM or OPENAI_BASE_URL (e.g. https://api.openai.com/v1), "+
			"or leave --local-model unset for the built-in model")
	}
	if c.RootModel == "" {
		for _, u := range aliases {
			if u == "" {
				missing = append(missing, "no root model configured: set --root-model or RLM_ROOT_MODEL, or map every alias with --models alias=upstream-model")
				break
			}
		}
	}
	return missing
}

// gatewayConfig is the gateway's configuration from the settings. It logs
// what is not configured, or the REPL's memory budgets.
func (c *config) gatewayConfig(log *slog.Logger, local *inference.Engine) (gateway.Config, error) {
	models, aliases, err := c.modelAliases()
	if err != nil {
		return gateway.Config{}, err
	}
	g := gateway.Config{Logger: log, Models: models, Server: c.serverConfig(aliases, local),
		Store: gateway.StoreConfig{Kind: c.Store, Dir: c.DataDir,
			Redis: store.RedisConfig{URL: c.RedisURL, Prefix: c.RedisPrefix, CacheDir: c.RedisCacheDir}},
		Probe:     gateway.ProbeConfig{Timeout: c.ProbeTimeout, Ready: c.ReadyUpstream, Interval: c.ProbeInterval},
		Tracing:   c.tracing(),
		Retention: c.retention(),
	}
	if missing := c.notConfigured(aliases); len(missing) > 0 {
		g.NotConfigured = strings.Join(missing, "; ")
		for _, m := range missing {
			log.Warn("NOT CONFIGURED: chat completions will fail with 503 until this is fixed: " + m)
		}
		return g, nil
	}
	defaults, maxima := c.serveLimits()
	c.UpstreamLog = log
	var mem replBudget
	if g.Engine, mem, err = c.engineSetup(recursion.Config{Defaults: defaults, Max: maxima}); err != nil {
		return gateway.Config{}, err
	}
	log.Info(mem.String())
	return g, nil
}

// serverConfig is the HTTP layer's configuration from the settings.
func (c *config) serverConfig(aliases map[string]string, local *inference.Engine) server.Config {
	return server.Config{
		Keys: c.APIKeys, ModelInfo: modelInfo(c, aliases, local), MaxRequestBytes: c.MaxRequestBytes, MaxUploadBytes: c.MaxUploadBytes,
		MaxMessages: c.MaxMessages, MaxContentParts: c.MaxContentParts,
		MaxConcurrent: c.MaxConcurrent, MaxQueued: c.MaxQueued, QueueWait: c.QueueWait, RetryAfter: c.RetryAfter, KeepAlive: c.KeepAlive,
		IdleTimeout: c.IdleTimeout, ReadHeaderTimeout: c.HeaderTimeout, MinBodyRate: c.MinBodyRate, BodyRateGrace: c.BodyRateGrace,
		MaxConns: c.MaxConns, MaxConnsPerClient: perClientConns(c.MaxConnsPerClient), MetricsKey: c.MetricsKey, MetricsSeparate: c.MetricsAddr != "",
		StoreTimeout: c.StoreTimeout, MaxLimits: c.runLimits(), Documents: c.documentOptions(), RunLease: c.RunLease, Quota: c.quota(),
		MaxBackground: c.MaxBackground, ResponsePoll: c.ResponsePoll, CancelWait: c.CancelWait,
		SessionTTL: c.SessionTTL, MaxSessions: c.MaxSessions, ToolWait: c.ToolWait, MaxPaused: c.MaxPaused, MaxPausedPerKey: c.MaxPausedPerKey,
		VisionModel: c.visionModel(),
	}
}

// tracing is the recording of runs from the settings; OpenTelemetry
// export is configured by the standard OTEL_* environment.
func (c *config) tracing() gateway.TracingConfig {
	t := gateway.TracingConfig{SaveQueue: c.TraceSaveQueue, SaveTimeout: c.TraceSaveTime, Drain: c.TraceDrain,
		Record: tracing.RecordLimits{MaxFieldBytes: int(c.TraceFieldBytes), MaxTraceBytes: c.TraceBytes},
		Getenv: os.Getenv, CaptureContent: c.TraceContent}
	if t.Drain == 0 {
		t.Drain = -1 // the gateway reads 0 as its default; --trace-drain-timeout 0 means no wait
	}
	// The stream lives on the Redis store's server: the disk store has
	// none, whatever --trace-stream says.
	if c.Store == gateway.StoreRedis {
		t.Stream, t.StreamMaxLen = c.TraceStream, int64(c.TraceStreamMax)
		if t.StreamMaxLen == 0 {
			t.StreamMaxLen = -1 // the gateway reads 0 as its default; here 0 means no trimming, as documented
		}
	}
	return t
}

// listenAndServe serves g on --listen (and /metrics on --metrics-addr)
// until ctx is done, then shuts it down within --shutdown-grace.
func (c *config) listenAndServe(ctx context.Context, g *gateway.Gateway, models []gateway.Model, log *slog.Logger, stdout io.Writer) error {
	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	viewer := "http://" + ln.Addr().String() + "/ui/"
	var names []string
	for _, m := range models {
		names = append(names, m.Alias)
	}
	attrs := []any{"addr", "http://" + ln.Addr().String(), "viewer", viewer, "store", c.Store, "models", strings.Join(names, ",")}
	var mln net.Listener
	if c.MetricsAddr != "" {
		if mln, err = net.Listen("tcp", c.MetricsAddr); err != nil {
			ln.Close()
			return fmt.Errorf("serve: --metrics-addr: %w", err)
		}
		attrs = append(attrs, "metrics", "http://"+mln.Addr().String()+"/metrics")
	}
	if c.Store == gateway.StoreRedis && c.TraceStream != "" {
		attrs = append(attrs, "trace_stream", c.TraceStream)
	}
	log.Info("rlm serve listening", attrs...)
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	fmt.Fprintf(stdout, "trace viewer on %s\n", viewer)
	done := make(chan error, 2)
	go func() { done <- g.Serve(ln) }()
	if mln != nil {
		fmt.Fprintf(stdout, "metrics on http://%s/metrics\n", mln.Addr())
		go func() {
			if err := g.ServeMetrics(mln); err != nil {
				done <- err
			}
		}()
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", c.ShutdownGrace)
	sctx, cancel := context.WithTimeout(context.Background(), c.ShutdownGrace)
	defer cancel()
	if err := g.Shutdown(sctx); err != nil {
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
		case local != nil && cfg.LocalModel == cli.ModelBuiltin:
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
