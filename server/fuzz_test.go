package server

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/recursion"
)

// FuzzChatRequest feeds arbitrary bodies to the chat request parser: it
// must never panic, and every refusal must be an API error with a client
// status (400/404/413), never a 500.
func FuzzChatRequest(f *testing.F) {
	seeds := []string{
		`{"model":"rlm","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"rlm","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"file","file":{"file_id":"file-0123456789abcdef01234567"}}]}]}`,
		`{"model":"rlm","messages":[{"role":"user","content":[{"type":"file","file":{"file_data":"data:text/plain;base64,aGk=","filename":"x"}}]}]}`,
		`{"model":"rlm","stop":["a","b"],"seed":1,"temperature":0,"top_p":1,"max_completion_tokens":5,"n":1,"response_format":{"type":"text"},"messages":[{"role":"developer","content":"x"}]}`,
		`{"model":"rlm","rlm":{"max_depth":0,"timeout":"90s","max_iterations":1e9,"sub_model":"rlm"},"messages":[{"role":"user","content":null}]}`,
		`{"model":"rlm","rlm":{"timeout":12.5},"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"assistant","content":""}]}`,
		`{"model":1}`, `[]`, `null`, `{"messages":"x"}`, `{"model":"rlm","messages":[{"role":"user","content":[{"type":"file"}]}]}`,
		`{"model":"rlm","messages":[{"role":"user","content":{"x":1}}]}`, `{} {}`, "", `{"model":"rlm","stop":5,"messages":[{"role":"user","content":"x"}]}`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	cfg := Config{Models: []string{"rlm"}, MaxLimits: recursion.Limits{MaxDepth: 2, MaxIterations: 10, Timeout: 60e9}}
	f.Fuzz(func(t *testing.T, body string) {
		cr, err := decodeChatRequest(strings.NewReader(body))
		// The sized path (bodies with a Content-Length) must agree.
		if _, serr := decodeChatRequestSized(strings.NewReader(body), int64(len(body)), Config{}.withDefaults()); len(body) > 0 && (serr == nil) != (err == nil) {
			t.Fatalf("streamed decode: %v, sized decode: %v", err, serr)
		}
		if err == nil {
			var req recursion.Request
			req, _, err = toRunRequest(cr, &cfg)
			if err == nil {
				if len(req.Messages) == 0 || req.Model != "rlm" {
					t.Fatalf("accepted a request without messages or with model %q", req.Model)
				}
				if req.Limits.MaxDepth > 2 || req.Limits.MaxIterations > 10 || req.Limits.Timeout > 60e9 {
					t.Fatalf("limits not clamped: %+v", req.Limits)
				}
				return
			}
		}
		requireClientError(t, err)
	})
}

// FuzzResponsesRequest feeds arbitrary bodies to the Responses request
// parser and its conversion to a run: it must never panic, caps must hold,
// and every refusal must be an API error with a client status.
func FuzzResponsesRequest(f *testing.F) {
	seeds := []string{
		`{"model":"rlm","input":"hi"}`,
		`{"model":"rlm","input":[{"role":"user","content":"hi"}],"instructions":"be brief","metadata":{"a":"b"}}`,
		`{"model":"rlm","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_file","file_id":"file-0123456789abcdef01234567"}]}]}`,
		`{"model":"rlm","input":[{"role":"assistant","content":[{"type":"output_text","text":"a"}]},{"role":"developer","content":"x"}]}`,
		`{"model":"rlm","input":[{"role":"user","content":[{"type":"input_file","file_data":"aGk=","filename":"x.txt"}]}],"background":true,"stream":true}`,
		`{"model":"rlm","input":"x","tools":[],"text":{"format":{"type":"text"}},"max_output_tokens":5,"rlm":{"max_depth":0,"require_session":true}}`,
		`{"model":"rlm","input":[{"type":"function_call","name":"f"}]}`, `{"model":"rlm","input":[[]]}`, `{"model":"rlm","input":[{"role":"user","content":{}}]}`,
		`{"model":"rlm","input":[{"role":"user","content":[1,2]}]}`, `{"input":"x"}`, `[]`, `null`, "", `{"model":"rlm","input":"x","store":false,"background":true}`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	cfg := Config{Models: []string{"rlm"}, MaxLimits: recursion.Limits{MaxDepth: 2, MaxIterations: 10, Timeout: 60e9}, MaxMessages: 8, MaxContentParts: 16}.withDefaults()
	f.Fuzz(func(t *testing.T, body string) {
		rr, items, err := decodeResponsesRequest([]byte(body), cfg)
		if err == nil {
			if len(items) == 0 || len(items) > cfg.MaxMessages {
				t.Fatalf("accepted %d input items", len(items))
			}
			parts := 0
			for _, it := range items {
				parts += len(it.Content)
				stored(it, "resp_000000000000000000000000", 0) // never panics, keeps no inline data
			}
			if parts > cfg.MaxContentParts {
				t.Fatalf("accepted %d content parts", parts)
			}
			var req recursion.Request
			var cr *api.ChatCompletionRequest
			if cr, err = chatRequest(rr, nil, items); err == nil {
				req, _, err = toRunRequest(cr, &cfg)
			}
			if err == nil {
				if len(req.Messages) == 0 || req.Model != "rlm" || req.Limits.MaxDepth > 2 {
					t.Fatalf("accepted %+v", req)
				}
				return
			}
		}
		requireClientError(t, err)
	})
}

// requireClientError fails unless err is a complete API error with a
// client status (400, 404, 413).
func requireClientError(t *testing.T, err error) {
	t.Helper()
	var ae *api.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error is not an API error: %v", err)
	}
	switch ae.Status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge:
	default:
		t.Fatalf("status %d for a bad request: %v", ae.Status, err)
	}
	if ae.Message == "" || ae.Type == "" {
		t.Fatalf("incomplete error %+v", ae)
	}
}
