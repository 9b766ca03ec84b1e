package tracing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/recursion/upstream"
	"github.com/rlm-project/rlm/repl"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/spans"
	"github.com/rlm-project/rlm/tracing/tracingtest"
)

// These tests drive the real engine (recursion.Engine) against fakellm, a
// scripted fake OpenAI-compatible upstream over real HTTP. The REPL is
// replaced by scriptSandbox, which runs named Go functions instead of model
// code, so that the cells' sub-calls are exact and cheap.

// scriptSandbox runs a cell by looking its code up in cells.
type scriptSandbox struct {
	cells map[string]func(ctx context.Context, h repl.Host) repl.CellResult
}

func (s *scriptSandbox) NewSession(ctx context.Context, cfg recursion.SessionConfig) (recursion.Session, error) {
	return &scriptSession{s: s, host: cfg.Host}, nil
}

type scriptSession struct {
	s    *scriptSandbox
	host repl.Host
}

func (ss *scriptSession) Run(ctx context.Context, code string) (repl.CellResult, error) {
	start := time.Now()
	f, ok := ss.s.cells[strings.TrimSpace(code)]
	if !ok {
		return repl.CellResult{Error: "unknown cell " + code}, nil
	}
	res := f(ctx, ss.host)
	res.Duration = time.Since(start)
	res.OutputBytes = len(res.Output)
	return res, ctx.Err()
}

func (ss *scriptSession) Close() error { return nil }

func final(s string) *string { return &s }

// depth2Script: the root looks (turn 1), then starts two child RLMs (turn 2);
// each child starts two grandchildren; each grandchild makes two parallel
// llm_query calls and answers.
func depth2Script(subDelay time.Duration) (fakellm.Script, *scriptSandbox) {
	script := func(req fakellm.Request) fakellm.Reply {
		lp := []fakellm.Logprob{{Token: "ok", Logprob: -0.25}}
		switch {
		case req.Model == "root-model" && req.Turn() == 1:
			return fakellm.Reply{Content: "First a look.\n" + fakellm.Code("look"), Logprobs: lp}
		case req.Model == "root-model":
			return fakellm.Reply{Content: fakellm.Code("root"), Logprobs: lp}
		case strings.Contains(req.LastUser(), "mid task"):
			return fakellm.Reply{Content: fakellm.Code("mid")}
		case strings.Contains(req.LastUser(), "leaf task"):
			return fakellm.Reply{Content: fakellm.Code("leaf")}
		}
		return fakellm.Reply{Content: "sub answer", Delay: subDelay, Logprobs: lp} // an llm_query
	}
	sb := &scriptSandbox{cells: map[string]func(context.Context, repl.Host) repl.CellResult{
		"look": func(ctx context.Context, h repl.Host) repl.CellResult { return repl.CellResult{Output: "1000 lines\n"} },
		"root": func(ctx context.Context, h repl.Host) repl.CellResult {
			out := h.RLMQuery(ctx, []string{"mid task A", "mid task B"})
			return repl.CellResult{Output: strings.Join(out, ","), Final: final("done: " + strings.Join(out, ","))}
		},
		"mid": func(ctx context.Context, h repl.Host) repl.CellResult {
			out := h.RLMQuery(ctx, []string{"leaf task 1", "leaf task 2"})
			return repl.CellResult{Final: final(strings.Join(out, "+"))}
		},
		"leaf": func(ctx context.Context, h repl.Host) repl.CellResult {
			out := h.LLMQuery(ctx, []string{"question x", "question y"})
			return repl.CellResult{Final: final(strings.Join(out, "&"))}
		},
	}}
	return script, sb
}

