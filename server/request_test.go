package server

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/recursion"
)

func TestTimeoutLimit(t *testing.T) {
	tests := []struct {
		name    string
		timeout string // JSON
		max     time.Duration
		want    time.Duration
		wantErr bool
	}{
		{"seconds", `90`, 0, 90 * time.Second, false},
		{"fractional seconds", `2.5`, 0, 2500 * time.Millisecond, false},
		{"duration string", `"90s"`, 0, 90 * time.Second, false},
		{"seconds as string", `"2.5"`, 0, 2500 * time.Millisecond, false},
		{"clamped", `"2h"`, time.Minute, time.Minute, false},
		{"huge number is clamped, not wrapped", `1e300`, time.Minute, time.Minute, false},
		{"huge string is clamped, not wrapped", `"1e300"`, time.Minute, time.Minute, false},
		{"huge without maximum saturates", `1e300`, 0, math.MaxInt64, false},
		{"negative", `-1`, time.Minute, 0, true},
		{"hugely negative", `-1e300`, time.Minute, 0, true},
		{"not a duration", `"soon"`, 0, 0, true},
		{"wrong type", `true`, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{MaxLimits: recursion.Limits{Timeout: tt.max}}
			l, err := limits(&api.RLMOptions{Timeout: json.RawMessage(tt.timeout)}, &cfg)
			if tt.wantErr {
				ae, ok := err.(*api.Error)
				if !ok || ae.Status != 400 || ae.Param != "rlm.timeout" {
					t.Fatalf("timeout %s: error %v, want a 400 naming rlm.timeout", tt.timeout, err)
				}
				return
			}
			if err != nil || l.Timeout != tt.want {
				t.Fatalf("timeout %s: %v, %v; want %v", tt.timeout, l.Timeout, err, tt.want)
			}
		})
	}
}

// TestMaxDepthLimit checks how rlm.max_depth meets the server maximum: 0
// asks for the root alone (the engine's -1), and a negative maximum allows
// the root alone only.
func TestMaxDepthLimit(t *testing.T) {
	ptr := func(n int) *int { return &n }
	tests := []struct {
		name string
		req  *int // nil: not set
		max  int
		want int // recursion.Limits.MaxDepth; 0: the engine's default
	}{
		{"unset", nil, 2, 0},
		{"root alone", ptr(0), 2, -1},
		{"within maximum", ptr(1), 2, 1},
		{"clamped", ptr(5), 2, 2},
		{"no maximum", ptr(5), 0, 5},
		{"maximum root alone clamps", ptr(3), -1, -1},
		{"maximum root alone, request root alone", ptr(0), -1, -1},
		{"maximum root alone, unset", nil, -1, 0}, // the engine's Max applies
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{MaxLimits: recursion.Limits{MaxDepth: tt.max}}
			l, err := limits(&api.RLMOptions{MaxDepth: tt.req}, &cfg)
			if err != nil || l.MaxDepth != tt.want {
				t.Fatalf("MaxDepth %d, %v; want %d", l.MaxDepth, err, tt.want)
			}
		})
	}
}

// TestDecodeTypeErrors checks that a field of the wrong JSON type is
// named in param and described in JSON's terms, never with Go type names.
func TestDecodeTypeErrors(t *testing.T) {
	tests := []struct {
		body, param, msg string
	}{
		{`{"messages":"bad"}`, "messages", `invalid type for "messages": expected an array of message objects, got a string`},
		{`{"messages":[1]}`, "messages", `invalid type for "messages": expected a message object, got a number`},
		{`{"messages":[{"role":5}]}`, "messages.role", `invalid type for "messages.role": expected a string, got a number`},
		{`{"model":["rlm"]}`, "model", `invalid type for "model": expected a string, got an array`},
		{`{"temperature":"hot"}`, "temperature", `invalid type for "temperature": expected a number, got a string`},
		{`{"n":1.5}`, "n", `invalid type for "n": expected an integer, got 1.5`},
		{`{"stream":"yes"}`, "stream", `invalid type for "stream": expected true or false, got a string`},
		{`{"metadata":3}`, "metadata", `invalid type for "metadata": expected an object, got a number`},
		{`{"rlm":[]}`, "rlm", `invalid type for "rlm": expected an object, got an array`},
		{`{"rlm":{"max_depth":true}}`, "rlm.max_depth", `invalid type for "rlm.max_depth": expected an integer, got true or false`},
		{`{"stream_options":{"include_usage":1}}`, "stream_options.include_usage", `invalid type for "stream_options.include_usage": expected true or false, got a number`},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			_, err := decodeChatRequest(strings.NewReader(tt.body))
			var ae *api.Error
			if !errors.As(err, &ae) {
				t.Fatalf("err %v, want an *api.Error", err)
			}
			if ae.Status != 400 || ae.Param != tt.param || ae.Message != tt.msg {
				t.Errorf("got %d param %q message %q\nwant 400 param %q message %q", ae.Status, ae.Param, ae.Message, tt.param, tt.msg)
			}
		})
	}
}

// TestRLMUnknownKeys checks that a key the `rlm` object does not know (a
// typo that would silently drop a limit) is refused with a 400 naming the
// key and the allowed ones, while the known keys still decode.
func TestRLMUnknownKeys(t *testing.T) {
	allowed := "max_depth, max_failed_turns, max_iterations, max_llm_calls, max_total_tokens, offload_threshold, progress, require_session, sub_model, timeout"
	tests := []struct {
		rlm, param string // param "" means accepted
	}{
		{`{"max_iterations":3}`, ""},
		{`{}`, ""},
		{`null`, ""},
		{`{"max_depth":1,"max_iterations":2,"max_llm_calls":3,"max_total_tokens":4,"timeout":"5s","sub_model":"m","offload_threshold":6}`, ""},
		{`{"max_iteration":3}`, "rlm.max_iteration"},
		{`{"max_iterations":3,"depth":1}`, "rlm.depth"},
		{`{"MAX_DEPTH":1}`, "rlm.MAX_DEPTH"},
		{`{"zz":1,"aa":2}`, "rlm.aa"},
	}
	ts := startServer(t, Config{}, nil, nil)
	for _, tt := range tests {
		t.Run(tt.rlm, func(t *testing.T) {
			resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(`"rlm":`+tt.rlm))
			if tt.param == "" {
				if resp.Status != 200 {
					t.Errorf("rlm %s: %d %s", tt.rlm, resp.Status, resp.Body)
				}
				return
			}
			if resp.Status != 400 {
				t.Fatalf("rlm %s: %d %s, want 400", tt.rlm, resp.Status, resp.Body)
			}
			e := resp.json(t)["error"].(map[string]any)
			key := strings.TrimPrefix(tt.param, "rlm.")
			if e["param"] != tt.param || e["code"] != "unknown_parameter" || e["type"] != "invalid_request_error" ||
				!strings.Contains(e["message"].(string), `"`+key+`"`) || !strings.Contains(e["message"].(string), allowed) {
				t.Errorf("rlm %s: error %v, want param %s naming the key and %s", tt.rlm, e, tt.param, allowed)
			}
		})
	}
}
