package repl

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// capLimits are testLimits with small size caps.
func capLimits() Limits {
	l := testLimits()
	l.MaxPromptBytes = 1000
	l.MaxCallBytes = 2500
	l.MaxBatch = 5
	l.MaxFinalBytes = 100
	l.MaxErrorBytes = 400
	l.MaxHostCalls = 3
	return l
}

func newCapSession(t *testing.T, host Host, pieces ...string) *Session {
	t.Helper()
	p, err := NewPool(PoolConfig{Size: -1, Limits: capLimits()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	cfg := SessionConfig{Host: host}
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

func TestHostCallSizeCaps(t *testing.T) {
	h := &echoHost{}
	s := newCapSession(t, h)
	for _, tc := range []struct {
		name, code, want string
	}{
		{"prompt", `fmt.Println(llm_query(strings.Repeat("a", 1001)))`, "prompt 0 is 1001 bytes, over the limit"},
		{"call", `fmt.Println(llm_query_batched([]string{strings.Repeat("a", 900), strings.Repeat("b", 900), strings.Repeat("c", 900)})[2])`, "total 2700 bytes, over the limit"},
		{"batch", `r := rlm_query_batched(make([]string, 6)); fmt.Println(len(r), r[5])`, "6 error: rlm_query: a batch of 6 prompts exceeds the limit of 5"},
		{"within", `fmt.Println(llm_query_batched([]string{strings.Repeat("a", 1000), "b", "c", "d", "e"})[4])`, "llm:E"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, s, tc.code)
			if r.Error != "" || !strings.Contains(r.Output, tc.want) {
				t.Fatalf("output %q error %q, want output containing %q", r.Output, r.Error, tc.want)
			}
		})
	}
	if h.calls != 5 {
		t.Errorf("host answered %d prompts, want only the 5 of the call within the caps", h.calls)
	}
}

func TestFinalCap(t *testing.T) {
	s := newCapSession(t, &echoHost{})
	r := run(t, s, `FINAL(strings.Repeat("A", 101))`)
	if r.Final != nil || !strings.Contains(r.Error, "FINAL refused: the answer is 101 bytes, over the limit of 100 bytes") {
		t.Fatalf("final %v error %q, want FINAL refused", r.Final != nil, r.Error)
	}
	r = run(t, s, `FINAL(strings.Repeat("A", 100))`)
	if r.Final == nil || len(*r.Final) != 100 || r.Error != "" {
		t.Fatalf("final within the cap: %v %q", r.Final, r.Error)
	}
}

func TestCellErrorElidedAndClipped(t *testing.T) {
	big := strings.Repeat("y", 1<<20)
	s := newCapSession(t, &echoHost{}, big[:600<<10], big[600<<10:])
	r := run(t, s, `context = "x"`)
	if !strings.Contains(r.Error, "cannot assign to context (string, 104857") || len(r.Error) > 400 {
		t.Fatalf("error of %d bytes: %.300q", len(r.Error), r.Error)
	}
	r = run(t, s, `const k = "`+strings.Repeat("k", 300)+`"; k = "a"`)
	if len(r.Error) > 400 || !strings.Contains(r.Error, "cannot assign to") {
		t.Fatalf("constant error of %d bytes: %.300q", len(r.Error), r.Error)
	}
	r = run(t, s, `panic(strings.Repeat("é", 5000))`)
	if len(r.Error) > 400 || !strings.Contains(r.Error, "[error truncated:") || !strings.HasPrefix(r.Error, "line 1: panic") {
		t.Fatalf("panic error of %d bytes: %q", len(r.Error), r.Error)
	}
}

// gaugeHost records how many calls it answers at once.
type gaugeHost struct {
	mu        sync.Mutex
	cur, peak int
	calls     int
}

func (g *gaugeHost) LLMQuery(ctx context.Context, prompts []string) []string {
	g.mu.Lock()
	g.cur++
	g.calls++
	g.peak = max(g.peak, g.cur)
	g.mu.Unlock()
	time.Sleep(20 * time.Millisecond)
	g.mu.Lock()
	g.cur--
	g.mu.Unlock()
	return []string{"ok"}
}

func (g *gaugeHost) RLMQuery(ctx context.Context, prompts []string) []string {
	return g.LLMQuery(ctx, prompts)
}

func TestHostCallsInFlightBounded(t *testing.T) {
	g := &gaugeHost{}
	s := newCapSession(t, g)
	r := run(t, s, `
var wg sync.WaitGroup
var mu sync.Mutex
n := 0
for i := 0; i < 30; i++ {
	wg.Add(1)
	go func() {
		defer wg.Done()
		if llm_query("p") == "ok" {
			mu.Lock()
			n++
			mu.Unlock()
		}
	}()
}
wg.Wait()
fmt.Println(n)`)
	if r.Error != "" || strings.TrimSpace(r.Output) != "30" {
		t.Fatalf("output %q error %q", r.Output, r.Error)
	}
	if g.peak > 3 || g.calls != 30 {
		t.Fatalf("peak %d host calls at once (limit 3), %d calls", g.peak, g.calls)
	}
	t.Logf("peak in flight: %d", g.peak)
}

// TestOversizedFrameKillsWorker: a worker that announces a frame larger
// than the limit (here a shell standing in for a compromised worker) is
// killed from the header alone, without the parent reading the body or
// waiting for the worker's own exit.
func TestOversizedFrameKillsWorker(t *testing.T) {
	p, err := NewPool(PoolConfig{Size: -1, Limits: capLimits(), StartTimeout: 20 * time.Second, Command: func() *exec.Cmd {
		return exec.Command("sh", "-c", `printf '\377\377\377\377' >&4; exec sleep 30`)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	start := time.Now()
	_, err = p.NewSession(context.Background(), SessionConfig{})
	if err == nil || !strings.Contains(err.Error(), "sent a message of 4294967295 bytes exceeds the limit") {
		t.Fatalf("NewSession: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %s: the worker was not killed", d)
	}
	if idle, busy := p.Workers(); idle+busy != 0 {
		t.Fatalf("%d workers left running", idle+busy)
	}
}
