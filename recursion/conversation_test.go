package recursion

import (
	"errors"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion/llm"
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
