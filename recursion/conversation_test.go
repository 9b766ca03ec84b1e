package recursion

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/repl"
)

// TestConversationKeepsREPLState: a follow-up run continues the kept root
// session, in the real REPL: a variable the first run defined is there, an
// llm_query of the follow-up is answered by the follow-up's run, and the
// model sees its earlier turns. A follow-up that would offload, or a
// conversation closed or in use, is ErrCannotContinue.
func TestConversationKeepsREPLState(t *testing.T) {
	script := func(req fakellm.Request) fakellm.Reply {
		if req.Model == "sub-model" {
			return fakellm.Reply{Content: "sub says " + req.LastUser()}
		}
		last := req.LastUser()
		switch {
		case strings.Contains(last, "Follow-up") && strings.Contains(last, "what was the secret"):
			// The earlier turns are in view, and the variable in the session.
			if !strings.Contains(req.Messages[2].Content, "secret := 6 * 7") {
				return fakellm.Reply{Content: "FINAL(no earlier turns in view)"}
			}
			return fakellm.Reply{Content: "```go\nFINAL(fmt.Sprint(secret, \" / \", llm_query(\"again\")))\n```"}
		case strings.Contains(last, "remember"):
			return fakellm.Reply{Content: "```go\nsecret := 6 * 7\nfmt.Println(secret)\n```"}
		case req.Turn() == 2:
			return fakellm.Reply{Content: "FINAL(remembered)"}
		}
		return fakellm.Reply{Content: "FINAL(unexpected)"}
	}
	e, _, _ := realEngine(t, script, Config{})
	first, err := e.Run(t.Context(), Request{Messages: []llm.Message{{Role: "user", Content: "remember a secret"}}, Keep: true})
	if err != nil || first.Answer != "remembered" || first.Conversation == nil {
		t.Fatalf("first run: %+v, %v", first, err)
	}
	conv := first.Conversation
	long := strings.Repeat("x", 20_000) // past the offload threshold
	if _, err := e.Run(t.Context(), Request{Messages: []llm.Message{{Role: "user", Content: long}}, Continue: conv}); !errors.Is(err, ErrCannotContinue) {
		t.Fatalf("a follow-up that offloads: %v", err)
	}
	second, err := e.Run(t.Context(), Request{Messages: []llm.Message{{Role: "user", Content: "what was the secret?"}}, Continue: conv})
	if err != nil || second.Answer != "42 / sub says again" || second.Conversation != conv {
		t.Fatalf("follow-up: %+v, %v", second, err)
	}
	conv.Close()
	if _, err := e.Run(t.Context(), Request{Messages: []llm.Message{{Role: "user", Content: "what was the secret?"}}, Continue: conv}); !errors.Is(err, ErrCannotContinue) {
		t.Fatalf("a closed conversation: %v", err)
	}
	// Without Keep, nothing is kept.
	if res, _ := e.Run(t.Context(), Request{Messages: []llm.Message{{Role: "user", Content: "remember a secret"}}}); res.Conversation != nil {
		t.Error("a run without Keep kept its session")
	}
}

// TestConversationCompacts: a conversation's transcript is compacted across
// runs like within one: 14 turns printing 20,000 characters each, FINAL, then
// a follow-up of as many more, against a 16,384-token window. Every request
// fits; the follow-up's requests keep the system prompt, the first input,
// every cell's code and the follow-up's question.
func TestConversationCompacts(t *testing.T) {
	const half, outChars, window = 15, 20_000, 16_384
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{}}
	var replies []string
	for i := 1; i <= 2*half; i++ {
		if i%half == 0 {
			replies = append(replies, code("finish"))
			continue
		}
		name := fmt.Sprintf("print chunk %d // context", i)
		body := fmt.Sprintf("turn %d: ", i) + strings.Repeat("y", outChars)
		sb.cells[name] = func(*cellEnv) repl.CellResult { return repl.CellResult{Output: body} }
		replies = append(replies, code(name))
	}
	sb.cells["finish"] = func(*cellEnv) repl.CellResult { return repl.CellResult{Final: final("ok")} }
	e, srv := testEngine(t, sb, rootScript(replies, nil), Config{ContextWindows: map[string]int{"root-model": window}})
	lim := Limits{MaxIterations: 2 * half}
	first, err := e.Run(t.Context(), Request{Messages: userMsg("first question"), Limits: lim, Keep: true})
	if err != nil || first.Answer != "ok" || first.Conversation == nil {
		t.Fatalf("first run: %v %+v", err, first)
	}
	defer first.Conversation.Close()
	rec := &recorder{}
	second, err := e.Run(t.Context(), Request{Messages: userMsg("second question"), Limits: lim, Continue: first.Conversation, Observer: rec})
	if err != nil || second.Answer != "ok" || second.Iterations != half {
		t.Fatalf("follow-up: %v %+v", err, second)
	}
	reqs := srv.Requests()
	if len(reqs) != 2*half {
		t.Fatalf("%d requests, want %d", len(reqs), 2*half)
	}
	for i, req := range reqs[half:] {
		var msgs []llm.Message
		cells := 0
		for _, m := range req.Messages {
			msgs = append(msgs, llm.Message{Role: m.Role, Content: m.Content})
			if m.Role == "assistant" && strings.Contains(m.Content, "// context") {
				cells++
			}
		}
		tokens, _ := transcriptTokens(msgs)
		if tokens+1024 > window {
			t.Errorf("follow-up request %d: ~%d prompt tokens overflow the window of %d", i+1, tokens, window)
		}
		all := ""
		for _, m := range msgs {
			all += m.Content + "\n"
		}
		if msgs[0].Content != SystemPrompt() || !strings.Contains(msgs[1].Content, "first question") || !strings.Contains(all, "second question") {
			t.Errorf("follow-up request %d lost the system prompt, the first input or the follow-up", i+1)
		}
		if want := half - 1 + i; cells != want {
			t.Errorf("follow-up request %d has %d cells of code, want %d", i+1, cells, want)
		}
	}
	compactions := 0
	for _, ev := range rec.all() {
		if ev.Kind == EventModelCall && ev.Model.Compaction != nil {
			compactions++
		}
	}
	if compactions == 0 {
		t.Error("no call of the follow-up recorded a compaction")
	}
}
