package gateway

import (
	"errors"
	"fmt"

	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/upstream"
	"github.com/rlm-project/rlm/repl"
)

// EngineConfig configures NewEngine: the engine, the REPL pool its
// sessions run in, and the upstream that answers its model calls unless
// Recursion.Root is set.
type EngineConfig struct {
	// Recursion configures the engine. NewEngine sets its Sandbox to the
	// pool and, when Root is nil, its Root to a client of Upstream.
	Recursion recursion.Config
	// Upstream is the OpenAI-compatible upstream of model calls, used when
	// Recursion.Root is nil (then BaseURL is required).
	Upstream upstream.Config
	// Pool configures the pool of REPL workers.
	Pool repl.PoolConfig
}

// Engine is an RLM engine with the REPL pool its sessions run in and, when
// it calls an upstream, that upstream's client.
type Engine struct {
	*recursion.Engine
	// Upstream is the client of EngineConfig.Upstream; nil when
	// Recursion.Root answered the model calls instead.
	Upstream *upstream.Client
	// Pool runs the REPL sessions.
	Pool *repl.Pool
}

// NewEngine starts the REPL pool and the engine over it. Close the engine
// to stop the pool's workers.
func NewEngine(cfg EngineConfig) (*Engine, error) {
	rc := cfg.Recursion
	var client *upstream.Client
	if rc.Root == nil {
		if cfg.Upstream.BaseURL == "" {
			return nil, errors.New("no model client: set Recursion.Root or Upstream.BaseURL")
		}
		var err error
		if client, err = upstream.New(cfg.Upstream); err != nil {
			return nil, fmt.Errorf("upstream client: %w", err)
		}
		rc.Root = client
	}
	pool, err := repl.NewPool(cfg.Pool)
	if err != nil {
		return nil, fmt.Errorf("start REPL pool: %w", err)
	}
	rc.Sandbox = recursion.PoolSandbox(pool)
	eng, err := recursion.New(rc)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &Engine{Engine: eng, Upstream: client, Pool: pool}, nil
}

// Close stops the REPL workers and drops the upstream client's idle
// connections, whose goroutines would otherwise outlive the engine.
func (e *Engine) Close() error {
	err := e.Pool.Close()
	if e.Upstream != nil {
		e.Upstream.CloseIdleConnections()
	}
	return err
}