func newEngine(t testing.TB, script fakellm.Script, sb recursion.Sandbox, opts ...fakellm.Option) *recursion.Engine {
	t.Helper()
	srv := fakellm.New(script, opts...)
	t.Cleanup(srv.Close)
	client, err := upstream.New(upstream.Config{BaseURL: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	e, err := recursion.New(recursion.Config{Root: client, RootModel: "root-model", SubModel: "sub-model", Sandbox: sb,
		TempDir: t.TempDir(), Logprobs: true})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestEngineRunRecorded records a real engine run with parallel sub-calls at
// depth 2 and checks the trajectory and the span tree against each other.
func TestEngineRunRecorded(t *testing.T) {
	script, sb := depth2Script(20 * time.Millisecond)
	e := newEngine(t, script, sb)
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore(),
		Spans: spans.New(spans.Config{TracerProvider: tp})})
	req := recursion.Request{Messages: []llm.Message{{Role: "user", Content: "Summarize the context."}},
		Limits: recursion.Limits{MaxDepth: 2, Concurrency: 8}}
	run, err := svc.StartRun(t.Context(), tracing.RunInfo{Owner: "alice", Model: "root-model", Messages: req.Messages, Limits: req.Limits})
	if err != nil {
		t.Fatal(err)
	}
	req.TraceID, req.Observer = run.ID(), run.Observer()
	res, err := e.Run(t.Context(), req)
	tr, ferr := run.Finish(t.Context(), res, err)
	if err != nil || ferr != nil {
		t.Fatal(err, ferr)
	}
	if tr.Status != tracing.StatusCompleted || !strings.HasPrefix(tr.Answer, "done: ") {
		t.Fatalf("status %q answer %q error %q", tr.Status, tr.Answer, tr.Error)
	}
	if len(tr.Nodes) != 7 || tr.Used.MaxDepth != 2 {
		t.Errorf("%d nodes, max depth %d; want 7 and 2", len(tr.Nodes), tr.Used.MaxDepth)
	}
	kinds := map[string]int{}
	for _, n := range tr.Nodes {
		if n.Status != tracing.StatusCompleted || n.StopReason != recursion.StopFinal {
			t.Errorf("node %s: %s/%s", n.ID, n.Status, n.StopReason)
		}
		if n.ParentID != "" && (n.SubCallID == "" || !strings.Contains(tr.Prompt(n), "task")) {
			t.Errorf("node %s not linked to its sub-call: %q %q", n.ID, n.SubCallID, tr.Prompt(n))
		}
		for _, tu := range n.Turns {
			for _, c := range tu.Cells {
				for _, sc := range c.SubCalls {
					kinds[sc.Kind]++
					if sc.Depth != n.Depth+1 || sc.Status != tracing.StatusCompleted || sc.Response == "" {
						t.Errorf("sub-call %s of %s: %+v", sc.ID, n.ID, sc)
					}
					if sc.Kind == "llm" && (sc.Model != "sub-model" || len(sc.Logprobs) == 0) {
						t.Errorf("llm sub-call %s: model %q logprobs %v", sc.ID, sc.Model, sc.Logprobs)
					}
				}
			}
		}
	}
	if kinds["rlm"] != 6 || kinds["llm"] != 8 {
		t.Errorf("sub-calls %v, want 6 rlm and 8 llm", kinds)
	}
	root := tr.Node("0")
	if len(root.Turns) != 2 || root.Turns[1].Calls[0].Prefix != len(root.Transcript) || len(root.Turns[1].Calls[0].Extra) != 0 {
		t.Errorf("root transcript not shared: %d turns, %d messages", len(root.Turns), len(root.Transcript))
	}
	if len(root.Turns[0].Calls[0].Logprobs) == 0 {
		t.Error("root turn lost its logprobs")
	}
	// The fake upstream reports the model it was asked for.
	if c := root.Turns[0].Calls[0]; c.ResponseModel == "" || c.ResponseModel != c.Model {
		t.Errorf("root call: model %q, response model %q", c.Model, c.ResponseModel)
	}
	if tr.Used.LLMCalls != res.LLMCalls || tr.Used.Usage != res.Usage {
		t.Errorf("used %+v, engine says %d calls %+v", tr.Used, res.LLMCalls, res.Usage)
	}
	// Spans: one chat span per model call, the request span over all.
	chats := 0
	for _, s := range sr.Ended() {
		if strings.HasPrefix(s.Name(), "chat ") {
			chats++
		}
	}
	if chats != res.LLMCalls {
		t.Errorf("%d chat spans for %d model calls", chats, res.LLMCalls)
	}
}

// TestEngineRunCancelled cancels a real run while its sub-calls are in
// flight: the record is complete and says so.
func TestEngineRunCancelled(t *testing.T) {
	script, sb := depth2Script(10 * time.Second)
	e := newEngine(t, script, sb)
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	run, err := svc.StartRun(ctx, tracing.RunInfo{Owner: "alice", Model: "root-model"})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	obs := tracing.Fanout(run.Observer(), observerFunc(func(ev recursion.Event) {
		if ev.Kind == recursion.EventSubCallStart && ev.SubCall.Kind == "llm" {
			once.Do(func() { time.AfterFunc(50*time.Millisecond, cancel) })
		}
	}))
	res, err := e.Run(ctx, recursion.Request{Messages: []llm.Message{{Role: "user", Content: "q"}}, TraceID: run.ID(), Observer: obs,
		Limits: recursion.Limits{MaxDepth: 2}})
	if err == nil && ctx.Err() != nil && res.StopReason == "" {
		err = ctx.Err()
	}
	tr, ferr := run.Finish(ctx, res, err)
	if ferr != nil {
		t.Fatal(ferr)
	}
	stored, lerr := svc.Archive().Load(t.Context(), "alice", run.ID())
	if lerr != nil {
		t.Fatalf("cancelled run not stored: %v", lerr)
	}
	if tr.Status != tracing.StatusCancelled || stored.Status != tracing.StatusCancelled {
		t.Errorf("status %q (stored %q), stop %q, err %v", tr.Status, stored.Status, tr.StopReason, err)
	}
	open := 0
	for _, n := range stored.Nodes {
		if n.Status == tracing.StatusRunning {
			open++
		}
		for _, tu := range n.Turns {
			for _, c := range tu.Cells {
				for _, sc := range c.SubCalls {
					if sc.Status == tracing.StatusRunning || sc.Ended.IsZero() {
						open++
					}
				}
			}
		}
	}
	if open != 0 || len(stored.Nodes) < 3 {
		t.Errorf("%d parts left running among %d nodes", open, len(stored.Nodes))
	}
}

// TestEngineRunUpstreamFailure records a run whose upstream fails for good.
func TestEngineRunUpstreamFailure(t *testing.T) {
	script := func(req fakellm.Request) fakellm.Reply {
		if req.Turn() == 1 {
			return fakellm.Reply{Content: fakellm.Code("look")}
		}
		return fakellm.Reply{Status: 500}
	}
	_, sb := depth2Script(0)
	e := newEngine(t, script, sb)
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	run, _ := svc.StartRun(t.Context(), tracing.RunInfo{Owner: "alice", Model: "root-model"})
	res, err := e.Run(t.Context(), recursion.Request{Messages: []llm.Message{{Role: "user", Content: "q"}}, TraceID: run.ID(), Observer: run.Observer()})
	tr, ferr := run.Finish(t.Context(), res, err)
	if ferr != nil {
		t.Fatal(ferr)
	}
	if tr.Status != tracing.StatusFailed || tr.StopReason != recursion.StopUpstreamError || tr.Error == "" {
		t.Errorf("status %q stop %q error %q", tr.Status, tr.StopReason, tr.Error)
	}
	root := tr.Node("0")
	if len(root.Turns) != 2 || root.Turns[1].Calls[0].Error == "" || root.Status != tracing.StatusFailed {
		t.Errorf("failed call not recorded: %+v", root.Turns)
	}
}

// BenchmarkRecordingOverhead runs the same request (one cell making 1,000
// llm_query calls against fakellm with no added latency) without and with
// recording, in the same iteration, and reports the ratio of their wall
// times; "recorded" includes saving the trajectory to the disk store, "+spans"
// also builds OpenTelemetry spans (in-memory exporter). It reports the
// trajectory's size on disk too.
func BenchmarkRecordingOverhead(b *testing.B) {
	const calls = 1000
	script := func(req fakellm.Request) fakellm.Reply {
		if req.Model == "root-model" {
			return fakellm.Reply{Content: fakellm.Code("fan")}
		}
		return fakellm.Reply{Content: "answer to " + req.LastUser(), Logprobs: []fakellm.Logprob{{Token: "answer", Logprob: -0.1}}}
	}
	sb := &scriptSandbox{cells: map[string]func(context.Context, repl.Host) repl.CellResult{
		"fan": func(ctx context.Context, h repl.Host) repl.CellResult {
			prompts := make([]string, calls)
			for i := range prompts {
				prompts[i] = fmt.Sprintf("Summarize chunk %d of the document in one line.", i)
			}
			out := h.LLMQuery(ctx, prompts)
			return repl.CellResult{Output: fmt.Sprint(len(out)), Final: final("done")}
		},
	}}
	e := newEngine(b, script, sb)
	dir := b.TempDir()
	disk, err := store.OpenDisk(dir)
	if err != nil {
		b.Fatal(err)
	}
	plain := tracing.NewService(tracing.Config{Store: disk})
	withSpans := tracing.NewService(tracing.Config{Store: disk,
		Spans: spans.New(spans.Config{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewInMemoryExporter()))})})
	req := recursion.Request{Messages: []llm.Message{{Role: "user", Content: "q"}}, Limits: recursion.Limits{MaxLLMCalls: 2 * calls, Concurrency: 64}}
	var finish time.Duration // time spent in Finish: encode, save (fsync), publish
	one := func(svc *tracing.Service) (time.Duration, int64) {
		start := time.Now()
		r := req
		var run *tracing.Run
		if svc != nil {
			var err error
			if run, err = svc.StartRun(b.Context(), tracing.RunInfo{Owner: "bench", Model: "root-model"}); err != nil {
				b.Fatal(err)
			}
			r.TraceID, r.Observer = run.ID(), run.Observer()
		}
		res, err := e.Run(b.Context(), r)
		if err != nil || res.StopReason != recursion.StopFinal || res.LLMCalls != calls+1 {
			b.Fatalf("%v %+v", err, res)
		}
		var size int64
		if run != nil {
			fstart := time.Now()
			if _, err := run.Finish(b.Context(), res, nil); err != nil {
				b.Fatal(err)
			}
			finish += time.Since(fstart)
			fi, err := os.Stat(dir + "/traces/bench/t/" + run.ID() + ".blob")
			if err != nil {
				b.Fatal(err)
			}
			size = fi.Size()
		}
		return time.Since(start), size
	}
	one(nil) // warm up connections
	var base, rec, spanned time.Duration
	var size int64
	b.ResetTimer()
	for range b.N {
		d, _ := one(nil)
		base += d
		d, size = one(plain)
		rec += d
		d, _ = one(withSpans)
		spanned += d
	}
	b.ReportMetric(float64(rec)/float64(base), "recorded/unrecorded")
	b.ReportMetric(float64(spanned)/float64(base), "recorded+spans/unrecorded")
	b.ReportMetric(float64(base.Milliseconds())/float64(b.N), "unrecorded-ms")
	b.ReportMetric(float64(size), "trajectory-bytes")
	b.ReportMetric(float64(finish.Microseconds())/1000/float64(2*b.N), "finish-ms")
}

