package hostile

import (
	"strings"
	"testing"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// rssTarget is issue 10's bound on the server's peak RSS: twice the
// largest legitimate context in flight plus 200 MB.
func rssTarget(contextBytes int) int64 { return 2*int64(contextBytes) + 200<<20 }

// traceCap is the server's default --max-trace-bytes.
const traceCap = 64 << 20

// checkBounded checks what every attack must leave behind: a live server
// under the RSS target, and nothing on disk above the trace cap.
func checkBounded(t *testing.T, s *server, contextBytes int) {
	t.Helper()
	s.alive(t)
	if rss := s.peakRSS(t); rss > rssTarget(contextBytes) {
		t.Errorf("peak RSS %d MiB, over the target of %d MiB", rss>>20, rssTarget(contextBytes)>>20)
	} else {
		t.Logf("peak RSS %d MiB (target %d MiB)", rss>>20, rssTarget(contextBytes)>>20)
	}
	if name, size := s.largestFile(t); size > traceCap {
		t.Errorf("%s is %d bytes, over the trace cap", name, size)
	}
}

func TestLoopOfHugePrompts(t *testing.T) {
	up := fakellm.New(rootScript, fakellm.WithoutRecording())
	defer up.Close()
	s := startServer(t, up.URL)
	c, _ := s.chat(t, keyA, "loop", "")
	if c.answer() != "looped" {
		t.Fatalf("answer %q", c.answer())
	}
	tr, size := s.trace(t, keyA, c.RLM.TraceID)
	cell := tr.Nodes[0].Turns[0].Cells[0]
	if !strings.Contains(cell.Output, "error: llm_query: prompt 0 is 16777216 bytes, over the limit of 4 MiB per prompt") {
		t.Errorf("the model was not told why: output %q", cell.Output)
	}
	// Refused in the worker: not one prompt reached the upstream.
	if n := up.Count(); n != 2 {
		t.Errorf("the upstream got %d requests, want the 2 root turns", n)
	}
	if size > 1<<20 {
		t.Errorf("trace of %d bytes for a loop of refused calls", size)
	}
	checkBounded(t, s, 0)
}

func TestHugeFinal(t *testing.T) {
	up := fakellm.New(rootScript)
	defer up.Close()
	s := startServer(t, up.URL)
	c, bodySize := s.chat(t, keyA, "final", "")
	if c.answer() != "short" {
		t.Fatalf("answer %.100q", c.answer())
	}
	if bodySize > 64<<10 {
		t.Errorf("response of %d bytes", bodySize)
	}
	tr, size := s.trace(t, keyA, c.RLM.TraceID)
	cell := tr.Nodes[0].Turns[0].Cells[0]
	if cell.Final != nil || !strings.Contains(cell.Error, "FINAL refused: the answer is 209715200 bytes, over the limit of 4 MiB") {
		t.Errorf("cell final %v, error %q", cell.Final != nil, cell.Error)
	}
	// The model saw the refusal and answered again.
	if second := up.Requests()[1].LastUser(); !strings.Contains(second, "FINAL refused") {
		t.Errorf("second root turn saw %.300q", second)
	}
	if size > 1<<20 {
		t.Errorf("trace of %d bytes", size)
	}
	checkBounded(t, s, 0)
}

func TestAssignToContextErrorElided(t *testing.T) {
	up := fakellm.New(rootScript)
	defer up.Close()
	s := startServer(t, up.URL)
	const ctxBytes = 50 << 20
	c, _ := s.chat(t, keyA, "assign", strings.Repeat("x", ctxBytes))
	if c.answer() != "assigned" {
		t.Fatalf("answer %q", c.answer())
	}
	tr, size := s.trace(t, keyA, c.RLM.TraceID)
	cell := tr.Nodes[0].Turns[0].Cells[0]
	if !strings.Contains(cell.Error, "cannot assign to context (string, 5242") || len(cell.Error) > 16<<10 {
		t.Errorf("cell error of %d bytes: %.300q", len(cell.Error), cell.Error)
	}
	if size > 1<<20 {
		t.Errorf("trace of %d bytes", size)
	}
	if second := up.Requests()[1].LastUser(); len(second) > 20<<10 {
		t.Errorf("the model's feedback is %d bytes", len(second))
	}
	checkBounded(t, s, ctxBytes)
}

func TestMillionPromptBatch(t *testing.T) {
	up := fakellm.New(rootScript)
	defer up.Close()
	s := startServer(t, up.URL)
	c, _ := s.chat(t, keyA, "batch", "")
	if c.answer() != "batched" {
		t.Fatalf("answer %q", c.answer())
	}
	tr, size := s.trace(t, keyA, c.RLM.TraceID)
	cells := tr.Nodes[0].Turns[0].Cells
	if len(cells) != 2 {
		t.Fatalf("%d cells", len(cells))
	}
	// A million prompts: over --max-batch, refused in the worker.
	if !strings.Contains(cells[0].Output, "1000000 error: llm_query: a batch of 1000000 prompts exceeds the limit of 10000") || len(cells[0].SubCalls) != 0 {
		t.Errorf("cell 1: output %q, %d sub-call records", cells[0].Output, len(cells[0].SubCalls))
	}
	// 5,000 prompts under a 200-call budget: refused whole, one record.
	sc := cells[1].SubCalls
	if len(sc) != 1 || sc[0].Batch != 5000 || !strings.Contains(sc[0].Error, "needs more than the 199 LLM calls left") {
		t.Errorf("cell 2: %d sub-call records %+v", len(sc), sc)
	}
	if !strings.Contains(cells[1].Output, "5000 error: budget exhausted: a call of 5000 prompts") {
		t.Errorf("cell 2 output %q", cells[1].Output)
	}
	if n := len(up.Requests()); n != 2 {
		t.Errorf("the upstream got %d requests, want the 2 root turns", n)
	}
	if size > 1<<20 {
		t.Errorf("trace of %d bytes", size)
	}
	checkBounded(t, s, 0)
}

// TestTraceCapHolds: a run whose sub-calls would write more than
// --max-trace-bytes keeps a whole, smaller record that says what it left out.
func TestTraceCapHolds(t *testing.T) {
	attacks["fill"] = []string{"```go\nfor i := 0; i < 150; i++ {\n\tllm_query(strings.Repeat(\"p\", 60000))\n}\n```", "FINAL(filled)"}
	t.Cleanup(func() { delete(attacks, "fill") })
	up := fakellm.New(rootScript, fakellm.WithoutRecording())
	defer up.Close()
	s := startServer(t, up.URL, "--max-trace-bytes", "2MiB", "--max-trace-field-bytes", "16KiB")
	c, _ := s.chat(t, keyA, "fill", "")
	if c.answer() != "filled" {
		t.Fatalf("answer %q", c.answer())
	}
	tr, size := s.trace(t, keyA, c.RLM.TraceID)
	if size > 2<<20 {
		t.Errorf("trace of %d bytes, over --max-trace-bytes 2MiB", size)
	}
	if len(tr.Truncated) == 0 || !strings.Contains(string(tr.Truncated), `"max_trace_bytes":2097152`) {
		t.Errorf("truncation not marked: %s", tr.Truncated)
	}
	if tr.Used.SubCalls != 150 {
		t.Errorf("used.sub_calls %d, want all 150 counted", tr.Used.SubCalls)
	}
	if tr.Answer != "filled" {
		t.Errorf("the answer %q was not kept", tr.Answer)
	}
	if name, fsize := s.largestFile(t); fsize > 2<<20 {
		t.Errorf("%s is %d bytes on disk", name, fsize)
	}
	t.Logf("trace %d bytes, truncated %s", size, tr.Truncated)
}

// TestLoopOfRejectedPrompts: prompts under --max-prompt-bytes that the
// upstream rejects still spend their tokens, so the loop stops at the
// token budget instead of sending the upstream gigabytes.
func TestLoopOfRejectedPrompts(t *testing.T) {
	attacks["loop3"] = []string{"```go\nn := 0\nfor i := 0; i < 100; i++ {\n\tif strings.HasPrefix(llm_query(strings.Repeat(\"a\", 3<<20)), \"error: budget exhausted\") {\n\t\tn++\n\t}\n}\nfmt.Println(\"refused by the budget:\", n)\n```", "FINAL(looped)"}
	t.Cleanup(func() { delete(attacks, "loop3") })
	up := fakellm.New(rootScript, fakellm.WithoutRecording())
	defer up.Close()
	s := startServer(t, up.URL)
	c, _ := s.chat(t, keyA, "loop3", "")
	if c.answer() != "looped" {
		t.Fatalf("answer %q", c.answer())
	}
	// 3 MiB is ~786k tokens: the default 5M-token budget admits 6 of them,
	// rejected or not, and refuses the other 94 before they are sent.
	if n := up.Count(); n != 2+6 {
		t.Errorf("the upstream got %d requests, want 2 root turns and 6 sub-calls", n)
	}
	tr, size := s.trace(t, keyA, c.RLM.TraceID)
	if out := tr.Nodes[0].Turns[0].Cells[0].Output; !strings.Contains(out, "refused by the budget: 94\n") {
		t.Errorf("cell output %q", out)
	}
	// The 6 prompts that were sent are kept; the refused ones are not.
	if size > 6*(3<<20)+1<<20 {
		t.Errorf("trace of %d bytes", size)
	}
	// What is legitimately in flight is that trace (saved, then served).
	checkBounded(t, s, size)
}
