package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// TestServePartialAnswerIsNotCode: through `rlm serve`, a run whose budget
// runs out while fakellm (a scripted fake upstream, not a model) only ever
// writes code answers with a statement of what stopped it and what the
// last cell printed, never the code, with the stop reason in `rlm`.
func TestServePartialAnswerIsNotCode(t *testing.T) {
	up := fakellm.New(func(fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Content: fakellm.Code("import \"fmt\"\nfmt.Println(\"partial count:\", len(context))")}
	})
	defer up.Close()
	s := startServe(t, upstreamArgs(up.URL)...)
	body := `{"model":"rlm","messages":[{"role":"user","content":"` + strings.Repeat("hay ", 5000) + `count it"}],"rlm":{"max_llm_calls":2}}`
	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message      struct{ Content string }
			FinishReason string `json:"finish_reason"`
		}
		RLM struct {
			StopReason string `json:"stop_reason"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Choices) != 1 {
		t.Fatalf("status %d: %v %+v", resp.StatusCode, err, out)
	}
	c := out.Choices[0]
	if strings.Contains(c.Message.Content, "```") || strings.Contains(c.Message.Content, "fmt.Println") ||
		!strings.HasPrefix(c.Message.Content, "No answer: the run stopped (budget_calls: budget exhausted: 2/2 LLM calls") ||
		!strings.Contains(c.Message.Content, "the last cell printed: partial count: 200") {
		t.Errorf("content %q", c.Message.Content)
	}
	if c.FinishReason != "length" || out.RLM.StopReason != "budget_calls" {
		t.Errorf("finish_reason %q, stop_reason %q", c.FinishReason, out.RLM.StopReason)
	}
}
