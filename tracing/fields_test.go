package tracing_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/tracingtest"
)

// TestQuestionAndMetadata: a run records what it was asked and the caller's
// labels; listings carry short previews of both; Annotate merges labels
// into the stored run after it ended.
func TestQuestionAndMetadata(t *testing.T) {
	long := "Context: " + strings.Repeat("x", 5000) + " Question: how many FAIL lines?"
	tests := []struct {
		name     string
		info     tracing.RunInfo
		question string // the trajectory's question, or its start when suffix is set
		suffix   string
	}{
		{name: "the root model's first user message", info: tracing.RunInfo{Messages: []llm.Message{{Role: "user", Content: "the request, recorded by reference only"}}},
			question: "Answer the question about the context."},
		{name: "given question wins", info: tracing.RunInfo{Question: "the real question"}, question: "the real question"},
		{name: "long question keeps head and tail", info: tracing.RunInfo{Question: long},
			question: "Context: xxx", suffix: "Question: how many FAIL lines?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
			info := tt.info
			info.Owner, info.TraceID = "alice", "tr_q"
			info.Metadata = map[string]string{"eval.task": "sniah", "eval.gold": strings.Repeat("g", 300)}
			run, err := svc.StartRun(t.Context(), info)
			if err != nil {
				t.Fatal(err)
			}
			info.Metadata["eval.task"] = "changed by the caller later" // the run keeps its own copy
			tr, err := run.Finish(t.Context(), tracingtest.Emit(run.Observer(), tracingtest.Shape{}), nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.suffix == "" && tr.Question != tt.question ||
				tt.suffix != "" && (!strings.HasPrefix(tr.Question, tt.question) || !strings.HasSuffix(tr.Question, tt.suffix) || len(tr.Question) > tracing.MaxQuestionBytes) {
				t.Errorf("question %q (%d bytes), want %q…%q", tr.Question, len(tr.Question), tt.question, tt.suffix)
			}
			if tr.Metadata["eval.task"] != "sniah" {
				t.Errorf("metadata %v", tr.Metadata)
			}
			// The stored JSON and the listing carry them.
			raw, err := svc.Raw(t.Context(), "alice", "tr_q")
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Question string            `json:"question"`
				Metadata map[string]string `json:"metadata"`
			}
			if err := json.Unmarshal(raw, &doc); err != nil || doc.Question != tr.Question || len(doc.Metadata["eval.gold"]) != 300 {
				t.Errorf("stored JSON: question %q metadata %v: %v", doc.Question, doc.Metadata, err)
			}
			p, err := svc.List(t.Context(), "alice", tracing.Filter{})
			if err != nil || len(p.Data) != 1 {
				t.Fatalf("list: %+v %v", p, err)
			}
			s := p.Data[0]
			if len(s.Question) > 203 || !strings.HasPrefix(tr.Question, strings.TrimSuffix(s.Question, "…")) {
				t.Errorf("listing question %q is not a preview of %q", s.Question, tr.Question)
			}
			if s.Metadata["eval.task"] != "sniah" || len(s.Metadata["eval.gold"]) > 203 || !strings.HasSuffix(s.Metadata["eval.gold"], "…") {
				t.Errorf("listing metadata %v: want previews", s.Metadata)
			}
			// Annotate merges: a new key, a changed one, a removed one.
			got, err := svc.Annotate(t.Context(), "alice", "tr_q", &tracing.Reward{Score: 0}, map[string]string{"eval.score": "0", "eval.gold": "", "eval.mode": "direct"})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"eval.task": "sniah", "eval.score": "0", "eval.mode": "direct"}
			if len(got.Metadata) != len(want) || got.Reward == nil || got.Reward.Score != 0 {
				t.Errorf("after Annotate: metadata %v reward %+v, want %v and a reward of 0", got.Metadata, got.Reward, want)
			}
			for k, v := range want {
				if got.Metadata[k] != v {
					t.Errorf("after Annotate: %s = %q, want %q", k, got.Metadata[k], v)
				}
			}
			p, _ = svc.List(t.Context(), "alice", tracing.Filter{})
			if p.Data[0].Metadata["eval.score"] != "0" {
				t.Errorf("listing after Annotate: %v", p.Data[0].Metadata)
			}
		})
	}
}

