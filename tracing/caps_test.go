package tracing

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
)

// subCallEvents emits one cell with n sub-calls of prompt and response.
func subCallEvents(r *Recorder, n int, prompt, response string) {
	at := time.Now()
	r.Observe(recursion.Event{Kind: recursion.EventNodeStart, NodeID: "0", Time: at})
	r.Observe(recursion.Event{Kind: recursion.EventTurnStart, NodeID: "0", Turn: 1, Time: at})
	r.Observe(recursion.Event{Kind: recursion.EventCellStart, NodeID: "0", Turn: 1, Cell: 1, Time: at,
		CellRun: &recursion.CellEvent{Code: "for { llm_query(p) }"}})
	for i := range n {
		id := fmt.Sprintf("s%d", i+1)
		base := recursion.Event{NodeID: "0", Turn: 1, Cell: 1, Time: at}
		start, end := base, base
		start.Kind, end.Kind = recursion.EventSubCallStart, recursion.EventSubCallEnd
		start.SubCall = &recursion.SubCallEvent{ID: id, Kind: "llm", Prompt: prompt}
		end.SubCall = &recursion.SubCallEvent{ID: id, Kind: "llm", Prompt: prompt, Response: response}
		end.Model = &recursion.ModelCallEvent{Model: "sub", Response: response, Usage: llm.Usage{TotalTokens: 3}}
		r.Observe(start)
		r.Observe(end)
	}
}

func TestRecorderCutsLongFields(t *testing.T) {
	r := NewRecorderLimits(RunInfo{TraceID: "t1"}, RecordLimits{MaxFieldBytes: 1000, MaxTraceBytes: 1 << 20})
	subCallEvents(r, 1, strings.Repeat("p", 5000), "short")
	tr := r.Finish(recursion.Result{Answer: strings.Repeat("é", 800), StopReason: recursion.StopFinal}, nil)
	sc := tr.Nodes[0].Turns[0].Cells[0].SubCalls[0]
	if !strings.HasPrefix(sc.Prompt, strings.Repeat("p", 1000)+"\n[cut by the trace: 1000 of 5000 bytes kept]") || sc.Response != "short" {
		t.Fatalf("prompt %.60q… (%d bytes), response %q", sc.Prompt, len(sc.Prompt), sc.Response)
	}
	if !strings.HasPrefix(tr.Answer, strings.Repeat("é", 500)+"\n[cut by the trace: 1000 of 1600") {
		t.Fatalf("answer %.60q… (%d bytes): cut inside a rune or not at all", tr.Answer, len(tr.Answer))
	}
	if tr.Truncated == nil || tr.Truncated.CutFields != 2 || tr.Truncated.DroppedBytes != 4000+600 || tr.Truncated.DroppedSubCalls != 0 {
		t.Fatalf("truncation %+v", tr.Truncated)
	}
}

func TestRecorderTraceSizeCap(t *testing.T) {
	const limit = 256 << 10
	r := NewRecorderLimits(RunInfo{TraceID: "t2"}, RecordLimits{MaxFieldBytes: 4 << 10, MaxTraceBytes: limit})
	subCallEvents(r, 5000, strings.Repeat("<&>", 1000), strings.Repeat("r", 500))
	answer := strings.Repeat("a", 3000)
	tr := r.Finish(recursion.Result{Answer: answer, StopReason: recursion.StopFinal, LLMCalls: 5000}, nil)
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > limit {
		t.Fatalf("trajectory of %d bytes, over the limit of %d", len(b), limit)
	}
	var back Trajectory
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("the record does not decode: %v", err)
	}
	kept := len(tr.Nodes[0].Turns[0].Cells[0].SubCalls)
	tc := tr.Truncated
	if tc == nil || tc.DroppedSubCalls == 0 || kept+tc.DroppedSubCalls != 5000 || tr.Used.SubCalls != 5000 {
		t.Fatalf("kept %d sub-calls, truncation %+v, used %d", kept, tc, tr.Used.SubCalls)
	}
	if tr.Answer != answer {
		t.Fatal("the answer was left out of a full trace; Finish has room kept for it")
	}
	for _, sc := range tr.Nodes[0].Turns[0].Cells[0].SubCalls {
		if sc.Status != StatusCompleted {
			t.Fatalf("a kept sub-call is %s: half-written", sc.Status)
		}
	}
	t.Logf("%d bytes, %d of 5000 sub-calls kept, %+v", len(b), kept, *tc)
}

func TestRecorderBatchRefusal(t *testing.T) {
	r := NewRecorder(RunInfo{TraceID: "t3"})
	at := time.Now()
	r.Observe(recursion.Event{Kind: recursion.EventSubCallEnd, NodeID: "0", Turn: 1, Cell: 1, Time: at,
		SubCall: &recursion.SubCallEvent{ID: "s1", Kind: "llm", Batch: 1_000_000, Err: "budget exhausted: a call of 1000000 prompts"}})
	tr := r.Finish(recursion.Result{}, nil)
	sc := tr.Nodes[0].Turns[0].Cells[0].SubCalls
	if len(sc) != 1 || sc[0].Batch != 1_000_000 || sc[0].Status != StatusFailed {
		t.Fatalf("sub-calls %+v", sc)
	}
}

func TestJSONLen(t *testing.T) {
	for _, s := range []string{"", "plain", "<a href=\"x\">&</a>", "tab\there\n", "é中文", "bad\xff\xfe", "\u2028"} {
		b, _ := json.Marshal(s)
		if got := jsonLen(s); got != int64(len(b)) {
			t.Errorf("jsonLen(%q) = %d, encoding/json writes %d", s, got, len(b))
		}
	}
}
