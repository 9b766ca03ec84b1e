package recursion

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/recursion/upstream"
	"github.com/rlm-project/rlm/repl"
)

// These tests run the whole method: the engine, the real REPL (yaegi in
// worker subprocesses) running Go that a scripted root writes, and fakellm,
// a fake OpenAI-compatible upstream over HTTP standing in for the models.
// The fake "models" are scripts: they write fixed Go for the task, or
// answer from the text they are given; the engine and REPL are real.

func TestMain(m *testing.M) {
	repl.MaybeRunWorker()
	os.Exit(m.Run())
}

// realEngine starts a REPL pool, a fake upstream and an engine over both.
func realEngine(t *testing.T, script fakellm.Script, cfg Config, opts ...fakellm.Option) (*Engine, *fakellm.Server, *repl.Pool) {
	t.Helper()
	pool, err := repl.NewPool(repl.PoolConfig{})
	if err != nil {
		t.Fatalf("start REPL pool: %v", err)
	}
	t.Cleanup(func() { pool.Close() })
	srv := fakellm.New(script, opts...)
	t.Cleanup(srv.Close)
	client, err := upstream.New(upstream.Config{Name: "fake", BaseURL: srv.URL, BackoffBase: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Root = client
	cfg.RootModel = "root-model"
	cfg.SubModel = "sub-model"
	cfg.Sandbox = PoolSandbox(pool)
	if cfg.TempDir == "" {
		cfg.TempDir = t.TempDir()
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e, srv, pool
}

// writeHaystack streams about size bytes of filler lines to path with the
// needle line at a fixed position, without building the text in memory.
func writeHaystack(t *testing.T, path string, size int, needle string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa")
	r := rand.New(rand.NewPCG(1, 2))
	written, needleAt := 0, size*7/10
	for line := 0; written < size; line++ {
		if written >= needleAt && needle != "" {
			n, _ := fmt.Fprintln(w, needle)
			written += n
			needle = ""
			continue
		}
		n, _ := fmt.Fprintf(w, "%06d %s %s %s %s %s %s %s %s\n", line, words[r.IntN(16)], words[r.IntN(16)], words[r.IntN(16)],
			words[r.IntN(16)], words[r.IntN(16)], words[r.IntN(16)], words[r.IntN(16)], words[r.IntN(16)])
		written += n
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestNeedleIn10MTokens(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 40 MB context")
	}
	path := filepath.Join(t.TempDir(), "haystack.txt")
	const size = 40 << 20 // about 10M tokens at 4 characters per token
	writeHaystack(t, path, size, "The secret launch code is 7294015.")
	numRE := regexp.MustCompile(`launch code is (\d+)`)
	script := func(req fakellm.Request) fakellm.Reply {
		if req.Turn() == 1 {
			// The fake root writes code to look and search; it never sees the haystack.
			return fakellm.Reply{Content: "Let me search the context.\n" + fakellm.Code(`
import (
	"fmt"
	"strings"
)
fmt.Println("chars:", len(context), "pieces:", len(contexts))
i := strings.Index(context, "launch code")
if i < 0 {
	fmt.Println("not found")
} else {
	end := strings.IndexByte(context[i:], '\n')
	fmt.Println("found:", context[i:i+end])
}`)}
		}
		// The fake root reads the printed line and answers.
		if m := numRE.FindStringSubmatch(req.LastUser()); m != nil {
			return fakellm.Reply{Content: "FINAL(" + m[1] + ")"}
		}
		return fakellm.Reply{Content: "FINAL(unknown)"}
	}
	e, srv, _ := realEngine(t, script, Config{})
	res, err := e.Run(t.Context(), Request{
		Messages:  userMsg("What is the secret launch code?"),
		Documents: []Document{{Name: "haystack.txt", Path: path}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopFinal || res.Answer != "7294015" || res.Iterations != 2 {
		t.Fatalf("got %q %s after %d turns: %s", res.Answer, res.StopReason, res.Iterations, res.Error)
	}
	reqs := srv.Requests()
	if !strings.Contains(reqs[0].Messages[1].Content, "~10485760 tokens") {
		t.Errorf("placeholder does not give the size:\n%s", reqs[0].Messages[1].Content)
	}
	if !strings.Contains(reqs[1].LastUser(), fmt.Sprintf("chars: %d pieces: 1", size)) {
		t.Errorf("cell output: %q", reqs[1].LastUser())
	}
	for i, r := range reqs {
		if len(r.Body) > 64<<10 {
			t.Errorf("request %d sent %d bytes to the root: the context leaked into the prompt", i, len(r.Body))
		}
	}
}

func TestBatchedOver100Chunks(t *testing.T) {
	var b strings.Builder
	want := 0
	for i := range 100 {
		n := (i*37)%90 + 10
		want += n
		fmt.Fprintf(&b, "Record %d. %s The shipment contained %d crates. %s\n\n", i, strings.Repeat("Filler text about weather. ", 20), n, strings.Repeat("More filler. ", 10))
	}
	cratesRE := regexp.MustCompile(`contained (\d+) crates`)
	script := func(req fakellm.Request) fakellm.Reply {
		if req.Model == "sub-model" {
			// The fake sub-model answers from the chunk it was given.
			if m := cratesRE.FindStringSubmatch(req.LastUser()); m != nil {
				return fakellm.Reply{Content: m[1]}
			}
			return fakellm.Reply{Content: "none"}
		}
		return fakellm.Reply{Content: fakellm.Code(`
import (
	"fmt"
	"strconv"
	"strings"
)
var prompts []string
for _, rec := range strings.Split(strings.TrimSpace(context), "\n\n") {
	prompts = append(prompts, "How many crates did the shipment contain? Reply with the number only.\n\n"+rec)
}
func sum(answers []string) int {
	total := 0
	for _, a := range answers {
		n, err := strconv.Atoi(strings.TrimSpace(a))
		if err != nil {
			fmt.Println("bad answer:", a)
			continue
		}
		total += n
	}
	return total
}
total := sum(llm_query_batched(prompts))
fmt.Println(len(prompts), "chunks, total", total)
FINAL(total)`)}
	}
	e, srv, _ := realEngine(t, script, Config{}, fakellm.WithLatency(20*time.Millisecond))
	rec := &recorder{}
	res, err := e.Run(t.Context(), Request{Messages: []llm.Message{{Role: "user", Content: b.String()}, {Role: "user", Content: "How many crates in total?"}}, Observer: rec,
		Limits: Limits{OffloadThreshold: 1000, MaxLLMCalls: 200}})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopFinal || res.Answer != strconv.Itoa(want) {
		for _, ev := range rec.all() {
			if ev.Kind == EventCellEnd {
				t.Logf("cell: output %q error %q", ev.CellRun.Output, ev.CellRun.Error)
			}
		}
		t.Fatalf("got %q %s (%s), want %d", res.Answer, res.StopReason, res.Error, want)
	}
	if res.LLMCalls != 101 || rec.count(EventSubCallEnd) != 100 {
		t.Errorf("%d calls, %d sub-call events; want 101, 100", res.LLMCalls, rec.count(EventSubCallEnd))
	}
	if srv.MaxInFlight() < 8 {
		t.Errorf("sub-calls were not concurrent: at most %d in flight", srv.MaxInFlight())
	}
	for _, ev := range rec.all() {
		if ev.Kind == EventSubCallStart && (ev.Turn != 1 || ev.Cell != 1) {
			t.Fatalf("sub-call attributed to turn %d cell %d", ev.Turn, ev.Cell)
		}
	}
}

func TestRLMQueryChildUsesItsOwnREPL(t *testing.T) {
	var log strings.Builder
	for i := range 600 {
		level := "INFO"
		if i%7 == 0 {
			level = "ERROR"
		}
		fmt.Fprintf(&log, "2026-11-22T00:%02d:%02d %s request %d handled\n", i/60, i%60, level, i)
	}
	wantErrors := strings.Count(log.String(), "ERROR")
	script := func(req fakellm.Request) fakellm.Reply {
		switch {
		case req.Model == "root-model" && req.Turn() == 1:
			return fakellm.Reply{Content: fakellm.Code(`
n := rlm_query("Count the lines with level ERROR in this log:\n" + contexts[0])
FINAL("errors: " + n)`)}
		case req.Model == "sub-model" && req.System() != "":
			// The child: its input was offloaded into its own REPL.
			return fakellm.Reply{Content: fakellm.Code(`
import "strings"
FINAL(strings.Count(context, " ERROR request"))`)}
		}
		return fakellm.Reply{Content: "unexpected"}
	}
	e, srv, _ := realEngine(t, script, Config{})
	rec := &recorder{}
	res, err := e.Run(t.Context(), Request{Messages: userMsg(log.String() + "\nHow many errors?"), Observer: rec,
		Limits: Limits{OffloadThreshold: 5000}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != fmt.Sprintf("errors: %d", wantErrors) || res.MaxDepth != 1 {
		t.Fatalf("got %q depth %d (%s %s)", res.Answer, res.MaxDepth, res.StopReason, res.Error)
	}
	for _, r := range srv.Requests() {
		if r.Model == "sub-model" && strings.Contains(r.Messages[1].Content, "request 300 handled") {
			t.Error("the child's prompt was not offloaded into its REPL")
		}
	}
	childCells := 0
	for _, ev := range rec.all() {
		if ev.Kind == EventCellEnd && ev.NodeID == "0.1" && ev.Depth == 1 {
			childCells++
		}
	}
	if childCells != 1 {
		t.Errorf("child ran %d cells, want 1", childCells)
	}
}

func TestRLMQueryFallsBackAtMaxDepth(t *testing.T) {
	script := func(req fakellm.Request) fakellm.Reply {
		if req.Model == "root-model" {
			return fakellm.Reply{Content: fakellm.Code(`FINAL(rlm_query("What is 2+2? Answer with a number."))`)}
		}
		if req.System() != "" {
			return fakellm.Reply{Content: "a child was started"}
		}
		return fakellm.Reply{Content: "4"}
	}
	// The root alone, asked for by the request, or imposed by Config.Max
	// on a request that asks for more.
	tests := []struct {
		name string
		cfg  Config
		lim  Limits
	}{
		{"request", Config{}, Limits{MaxDepth: -1}},
		{"maximum", Config{Max: Limits{MaxDepth: -1}}, Limits{MaxDepth: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _, _ := realEngine(t, script, tt.cfg)
			rec := &recorder{}
			res, err := e.Run(t.Context(), Request{Messages: userMsg("q"), Observer: rec, Limits: tt.lim})
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer != "4" || res.MaxDepth != 0 || rec.count(EventNodeStart) != 1 {
				t.Fatalf("got %q depth %d, %d nodes", res.Answer, res.MaxDepth, rec.count(EventNodeStart))
			}
			for _, ev := range rec.all() {
				if ev.Kind == EventSubCallEnd && !ev.SubCall.Fallback {
					t.Error("sub-call not marked as a fallback")
				}
			}
		})
	}
}

// childProcesses counts live processes whose parent is this test process.
func childProcesses(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	me := strconv.Itoa(os.Getpid())
	n := 0
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == me && fields[0] != "Z" {
			n++
		}
	}
	return n
}

func TestCancellationStopsCellsAndSubCalls(t *testing.T) {
	tests := []struct {
		name string
		code string
	}{
		{"cell waiting on sub-calls", `llm_query_batched([]string{"a", "b", "c", "d"})`},
		{"cell in a busy loop", "x := 0\nfor {\n\tx++\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			goroutines := runtime.NumGoroutine()
			script := func(req fakellm.Request) fakellm.Reply {
				if req.Model == "sub-model" {
					return fakellm.Reply{Content: "late", Delay: time.Minute}
				}
				return fakellm.Reply{Content: fakellm.Code(tt.code)}
			}
			pool, err := repl.NewPool(repl.PoolConfig{})
			if err != nil {
				t.Fatal(err)
			}
			srv := fakellm.New(script)
			client, _ := upstream.New(upstream.Config{BaseURL: srv.URL})
			e, _ := New(Config{Root: client, RootModel: "root-model", SubModel: "sub-model", Sandbox: PoolSandbox(pool), TempDir: t.TempDir()})
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			start := time.Now()
			res, err := e.Run(ctx, Request{Messages: userMsg("q")})
			if err != nil {
				t.Fatal(err)
			}
			if res.StopReason != StopCancelled || time.Since(start) > 15*time.Second {
				t.Fatalf("stop %s after %v", res.StopReason, time.Since(start))
			}
			pool.Close()
			client.CloseIdleConnections()
			srv.Close()
			deadline := time.Now().Add(10 * time.Second)
			for (runtime.NumGoroutine() > goroutines || childProcesses(t) > 0) && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if n := childProcesses(t); n > 0 {
				t.Errorf("%d worker processes left", n)
			}
			if n := runtime.NumGoroutine(); n > goroutines {
				buf := make([]byte, 1<<16)
				t.Errorf("%d goroutines left, %d before:\n%s", n, goroutines, buf[:runtime.Stack(buf, true)])
			}
		})
	}
}

// BenchmarkRootTurnOverheadREPL is BenchmarkRootTurnOverhead on the real
// REPL: each turn's cell prints a line, so the overhead includes the cell's
// round trip to the worker and a session start per request.
func BenchmarkRootTurnOverheadREPL(b *testing.B) {
	const turns = 20
	srv := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if req.Turn() < turns {
			return fakellm.Reply{Content: "Looking.\n" + fakellm.Code(`println(len(context))`)}
		}
		return fakellm.Reply{Content: fakellm.Code(`FINAL("ok")`)}
	})
	defer srv.Close()
	pool, err := repl.NewPool(repl.PoolConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	client, _ := upstream.New(upstream.Config{BaseURL: srv.URL})
	e, _ := New(Config{Root: client, RootModel: "root-model", Sandbox: PoolSandbox(pool), TempDir: b.TempDir()})
	var cells time.Duration
	measureTurns(b, e, turns, func(ev Event) {
		if ev.Kind == EventCellEnd {
			cells += ev.CellRun.Duration
		}
	})
	b.ReportMetric(float64(cells.Microseconds())/float64(b.N*turns), "cell-us/turn")
}

// BenchmarkTurnGapREPL measures what the issue calls per-turn overhead:
// the time between a root-model reply arriving and the next request
// leaving, on the real REPL (the cell's run included), as a median and
// p90 over all turns, and the first turn's wait from the request's start
// (offload, session start) separately.
func BenchmarkTurnGapREPL(b *testing.B) {
	const turns = 20
	srv := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if req.Turn() < turns {
			return fakellm.Reply{Content: "Looking.\n" + fakellm.Code(`n := len(context)
fmt.Println(n, strings.Count(context[:1000], "x"))`)}
		}
		return fakellm.Reply{Content: fakellm.Code(`FINAL("ok")`)}
	})
	defer srv.Close()
	pool, err := repl.NewPool(repl.PoolConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	client, _ := upstream.New(upstream.Config{BaseURL: srv.URL})
	e, _ := New(Config{Root: client, RootModel: "root-model", Sandbox: PoolSandbox(pool), TempDir: b.TempDir()})
	var gaps, firsts []time.Duration
	input := []llm.Message{{Role: "user", Content: strings.Repeat("x", 100_000)}, {Role: "user", Content: "q"}}
	b.ResetTimer()
	for range b.N {
		var last time.Time
		start := time.Now()
		obs := observerFunc(func(ev Event) {
			if ev.Kind != EventModelCall || ev.NodeID != "0" {
				return
			}
			sent := ev.Time.Add(-ev.Model.Latency)
			if last.IsZero() {
				firsts = append(firsts, sent.Sub(start))
			} else {
				gaps = append(gaps, sent.Sub(last))
			}
			last = ev.Time
		})
		res, err := e.Run(b.Context(), Request{Messages: input, Observer: obs})
		if err != nil || res.Iterations != turns {
			b.Fatalf("%v %+v", err, res)
		}
	}
	b.StopTimer()
	pct := func(d []time.Duration, p float64) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return float64(s[int(p*float64(len(s)-1))].Microseconds())
	}
	b.ReportMetric(pct(gaps, 0.5), "p50-gap-us")
	b.ReportMetric(pct(gaps, 0.9), "p90-gap-us")
	b.ReportMetric(pct(firsts, 0.5), "first-turn-us")
}
