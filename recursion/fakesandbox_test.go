package recursion

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/recursion/upstream"
	"github.com/rlm-project/rlm/repl"
)

// funcSandbox is a test double for the REPL: a "cell" is the name of a Go
// function the test registered, so the engine's loop, budgets and events
// can be tested without interpreting code. Tests of the whole method run
// the real REPL instead (realrepl_test.go).
type funcSandbox struct {
	cells map[string]func(env *cellEnv) repl.CellResult

	mu       sync.Mutex
	open     int
	maxOpen  int
	sessions int
	contexts []string // context text each session was given
}

// cellEnv is what a fake cell can use: the session's host and context.
type cellEnv struct {
	ctx      context.Context
	host     repl.Host
	context  string
	contexts []string
	vars     map[string]string
}

func (s *funcSandbox) NewSession(ctx context.Context, cfg SessionConfig) (Session, error) {
	env := &cellEnv{host: cfg.Host, vars: map[string]string{}}
	if cfg.Context != nil {
		b, err := os.ReadFile(cfg.Context.Path)
		if err != nil {
			return nil, fmt.Errorf("fake sandbox: read context: %w", err)
		}
		env.context = string(b)
		for _, p := range cfg.Context.Pieces {
			env.contexts = append(env.contexts, env.context[p.Start:p.End])
		}
	}
	s.mu.Lock()
	s.open++
	s.maxOpen = max(s.maxOpen, s.open)
	s.sessions++
	s.contexts = append(s.contexts, env.context)
	s.mu.Unlock()
	return &funcSession{s: s, env: env}, nil
}

func (s *funcSandbox) openSessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

type funcSession struct {
	s      *funcSandbox
	env    *cellEnv
	closed bool
}

func (f *funcSession) Run(ctx context.Context, code string) (repl.CellResult, error) {
	if err := ctx.Err(); err != nil {
		return repl.CellResult{}, err
	}
	code = strings.TrimSpace(code)
	if strings.HasPrefix(code, "FINAL(") && strings.HasSuffix(code, ")") {
		name := code[len("FINAL(") : len(code)-1]
		if v, ok := f.env.vars[name]; ok {
			return repl.CellResult{Final: &v}, nil
		}
		if v, err := strconv.Unquote(name); err == nil {
			return repl.CellResult{Final: &v}, nil
		}
		return repl.CellResult{Error: "undefined: " + name}, nil
	}
	fn, ok := f.s.cells[code]
	if !ok {
		return repl.CellResult{Error: fmt.Sprintf("fake sandbox: no cell %q", code)}, nil
	}
	f.env.ctx = ctx
	start := time.Now()
	res := fn(f.env)
	res.Duration = time.Since(start)
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, nil
}

func (f *funcSession) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	f.s.mu.Lock()
	f.s.open--
	f.s.mu.Unlock()
	return nil
}

func final(s string) *string { return &s }

// recorder is an Observer that keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) Observe(ev Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

func (r *recorder) all() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

func (r *recorder) count(kind EventKind) int {
	n := 0
	for _, ev := range r.all() {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

// testEngine starts a fake upstream answering with script and an engine on
// it using sandbox.
func testEngine(t *testing.T, sandbox Sandbox, script fakellm.Script, cfg Config, opts ...fakellm.Option) (*Engine, *fakellm.Server) {
	t.Helper()
	srv := fakellm.New(script, opts...)
	t.Cleanup(srv.Close)
	client, err := upstream.New(upstream.Config{Name: "fake", BaseURL: srv.URL, BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Root = client
	if cfg.RootModel == "" {
		cfg.RootModel = "root-model"
	}
	if cfg.SubModel == "" {
		cfg.SubModel = "sub-model"
	}
	cfg.Sandbox = sandbox
	if cfg.TempDir == "" {
		cfg.TempDir = t.TempDir()
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e, srv
}

// rootScript answers root-model requests with replies[turn-1] (the last
// one repeats) and sub-model requests with sub(prompt).
func rootScript(replies []string, sub func(prompt string) string) fakellm.Script {
	return func(req fakellm.Request) fakellm.Reply {
		if req.Model == "sub-model" {
			if sub == nil {
				return fakellm.Reply{Content: "sub answer"}
			}
			return fakellm.Reply{Content: sub(req.LastUser())}
		}
		t := req.Turn()
		if t > len(replies) {
			t = len(replies)
		}
		return fakellm.Reply{Content: replies[t-1]}
	}
}

func userMsg(s string) []llm.Message { return []llm.Message{{Role: "user", Content: s}} }
