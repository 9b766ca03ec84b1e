package eval

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
)

var needleRE = regexp.MustCompile(`special magic \w+ for ([\w-]+) is: ([\w-]+)\.`)

// solve answers an S-NIAH question from the text, as a perfect model would.
func solve(text string) string {
	if m := needleRE.FindStringSubmatch(text); m != nil {
		return "The number is " + m[2]
	}
	return "not found"
}

// fakeEngine is a test double for the RLM engine: it reads the attached
// document and answers from it, with knobs for failures and blocking.
type fakeEngine struct {
	calls, inFlight, maxInFlight atomic.Int32
	failIndex                    int // instance index whose run fails; -1 none
	block                        chan struct{}
	delay                        time.Duration
}

func (e *fakeEngine) Run(ctx context.Context, req recursion.Request) (recursion.Result, error) {
	e.calls.Add(1)
	n := e.inFlight.Add(1)
	defer e.inFlight.Add(-1)
	for {
		m := e.maxInFlight.Load()
		if n <= m || e.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	if e.block != nil {
		select {
		case <-e.block:
		case <-ctx.Done():
			return recursion.Result{StopReason: recursion.StopCancelled}, ctx.Err()
		}
	}
	time.Sleep(e.delay)
	if len(req.Documents) != 1 {
		return recursion.Result{}, errors.New("want one document")
	}
	doc, err := os.ReadFile(req.Documents[0].Path)
	if err != nil {
		return recursion.Result{}, err
	}
	if e.failIndex >= 0 && strings.Contains(req.Messages[0].Content, "FAILME") {
		return recursion.Result{}, errors.New("upstream down")
	}
	return recursion.Result{TraceID: "trace-" + req.Messages[0].Content[:8], Answer: solve(string(doc)),
		StopReason: recursion.StopFinal, Usage: llm.Usage{TotalTokens: 100 + len(doc)/1000},
		LLMCalls: 3, MaxDepth: 1, Iterations: 2}, nil
}

// fakeModel is a test double for the direct baseline.
type fakeModel struct{ calls atomic.Int32 }

func (m *fakeModel) Complete(ctx context.Context, req llm.Request) (llm.Completion, error) {
	m.calls.Add(1)
	text := req.Messages[len(req.Messages)-1].Content
	return llm.Completion{Content: solve(text), FinishReason: "stop", Usage: llm.Usage{TotalTokens: len(text) / 4}}, nil
}

func sniahConfig(t *testing.T, eng Engine, out string) Config {
	return Config{
		Tasks: []Task{&SNIAH{Depth: -1}}, Lengths: []int{1000, 4000}, N: 3, Seed: 1,
		Concurrency: 3, OutDir: out, Engine: eng,
	}
}

func TestRunScoresReportsAndResumes(t *testing.T) {
	out := t.TempDir()
	eng, model := &fakeEngine{failIndex: -1, delay: 20 * time.Millisecond}, &fakeModel{}
	cfg := sniahConfig(t, eng, out)
	cfg.Baseline, cfg.ContextWindow = model, 2000
	var bar strings.Builder
	cfg.Progress = &bar
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 12 || eng.calls.Load() != 6 || model.calls.Load() != 3 {
		t.Fatalf("%d results, %d engine runs, %d direct calls; want 12, 6, 3", len(res), eng.calls.Load(), model.calls.Load())
	}
	if m := eng.maxInFlight.Load(); m < 2 || m > 3 {
		t.Errorf("max runs in flight %d, want 2..3", m)
	}
	for _, r := range res {
		switch {
		case r.Mode == ModeDirect && r.Tokens > 2000:
			if r.Skipped == "" || r.Score != 0 {
				t.Errorf("%s: want skipped, got %+v", r.Key(), r)
			}
		case r.Score != 1 || r.Error != "":
			t.Errorf("%s: score %v error %q answer %q", r.Key(), r.Score, r.Error, r.Answer)
		}
		if r.Mode == ModeRLM && !strings.HasPrefix(r.TraceID, "trace-") {
			t.Errorf("%s: trace id %q not recorded", r.Key(), r.TraceID)
		}
	}
	if !strings.Contains(bar.String(), "12/12 runs") {
		t.Errorf("progress bar never showed 12/12: %q", bar.String())
	}

	if err := WriteReports(out, res); err != nil {
		t.Fatal(err)
	}
	sums := Summarize(res)
	if len(sums) != 4 {
		t.Fatalf("%d summaries, want 4", len(sums))
	}
	for _, s := range sums {
		if s.Mode == ModeDirect && s.Tokens == 4000 {
			if s.Skipped != 3 || s.Runs != 0 {
				t.Errorf("direct 4000: %+v", s)
			}
		} else if s.Runs != 3 || s.Score != 1 || s.StopReasons["final"]+s.StopReasons["direct"] != 3 {
			t.Errorf("%s %d %s: %+v", s.Task, s.Tokens, s.Mode, s)
		}
	}
	var table strings.Builder
	WriteTable(&table, sums)
	if !strings.Contains(table.String(), "skipped") || strings.Count(table.String(), "\n") != 5 {
		t.Errorf("table:\n%s", table.String())
	}
	f, _ := os.Open(filepath.Join(out, ResultsCSV))
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 13 {
		t.Errorf("results.csv: %d rows, %v", len(rows), err)
	}
	var sj struct{ Summaries []Summary }
	b, _ := os.ReadFile(filepath.Join(out, SummaryJSON))
	if err := json.Unmarshal(b, &sj); err != nil || len(sj.Summaries) != 4 {
		t.Errorf("summary.json: %v %d", err, len(sj.Summaries))
	}
	svg, _ := os.ReadFile(filepath.Join(out, ChartSVG))
	if !strings.HasPrefix(string(svg), "<svg") || strings.Count(string(svg), "<polyline") != 1 ||
		!strings.Contains(string(svg), `class="point" data-mode="direct"`) || !strings.Contains(string(svg), `class="skipped"`) {
		t.Errorf("chart lacks the RLM line, the baseline or its skipped mark:\n%s", svg)
	}

	// A second run finds everything done.
	eng2 := &fakeEngine{failIndex: -1}
	cfg.Engine, cfg.Progress = eng2, nil
	res2, err := Run(context.Background(), cfg)
	if err != nil || len(res2) != 12 || eng2.calls.Load() != 0 {
		t.Fatalf("rerun: %d results, %d engine calls, %v", len(res2), eng2.calls.Load(), err)
	}

	// An interrupted write: keep 4 lines and half of the fifth.
	data, _ := os.ReadFile(filepath.Join(out, ResultsFile))
	lines := strings.SplitAfter(string(data), "\n")
	torn := strings.Join(lines[:4], "") + lines[4][:len(lines[4])/2]
	os.WriteFile(filepath.Join(out, ResultsFile), []byte(torn), 0o644)
	eng3 := &fakeEngine{failIndex: -1}
	cfg.Engine = eng3
	model.calls.Store(0)
	res3, err := Run(context.Background(), cfg)
	if err != nil || len(res3) != 12 {
		t.Fatalf("resume: %d results, %v", len(res3), err)
	}
	if got := int(eng3.calls.Load()+model.calls.Load()) + countNonSkipped(lines[:4]); got != 9 {
		t.Errorf("resume ran %d engine and %d direct runs after keeping 4 lines", eng3.calls.Load(), model.calls.Load())
	}
	// The torn line is gone, not glued to the lines appended after it.
	if all, err := ReadResults(filepath.Join(out, ResultsFile)); err != nil || len(all) != 12 {
		t.Errorf("results file after resume: %d results, %v", len(all), err)
	}
}

func countNonSkipped(lines []string) int {
	n := 0
	for _, l := range lines {
		if !strings.Contains(l, `"skipped"`) {
			n++
		}
	}
	return n
}

func TestRunInterruptedThenResumed(t *testing.T) {
	out := t.TempDir()
	eng := &fakeEngine{failIndex: -1, block: make(chan struct{})}
	cfg := sniahConfig(t, eng, out)
	cfg.Concurrency = 2
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for eng.inFlight.Load() < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	res, err := Run(ctx, cfg)
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("want a cancellation error, got %v", err)
	}
	if len(res) != 0 {
		t.Fatalf("cancelled runs were recorded: %+v", res)
	}
	old, _ := ReadResults(filepath.Join(out, ResultsFile))
	if len(old) != 0 {
		t.Fatalf("results file holds %d cancelled runs", len(old))
	}
	if left, _ := os.ReadDir(out); len(left) != 1 {
		t.Errorf("output dir holds %d entries, want only the results file", len(left))
	}
	eng2 := &fakeEngine{failIndex: -1}
	cfg.Engine = eng2
	res, err = Run(context.Background(), cfg)
	if err != nil || len(res) != 6 || eng2.calls.Load() != 6 {
		t.Fatalf("resume: %d results, %d calls, %v", len(res), eng2.calls.Load(), err)
	}
}

