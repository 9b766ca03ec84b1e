// Package tracingtest emits the events of synthetic RLM runs, a test double
// for the engine: tests of observers (recorder, spans, viewer, export) get
// runs of a known shape without a model or a REPL, and records of them
// saved as a gateway saves its runs.
package tracingtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/tracing"
)

// Shape describes a synthetic run.
type Shape struct {
	Start      time.Time // virtual clock origin; zero means 2026-11-22T03:00:00Z
	Model      string    // root model; "" means "fake-root"
	SubModel   string    // llm_query / child model; "" means "fake-sub"
	Turns      int       // root turns; the last one calls FINAL (when Stop is final)
	ChildTurns int       // turns of each child RLM; 0 means 1
	Depth      int       // levels of rlm_query below the root
	Fanout     int       // parallel rlm_query calls per cell at each level above Depth
	LLMPerCell int       // parallel llm_query calls per cell at the deepest level
	// Stop is how the root ends; "" means final. For cancelled and
	// upstream_error the root stops in its last turn without a NodeEnd, as a
	// cut-short run does.
	Stop recursion.StopReason
	// Parallel emits sibling sub-calls from concurrent goroutines, as the
	// engine does.
	Parallel bool
	// ChildAnswer, when set, gives the FINAL answer of child node id
	// ("0.1", "0.1.2", ...); nil means "42" for every child.
	ChildAnswer func(id string) string
	// ChildLatency, when set, is how long the model call of child node id
	// takes; nil means 300ms, as for the root.
	ChildLatency func(id string) time.Duration
	// ToolCalls is how many calls of a client tool (get_weather) the
	// root's first cell makes at once; the run pauses for their outputs
	// for 2 s.
	ToolCalls int
}

// Counts are what a Shape produces, for tests to check against.
type Counts struct {
	Nodes, SubCalls, Cells, ModelCalls int
}

// Expect returns the counts a run of shape s produces.
func (s Shape) Expect() Counts {
	s = s.norm()
	var c Counts
	var node func(depth, turns int)
	node = func(depth, turns int) {
		c.Nodes++
		c.Cells += turns
		c.ModelCalls += turns
		for turn := 1; turn <= turns; turn++ {
			if depth == 0 && turn == turns && (s.Stop == recursion.StopCancelled || s.Stop == recursion.StopUpstreamError) {
				c.Cells-- // cut short after the model call
				break
			}
			if depth < s.Depth {
				c.SubCalls += s.Fanout
				for range s.Fanout {
					node(depth+1, s.ChildTurns)
				}
			} else {
				c.SubCalls += s.LLMPerCell
				c.ModelCalls += s.LLMPerCell
			}
		}
	}
	node(0, s.Turns)
	return c
}

func (s Shape) norm() Shape {
	if s.Start.IsZero() {
		s.Start = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	}
	if s.Model == "" {
		s.Model = "fake-root"
	}
	if s.SubModel == "" {
		s.SubModel = "fake-sub"
	}
	s.Turns = max(s.Turns, 1)
	if s.ChildTurns <= 0 {
		s.ChildTurns = 1
	}
	if s.Stop == "" {
		s.Stop = recursion.StopFinal
	}
	return s
}

// Emit sends the events of a run of shape s to obs and returns the result
// the engine would have returned.
func Emit(obs recursion.Observer, s Shape) recursion.Result {
	s = s.norm()
	e := &emitter{s: s, obs: obs}
	u, end := e.node("0", "", 0, s.Turns, "Answer the question about the context.", s.Start)
	res := recursion.Result{
		TraceID: "", StopReason: s.Stop, Usage: u, Iterations: s.Turns,
		LLMCalls: s.Expect().ModelCalls, MaxDepth: s.Depth, Duration: end.Sub(s.Start),
	}
	if s.Stop == recursion.StopFinal {
		res.Answer = "42"
	} else {
		res.Error = "run stopped: " + string(s.Stop)
	}
	return res
}

type emitter struct {
	s   Shape
	obs recursion.Observer
}

// answer is node id's FINAL answer.
func (e *emitter) answer(id string) string {
	if id != "0" && e.s.ChildAnswer != nil {
		return e.s.ChildAnswer(id)
	}
	return "42"
}

func (e *emitter) emit(ev recursion.Event) {
	if e.obs != nil {
		e.obs.Observe(ev)
	}
}

