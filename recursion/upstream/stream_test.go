package upstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlm-project/rlm/recursion/llm"
	openai "github.com/sashabaranov/go-openai"
)

// The upstreams in this file are HTTP test doubles written here, not models.

// chunk is one SSE data line of a chat.completion.chunk with content.
func chunk(content, finish string) string {
	f := "null"
	if finish != "" {
		f = fmt.Sprintf("%q", finish)
	}
	return fmt.Sprintf(`data: {"object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":%q},"finish_reason":%s}]}`+"\n\n", content, f)
}

// goodStream is a complete stream answering "ok".
var goodStream = chunk("o", "") + chunk("k", "stop") +
	`data: {"object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}` + "\n\n" +
	"data: [DONE]\n\n"

// streamUpstream's first bad attempts misbehave as fault says; later ones
// stream goodStream.
type streamUpstream struct {
	*httptest.Server
	attempts atomic.Int32
}

func newStreamUpstream(t *testing.T, bad int, fault func(w http.ResponseWriter, r *http.Request)) *streamUpstream {
	t.Helper()
	u := &streamUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if int(u.attempts.Add(1)) <= bad {
			fault(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, goodStream)
	}))
	t.Cleanup(u.Close)
	return u
}

// sse starts an event stream and sends body.
func sse(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, body)
	w.(http.Flusher).Flush()
}

// TestStreamFaultsRetried: a stream that stalls between chunks, one kept
// alive by comments past the attempt's timeout, one whose connection drops
// mid-answer, a 5xx before the stream and a 429 inside it are each retried:
// the call succeeds when the upstream recovers and fails naming the
// attempts when it does not.
func TestStreamFaultsRetried(t *testing.T) {
	tests := []struct {
		name   string
		fault  func(w http.ResponseWriter, r *http.Request)
		cfg    Config
		errHas string
	}{
		{"chunks then silence", func(w http.ResponseWriter, r *http.Request) {
			sse(w, chunk("o", ""))
			<-r.Context().Done()
		}, Config{IdleTimeout: 100 * time.Millisecond}, "no data for 100ms after the response headers"},
		{"keep-alives past the attempt timeout", func(w http.ResponseWriter, r *http.Request) {
			sse(w, chunk("o", ""))
			for {
				select {
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
					io.WriteString(w, ": ping\n\n")
					w.(http.Flusher).Flush()
				}
			}
		}, Config{Timeout: 300 * time.Millisecond}, "no complete answer within 300ms"},
		{"connection dropped mid-answer", func(w http.ResponseWriter, r *http.Request) {
			sse(w, chunk("o", ""))
			panic(http.ErrAbortHandler) // the server closes the connection
		}, Config{}, "the connection closed before the answer was complete"},
		{"body ends in the middle of a chunk", func(w http.ResponseWriter, r *http.Request) {
			sse(w, chunk("o", "")+`data: {"choices":[{"ind`)
		}, Config{}, "the stream ended before it was complete"},
		{"503 with an error body", errorBody(http.StatusServiceUnavailable, `{"error":{"message":"overloaded","type":"server_error"}}`), Config{}, "overloaded"},
		{"429 inside the stream", func(w http.ResponseWriter, r *http.Request) {
			sse(w, chunk("o", "")+`data: {"error":{"message":"slow down","type":"rate_limit_error","code":"429"}}`+"\n\n")
		}, Config{}, "slow down"},
	}
	for _, tt := range tests {
		for _, recovers := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/recovers=%v", tt.name, recovers), func(t *testing.T) {
				const retries = 2
				bad := retries
				if !recovers {
					bad = retries + 1
				}
				up := newStreamUpstream(t, bad, tt.fault)
				cfg := tt.cfg
				cfg.Name, cfg.BaseURL, cfg.MaxRetries, cfg.Stream = "streams", up.URL, retries, true
				cfg.BackoffBase, cfg.BackoffMax = time.Millisecond, 2*time.Millisecond
				c, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				got, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")})
				if recovers {
					if err != nil || got.Content != "ok" || got.Usage != (llm.Usage{PromptTokens: 3, CompletionTokens: 1, TotalTokens: 4}) {
						t.Fatalf("got %+v, %v; want ok after %d failed attempts", got, err, bad)
					}
				} else {
					var ue *llm.Error
					if !errors.As(err, &ue) || ue.Attempts != retries+1 || !strings.Contains(err.Error(), tt.errHas) {
						t.Fatalf("got %v; want an llm.Error after %d attempts containing %q", err, retries+1, tt.errHas)
					}
				}
				if n := up.attempts.Load(); n != retries+1 {
					t.Errorf("upstream saw %d attempts, want %d", n, retries+1)
				}
			})
		}
	}
}