// BenchmarkRecorderObserve measures the recorder alone: the events of a run
// with 1,000 llm_query calls (from tracingtest, no engine) observed and
// finished, per sub-call.
func BenchmarkRecorderObserve(b *testing.B) {
	shape := tracingtest.Shape{Turns: 1, LLMPerCell: 1000}
	var events int
	tracingtest.Emit(observerFunc(func(recursion.Event) { events++ }), shape)
	b.ReportAllocs()
	for range b.N {
		rec := tracing.NewRecorder(tracing.RunInfo{TraceID: "tr_b", Owner: "bench"})
		rec.Finish(tracingtest.Emit(rec, shape), nil)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/sub-call")
	b.ReportMetric(float64(events), "events/run")
}

// TestWrapRunner records runs through Service.Wrap, the one-line way to add
// recording to a gateway's runner.
func TestWrapRunner(t *testing.T) {
	script, sb := depth2Script(0)
	e := newEngine(t, script, sb)
	sr := tracetest.NewSpanRecorder()
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore(),
		Spans: spans.New(spans.Config{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))})})
	runner := svc.Wrap(e)
	h := http.Header{}
	h.Set("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	ctx := spans.Extract(tracing.WithOwner(t.Context(), "alice"), h)
	var own atomic.Int64 // the engine observes from several goroutines
	res, err := runner.Run(ctx, recursion.Request{Messages: []llm.Message{{Role: "user", Content: "q"}},
		TraceID: "trace-wrapped", Observer: observerFunc(func(recursion.Event) { own.Add(1) }), Limits: recursion.Limits{MaxDepth: 2}})
	if err != nil || res.StopReason != recursion.StopFinal {
		t.Fatal(err, res)
	}
	if err := svc.Flush(t.Context()); err != nil { // Wrap saves in the background
		t.Fatal(err)
	}
	tr, err := svc.Archive().Load(t.Context(), "alice", "trace-wrapped")
	if err != nil {
		t.Fatal(err)
	}
	if own.Load() == 0 || len(tr.Nodes) != 7 || tr.Model != "root-model" || tr.Limits.MaxIterations == 0 || tr.Status != tracing.StatusCompleted {
		t.Errorf("own observer saw %d events; record: %d nodes, model %q, limits %+v, status %q", own.Load(), len(tr.Nodes), tr.Model, tr.Limits, tr.Status)
	}
	for _, s := range sr.Ended() {
		if s.SpanContext().TraceID().String() != "0af7651916cd43dd8448eb211c80319c" {
			t.Fatalf("span %s not in the caller's trace", s.Name())
		}
	}
	// Without an owner the run is recorded under DefaultOwner.
	if _, err := runner.Run(t.Context(), recursion.Request{Messages: []llm.Message{{Role: "user", Content: "q"}}, TraceID: "trace-open"}); err != nil {
		t.Fatal(err)
	}
	svc.Flush(t.Context())
	if _, err := svc.Archive().Load(t.Context(), tracing.DefaultOwner, "trace-open"); err != nil {
		t.Errorf("open run: %v", err)
	}
}

