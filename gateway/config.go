package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/rlm-project/rlm/server"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/tracing"
)

// Config says what New assembles. The fields that hold a component's own
// configuration (Server, Engine) mean what they mean to that component,
// except the fields New sets itself, listed on each.
type Config struct {
	// Logger gets the gateway's logs: the server's, the upstream probes',
	// the store sweeps'. nil means slog.Default().
	Logger *slog.Logger
	// Store is where uploaded files, stored completions and traces live.
	Store StoreConfig
	// Models are the aliases clients may name, the first listed first by
	// /v1/models; there must be at least one.
	Models []Model
	// Server configures the HTTP layer. New sets its Models, Extend,
	// RunContext, Workers and NotConfigured, its Logger when nil, and adds
	// to its Collectors and ReadyChecks.
	Server server.Config
	// Engine configures the engine that runs chat completions. New sets
	// Recursion.Models from Models and, when Recursion.RootModel is empty,
	// makes it the first alias's model.
	Engine EngineConfig
	// NotConfigured, when set, says what must be configured before chats
	// can run: New starts no engine, and chat completions answer 503 with
	// this text. Engine and Probe are then unused.
	NotConfigured string
	// Probe configures the probes of the upstream, made only when the
	// engine calls one (Engine.Recursion.Root is nil).
	Probe ProbeConfig
	// Tracing configures the recording of every run as a trace.
	Tracing TracingConfig
	// Retention bounds what the store keeps.
	Retention RetentionConfig
}

// Model is an alias clients may name in requests and the upstream model
// it stands for.
type Model struct {
	Alias string
	// Upstream is the model name sent upstream; empty means the engine's
	// root model.
	Upstream string
}

// The kinds of store StoreConfig opens.
const (
	StoreDisk  = "disk"
	StoreRedis = "redis"
)

// StoreConfig says which store New opens.
type StoreConfig struct {
	// Kind is StoreDisk or StoreRedis.
	Kind string
	// Dir is the disk store's directory, created if needed.
	Dir string
	// Redis configures the Redis store.
	Redis store.RedisConfig
}

// DefaultTraceDrain is how long Close keeps saving queued traces when
// TracingConfig.Drain is 0.
const DefaultTraceDrain = 10 * time.Second

// TracingConfig configures the trace of every run, kept in the store under
// its caller's owner and shown by the trace API and viewer.
type TracingConfig struct {
	// SaveQueue, SaveTimeout and Record are tracing.Config's.
	SaveQueue   int
	SaveTimeout time.Duration
	Record      tracing.RecordLimits
	// Drain bounds how long Close keeps saving the traces still queued
	// once the runs have ended; 0 means DefaultTraceDrain, negative not at
	// all.
	Drain time.Duration
	// Getenv reads the standard OTEL_* variables that configure
	// OpenTelemetry export (see tracing/spans.SetupFromEnv); nil: no export.
	Getenv func(string) string
	// CaptureContent puts prompts and completions on the exported spans.
	CaptureContent bool
	// Stream, with the Redis store, is the Redis Stream every finished
	// trajectory is appended to, on the store's server; empty: none.
	// StreamMaxLen is the length it is trimmed to, approximately: 0 means
	// tracing.DefaultStreamMaxLen, negative never trimmed.
	Stream       string
	StreamMaxLen int64
}

// check refuses a configuration New cannot assemble, before it opens
// anything.
func (c *Config) check() error {
	switch c.Store.Kind {
	case StoreDisk:
		if c.Store.Dir == "" {
			return errors.New("disk store: no directory")
		}
	case StoreRedis:
		if c.Store.Redis.URL == "" {
			return errors.New("redis store: no URL")
		}
	default:
		return fmt.Errorf("unknown store %q: use %s or %s", c.Store.Kind, StoreDisk, StoreRedis)
	}
	if c.Tracing.Stream != "" && c.Store.Kind != StoreRedis {
		return fmt.Errorf("trace stream %s: needs the %s store", c.Tracing.Stream, StoreRedis)
	}
	if len(c.Models) == 0 {
		return errors.New("models: no model alias")
	}
	seen := map[string]bool{}
	for _, m := range c.Models {
		if m.Alias == "" || seen[m.Alias] {
			return fmt.Errorf("models: alias %q: empty or repeated", m.Alias)
		}
		seen[m.Alias] = true
	}
	if c.NotConfigured == "" && c.Engine.Recursion.Root == nil {
		if err := c.Probe.check(); err != nil {
			return fmt.Errorf("upstream: %w", err)
		}
	}
	return nil
}

// engine is Engine with the models filled in from Models.
func (c *Config) engine() EngineConfig {
	e := c.Engine
	e.Recursion.Models = make(map[string]string, len(c.Models))
	for _, m := range c.Models {
		e.Recursion.Models[m.Alias] = m.Upstream
	}
	if e.Recursion.RootModel == "" {
		e.Recursion.RootModel = c.Models[0].Upstream
	}
	return e
}

// aliases are the names of Models, in order.
func (c *Config) aliases() []string {
	names := make([]string, len(c.Models))
	for i, m := range c.Models {
		names[i] = m.Alias
	}
	return names
}

// probedModels are the model names the upstream should list: the root
// model, the sub-model and every alias's.
func (c *Config) probedModels() []string {
	r := c.Engine.Recursion
	models := []string{r.RootModel, r.SubModel}
	for _, m := range c.Models {
		models = append(models, m.Upstream)
	}
	return models
}