// TestStreamRequestFaultsNotRetried: errors that are the request's fault
// fail at once, streamed or not.
func TestStreamRequestFaultsNotRetried(t *testing.T) {
	tests := []struct {
		name   string
		fault  func(w http.ResponseWriter, r *http.Request)
		errHas string
	}{
		{"400 before the stream", errorBody(http.StatusBadRequest, `{"error":{"message":"bad temperature","type":"invalid_request_error"}}`), "bad temperature"},
		{"400 inside the stream as an event", func(w http.ResponseWriter, r *http.Request) {
			sse(w, "event: error\ndata: {\"error\":{\"message\":\"prompt too long\",\"code\":400}}\n\n")
		}, "prompt too long"},
		{"a 200 that is an HTML page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>\n<body>Sign in</body>\n</html>\n")
		}, "the response is neither JSON nor an event stream"},
		{"a 200 that is JSON sent as text", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, `{"id":"c1","choices":[{"index":0,"message":{"content":"ok"}}]}`)
		}, "the response is neither JSON nor an event stream"},
		{"a chunk that is not JSON", func(w http.ResponseWriter, r *http.Request) { sse(w, "data: <html>\n\n") }, "stream chunk is not JSON"},
		{"a complete stream without choices", func(w http.ResponseWriter, r *http.Request) {
			sse(w, `data: {"object":"chat.completion.chunk","choices":[]}`+"\n\ndata: [DONE]\n\n")
		}, "response has no choices"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := newStreamUpstream(t, 10, tt.fault)
			c, _ := New(Config{BaseURL: up.URL, MaxRetries: 3, BackoffBase: time.Millisecond, Stream: true})
			_, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")})
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("got %v, want an error containing %q", err, tt.errHas)
			}
			if strings.Contains(err.Error(), "<") || strings.Contains(err.Error(), "Sign in") {
				t.Errorf("the error quotes the upstream's body: %v", err)
			}
			if n := up.attempts.Load(); n != 1 {
				t.Errorf("%d attempts, want 1", n)
			}
		})
	}
}

// TestResponseOverCapIsCut: a response past MaxResponseBytes, as an endless
// stream of chunks, as one endless stream line or as a JSON body, fails the
// call at once with an error naming the cap, and leaves no goroutine behind.
func TestResponseOverCapIsCut(t *testing.T) {
	const max = 64 << 10
	tests := []struct {
		name   string
		stream bool
		write  func(w io.Writer) error
	}{
		{"endless chunks", true, func(w io.Writer) error { _, err := io.WriteString(w, chunk("aaaaaaaa", "")); return err }},
		{"one endless line", true, func(w io.Writer) error {
			_, err := io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"`+strings.Repeat("a", 4096))
			return err
		}},
		{"endless JSON body", false, func(w io.Writer) error { _, err := io.WriteString(w, strings.Repeat(" ", 4096)); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			var attempts, sent atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				attempts.Add(1)
				ct := "application/json"
				if tt.stream {
					ct = "text/event-stream"
				}
				w.Header().Set("Content-Type", ct)
				w.WriteHeader(http.StatusOK)
				if !tt.stream {
					io.WriteString(w, `{"choices":[`)
				}
				for r.Context().Err() == nil {
					if tt.write(w) != nil {
						return
					}
					sent.Add(1)
				}
			}))
			c, err := New(Config{BaseURL: srv.URL, MaxRetries: 2, BackoffBase: time.Millisecond, Stream: tt.stream, MaxResponseBytes: max})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")})
			if !errors.Is(err, errResponseTooLarge) || !strings.Contains(err.Error(), fmt.Sprintf("%d bytes (the upstream response cap)", max)) {
				t.Fatalf("got %v, want the response cap", err)
			}
			if n := attempts.Load(); n != 1 {
				t.Errorf("%d attempts, want 1 (a response too large is not retried)", n)
			}
			c.CloseIdleConnections()
			srv.Close() // waits for the handler, which stops once the client hung up
			deadline := time.Now().Add(5 * time.Second)
			for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				buf := make([]byte, 1<<16)
				t.Fatalf("%d goroutines left, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
			}
		})
	}
}

// TestStreamConnectionReused: after data: [DONE] the client reads the body
// to its end, so consecutive streamed calls share one connection.
func TestStreamConnectionReused(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		sse(w, goodStream)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c, _ := New(Config{BaseURL: srv.URL, Stream: true})
	defer c.CloseIdleConnections()
	for range 3 {
		if got, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")}); err != nil || got.Content != "ok" {
			t.Fatalf("got %q, %v", got.Content, err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 3 calls, want 1", n)
	}
}

// TestStreamAfterDoneIgnored: a server that keeps the body open after
// data: [DONE] costs at most the short grace, not the idle timeout, and the
// answer stands.
func TestStreamAfterDoneIgnored(t *testing.T) {
	var wg sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wg.Add(1)
		defer wg.Done()
		io.Copy(io.Discard, r.Body)
		sse(w, goodStream+chunk("late", "")+"garbage that is not SSE\n")
		<-r.Context().Done()
	}))
	defer srv.Close()
	c, _ := New(Config{BaseURL: srv.URL, Stream: true, IdleTimeout: 20 * time.Second})
	start := time.Now()
	got, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")})
	if err != nil || got.Content != "ok" {
		t.Fatalf("got %q, %v", got.Content, err)
	}
	if d := time.Since(start); d > 5*doneGrace {
		t.Errorf("took %v after [DONE], want about %v", d, doneGrace)
	}
	wg.Wait()
}