// TestRealREPLRecorded runs the engine with the real sandbox (a yaegi REPL
// worker) against fakellm and checks that cells and their sub-calls are
// recorded as they ran, and that the large context is not copied.
func TestRealREPLRecorded(t *testing.T) {
	pool, err := repl.NewPool(repl.PoolConfig{Size: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	cell1 := "lines := strings.Split(context, \"\\n\")\nfmt.Println(len(lines))\nanswers := llm_query_batched([]string{\"a\", \"b\", \"c\"})\nfmt.Println(strings.Join(answers, \",\"))"
	script := func(req fakellm.Request) fakellm.Reply {
		switch {
		case req.Model == "sub-model":
			return fakellm.Reply{Content: "ans-" + req.LastUser()}
		case req.Turn() == 1:
			return fakellm.Reply{Content: fakellm.Code(cell1)}
		}
		return fakellm.Reply{Content: fakellm.Code(`FINAL("three")`)}
	}
	e := newEngine(t, script, recursion.PoolSandbox(pool))
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	big := strings.Repeat("x", 100_000) + "\nsecond line\n" + strings.Repeat("y", 100_000)
	res, err := svc.Wrap(e).Run(tracing.WithOwner(t.Context(), "alice"), recursion.Request{
		Messages: []llm.Message{{Role: "user", Content: big}}, TraceID: "trace-repl"})
	if err != nil || res.StopReason != recursion.StopFinal || res.Answer != "three" {
		t.Fatalf("%v %+v", err, res)
	}
	raw, err := svc.Raw(t.Context(), "alice", "trace-repl")
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 50_000 {
		t.Errorf("record is %d bytes for a 200 KB context: the context was copied", len(raw))
	}
	var tr tracing.Trajectory
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatal(err)
	}
	root := tr.Node("0")
	if root == nil || len(root.Turns) != 2 || len(root.Turns[0].Cells) != 1 {
		t.Fatalf("root turns: %+v", root)
	}
	c := root.Turns[0].Cells[0]
	if c.Code != cell1 || c.Output != "3\nans-a,ans-b,ans-c\n" || c.Error != "" || c.Status != tracing.StatusCompleted || c.DurationMS <= 0 {
		t.Errorf("cell: code %q output %q error %q status %q", c.Code, c.Output, c.Error, c.Status)
	}
	if len(c.SubCalls) != 3 {
		t.Fatalf("%d sub-calls", len(c.SubCalls))
	}
	for _, sc := range c.SubCalls {
		if sc.Kind != "llm" || sc.Response != "ans-"+sc.Prompt || sc.Turn != 1 || sc.Cell != 1 {
			t.Errorf("sub-call %+v", sc)
		}
	}
	if f := root.Turns[1].Cells[0].Final; f == nil || *f != "three" {
		t.Errorf("final cell: %+v", root.Turns[1].Cells[0])
	}
	if len(tr.Context) != 1 || tr.Context[0].Bytes != int64(len(big)) {
		t.Errorf("context ref %+v", tr.Context)
	}
}

// TestWrapRecordsTheQuestion: the question a run list shows is what the
// user asked, not the model's first prompt, which begins with placeholders
// of the attached documents.
func TestWrapRecordsTheQuestion(t *testing.T) {
	pool, err := repl.NewPool(repl.PoolConfig{Size: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	e := newEngine(t, func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: fakellm.Code(`FINAL("42")`)} }, recursion.PoolSandbox(pool))
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	doc := filepath.Join(t.TempDir(), "report.txt")
	if err := os.WriteFile(doc, []byte(strings.Repeat("a line of the report\n", 2000)), 0o644); err != nil {
		t.Fatal(err)
	}
	const question = "How many lines does the report have?"
	_, err = svc.Wrap(e).Run(t.Context(), recursion.Request{TraceID: "trace-q",
		Messages:  []llm.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: question}},
		Documents: []recursion.Document{{Name: "report.txt", Path: doc}}})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := svc.Raw(t.Context(), tracing.DefaultOwner, "trace-q")
	if err != nil {
		t.Fatal(err)
	}
	var tr tracing.Trajectory
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatal(err)
	}
	if tr.Question != question {
		t.Errorf("recorded question %q, want %q", tr.Question, question)
	}
}
