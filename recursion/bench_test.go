package recursion

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/recursion/upstream"
	"github.com/rlm-project/rlm/repl"
)

// The upstream in these benchmarks is fakellm, a fake with a fixed latency,
// so the numbers measure the engine's scheduling, not a model.

// BenchmarkSubCallFanOut makes 1,000 llm_query calls from one cell against a
// fake upstream with 100 ms latency, concurrently with 64 slots, and reports
// the cell's wall time against the ideal ceil(1000/64) x 100 ms. The
// sequential reference (the blocking behaviour of the paper's reference
// implementation) makes 100 calls one after another and is extrapolated to
// 1,000, to keep the run short.
func BenchmarkSubCallFanOut(b *testing.B) {
	const (
		calls   = 1000
		slots   = 64
		latency = 100 * time.Millisecond
		seqN    = 100
	)
	ideal := time.Duration(math.Ceil(float64(calls)/slots)) * latency
	var fanOut, seq atomic.Int64
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"fan": func(env *cellEnv) repl.CellResult {
			prompts := make([]string, calls)
			for i := range prompts {
				prompts[i] = fmt.Sprintf("chunk %d", i)
			}
			start := time.Now()
			out := env.host.LLMQuery(env.ctx, prompts)
			fanOut.Store(int64(time.Since(start)))
			for _, o := range out {
				if o != "sub answer" {
					return repl.CellResult{Error: "bad answer " + o}
				}
			}
			return repl.CellResult{}
		},
		"seq": func(env *cellEnv) repl.CellResult {
			start := time.Now()
			for i := range seqN {
				env.host.LLMQuery(env.ctx, []string{fmt.Sprintf("chunk %d", i)})
			}
			seq.Store(int64(time.Since(start)))
			return repl.CellResult{Final: final("done")}
		},
	}}
	srv := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if req.Model == "sub-model" {
			return fakellm.Reply{Content: "sub answer", Delay: latency}
		}
		if req.Turn() == 1 {
			return fakellm.Reply{Content: fakellm.Code("fan")}
		}
		return fakellm.Reply{Content: fakellm.Code("seq")}
	})
	defer srv.Close()
	client, err := upstream.New(upstream.Config{BaseURL: srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	e, err := New(Config{Root: client, RootModel: "root-model", SubModel: "sub-model", Sandbox: sb, UpstreamConcurrency: slots, TempDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		res, err := e.Run(b.Context(), Request{Messages: userMsg("q"), Limits: Limits{Concurrency: slots, MaxLLMCalls: 2000}})
		if err != nil || res.StopReason != StopFinal {
			b.Fatalf("%v %+v", err, res)
		}
	}
	b.StopTimer()
	f := time.Duration(fanOut.Load())
	s := time.Duration(seq.Load()) * calls / seqN
	b.ReportMetric(float64(f.Milliseconds()), "fanout-ms")
	b.ReportMetric(float64(f)/float64(ideal), "x-ideal")
	b.ReportMetric(float64(s.Milliseconds()), "seq-extrapolated-ms")
	b.ReportMetric(float64(s)/float64(f), "seq/fanout")
}

// BenchmarkRootTurnOverhead runs 20-turn requests whose cells do nothing
// against a zero-latency fake upstream and reports the engine's time per
// turn with the upstream's measured latency taken out.
func BenchmarkRootTurnOverhead(b *testing.B) {
	const turns = 20
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"step // context": func(*cellEnv) repl.CellResult { return repl.CellResult{Output: "step output\n"} },
		"done":            func(*cellEnv) repl.CellResult { return repl.CellResult{Final: final("ok")} },
	}}
	srv := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if req.Turn() < turns {
			return fakellm.Reply{Content: "Looking.\n" + fakellm.Code("step // context")}
		}
		return fakellm.Reply{Content: fakellm.Code("done")}
	})
	defer srv.Close()
	client, _ := upstream.New(upstream.Config{BaseURL: srv.URL})
	e, _ := New(Config{Root: client, RootModel: "root-model", Sandbox: sb, TempDir: b.TempDir()})
	measureTurns(b, e, turns, nil)
}

// observerFunc adapts a function to Observer for single-goroutine use.
type observerFunc func(Event)

func (f observerFunc) Observe(ev Event) { f(ev) }

// measureTurns runs b.N requests of the given number of root turns, each
// with a 100,000-character offloaded input, and reports the engine's own
// time per turn: wall time minus the upstream latency measured around each
// model call. observe, when set, sees every event too.
func measureTurns(b *testing.B, e *Engine, turns int, observe func(Event)) {
	var upstream time.Duration
	obs := observerFunc(func(ev Event) {
		if ev.Kind == EventModelCall {
			upstream += ev.Model.Latency
		}
		if observe != nil {
			observe(ev)
		}
	})
	input := []llm.Message{{Role: "user", Content: strings.Repeat("x", 100_000)}, {Role: "user", Content: "q"}}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		res, err := e.Run(b.Context(), Request{Messages: input, Observer: obs})
		if err != nil || res.Iterations != turns {
			b.Fatalf("%v %+v", err, res)
		}
	}
	total := time.Since(start)
	b.ReportMetric(float64((total-upstream).Microseconds())/float64(b.N*turns), "overhead-us/turn")
	b.ReportMetric(float64(upstream.Microseconds())/float64(b.N*turns), "upstream-us/turn")
}