func TestRunFailuresAreRetriedOnResume(t *testing.T) {
	out := t.TempDir()
	custom := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(custom, []byte(`{"context": "One of the special magic numbers for x-y is: 1234567.", "question": "FAILME what?", "answer": "1234567"}
{"context": "One of the special magic numbers for a-b is: 7654321.", "question": "good one, what?", "answer": "7654321"}
`), 0o644)
	task, err := LoadCustom(custom)
	if err != nil {
		t.Fatal(err)
	}
	eng := &fakeEngine{failIndex: 0}
	cfg := Config{Tasks: []Task{task}, N: 5, Concurrency: 1, OutDir: out, Engine: eng}
	res, err := Run(context.Background(), cfg)
	if !errors.Is(err, ErrRunsFailed) || !strings.Contains(err.Error(), "1 of 2 ended") || len(res) != 2 {
		t.Fatalf("%d results, %v; want an ErrRunsFailed for 1 of 2", len(res), err)
	}
	sums := Summarize(res)
	if len(sums) != 1 || sums[0].Failed != 1 || sums[0].Runs != 1 || sums[0].Score != 1 {
		t.Fatalf("summary %+v", sums)
	}
	eng2 := &fakeEngine{failIndex: -1}
	cfg.Engine = eng2
	if res, err = Run(context.Background(), cfg); err != nil || eng2.calls.Load() != 1 {
		t.Fatalf("resume ran %d, want only the failed one; %v", eng2.calls.Load(), err)
	}
	if s := Summarize(res); s[0].Runs != 2 || s[0].Score != 1 {
		t.Errorf("after the retry: %+v", s)
	}
}

