package repl

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(probeEnv); mode != "" {
		os.Exit(runProbe(mode))
	}
	MaybeRunWorker()
	code := m.Run()
	if dir, err := benchDir(); err == nil {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// echoHost is a test double for the RLM engine: it answers every prompt
// with a fixed transformation so tests can check routing and ordering.
type echoHost struct {
	mu    sync.Mutex
	calls int
	delay time.Duration
}

func (h *echoHost) answer(ctx context.Context, kind string, prompts []string) []string {
	h.mu.Lock()
	h.calls += len(prompts)
	h.mu.Unlock()
	out := make([]string, len(prompts))
	for i, p := range prompts {
		if h.delay > 0 {
			select {
			case <-time.After(h.delay):
			case <-ctx.Done():
				out[i] = "error: cancelled"
				continue
			}
		}
		out[i] = kind + ":" + strings.ToUpper(p)
	}
	return out
}

func (h *echoHost) LLMQuery(ctx context.Context, prompts []string) []string {
	return h.answer(ctx, "llm", prompts)
}

func (h *echoHost) RLMQuery(ctx context.Context, prompts []string) []string {
	return h.answer(ctx, "rlm", prompts)
}

// testLimits are short so that the limit tests stay fast.
func testLimits() Limits {
	return Limits{
		CellTimeout:   1500 * time.Millisecond,
		KillGrace:     500 * time.Millisecond,
		MemoryBytes:   1 << 30,
		HeapBytes:     256 << 20,
		MaxGoroutines: 200,
		StackBytes:    16 << 20,
	}
}

func newTestPool(t testing.TB, size int) *Pool {
	t.Helper()
	p, err := NewPool(PoolConfig{Size: size, Limits: testLimits()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func newTestSession(t testing.TB, p *Pool, pieces ...string) *Session {
	t.Helper()
	cfg := SessionConfig{Host: &echoHost{}}
	if pieces != nil {
		cf, err := WriteContext(t.TempDir(), pieces)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Context = cf
	}
	s, err := p.NewSession(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func run(t testing.TB, s *Session, code string) CellResult {
	t.Helper()
	r, err := s.Run(context.Background(), code)
	if err != nil {
		t.Fatalf("Run(%q): %v", code, err)
	}
	return r
}