// node emits one RLM node starting at t and returns its usage and end time.
func (e *emitter) node(id, parent string, depth, turns int, prompt string, t time.Time) (llm.Usage, time.Time) {
	s := e.s
	base := recursion.Event{NodeID: id, ParentID: parent, Depth: depth}
	ev := base
	ev.Kind, ev.Time = recursion.EventNodeStart, t
	e.emit(ev)
	model := s.Model
	if depth > 0 {
		model = s.SubModel
	}
	msgs := []llm.Message{
		{Role: "system", Content: "You are an RLM. The context is in the REPL variable `context`."},
		{Role: "user", Content: prompt},
	}
	var total llm.Usage
	cut := depth == 0 && (s.Stop == recursion.StopCancelled || s.Stop == recursion.StopUpstreamError)
	for turn := 1; turn <= turns; turn++ {
		ev := base
		ev.Kind, ev.Time, ev.Turn = recursion.EventTurnStart, t, turn
		e.emit(ev)
		final := turn == turns && (depth > 0 || s.Stop == recursion.StopFinal)
		code := fmt.Sprintf("parts := chunk(context, %d)\nfmt.Println(len(parts))", turn)
		if final {
			code += fmt.Sprintf("\nFINAL(%q)", e.answer(id))
		}
		resp := "Let me look.\n```go\n" + code + "\n```"
		latency := 300 * time.Millisecond
		if depth > 0 && s.ChildLatency != nil {
			latency = s.ChildLatency(id)
		}
		t = t.Add(latency)
		usage := llm.Usage{PromptTokens: 100 * turn, CompletionTokens: 20, TotalTokens: 100*turn + 20}
		total = total.Add(usage)
		ev = base
		ev.Kind, ev.Time, ev.Turn = recursion.EventModelCall, t, turn
		ev.Model = &recursion.ModelCallEvent{
			Model: model, ResponseModel: model + "-2026-11-01", Messages: append([]llm.Message(nil), msgs...), Response: resp, FinishReason: "stop",
			Usage: usage, Latency: latency,
			Logprobs: []llm.TokenLogprob{{Token: "Let", Logprob: -0.1}, {Token: " me", Logprob: -0.2}},
		}
		e.emit(ev)
		if cut && turn == turns {
			return total, t // the run is cut short here
		}
		ev = base
		ev.Kind, ev.Time, ev.Turn, ev.Cell = recursion.EventCellStart, t, turn, 1
		ev.CellRun = &recursion.CellEvent{Code: code}
		e.emit(ev)
		cellStart := t
		if depth == 0 && turn == 1 {
			t = e.toolCalls(base, t)
		}
		var u llm.Usage
		u, t = e.subCalls(base, turn, t)
		total = total.Add(u)
		t = t.Add(10 * time.Millisecond)
		out := fmt.Sprintf("%d\n", turn*10)
		ev = base
		ev.Kind, ev.Time, ev.Turn, ev.Cell = recursion.EventCellEnd, t, turn, 1
		ev.CellRun = &recursion.CellEvent{Code: code, Output: out, OutputBytes: len(out), Duration: t.Sub(cellStart)}
		if final {
			a := e.answer(id)
			ev.CellRun.Final = &a
		}
		e.emit(ev)
		msgs = append(msgs, llm.Message{Role: "assistant", Content: resp},
			llm.Message{Role: "user", Content: "Output:\n" + out})
	}
	stop := recursion.StopFinal
	answer := e.answer(id)
	if depth == 0 {
		stop = s.Stop
		if stop != recursion.StopFinal {
			answer = ""
		}
	}
	ev = base
	ev.Kind, ev.Time = recursion.EventNodeEnd, t
	ev.End = &recursion.NodeEndEvent{Answer: answer, StopReason: stop, Usage: total, TreeUsage: total, Iterations: turns}
	e.emit(ev)
	return total, t
}

// toolCalls emits the client tool calls of the root's first cell, made
// at t, and the pause that waits 2 s for their outputs; it returns when
// the outputs came.
func (e *emitter) toolCalls(base recursion.Event, t time.Time) time.Time {
	if e.s.ToolCalls == 0 {
		return t
	}
	base.Turn, base.Cell = 1, 1
	var calls []recursion.ToolCall
	for i := range e.s.ToolCalls {
		c := recursion.ToolCall{ID: fmt.Sprintf("call_%d", i+1), Name: "get_weather", Arguments: fmt.Sprintf(`{"city":"City %d"}`, i+1)}
		calls = append(calls, c)
		ev := base
		ev.Kind, ev.Time, ev.Tool = recursion.EventToolCall, t, &recursion.ToolEvent{Calls: []recursion.ToolCall{c}}
		e.emit(ev)
	}
	ev := base
	ev.Kind, ev.Time, ev.Tool = recursion.EventPause, t, &recursion.ToolEvent{Calls: calls}
	e.emit(ev)
	t = t.Add(2 * time.Second)
	ev = base
	ev.Kind, ev.Time = recursion.EventResume, t
	e.emit(ev)
	for i, c := range calls {
		ev := base
		ev.Kind, ev.Time = recursion.EventToolOutput, t
		ev.Tool = &recursion.ToolEvent{Calls: []recursion.ToolCall{c}, Output: fmt.Sprintf("sunny, %d °C", 20+i)}
		e.emit(ev)
	}
	return t
}

