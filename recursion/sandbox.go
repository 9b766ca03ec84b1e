package recursion

import (
	"context"
	"fmt"

	"github.com/rlm-project/rlm/repl"
)

// PoolSandbox adapts a REPL pool to the engine's Sandbox.
func PoolSandbox(p *repl.Pool) Sandbox { return poolSandbox{p} }

type poolSandbox struct{ p *repl.Pool }

func (s poolSandbox) NewSession(ctx context.Context, cfg SessionConfig) (Session, error) {
	sess, err := s.p.NewSession(ctx, repl.SessionConfig{Context: cfg.Context, Query: cfg.Query, Host: cfg.Host,
		Limits: cfg.Limits, Budget: cfg.Budget, Tools: cfg.Tools, Images: cfg.Images})
	if err != nil {
		return nil, fmt.Errorf("new REPL session: %w", err)
	}
	return sess, nil
}
