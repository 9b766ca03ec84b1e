package recursion

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestUpstreamFixtures replays response bodies in the shapes OpenAI, vLLM,
// the llama.cpp server and Ollama send (testdata/upstream, written from
// their documentation) through OpenAIClient: content, reasoning in either
// field, tool calls, finish_reason length, missing usage and error bodies.
func TestUpstreamFixtures(t *testing.T) {
	tests := []struct {
		file      string
		status    int
		content   string // substring of the content
		reasoning string
		finish    string
		tools     []string
		usage     Usage // zero: do not check
		estimated bool
		errHas    string
		attempts  int // calls the server must have seen
	}{
		{file: "openai_ok.json", status: 200, content: "fmt.Println(len(context))", finish: "stop", usage: Usage{19, 10, 29}, attempts: 1},
		{file: "openai_tool_calls.json", status: 200, finish: "tool_calls", tools: []string{"get_current_weather"}, attempts: 1},
		{file: "openai_error_context.json", status: 400, errHas: "maximum context length is 128000 tokens", attempts: 1},
		{file: "openai_error_rate.json", status: 429, errHas: "Rate limit reached", attempts: 2},
		{file: "vllm_reasoning.json", status: 200, content: "strings.Count", reasoning: "look at the context first", finish: "stop", usage: Usage{120, 51, 171}, attempts: 1},
		{file: "vllm_length.json", status: 200, content: "len(con", finish: "length", attempts: 1},
		{file: "vllm_error.json", status: 400, errHas: "maximum context length is 32768 tokens", attempts: 1},
		{file: "llamacpp_no_usage.json", status: 200, content: "FINAL(42)", finish: "stop", estimated: true, attempts: 1},
		{file: "llamacpp_reasoning.json", status: 200, content: "strings.Split", reasoning: "Count the lines", finish: "stop", usage: Usage{310, 40, 350}, attempts: 1},
		{file: "llamacpp_error.json", status: 400, errHas: "exceeds the available context size", attempts: 1},
		{file: "llamacpp_error_500.json", status: 500, errHas: "Failed to parse input", attempts: 2},
		{file: "ollama_reasoning.json", status: 200, content: "len(context)", reasoning: "size of the input", finish: "stop", attempts: 1},
		{file: "ollama_think_inline.json", status: 200, content: "<think>", finish: "stop", attempts: 1},
		{file: "ollama_error.json", status: 404, errHas: "not found, try pulling it first", attempts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", "upstream", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				w.Write(body)
			}))
			defer srv.Close()
			c, err := NewOpenAIClient(UpstreamConfig{Name: tt.file, BaseURL: srv.URL, MaxRetries: 1, BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Complete(t.Context(), CompletionRequest{Model: "m", Messages: []Message{{Role: "user", Content: strings.Repeat("q", 400)}}})
			if int(calls.Load()) != tt.attempts {
				t.Errorf("%d attempts, want %d", calls.Load(), tt.attempts)
			}
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("error %v, want one containing %q", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got.Content, tt.content) || got.FinishReason != tt.finish {
				t.Errorf("content %q finish %q, want %q and %q", got.Content, got.FinishReason, tt.content, tt.finish)
			}
			if tt.reasoning == "" && got.Reasoning != "" || !strings.Contains(got.Reasoning, tt.reasoning) {
				t.Errorf("reasoning %q, want %q", got.Reasoning, tt.reasoning)
			}
			if strings.Join(got.ToolCalls, ",") != strings.Join(tt.tools, ",") {
				t.Errorf("tool calls %v, want %v", got.ToolCalls, tt.tools)
			}
			if tt.usage != (Usage{}) && got.Usage != tt.usage {
				t.Errorf("usage %+v, want %+v", got.Usage, tt.usage)
			}
			if got.UsageEstimated != tt.estimated || got.Usage.TotalTokens == 0 {
				t.Errorf("usage %+v estimated=%v, want estimated=%v and a non-zero total", got.Usage, got.UsageEstimated, tt.estimated)
			}
		})
	}
}