// subCalls emits the sub-calls of one cell, all started at t and running
// side by side, and returns their usage and when the last one ended.
func (e *emitter) subCalls(base recursion.Event, turn int, t time.Time) (llm.Usage, time.Time) {
	s := e.s
	kind, n := "llm", s.LLMPerCell
	if base.Depth < s.Depth {
		kind, n = "rlm", s.Fanout
	}
	type result struct {
		u   llm.Usage
		end time.Time
	}
	results := make([]result, n)
	one := func(i int) {
		id := fmt.Sprintf("sc-%s-%d-1-%d", strings.ReplaceAll(base.NodeID, ".", "_"), turn, i+1)
		start := t.Add(time.Duration(i) * time.Millisecond)
		prompt := "Summarize part " + strconv.Itoa(i+1)
		sc := &recursion.SubCallEvent{ID: id, Kind: kind, Prompt: prompt}
		child := ""
		if kind == "rlm" {
			child = base.NodeID + "." + strconv.Itoa((turn-1)*n+i+1)
			sc.ChildID = child
		}
		ev := base
		ev.Kind, ev.Time, ev.Turn, ev.Cell, ev.SubCall = recursion.EventSubCallStart, start, turn, 1, sc
		e.emit(ev)
		var u llm.Usage
		var end time.Time
		resp := "summary of part " + strconv.Itoa(i+1)
		if kind == "rlm" {
			u, end = e.node(child, base.NodeID, base.Depth+1, s.ChildTurns, prompt, start)
			resp = e.answer(child)
		} else {
			lat := time.Duration(50+10*(i%5)) * time.Millisecond
			end = start.Add(lat)
			u = llm.Usage{PromptTokens: 30, CompletionTokens: 8, TotalTokens: 38}
		}
		ev = base
		ev.Kind, ev.Time, ev.Turn, ev.Cell = recursion.EventSubCallEnd, end, turn, 1
		ev.SubCall = &recursion.SubCallEvent{ID: id, Kind: kind, ChildID: child, Prompt: prompt, Response: resp, Usage: u, Duration: end.Sub(start)}
		if kind == "llm" {
			// As the engine does: an llm_query's model call rides on its end event.
			ev.Model = &recursion.ModelCallEvent{Model: s.SubModel, Messages: []llm.Message{{Role: "user", Content: prompt}},
				Response: resp, FinishReason: "stop", Usage: u, Latency: end.Sub(start),
				Logprobs: []llm.TokenLogprob{{Token: "summary", Logprob: -0.5}}}
		}
		e.emit(ev)
		results[i] = result{u, end}
	}
	if s.Parallel {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { one(i) })
		}
		wg.Wait()
	} else {
		for i := range n {
			one(i)
		}
	}
	var total llm.Usage
	last := t
	for _, r := range results {
		total = total.Add(r.u)
		if r.end.After(last) {
			last = r.end
		}
	}
	return total, last
}

// SaveRun records a synthetic run of owner's through svc and saves it: run
// id of model, started at start, of two root turns with two llm_query calls
// each, stopping as stop says.
func SaveRun(t testing.TB, svc *tracing.Service, owner, id string, start time.Time, stop recursion.StopReason, model string) *tracing.Trajectory {
	t.Helper()
	run, err := svc.StartRun(t.Context(), tracing.RunInfo{TraceID: id, Owner: owner, Model: model, Started: start})
	if err != nil {
		t.Fatal(err)
	}
	res := Emit(run.Observer(), Shape{Start: start, Model: model, Turns: 2, LLMPerCell: 2, Stop: stop})
	tr, err := run.Finish(t.Context(), res, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// MemStore is an in-memory tracing.Store for tests; a missing key is
// store.ErrNotFound, as in the project's stores.
type MemStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{m: map[string][]byte{}} }

func (s *MemStore) Put(ctx context.Context, coll, key string, v io.Reader) (int64, error) {
	b, err := io.ReadAll(v)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[coll+"\x00"+key] = b
	return int64(len(b)), nil
}

func (s *MemStore) Get(ctx context.Context, coll, key string) (io.ReadCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[coll+"\x00"+key]
	if !ok {
		return nil, fmt.Errorf("memstore: get %s/%s: %w", coll, key, store.ErrNotFound)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (s *MemStore) Delete(ctx context.Context, coll, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[coll+"\x00"+key]; !ok {
		return fmt.Errorf("memstore: delete %s/%s: %w", coll, key, store.ErrNotFound)
	}
	delete(s.m, coll+"\x00"+key)
	return nil
}

func (s *MemStore) List(ctx context.Context, coll, prefix string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k := range s.m {
		c, key, _ := strings.Cut(k, "\x00")
		if c == coll && strings.HasPrefix(key, prefix) {
			out = append(out, key)
		}
	}
	sort.Strings(out)
	return out, nil
}