// TestRunReRunsSkippedBaselineWhenWindowGrows: a baseline skipped under a
// small context window is not resumed as skipped once the window is large
// enough; the RLM runs and the baselines that ran stay resumed.
func TestRunReRunsSkippedBaselineWhenWindowGrows(t *testing.T) {
	out := t.TempDir()
	eng, model := &fakeEngine{failIndex: -1}, &fakeModel{}
	cfg := sniahConfig(t, eng, out)
	cfg.Baseline, cfg.ContextWindow = model, 2000
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if eng.calls.Load() != 6 || model.calls.Load() != 3 {
		t.Fatalf("first run: %d engine, %d direct calls; want 6, 3", eng.calls.Load(), model.calls.Load())
	}

	eng2, model2 := &fakeEngine{failIndex: -1}, &fakeModel{}
	cfg.Engine, cfg.Baseline, cfg.ContextWindow = eng2, model2, 8000
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if eng2.calls.Load() != 0 || model2.calls.Load() != 3 {
		t.Errorf("wider window: %d engine, %d direct calls; want 0, 3 (only the skipped baselines)", eng2.calls.Load(), model2.calls.Load())
	}
	if len(res) != 12 {
		t.Fatalf("%d results, want 12", len(res))
	}
	for _, r := range res {
		if r.Skipped != "" || r.Score != 1 {
			t.Errorf("%s: skipped %q score %v", r.Key(), r.Skipped, r.Score)
		}
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{N: 1, Concurrency: 1},
		{Engine: &fakeEngine{}, N: 0, Concurrency: 1},
		{Engine: &fakeEngine{}, N: 1, Concurrency: 0},
	} {
		cfg.OutDir = t.TempDir()
		if _, err := Run(context.Background(), cfg); err == nil {
			t.Errorf("no error for %+v", cfg)
		}
	}
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, ResultsFile), []byte("garbage\n{}\n"), 0o644)
	if _, err := Run(context.Background(), Config{Engine: &fakeEngine{}, N: 1, Concurrency: 1, OutDir: out}); err == nil {
		t.Error("no error for a corrupt results file")
	}
}

