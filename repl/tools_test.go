package repl

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// toolHost is echoHost that also answers client tool calls: each output
// names the tool and echoes its arguments.
type toolHost struct {
	echoHost
	mu    sync.Mutex
	calls []string
}

func (h *toolHost) CallTools(ctx context.Context, tool string, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		h.mu.Lock()
		h.calls = append(h.calls, tool+" "+a)
		h.mu.Unlock()
		out[i] = tool + "<-" + a
	}
	return out
}

// TestClientTools: the client's tools are Go functions of the session
// (named, batched, and through tool_call for names that are no Go
// identifiers), their arguments sent as JSON; a call the session cannot
// make is an error string for the model, and nothing reaches the host.
func TestClientTools(t *testing.T) {
	t.Parallel()
	p := newTestPool(t, 1)
	h := &toolHost{}
	s, err := p.NewSession(context.Background(), SessionConfig{Host: h, Tools: []string{"get_weather", "send-mail", "len"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tt := range []struct{ code, want string }{
		{`fmt.Println(get_weather(map[string]any{"city": "Paris"}))`, `get_weather<-{"city":"Paris"}`},
		{`type Q struct{ City string ` + "`json:\"city\"`" + ` }
fmt.Println(get_weather(Q{City: "Rome"}))`, `get_weather<-{"city":"Rome"}`},
		{`fmt.Println(get_weather_batched([]any{map[string]any{"city": "A"}, map[string]any{"city": "B"}}))`, `[get_weather<-{"city":"A"} get_weather<-{"city":"B"}]`},
		{`fmt.Println(tool_call("send-mail", ` + "`{\"to\":\"x@example.org\"}`" + `))`, `send-mail<-{"to":"x@example.org"}`},
		{`fmt.Println(len("abc"))`, `3`}, // a tool named like a Go name keeps the Go name
		{`fmt.Println(tool_call("nope", nil))`, `error: tool nope: no such tool`},
		{`fmt.Println(tool_call("get_weather", "not json"))`, `are not JSON`},
	} {
		r := run(t, s, tt.code)
		if r.Error != "" || !strings.Contains(r.Output, tt.want) {
			t.Errorf("%s:\noutput %q error %q, want %q", tt.code, r.Output, r.Error, tt.want)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.calls) != 5 {
		t.Errorf("the host got %d calls, want 5: %q", len(h.calls), h.calls)
	}
	// A session without tools, and a host without CallTools.
	plain := newTestSession(t, p)
	if r := run(t, plain, `fmt.Println(tool_call("x", nil))`); !strings.Contains(r.Output, "no client tools") {
		t.Errorf("a session without tools: %q %q", r.Output, r.Error)
	}
}
