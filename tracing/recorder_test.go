package tracing_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/tracingtest"
)

func ptr[T any](v T) *T { return &v }

// record runs a synthetic run of shape s (the engine's test double) through
// a Recorder and finishes it with runErr.
func record(t *testing.T, s tracingtest.Shape, runErr error) *tracing.Trajectory {
	t.Helper()
	doc := filepath.Join(t.TempDir(), "doc.txt")
	if err := os.WriteFile(doc, []byte("hello context"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := tracing.NewRecorder(tracing.RunInfo{
		TraceID: "tr_test", Owner: "alice", Model: "fake-root",
		Sampling:  llm.Sampling{Temperature: ptr(0.0), MaxTokens: ptr(512)},
		Limits:    recursion.Limits{MaxDepth: 2, MaxIterations: 8, SubModel: "fake-sub"},
		Messages:  []llm.Message{{Role: "user", Content: "What is in the document?"}},
		Documents: []recursion.Document{{Name: "doc.txt", Path: doc}},
		Started:   time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC),
	})
	res := tracingtest.Emit(rec, s)
	return rec.Finish(res, runErr)
}

// TestRecorderCompleteness checks that a finished record holds the whole tree
// and that nothing is left "running", for runs that succeed, fail and are
// cancelled.
func TestRecorderCompleteness(t *testing.T) {
	tests := []struct {
		name       string
		shape      tracingtest.Shape
		runErr     error
		status     tracing.Status
		stop       recursion.StopReason
		answer     string
		rootTurns  int // turns recorded on the root
		rootCalls  int // root model calls recorded
		rootClosed bool
	}{
		{
			name:   "success depth 2 parallel",
			shape:  tracingtest.Shape{Turns: 3, Depth: 2, Fanout: 3, LLMPerCell: 2, Parallel: true},
			status: tracing.StatusCompleted, stop: recursion.StopFinal, answer: "42", rootTurns: 3, rootCalls: 3, rootClosed: true,
		},
		{
			name:   "upstream failure",
			shape:  tracingtest.Shape{Turns: 2, Depth: 1, Fanout: 2, LLMPerCell: 1, Stop: recursion.StopUpstreamError},
			runErr: errors.New("upstream: 503 Service Unavailable"),
			status: tracing.StatusFailed, stop: recursion.StopUpstreamError, rootTurns: 2, rootCalls: 2,
		},
		{
			name:   "cancelled",
			shape:  tracingtest.Shape{Turns: 2, Depth: 1, Fanout: 2, Stop: recursion.StopCancelled, Parallel: true},
			runErr: context.Canceled,
			status: tracing.StatusCancelled, stop: recursion.StopCancelled, rootTurns: 2, rootCalls: 2,
		},
		{
			name:   "budget",
			shape:  tracingtest.Shape{Turns: 2, LLMPerCell: 3, Stop: recursion.StopBudgetTokens},
			status: tracing.StatusIncomplete, stop: recursion.StopBudgetTokens, rootTurns: 2, rootCalls: 2, rootClosed: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := record(t, tc.shape, tc.runErr)
			want := tc.shape.Expect()
			if tr.Status != tc.status || tr.StopReason != tc.stop || tr.Answer != tc.answer {
				t.Errorf("status, stop, answer = %q, %q, %q; want %q, %q, %q", tr.Status, tr.StopReason, tr.Answer, tc.status, tc.stop, tc.answer)
			}
			if tc.runErr != nil && tr.Error == "" {
				t.Errorf("error not recorded")
			}
			if len(tr.Nodes) != want.Nodes || tr.Used.Nodes != want.Nodes {
				t.Errorf("nodes = %d (used %d), want %d", len(tr.Nodes), tr.Used.Nodes, want.Nodes)
			}
			root := tr.Node("0")
			if root == nil {
				t.Fatal("no root node")
			}
			if len(root.Turns) != tc.rootTurns {
				t.Errorf("root turns = %d, want %d", len(root.Turns), tc.rootTurns)
			}
			calls, subs := 0, 0
			for _, n := range tr.Nodes {
				if n.Status == tracing.StatusRunning || n.Ended.IsZero() {
					t.Errorf("node %s left %q", n.ID, n.Status)
				}
				if n.ParentID != "" {
					p := tr.Node(n.ParentID)
					if p == nil || n.SubCallID == "" || tr.Prompt(n) == "" || n.Depth != p.Depth+1 {
						t.Errorf("child %s not linked: parent %v, sub-call %q, prompt %q, depth %d", n.ID, p != nil, n.SubCallID, tr.Prompt(n), n.Depth)
					}
				}
				for _, tu := range n.Turns {
					for _, c := range tu.Calls {
						calls++
						if n.ID == "0" && len(c.Logprobs) == 0 {
							t.Errorf("root call lost its logprobs")
						}
					}
					for _, c := range tu.Cells {
						if c.Status == tracing.StatusRunning || c.Code == "" {
							t.Errorf("cell %s/%d/%d: status %q, code %q", n.ID, tu.N, c.N, c.Status, c.Code)
						}
						for _, sc := range c.SubCalls {
							subs++
							if sc.Status == tracing.StatusRunning || sc.Prompt == "" || sc.Turn != tu.N || sc.Cell != c.N || sc.Depth != n.Depth+1 {
								t.Errorf("sub-call %s: %+v", sc.ID, sc)
							}
							if sc.Kind == "llm" && sc.Status == tracing.StatusCompleted && (sc.Model != "fake-sub" || len(sc.Logprobs) == 0 || sc.FinishReason != "stop") {
								t.Errorf("llm sub-call %s lost its model call: %q %v %q", sc.ID, sc.Model, sc.Logprobs, sc.FinishReason)
							}
							if sc.Kind == "rlm" && tr.Node(sc.ChildID) == nil {
								t.Errorf("sub-call %s names missing child %q", sc.ID, sc.ChildID)
							}
						}
					}
				}
			}
			if got := len(root.Turns[0].Calls); got != 1 {
				t.Errorf("root turn 1 has %d calls", got)
			}
			rootCalls := 0
			for _, tu := range root.Turns {
				rootCalls += len(tu.Calls)
			}
			if rootCalls != tc.rootCalls {
				t.Errorf("root calls = %d, want %d", rootCalls, tc.rootCalls)
			}
			if (root.StopReason == recursion.StopFinal) != tc.rootClosed && tc.stop == recursion.StopFinal {
				t.Errorf("root stop reason %q", root.StopReason)
			}
			if tc.stop == recursion.StopFinal && (subs != want.SubCalls || tr.Used.SubCalls != want.SubCalls) {
				t.Errorf("sub-calls = %d (used %d), want %d", subs, tr.Used.SubCalls, want.SubCalls)
			}
			if tr.Model != "fake-root" || tr.SubModel != "fake-sub" || *tr.Sampling.MaxTokens != 512 || *tr.Sampling.Temperature != 0 || tr.Limits.MaxDepth != 2 {
				t.Errorf("run parameters lost: %+v %+v %+v", tr.Model, tr.Sampling, tr.Limits)
			}
			if tr.Used.Usage.TotalTokens == 0 || tr.Used.LLMCalls == 0 {
				t.Errorf("budgets used not recorded: %+v", tr.Used)
			}
		})
	}
}