// fakeTracer is a Tracer test double that remembers what it was given.
type fakeTracer struct {
	mu       sync.Mutex
	started  map[string]string // trace ID -> question
	finished map[string]recursion.StopReason
	rewards  map[string]float64
	failSave bool
}

func (f *fakeTracer) Reward(ctx context.Context, r Result) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rewards == nil {
		f.rewards = map[string]float64{}
	}
	f.rewards[r.TraceID] = r.Score
	return nil
}

func (f *fakeTracer) StartTrace(ctx context.Context, r Result, req recursion.Request) (string, recursion.Observer, func(recursion.Result, error) error, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := fmt.Sprintf("tr_%d_%d", r.Tokens, r.Index)
	f.started[id] = r.Question
	if m := r.TraceMetadata(); m["eval.task"] != r.Task || m["eval.gold"] == "" || m["eval.mode"] != ModeRLM {
		return "", nil, nil, fmt.Errorf("trace metadata %v lacks the task, gold answer or mode", m)
	}
	return id, nil, func(res recursion.Result, err error) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.finished[id] = res.StopReason
		if f.failSave {
			return errors.New("disk full")
		}
		return nil
	}, nil
}

// traceEngine echoes the trace ID it was given, as the engine does.
type traceEngine struct{ fakeEngine }

func (e *traceEngine) Run(ctx context.Context, req recursion.Request) (recursion.Result, error) {
	res, err := e.fakeEngine.Run(ctx, req)
	res.TraceID = req.TraceID
	return res, err
}

func TestRunTraces(t *testing.T) {
	for _, failSave := range []bool{false, true} {
		tr := &fakeTracer{started: map[string]string{}, finished: map[string]recursion.StopReason{}, failSave: failSave}
		cfg := sniahConfig(t, &traceEngine{fakeEngine{failIndex: -1}}, t.TempDir())
		cfg.Tracer = tr
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if tr.started[r.TraceID] != r.Question || tr.finished[r.TraceID] != recursion.StopFinal {
				t.Errorf("%s: trace %q not started with its question or not finished", r.Key(), r.TraceID)
			}
			// The score becomes the trajectory's reward, unless the
			// trajectory was not saved.
			if score, ok := tr.rewards[r.TraceID]; ok == failSave || ok && score != r.Score {
				t.Errorf("%s: reward %v (attached %v), score %v", r.Key(), score, ok, r.Score)
			}
			if r.Score != 1 || r.Error != "" || (r.TraceError != "") != failSave {
				t.Errorf("%s: score %v error %q trace error %q", r.Key(), r.Score, r.Error, r.TraceError)
			}
		}
		if len(tr.started) != 6 {
			t.Errorf("%d traces, want 6", len(tr.started))
		}
	}
}

// failingModel is a direct-baseline test double whose upstream is down.
type failingModel struct{}

func (failingModel) Complete(ctx context.Context, req llm.Request) (llm.Completion, error) {
	return llm.Completion{}, errors.New("upstream down")
}

// eventTracer is a Tracer test double that keeps every event and outcome of
// the direct baseline's traces (requests without documents).
type eventTracer struct {
	mu     sync.Mutex
	n      int
	events map[string][]recursion.Event
	ended  map[string]recursion.Result
}

func (f *eventTracer) Reward(ctx context.Context, r Result) error { return nil }

func (f *eventTracer) StartTrace(ctx context.Context, r Result, req recursion.Request) (string, recursion.Observer, func(recursion.Result, error) error, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	id := fmt.Sprintf("tr_%d", f.n)
	if len(req.Documents) > 0 {
		return id, nil, func(recursion.Result, error) error { return nil }, nil
	}
	obs := observerFunc(func(ev recursion.Event) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.events[id] = append(f.events[id], ev)
	})
	return id, obs, func(res recursion.Result, err error) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.ended[id] = res
		return nil
	}, nil
}

type observerFunc func(recursion.Event)

func (f observerFunc) Observe(ev recursion.Event) { f(ev) }