// TestLiveRunProgress: a running run is listed and served with its time so
// far and the tokens of the calls that have finished, not 0 ms and 0 tokens.
func TestLiveRunProgress(t *testing.T) {
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	start := time.Now().Add(-1500 * time.Millisecond)
	run, err := svc.StartRun(t.Context(), tracing.RunInfo{Owner: "alice", TraceID: "tr_live", Started: start})
	if err != nil {
		t.Fatal(err)
	}
	obs := run.Observer()
	obs.Observe(recursion.Event{Kind: recursion.EventNodeStart, NodeID: "0", Time: start})
	obs.Observe(recursion.Event{Kind: recursion.EventTurnStart, NodeID: "0", Turn: 1, Time: start})
	u := llm.Usage{PromptTokens: 1000, CompletionTokens: 50, TotalTokens: 1050}
	obs.Observe(recursion.Event{Kind: recursion.EventModelCall, NodeID: "0", Turn: 1, Time: start.Add(time.Second),
		Model: &recursion.ModelCallEvent{Model: "m", Response: "```go\nx\n```", Usage: u, Latency: time.Second}})
	obs.Observe(recursion.Event{Kind: recursion.EventCellStart, NodeID: "0", Turn: 1, Cell: 1, Time: start.Add(time.Second),
		CellRun: &recursion.CellEvent{Code: "x"}})
	sub := llm.Usage{PromptTokens: 20, CompletionTokens: 5, TotalTokens: 25}
	obs.Observe(recursion.Event{Kind: recursion.EventSubCallEnd, NodeID: "0", Turn: 1, Cell: 1, Time: start.Add(1200 * time.Millisecond),
		SubCall: &recursion.SubCallEvent{ID: "sc-1", Kind: "llm", Prompt: "p", Response: "NONE", Usage: sub, Duration: 100 * time.Millisecond},
		Model:   &recursion.ModelCallEvent{Model: "s", Usage: sub, Latency: 100 * time.Millisecond}})

	p, err := svc.List(t.Context(), "alice", tracing.Filter{})
	if err != nil || len(p.Data) != 1 {
		t.Fatalf("list: %+v %v", p, err)
	}
	if s := p.Data[0]; s.Status != tracing.StatusRunning || s.DurationMS < 1500 || s.Usage.TotalTokens != 1075 {
		t.Errorf("live listing: status %s, %v ms, %d tokens; want running, at least 1500 ms and 1075 tokens", s.Status, s.DurationMS, s.Usage.TotalTokens)
	}
	raw, err := svc.Raw(t.Context(), "alice", "tr_live")
	if err != nil {
		t.Fatal(err)
	}
	var tr tracing.Trajectory
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatal(err)
	}
	if tr.DurationMS < 1500 || len(tr.Nodes) != 1 || tr.Nodes[0].Usage.TotalTokens != 1075 {
		t.Errorf("live trajectory: %v ms, node usage %+v; want at least 1500 ms and the node's 1075 tokens so far", tr.DurationMS, tr.Nodes)
	}
	// The end event's usage is the node's total, whatever was counted.
	obs.Observe(recursion.Event{Kind: recursion.EventNodeEnd, NodeID: "0", Time: start.Add(2 * time.Second),
		End: &recursion.NodeEndEvent{StopReason: recursion.StopFinal, Answer: "a", Usage: llm.Usage{TotalTokens: 2000}}})
	done, err := run.Finish(t.Context(), recursion.Result{StopReason: recursion.StopFinal, Answer: "a", Duration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if done.Nodes[0].Usage.TotalTokens != 2000 || done.DurationMS != 2000 {
		t.Errorf("finished: node usage %+v, %v ms", done.Nodes[0].Usage, done.DurationMS)
	}
}
