package upstream

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/recursion/llm"
	openai "github.com/sashabaranov/go-openai"
)

// rootTurnRequest is the request of a root model's 20th turn: a system
// prompt, the question, and 19 turns of a short cell and its output.
func rootTurnRequest() llm.Request {
	msgs := []llm.Message{{Role: "system", Content: strings.Repeat("You write Go in a REPL that holds the input as context.\n", 50)},
		{Role: "user", Content: "What is the secret launch code?"}}
	for range 19 {
		msgs = append(msgs, llm.Message{Role: "assistant", Content: "Looking.\n```go\nn := len(context)\nfmt.Println(n, strings.Count(context[:1000], \"x\"))\n```"},
			llm.Message{Role: "user", Content: "100000 0"})
	}
	return llm.Request{Model: "root", Messages: msgs}
}

// BenchmarkEncodeRequest encodes a root turn's request as Complete does,
// and, as the baseline in the same run, as go-openai marshals its own
// request of the same messages.
func BenchmarkEncodeRequest(b *testing.B) {
	req := rootTurnRequest()
	b.Run("go-openai", func(b *testing.B) {
		oreq := openai.ChatCompletionRequest{Model: req.Model}
		for _, m := range req.Messages {
			oreq.Messages = append(oreq.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
		}
		for range b.N {
			if _, err := json.Marshal(oreq); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("chatBody", func(b *testing.B) {
		for range b.N {
			if _, err := encodeRequest(req, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestEncodeRequest checks the body's messages and that what go-openai
// would leave out is sent: an empty content, and the stream's options.
func TestEncodeRequest(t *testing.T) {
	t.Parallel()
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "a < b & c"}, {Role: "assistant", Content: ""}}}
	for _, stream := range []bool{false, true} {
		body, err := encodeRequest(req, stream)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Model         string
			Messages      []map[string]string
			Stream        bool
			StreamOptions *struct {
				IncludeUsage bool `json:"include_usage"`
			} `json:"stream_options"`
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		want := []map[string]string{{"role": "user", "content": "a < b & c"}, {"role": "assistant", "content": ""}}
		if got.Model != "m" || len(got.Messages) != 2 || got.Messages[0]["content"] != want[0]["content"] ||
			got.Messages[1]["role"] != "assistant" || !strings.Contains(string(body), `"content":""`) {
			t.Errorf("stream %v: body %s", stream, body)
		}
		if got.Stream != stream || (got.StreamOptions != nil) != stream || stream && !got.StreamOptions.IncludeUsage {
			t.Errorf("stream %v: stream %v, options %+v", stream, got.Stream, got.StreamOptions)
		}
	}
}