// TestRunTracesDirect checks that each direct baseline call is reported to
// the Tracer as a run of one node with one model call and no cells, and
// that its trace ID lands in the result, whether the call works or fails.
func TestRunTracesDirect(t *testing.T) {
	tests := []struct {
		name      string
		model     Model
		wantStop  recursion.StopReason
		wantError bool
	}{
		{"answered", &fakeModel{}, "direct", false},
		{"upstream down", failingModel{}, recursion.StopUpstreamError, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &eventTracer{events: map[string][]recursion.Event{}, ended: map[string]recursion.Result{}}
			cfg := sniahConfig(t, &traceEngine{fakeEngine{failIndex: -1}}, t.TempDir())
			cfg.Baseline, cfg.BaselineModel, cfg.ContextWindow, cfg.Tracer = tt.model, "base", 2000, tr
			res, err := Run(context.Background(), cfg)
			if (err != nil) != tt.wantError || err != nil && !errors.Is(err, ErrRunsFailed) {
				t.Fatalf("run: %v; want ErrRunsFailed only when the upstream is down", err)
			}
			direct := 0
			for _, r := range res {
				if r.Mode != ModeDirect || r.Skipped != "" {
					continue
				}
				direct++
				evs, end := tr.events[r.TraceID], tr.ended[r.TraceID]
				var kinds []string
				for _, ev := range evs {
					kinds = append(kinds, string(ev.Kind))
				}
				if got := strings.Join(kinds, " "); got != "node_start turn_start model_call node_end" {
					t.Fatalf("%s: trace %q events %q", r.Key(), r.TraceID, got)
				}
				call := evs[2].Model
				if call.Model != "base" || len(call.Messages) != 1 || !strings.Contains(call.Messages[0].Content, r.Question) ||
					call.Response != r.Answer || (call.Err != "") != tt.wantError {
					t.Errorf("%s: model call %+v", r.Key(), call)
				}
				if end.StopReason != tt.wantStop || evs[3].End.StopReason != tt.wantStop || end.LLMCalls != 1 ||
					end.Answer != r.Answer || (r.Error != "") != tt.wantError {
					t.Errorf("%s: ended %+v, result error %q", r.Key(), end, r.Error)
				}
			}
			if direct != 3 {
				t.Errorf("%d direct runs within the window, want 3", direct)
			}
		})
	}
}

// downEngine is an engine test double whose upstream is down: every run
// ends as the real engine ends it then, with a result (not an error) whose
// stop reason is upstream_error and whose answer is whatever was left.
type downEngine struct{ calls atomic.Int32 }

func (e *downEngine) Run(ctx context.Context, req recursion.Request) (recursion.Result, error) {
	e.calls.Add(1)
	return recursion.Result{StopReason: recursion.StopUpstreamError, Error: "POST /chat/completions: connection refused",
		Answer: "Stopped (upstream_error) before an answer.", Iterations: 1}, nil
}

// TestRunUpstreamDownIsAFailure: runs the upstream cut short are failures,
// not zeros. They are counted as failed, never scored, carry no reward,
// make Run return ErrRunsFailed, and are run again on the next Run.
func TestRunUpstreamDownIsAFailure(t *testing.T) {
	out := t.TempDir()
	eng := &downEngine{}
	cfg := sniahConfig(t, eng, out)
	tr := &fakeTracer{started: map[string]string{}, finished: map[string]recursion.StopReason{}}
	cfg.Tracer = tr
	var bar strings.Builder
	cfg.Progress = &bar
	res, err := Run(context.Background(), cfg)
	if !errors.Is(err, ErrRunsFailed) || !strings.Contains(err.Error(), "6 of 6 ended") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("run against a down upstream: %v; want ErrRunsFailed naming 6 of 6 and the cause", err)
	}
	for _, r := range res {
		if r.Error == "" || r.StopReason != "upstream_error" || r.Score != 0 {
			t.Errorf("%s: error %q stop %q score %v; want a failure", r.Key(), r.Error, r.StopReason, r.Score)
		}
	}
	if len(tr.rewards) != 0 {
		t.Errorf("failed runs got rewards: %v", tr.rewards)
	}
	for _, s := range Summarize(res) {
		if s.Failed != 3 || s.Runs != 0 {
			t.Errorf("%s %d: %d failed, %d scored; want 3 failed, none scored", s.Task, s.Tokens, s.Failed, s.Runs)
		}
	}
	if !strings.Contains(bar.String(), "failed 6") || !strings.Contains(bar.String(), "rlm -") {
		t.Errorf("progress does not show 6 failures and no score: %q", bar.String())
	}

	// The upstream is back: every failure is retried, nothing else.
	good := &fakeEngine{failIndex: -1}
	cfg.Engine, cfg.Progress = good, nil
	res, err = Run(context.Background(), cfg)
	if err != nil || good.calls.Load() != 6 || len(res) != 6 {
		t.Fatalf("retry: %v, %d runs, %d results; want all 6 retried", err, good.calls.Load(), len(res))
	}
	for _, s := range Summarize(res) {
		if s.Failed != 0 || s.Runs != 3 || s.Score != 1 {
			t.Errorf("after the retry %s %d: %+v", s.Task, s.Tokens, s)
		}
	}
}

