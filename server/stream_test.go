package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/recursion"
)

func TestStreaming(t *testing.T) {
	answer := strings.Repeat("Grüße, world! ", 60) // several deltas, multi-byte runes across cuts
	tests := []struct {
		name         string
		extra        string
		result       recursion.Result
		wantUsage    bool
		wantFinish   string
		wantErrorMsg string
	}{
		{"plain", `"stream":true`, finalResult(answer), false, "stop", ""},
		{"with usage", `"stream":true,"stream_options":{"include_usage":true}`, finalResult(answer), true, "stop", ""},
		{"budget stop", `"stream":true`, recursion.Result{Answer: "partial", StopReason: recursion.StopBudgetTokens}, false, "length", ""},
		{"upstream failure", `"stream":true`, recursion.Result{StopReason: recursion.StopUpstreamError, Error: "boom"}, false, "", "the run stopped: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := &fakeRunner{result: tt.result, events: scriptEvents()}
			ts := startServer(t, Config{}, nil, fr)
			resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(tt.extra))
			if resp.Status != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("status %d, type %q: %s", resp.Status, resp.Header.Get("Content-Type"), resp.Body)
			}
			if resp.Header.Get("X-RLM-Trace-Id") == "" {
				t.Error("no X-RLM-Trace-Id")
			}
			data, _ := sseEvents(t, resp.Body)
			if len(data) == 0 || data[len(data)-1] != "[DONE]" {
				t.Fatalf("stream does not end with [DONE]: %q", data)
			}
			var content strings.Builder
			var events []string
			var finish string
			var gotUsage *api.Usage
			sawRole := false
			for i, d := range data[:len(data)-1] {
				var ch struct {
					ID      string `json:"id"`
					Object  string `json:"object"`
					Choices []struct {
						Delta struct {
							Role    string  `json:"role"`
							Content *string `json:"content"`
						} `json:"delta"`
						FinishReason *string `json:"finish_reason"`
					} `json:"choices"`
					Usage *api.Usage       `json:"usage"`
					RLM   *json.RawMessage `json:"rlm"`
					Error *api.ErrorObject `json:"error"`
				}
				if err := json.Unmarshal([]byte(d), &ch); err != nil {
					t.Fatalf("chunk %d not JSON: %s", i, d)
				}
				if ch.Error != nil {
					if !strings.Contains(ch.Error.Message, tt.wantErrorMsg) || tt.wantErrorMsg == "" {
						t.Errorf("error chunk %+v", ch.Error)
					}
					continue
				}
				if ch.Object != "chat.completion.chunk" || !strings.HasPrefix(ch.ID, "chatcmpl-") {
					t.Errorf("chunk %d: object %q id %q", i, ch.Object, ch.ID)
				}
				if i == 0 {
					if len(ch.Choices) != 1 || ch.Choices[0].Delta.Role != "assistant" {
						t.Errorf("first chunk is not the role delta: %s", d)
					}
					sawRole = true
					continue
				}
				if len(ch.Choices) == 0 {
					switch {
					case ch.Usage != nil:
						gotUsage = ch.Usage
					case ch.RLM != nil:
						if finish != "" || content.Len() > 0 {
							t.Errorf("progress after the answer started: %s", d)
						}
						var p api.Progress
						json.Unmarshal(*ch.RLM, &p)
						events = append(events, p.Event)
					default:
						t.Errorf("chunk with no choices, usage or rlm: %s", d)
					}
					continue
				}
				c := ch.Choices[0]
				if c.Delta.Content != nil {
					if finish != "" {
						t.Errorf("content after finish: %s", d)
					}
					content.WriteString(*c.Delta.Content)
				}
				if c.FinishReason != nil {
					finish = *c.FinishReason
				}
			}
			if !sawRole {
				t.Error("no role delta")
			}
			// OpenAI's shape: without include_usage no chunk has a usage
			// key; with it every chunk has one, null on all but the last
			// chunk before [DONE], which has empty choices.
			if tt.wantErrorMsg == "" {
				chunks := data[:len(data)-1]
				for i, d := range chunks {
					var raw map[string]json.RawMessage
					if err := json.Unmarshal([]byte(d), &raw); err != nil {
						t.Fatalf("chunk %d: %v", i, err)
					}
					u, has := raw["usage"]
					last := i == len(chunks)-1
					switch {
					case !tt.wantUsage && has:
						t.Errorf("chunk %d has a usage key without include_usage: %s", i, d)
					case tt.wantUsage && !has:
						t.Errorf("chunk %d has no usage key with include_usage: %s", i, d)
					case tt.wantUsage && !last && string(u) != "null":
						t.Errorf("chunk %d: usage %s before the last chunk, want null", i, u)
					case tt.wantUsage && last && (string(u) == "null" || string(raw["choices"]) != "[]"):
						t.Errorf("last chunk is not the usage chunk: %s", d)
					}
				}
			}
			if want := "node_start,turn_start,cell_start,subcall_start,subcall_end,cell_end,node_end"; strings.Join(events, ",") != want {
				t.Errorf("progress events %q, want %q", strings.Join(events, ","), want)
			}
			if tt.wantErrorMsg != "" {
				return
			}
			if content.String() != tt.result.Answer {
				t.Errorf("streamed content %q, want %q", content.String(), tt.result.Answer)
			}
			if finish != tt.wantFinish {
				t.Errorf("finish_reason %q, want %q", finish, tt.wantFinish)
			}
			if tt.wantUsage != (gotUsage != nil) {
				t.Errorf("usage chunk %v, want %v", gotUsage, tt.wantUsage)
			}
			if gotUsage != nil && *gotUsage != (api.Usage{PromptTokens: tt.result.Usage.PromptTokens, CompletionTokens: tt.result.Usage.CompletionTokens, TotalTokens: tt.result.Usage.TotalTokens}) {
				t.Errorf("usage %+v", gotUsage)
			}
		})
	}
}

func TestStreamKeepAlive(t *testing.T) {
	fr := &fakeRunner{result: finalResult("done"), block: make(chan struct{})}
	ts := startServer(t, Config{KeepAlive: 20 * time.Millisecond}, nil, fr)
	go func() { time.Sleep(150 * time.Millisecond); close(fr.block) }()
	resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(`"stream":true`))
	data, comments := sseEvents(t, resp.Body)
	if comments < 2 {
		t.Errorf("%d keep-alive comments in 150ms at a 20ms interval", comments)
	}
	if data[len(data)-1] != "[DONE]" {
		t.Errorf("no [DONE]")
	}
}

// TestStreamFirstChunkEarly checks that the role delta is flushed at once,
// before the run ends, so clients see the stream is alive.
func TestStreamFirstChunkEarly(t *testing.T) {
	fr := &fakeRunner{result: finalResult("done"), block: make(chan struct{})}
	defer close(fr.block)
	ts := startServer(t, Config{}, nil, fr)
	req, _ := http.NewRequest("POST", ts.URL+"/v1/chat/completions", chatBody(`"stream":true`))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 4096)
	n, err := resp.Body.Read(buf)
	if err != nil || !strings.Contains(string(buf[:n]), `"role":"assistant"`) {
		t.Errorf("first read %q, %v", buf[:n], err)
	}
}