// TestReadStreamShapes reads streams whose shapes the fixtures do not
// cover: CR line ends, fields without a space, ids and retries, tool calls
// interleaved by index, legacy function_call deltas, tool calls without an
// index, logprobs, and usage sent with every chunk.
func TestReadStreamShapes(t *testing.T) {
	tests := []struct {
		name, body string
		want       llm.Completion
		tools      []streamToolCall
	}{
		{
			name: "CR line ends, no space after the colon, id and retry fields",
			body: "retry: 1000\rid: 1\rdata:{\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\r\rdata\r\r" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\r\rdata: [DONE]\r",
			want: llm.Completion{Model: "m", Content: "ab", FinishReason: "stop"},
		},
		{
			name: "parallel tool calls interleaved by index",
			body: `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c0","type":"function","function":{"name":"f","arguments":""}},{"index":1,"id":"c1","type":"function","function":{"name":"g","arguments":"{\"y\""}}]}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"x\":"}}]}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":2}"}},{"index":0,"function":{"arguments":"1}"}}]}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n",
			want:  llm.Completion{FinishReason: "tool_calls", ToolCalls: []string{"f", "g"}},
			tools: []streamToolCall{{"c0", "f", `{"x":1}`}, {"c1", "g", `{"y":2}`}},
		},
		{
			name: "tool calls without an index, each whole, and a legacy function_call",
			body: `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"{"}}]}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"}"}}]}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{"function_call":{"name":"h","arguments":"[]"}},"finish_reason":"function_call"}]}` + "\n\n",
			want:  llm.Completion{FinishReason: "function_call", ToolCalls: []string{"f", "g", "h"}},
			tools: []streamToolCall{{"a", "f", "{}"}, {"b", "g", "{}"}, {"", "h", "[]"}},
		},
		{
			name: "logprobs, other choices ignored, usage in every chunk (the last counts)",
			body: `data: {"choices":[{"index":0,"delta":{"content":"x"},"logprobs":{"content":[{"token":"x","logprob":-0.5,"bytes":[120]}]}},{"index":1,"delta":{"content":"other"}}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{"content":"y"},"logprobs":{"content":[{"token":"y","logprob":-1}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}` + "\n\ndata: [DONE]\n\n",
			want: llm.Completion{Content: "xy", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 5, CompletionTokens: 2, TotalTokens: 7},
				Logprobs: []llm.TokenLogprob{{Token: "x", Logprob: -0.5, Bytes: []byte("x")}, {Token: "y", Logprob: -1}}},
		},
		{
			name: "a finish_reason and the end of the body, without [DONE]",
			body: chunk("done", "stop"),
			want: llm.Completion{Content: "done", FinishReason: "stop", Model: "m"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := readStream(strings.NewReader(tt.body), 1<<20, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := a.completion()
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			if tt.tools != nil && fmt.Sprint(a.tools) != fmt.Sprint(tt.tools) {
				t.Errorf("tool calls %+v, want %+v", a.tools, tt.tools)
			}
		})
	}
}

// BenchmarkReadStream measures assembling a 4,000-token answer streamed one
// token a chunk, in OpenAI's chunk shape.
func BenchmarkReadStream(b *testing.B) {
	var sb strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&sb, `data: {"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"tok%d "},"logprobs":null,"finish_reason":null}],"usage":null}`+"\n\n", i)
	}
	sb.WriteString(chunk("", "stop") + "data: [DONE]\n\n")
	body := sb.String()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		a, err := readStream(strings.NewReader(body), 1<<20, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.completion(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodePlain is BenchmarkReadStream's baseline: the same answer as
// one non-streamed JSON body, decoded as the non-streaming path decodes it.
func BenchmarkDecodePlain(b *testing.B) {
	var content strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&content, "tok%d ", i)
	}
	body, _ := json.Marshal(map[string]any{"id": "chatcmpl-x", "object": "chat.completion", "created": 1, "model": "m",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content.String()}, "finish_reason": "stop"}}})
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var resp openai.ChatCompletionResponse
		if err := json.Unmarshal(body, &resp); err != nil {
			b.Fatal(err)
		}
		toCompletion(resp)
	}
}

// readStream reads body as a streaming attempt does, without the HTTP
// round trip: sseReader writes standard data events, which are handed to
// the assembler one by one as go-openai's RecvRaw hands them over.
func readStream(body io.Reader, maxLine int, done func()) (*streamAssembler, error) {
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(body)}
	sse := newSSEReader(resp, maxLine, done)
	out, err := io.ReadAll(sse)
	a := &streamAssembler{done: sse.sawDone}
	for _, ev := range strings.Split(string(out), "\n\n") {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		if aerr := a.add([]byte(data)); aerr != nil {
			return a, aerr
		}
	}
	return a, err
}