// TestProgressShowsEachModeAndTrueProgress: after a resume the bar counts
// the resumed runs as done, out of all the evaluation's runs, and scores
// RLM and the baseline apart.
func TestProgressShowsEachModeAndTrueProgress(t *testing.T) {
	var resumed []Result
	for i := range 24 {
		r := Result{Mode: ModeRLM, Score: 1}
		if i%2 == 1 {
			r.Mode, r.Score = ModeDirect, 0
		}
		resumed = append(resumed, r)
	}
	p := newProgress(nil, []string{ModeRLM, ModeDirect}, 8, resumed)
	line := p.line()
	for _, want := range []string{"24/32 runs (24 resumed)", "rlm 1.00 (n=12)", "direct 0.00 (n=12)", "eta ?"} {
		if !strings.Contains(line, want) {
			t.Errorf("bar %q lacks %q", line, want)
		}
	}
	p.add(Result{Mode: ModeDirect, Score: 1})
	p.add(Result{Mode: ModeRLM, Error: "upstream_error: down"})
	p.add(Result{Mode: ModeDirect, Skipped: "too long"})
	line = p.line()
	for _, want := range []string{"27/32 runs", "rlm 1.00 (n=12)", "direct 0.08 (n=13)", "failed 1", "skipped 1"} {
		if !strings.Contains(line, want) {
			t.Errorf("bar %q lacks %q", line, want)
		}
	}
	// Everything resumed: the bar is full, not 0/0.
	if line := newProgress(nil, []string{ModeRLM}, 0, resumed[:4]).line(); !strings.Contains(line, "4/4 runs (4 resumed)") ||
		!strings.Contains(line, "[##############################]") {
		t.Errorf("all resumed: %q", line)
	}
}

// TestRunBucketsCustomLengths: instances of a custom file are reported
// under power-of-two length buckets, not one row per exact length, and a
// results file keyed by exact lengths (before buckets) still resumes.
func TestRunBucketsCustomLengths(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i, n := range []int{300, 1500, 1900, 2100, 5000, 9000} { // tokens
		ctx := strings.Repeat("filler text ", n*CharsPerToken/12)
		ctx += fmt.Sprintf(" One of the special magic numbers for k-%d is: %07d.", i, 1000000+i)
		b, _ := json.Marshal(map[string]any{"context": ctx, "question": fmt.Sprintf("k-%d?", i), "answer": fmt.Sprintf("%07d", 1000000+i)})
		lines = append(lines, string(b))
	}
	file := filepath.Join(dir, "mine.jsonl")
	os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	task, err := LoadCustom(file)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	eng := &fakeEngine{failIndex: -1}
	cfg := Config{Tasks: []Task{task}, N: 10, Concurrency: 2, OutDir: out, Engine: eng}
	res, err := Run(context.Background(), cfg)
	if err != nil || len(res) != 6 {
		t.Fatalf("%d results, %v", len(res), err)
	}
	var rows []string
	for _, s := range Summarize(res) {
		rows = append(rows, fmt.Sprintf("%s:%d", s.Length, s.Runs))
	}
	if got := strings.Join(rows, " "); got != "1K:1 2K:2 4K:1 8K:1 16K:1" {
		t.Errorf("rows %q, want 1K:1 2K:2 4K:1 8K:1 16K:1", got)
	}

	// An old results file with exact lengths resumes without running.
	old := filepath.Join(out, ResultsFile)
	var b strings.Builder
	for _, r := range res {
		r.Tokens = task.Tokens(r.Index)
		j, _ := json.Marshal(r)
		b.Write(append(j, '\n'))
	}
	os.WriteFile(old, []byte(b.String()), 0o644)
	eng2 := &fakeEngine{failIndex: -1}
	cfg.Engine = eng2
	res, err = Run(context.Background(), cfg)
	if err != nil || eng2.calls.Load() != 0 || len(res) != 6 {
		t.Fatalf("resume of exact lengths: %v, %d runs, %d results", err, eng2.calls.Load(), len(res))
	}
	for _, r := range res {
		if r.Tokens != LengthBucket(task.Tokens(r.Index)) {
			t.Errorf("%s: resumed under %d tokens, want its bucket", r.Key(), r.Tokens)
		}
	}
}