// TestTranscriptStoredOnce checks that a node's messages are stored once and
// every call can still be rebuilt exactly as sent.
func TestTranscriptStoredOnce(t *testing.T) {
	const turns = 6
	rec := tracing.NewRecorder(tracing.RunInfo{TraceID: "tr_x", Owner: "o"})
	var sent [][]llm.Message
	spy := observerFunc(func(ev recursion.Event) {
		if ev.Kind == recursion.EventModelCall && ev.NodeID == "0" && ev.Cell == 0 {
			sent = append(sent, ev.Model.Messages)
		}
		rec.Observe(ev)
	})
	res := tracingtest.Emit(spy, tracingtest.Shape{Turns: turns})
	tr := rec.Finish(res, nil)
	root := tr.Node("0")
	if want := 2 + 2*(turns-1); len(root.Transcript) != want {
		t.Errorf("transcript has %d messages, want %d (each message once)", len(root.Transcript), want)
	}
	for i, tu := range root.Turns {
		c := tu.Calls[0]
		if len(c.Extra) != 0 {
			t.Errorf("turn %d stored %d extra messages", tu.N, len(c.Extra))
		}
		got := root.Messages(c)
		if fmt.Sprint(got) != fmt.Sprint(sent[i]) {
			t.Errorf("turn %d rebuilt\n%v\nwant\n%v", tu.N, got, sent[i])
		}
	}
	if got := root.InputView(); len(got) != 2 || got[0].Role != "system" {
		t.Errorf("input view = %v", got)
	}
}

