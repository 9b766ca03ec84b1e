package recursion

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/repl"
)

// TestRealReplyShapes drives the engine with the reply shapes real
// upstreams produce (fakellm, a scripted fake upstream, sends them over
// HTTP): reasoning, Python, tool calls, replies cut off by max_tokens.
func TestRealReplyShapes(t *testing.T) {
	ran := map[string]int{}
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"x := 1": func(*cellEnv) repl.CellResult { ran["x := 1"]++; return repl.CellResult{Output: "ran\n"} },
		"os.Exit(1) // secret": func(*cellEnv) repl.CellResult {
			ran["think"]++
			return repl.CellResult{Output: "must not run\n"}
		},
		"FINAL(\"done\")": func(*cellEnv) repl.CellResult { return repl.CellResult{Final: final("done")} },
	}}
	tests := []struct {
		name     string
		replies  []fakellm.Reply
		wantSent string // a user message the engine must have sent back
		notSent  string // text that must never be sent back to the model
	}{
		{"python fence", []fakellm.Reply{{Content: "```python\nprint(1)\n```"}, {Content: code(`FINAL("done")`)}},
			pythonMessage, ""},
		{"tool call", []fakellm.Reply{{Content: "", ToolCalls: []string{"search"}, FinishReason: "tool_calls"}, {Content: code(`FINAL("done")`)}},
			toolCallsMessage, ""},
		{"cut off inside a fence", []fakellm.Reply{{Content: "```go\nx := 1\n```\n```go\nfor i := 0;", FinishReason: "length"}, {Content: code(`FINAL("done")`)}},
			cutOffMessage, ""},
		{"think block", []fakellm.Reply{{Content: "<think>\nthe secret plan\n```go\nos.Exit(1) // secret\n```\n</think>\n" + code("x := 1")}, {Content: code(`FINAL("done")`)}},
			"ran", "the secret plan"},
		{"reasoning_content", []fakellm.Reply{{Content: code("x := 1"), ReasoningContent: "hidden chain of thought"}, {Content: code(`FINAL("done")`)}},
			"ran", "hidden chain of thought"},
		{"unlabeled fence", []fakellm.Reply{{Content: "```\nx := 1\n```"}, {Content: code(`FINAL("done")`)}},
			"ran", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clear(ran)
			script := func(req fakellm.Request) fakellm.Reply {
				return tt.replies[min(req.Turn(), len(tt.replies))-1]
			}
			e, srv := testEngine(t, sb, script, Config{})
			rec := &recorder{}
			res, err := e.Run(t.Context(), Request{Messages: userMsg("q"), Observer: rec})
			if err != nil || res.Answer != "done" {
				t.Fatalf("run: %v %+v", err, res)
			}
			if ran["think"] != 0 {
				t.Error("code inside a <think> block ran")
			}
			reqs := srv.Requests()
			last := reqs[len(reqs)-1].Messages
			sent := false
			for _, m := range last {
				sent = sent || m.Role == "user" && strings.Contains(m.Content, tt.wantSent)
				if tt.notSent != "" && strings.Contains(m.Content, tt.notSent) {
					t.Errorf("%q was sent back to the model in a %s message", tt.notSent, m.Role)
				}
			}
			if !sent {
				t.Errorf("no user message containing %q was sent", tt.wantSent)
			}
			// The trace keeps what the upstream said, reasoning included.
			var traced bool
			for _, ev := range rec.all() {
				if ev.Kind == EventModelCall && ev.Model != nil && ev.Turn == 1 {
					traced = ev.Model.Response == tt.replies[0].Content && ev.Model.Reasoning == tt.replies[0].ReasoningContent &&
						len(ev.Model.ToolCalls) == len(tt.replies[0].ToolCalls)
				}
			}
			if !traced {
				t.Error("the first model call's event does not carry the raw response, reasoning and tool calls")
			}
		})
	}
}

// TestCompactionKeepsTranscriptInWindow runs 30 turns whose cells print
// 20,000 characters each against a model with a 16,384-token window: every
// request must fit, the system prompt, the input and every cell's code must
// still be there, and the trace must say what was elided.
func TestCompactionKeepsTranscriptInWindow(t *testing.T) {
	const turns, outChars, window = 30, 20_000, 16_384
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{}}
	var replies []string
	for i := 1; i < turns; i++ {
		name := fmt.Sprintf("print chunk %d // context", i)
		body := fmt.Sprintf("turn %d: ", i) + strings.Repeat("y", outChars)
		sb.cells[name] = func(*cellEnv) repl.CellResult { return repl.CellResult{Output: body} }
		replies = append(replies, code(name))
	}
	sb.cells["finish"] = func(*cellEnv) repl.CellResult { return repl.CellResult{Final: final("ok")} }
	replies = append(replies, code("finish"))
	e, srv := testEngine(t, sb, rootScript(replies, nil), Config{ContextWindows: map[string]int{"root-model": window}})
	rec := &recorder{}
	question := "What is in the data? " + strings.Repeat("q", 100)
	res, err := e.Run(t.Context(), Request{Messages: userMsg(question), Limits: Limits{MaxIterations: turns + 5}, Observer: rec})
	if err != nil || res.Answer != "ok" || res.Iterations != turns {
		t.Fatalf("run: %v %+v", err, res)
	}
	reqs := srv.Requests()
	if len(reqs) != turns {
		t.Fatalf("%d requests, want %d", len(reqs), turns)
	}
	for i, req := range reqs {
		var msgs []llm.Message
		for _, m := range req.Messages {
			msgs = append(msgs, llm.Message{Role: m.Role, Content: m.Content})
		}
		tokens, _ := transcriptTokens(msgs)
		if tokens+1024 > window {
			t.Errorf("request %d: ~%d prompt tokens + 1,024 reserved overflow the window of %d", i+1, tokens, window)
		}
		if msgs[0].Content != SystemPrompt() || !strings.Contains(msgs[1].Content, question) {
			t.Errorf("request %d lost the system prompt or the question", i+1)
		}
		code := 0
		for _, m := range msgs {
			if m.Role == "assistant" && strings.Contains(m.Content, "print chunk") {
				code++
			}
		}
		if code != i {
			t.Errorf("request %d has %d cells of code, want all %d", i+1, code, i)
		}
		if last := msgs[len(msgs)-1].Content; i > 0 && (strings.Contains(last, elidedNote) || len(last) < outChars*9/10) {
			t.Errorf("request %d: the newest output was elided", i+1)
		}
	}
	compactions := 0
	for _, ev := range rec.all() {
		if ev.Kind == EventModelCall && ev.Model.Compaction != nil {
			compactions++
			c := ev.Model.Compaction
			if c.WindowTokens != window || c.ElidedMessages == 0 || c.CharsAfter >= c.CharsBefore {
				t.Errorf("turn %d: compaction record %+v", ev.Turn, c)
			}
		}
	}
	if compactions == 0 {
		t.Error("no model call recorded a compaction")
	}
}