func TestLengthBucket(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{1, 1024}, {1024, 1024}, {1025, 2048}, {5000, 8192}, {1 << 20, 1 << 20}, {1<<20 + 1, 1 << 21}} {
		if got := LengthBucket(tc.n); got != tc.want {
			t.Errorf("LengthBucket(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// TestInstanceSamplingSeeds: with a sampling seed set, every instance gets
// its own, the same on every run; without one, none is invented.
func TestInstanceSamplingSeeds(t *testing.T) {
	if s := instanceSampling(llm.Sampling{}, Instance{Task: "sniah", Index: 3}); s.Seed != nil {
		t.Fatalf("no configured seed, got %d", *s.Seed)
	}
	base := 1
	cfg := llm.Sampling{Seed: &base}
	seen := map[int]Instance{}
	for _, task := range []string{"sniah", "records"} {
		for _, tokens := range []int{8192, 131072} {
			for idx := range 20 {
				inst := Instance{Task: task, Tokens: tokens, Seed: 1, Index: idx}
				s := instanceSampling(cfg, inst)
				if again := instanceSampling(cfg, inst); *again.Seed != *s.Seed {
					t.Fatalf("%+v: seed %d, then %d", inst, *s.Seed, *again.Seed)
				}
				if *s.Seed < 0 || *s.Seed > math.MaxInt32 {
					t.Errorf("%+v: seed %d outside int32", inst, *s.Seed)
				}
				if other, dup := seen[*s.Seed]; dup {
					t.Errorf("%+v and %+v share seed %d", inst, other, *s.Seed)
				}
				seen[*s.Seed] = inst
			}
		}
	}
	if *cfg.Seed != 1 {
		t.Errorf("the configured seed changed to %d", *cfg.Seed)
	}
}

// tooLongModel is a direct-baseline test double that refuses every prompt as
// longer than its context window, as a real upstream words it.
type tooLongModel struct{}

func (tooLongModel) Complete(ctx context.Context, req llm.Request) (llm.Completion, error) {
	return llm.Completion{}, errors.New("upstream local model rlm-tiny-demo failed after 1 attempt(s): This model's maximum context length is 8192 tokens. However, your prompt has 8781 tokens, which leaves no room for a completion.")
}

// TestDirectTooLongIsSkipped: an input that fits the window by the
// 4-characters-a-token estimate but not by the model's tokenizer is
// skipped, as the chart's legend says, not counted as a failed run that
// makes rlm eval exit 1 (issue 26: the built-in model's 8K baseline).
func TestDirectTooLongIsSkipped(t *testing.T) {
	cfg := sniahConfig(t, &traceEngine{fakeEngine{failIndex: -1}}, t.TempDir())
	cfg.Baseline, cfg.BaselineModel, cfg.ContextWindow = tooLongModel{}, "base", 1<<20
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	skipped := 0
	for _, r := range res {
		if r.Mode != ModeDirect {
			continue
		}
		if r.Error != "" || !strings.Contains(r.Skipped, "does not fit the model's context window (") {
			t.Errorf("%s: error %q, skipped %q", r.Key(), r.Error, r.Skipped)
		}
		skipped++
	}
	if skipped == 0 {
		t.Fatal("no direct run")
	}
}