// TestTranscriptRewrite checks the fallback for an engine that changes an
// earlier message: the call keeps its own copy of what differs.
func TestTranscriptRewrite(t *testing.T) {
	rec := tracing.NewRecorder(tracing.RunInfo{TraceID: "tr_x", Owner: "o"})
	a := []llm.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "q"}}
	b := []llm.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "q (shortened)"}, {Role: "assistant", Content: "r"}}
	for i, msgs := range [][]llm.Message{a, b} {
		rec.Observe(recursion.Event{Kind: recursion.EventTurnStart, NodeID: "0", Turn: i + 1})
		rec.Observe(recursion.Event{Kind: recursion.EventModelCall, NodeID: "0", Turn: i + 1, Model: &recursion.ModelCallEvent{Messages: msgs}})
	}
	tr := rec.Finish(recursion.Result{StopReason: recursion.StopMaxIterations}, nil)
	root := tr.Node("0")
	for i, want := range [][]llm.Message{a, b} {
		if got := root.Messages(root.Turns[i].Calls[0]); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("call %d = %v, want %v", i+1, got, want)
		}
	}
}

// TestContextByReference checks that the input is recorded by size and hash
// and never copied into the record.
func TestContextByReference(t *testing.T) {
	secret := "the secret context text that must not be copied"
	doc := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(doc, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	run, err := svc.StartRun(t.Context(), tracing.RunInfo{
		Owner: "alice", Messages: []llm.Message{{Role: "user", Content: secret + " (message)"}},
		Documents: []recursion.Document{{Name: "big.txt", Path: doc}, {Name: "gone.txt", Path: doc + ".missing"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tracingtest.Emit(run.Observer(), tracingtest.Shape{Turns: 1})
	tr, err := run.Finish(t.Context(), recursion.Result{StopReason: recursion.StopFinal, Answer: "42",
		Limits: recursion.Limits{MaxLLMCalls: 600, MaxTotalTokens: 18_000_000, Timeout: 12 * time.Minute}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The budgets the engine scaled to the input replace those known at start.
	if l := tr.Limits; l.MaxLLMCalls != 600 || l.MaxTotalTokens != 18_000_000 || l.TimeoutMS != 720_000 {
		t.Errorf("limits %+v, want the run's scaled budgets", l)
	}
	raw, err := svc.Raw(t.Context(), "alice", run.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(raw) || strings.Contains(string(raw), secret) {
		t.Errorf("the context was copied into the record")
	}
	// Nor where the server keeps it: the record reaches API clients.
	if dir := filepath.Dir(doc); strings.Contains(string(raw), dir) || strings.Contains(string(raw), `"path"`) {
		t.Errorf("the record shows the server's paths: %s", raw)
	}
	refs := tr.Context
	sum := sha256.Sum256([]byte(secret + " (message)"))
	if len(refs) != 3 || refs[0].Kind != "message" || refs[0].Bytes != int64(len(secret)+10) || refs[0].SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("message ref = %+v", refs)
	}
	if refs[1].Bytes != int64(len(secret)) || len(refs[1].SHA256) != 64 || refs[1].Path != doc {
		t.Errorf("document ref = %+v", refs[1])
	}
	if refs[2].Error == "" || strings.Contains(refs[2].Error, doc) {
		t.Errorf("a missing document should be noted, without its path: %+v", refs[2])
	}

	// Above HashLimit a document is recorded by size only.
	small := tracing.NewService(tracing.Config{HashLimit: 10})
	run, err = small.StartRun(t.Context(), tracing.RunInfo{Owner: "alice", Documents: []recursion.Document{{Name: "big.txt", Path: doc}}})
	if err != nil {
		t.Fatal(err)
	}
	tr, _ = run.Finish(t.Context(), recursion.Result{StopReason: recursion.StopFinal}, nil)
	if ref := tr.Context[0]; ref.SHA256 != "" || ref.Bytes != int64(len(secret)) || ref.Error != "" {
		t.Errorf("document over the hash limit: %+v", ref)
	}
}

type observerFunc func(recursion.Event)

func (f observerFunc) Observe(ev recursion.Event) { f(ev) }

// TestChildPromptStoredOnce checks that a long rlm_query prompt appears once
// in the record, on the sub-call, while the child node still leads to it.
func TestChildPromptStoredOnce(t *testing.T) {
	const marker = "UNIQUE-MARKER-IN-THE-MIDDLE"
	long := strings.Repeat("a", 10000) + marker + strings.Repeat("b", 10000)
	rec := tracing.NewRecorder(tracing.RunInfo{TraceID: "tr_x", Owner: "o"})
	at := func(ev recursion.Event) recursion.Event { ev.Time = time.Now(); return ev }
	for _, ev := range []recursion.Event{
		{Kind: recursion.EventNodeStart, NodeID: "0"},
		{Kind: recursion.EventTurnStart, NodeID: "0", Turn: 1},
		{Kind: recursion.EventCellStart, NodeID: "0", Turn: 1, Cell: 1, CellRun: &recursion.CellEvent{Code: "rlm_query(part)"}},
		{Kind: recursion.EventSubCallStart, NodeID: "0", Turn: 1, Cell: 1, SubCall: &recursion.SubCallEvent{ID: "s1", Kind: "rlm", ChildID: "0.1", Prompt: long}},
		{Kind: recursion.EventNodeStart, NodeID: "0.1", ParentID: "0", Depth: 1},
		{Kind: recursion.EventNodeEnd, NodeID: "0.1", ParentID: "0", Depth: 1, End: &recursion.NodeEndEvent{Answer: "x", StopReason: recursion.StopFinal}},
		{Kind: recursion.EventSubCallEnd, NodeID: "0", Turn: 1, Cell: 1, SubCall: &recursion.SubCallEvent{ID: "s1", Kind: "rlm", ChildID: "0.1", Prompt: long, Response: "x"}},
		{Kind: recursion.EventCellEnd, NodeID: "0", Turn: 1, Cell: 1, CellRun: &recursion.CellEvent{Output: "x"}},
		{Kind: recursion.EventNodeEnd, NodeID: "0", End: &recursion.NodeEndEvent{Answer: "x", StopReason: recursion.StopFinal}},
	} {
		rec.Observe(at(ev))
	}
	tr := rec.Finish(recursion.Result{Answer: "x", StopReason: recursion.StopFinal}, nil)
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), marker); n != 1 {
		t.Errorf("the child's prompt is stored %d times, want once", n)
	}
	if child := tr.Node("0.1"); child == nil || tr.Prompt(child) != long {
		t.Errorf("the child node does not lead to its prompt")
	}
	if tr.Prompt(tr.Node("0")) != "" {
		t.Errorf("the root has a prompt from a parent")
	}
}

// TestServerPathsHidden reproduces server paths shown to API clients: a
// run's error naming a document's path shows the document's name instead,
// and a record stored before paths were kept out of the JSON loses them
// when it is read.
func TestServerPathsHidden(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "secret-dir", "upload.blob")
	st := tracingtest.NewMemStore()
	svc := tracing.NewService(tracing.Config{Store: st})
	run, err := svc.StartRun(t.Context(), tracing.RunInfo{Owner: "alice", Documents: []recursion.Document{{Name: "report.txt", Path: doc}}})
	if err != nil {
		t.Fatal(err)
	}
	runErr := fmt.Errorf("open document %q: open %s: no such file or directory", "report.txt", doc)
	tr, _ := run.Finish(t.Context(), recursion.Result{}, runErr)
	raw, err := svc.Raw(t.Context(), "alice", run.ID())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "secret-dir") || !strings.Contains(tr.Error, `open <document 0 "report.txt">: no such file`) {
		t.Errorf("the run's error shows the server's path: %q (record %s)", tr.Error, raw)
	}

	// A record as an older server saved it, with the path in its context.
	var legacy map[string]any
	json.Unmarshal(raw, &legacy)
	legacy["context"] = []any{map[string]any{"kind": "document", "name": "report.txt", "path": doc, "index": 0, "bytes": 5}}
	lb, _ := json.Marshal(legacy)
	if _, err := st.Put(t.Context(), tracing.Collection, "alice/t/tr_legacy", bytes.NewReader(lb)); err != nil {
		t.Fatal(err)
	}
	got, err := svc.Raw(t.Context(), "alice", "tr_legacy")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "secret-dir") || strings.Contains(string(got), `"path"`) || !strings.Contains(string(got), `"name":"report.txt"`) {
		t.Errorf("a legacy record is returned with its path: %s", got)
	}
}
