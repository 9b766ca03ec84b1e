package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
)

func TestErrorStatuses(t *testing.T) {
	ts := startServer(t, Config{Keys: []string{"k1"}, Models: []string{"rlm", "small"}, MaxRequestBytes: 4096}, nil, nil)
	tests := []struct {
		name          string
		method, path  string
		key           string
		body          string
		status        int
		typ, param    string
		msgContains   string
		noContentType bool
	}{
		{"unknown route", "GET", "/v1/nope", "k1", "", 404, "invalid_request_error", "", "unknown URL", false},
		{"unknown route without key", "GET", "/nope", "", "", 404, "invalid_request_error", "", "unknown URL", false},
		{"wrong method", "PUT", "/v1/chat/completions", "k1", "{}", 405, "invalid_request_error", "", "not allowed", false},
		{"no key", "GET", "/v1/models", "", "", 401, "invalid_request_error", "", "missing API key", false},
		{"wrong key", "GET", "/v1/models", "nope", "", 401, "invalid_request_error", "", "incorrect API key", false},
		{"invalid JSON", "POST", "/v1/chat/completions", "k1", `{"model":`, 400, "invalid_request_error", "", "", false},
		{"not an object", "POST", "/v1/chat/completions", "k1", `[1,2]`, 400, "invalid_request_error", "", "", false},
		{"wrong type", "POST", "/v1/chat/completions", "k1", `{"model":"rlm","temperature":"hot","messages":[{"role":"user","content":"x"}]}`, 400, "invalid_request_error", "temperature", `invalid type for "temperature": expected a number, got a string`, false},
		{"messages not an array", "POST", "/v1/chat/completions", "k1", `{"model":"rlm","messages":"bad"}`, 400, "invalid_request_error", "messages", `invalid type for "messages": expected an array of message objects, got a string`, false},
		{"no model", "POST", "/v1/chat/completions", "k1", `{"messages":[{"role":"user","content":"x"}]}`, 400, "invalid_request_error", "model", "model", false},
		{"unknown model", "POST", "/v1/chat/completions", "k1", `{"model":"gpt-9","messages":[{"role":"user","content":"x"}]}`, 404, "invalid_request_error", "model", "does not exist", false},
		{"no messages", "POST", "/v1/chat/completions", "k1", `{"model":"rlm","messages":[]}`, 400, "invalid_request_error", "messages", "", false},
		{"bad role", "POST", "/v1/chat/completions", "k1", `{"model":"rlm","messages":[{"role":"wizard","content":"x"}]}`, 400, "invalid_request_error", "messages[0].role", "", false},
		{"bad part", "POST", "/v1/chat/completions", "k1", `{"model":"rlm","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`, 400, "invalid_request_error", "messages[0].content[0].type", "", false},
		{"n=2", "POST", "/v1/chat/completions", "k1", `{"model":"rlm","n":2,"messages":[{"role":"user","content":"x"}]}`, 400, "invalid_request_error", "n", "", false},
		{"json_schema", "POST", "/v1/chat/completions", "k1", `{"model":"rlm","response_format":{"type":"json_schema"},"messages":[{"role":"user","content":"x"}]}`, 400, "invalid_request_error", "response_format", "", false},
		{"temperature range", "POST", "/v1/chat/completions", "k1", `{"model":"rlm","temperature":3,"messages":[{"role":"user","content":"x"}]}`, 400, "invalid_request_error", "temperature", "", false},
		{"negative limit", "POST", "/v1/chat/completions", "k1", `{"model":"rlm","rlm":{"max_depth":-1},"messages":[{"role":"user","content":"x"}]}`, 400, "invalid_request_error", "rlm.max_depth", "", false},
		{"bad timeout", "POST", "/v1/chat/completions", "k1", `{"model":"rlm","rlm":{"timeout":"soon"},"messages":[{"role":"user","content":"x"}]}`, 400, "invalid_request_error", "rlm.timeout", "", false},
		{"unknown sub_model", "POST", "/v1/chat/completions", "k1", `{"model":"rlm","rlm":{"sub_model":"x"},"messages":[{"role":"user","content":"x"}]}`, 400, "invalid_request_error", "rlm.sub_model", "", false},
		{"unknown file", "POST", "/v1/chat/completions", "k1", `{"model":"rlm","messages":[{"role":"user","content":[{"type":"file","file":{"file_id":"file-000000000000000000000000"}}]}]}`, 404, "invalid_request_error", "messages[0].content[0].file.file_id", "no such file", false},
		{"body too large", "POST", "/v1/chat/completions", "k1", `{"model":"rlm","messages":[{"role":"user","content":"` + strings.Repeat("x", 5000) + `"}]}`, 413, "invalid_request_error", "", "4096 bytes", false},
		{"missing file", "GET", "/v1/files/file-000000000000000000000000", "k1", "", 404, "invalid_request_error", "file_id", "", false},
		{"malformed file id", "GET", "/v1/files/..%2f..%2fetc", "k1", "", 404, "invalid_request_error", "file_id", "", false},
		{"missing completion", "GET", "/v1/chat/completions/chatcmpl-000000000000000000000000", "k1", "", 404, "invalid_request_error", "completion_id", "", false},
		{"upload not multipart", "POST", "/v1/files", "k1", `{}`, 400, "invalid_request_error", "file", "multipart", false},
		{"unknown model object", "GET", "/v1/models/gpt-9", "k1", "", 404, "invalid_request_error", "model", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body *strings.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			var resp response
			if body != nil {
				resp = do(t, tt.method, ts.URL+tt.path, tt.key, body)
			} else {
				resp = do(t, tt.method, ts.URL+tt.path, tt.key, nil)
			}
			if resp.Status != tt.status {
				t.Fatalf("status %d, want %d; body %s", resp.Status, tt.status, resp.Body)
			}
			checkErrorBody(t, resp, tt.typ, tt.param, tt.msgContains)
		})
	}
}

// checkErrorBody checks OpenAI's error shape: exactly one "error" object
// with message, type, param and code, and nothing that looks like a trace.
func checkErrorBody(t *testing.T, resp response, typ, param, msg string) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q", ct)
	}
	var body struct {
		Error *struct {
			Message *string `json:"message"`
			Type    *string `json:"type"`
			Param   *string `json:"param"`
			Code    any     `json:"code"`
		} `json:"error"`
	}
	raw := map[string]json.RawMessage{}
	if err := json.Unmarshal(resp.Body, &raw); err != nil {
		t.Fatalf("error body is not JSON: %s", resp.Body)
	}
	if len(raw) != 1 {
		t.Errorf("error body has fields beyond \"error\": %s", resp.Body)
	}
	json.Unmarshal(resp.Body, &body)
	if body.Error == nil || body.Error.Message == nil || body.Error.Type == nil {
		t.Fatalf("not an OpenAI error: %s", resp.Body)
	}
	e := body.Error
	var inner map[string]json.RawMessage
	json.Unmarshal(raw["error"], &inner)
	for _, f := range []string{"message", "type", "param", "code"} {
		if _, ok := inner[f]; !ok {
			t.Errorf("error lacks %q: %s", f, resp.Body)
		}
	}
	if *e.Type != typ {
		t.Errorf("type %q, want %q", *e.Type, typ)
	}
	gotParam := ""
	if e.Param != nil {
		gotParam = *e.Param
	}
	if gotParam != param {
		t.Errorf("param %q, want %q", gotParam, param)
	}
	if !strings.Contains(*e.Message, msg) {
		t.Errorf("message %q does not mention %q", *e.Message, msg)
	}
	if strings.Contains(string(resp.Body), "goroutine ") || strings.Contains(string(resp.Body), ".go:") {
		t.Errorf("error body leaks internals: %s", resp.Body)
	}
}

func TestRunOutcomes(t *testing.T) {
	tests := []struct {
		name   string
		result recursion.Result
		err    error
		status int
		typ    string
		finish string
	}{
		{"final", finalResult("42"), nil, 200, "", "stop"},
		{"iterations", recursion.Result{Answer: "partial", StopReason: recursion.StopMaxIterations}, nil, 200, "", "length"},
		{"call budget", recursion.Result{Answer: "partial", StopReason: recursion.StopBudgetCalls}, nil, 200, "", "length"},
		{"token budget", recursion.Result{StopReason: recursion.StopBudgetTokens}, nil, 200, "", "length"},
		{"timeout", recursion.Result{StopReason: recursion.StopTimeout, Error: "5s"}, nil, 504, "timeout_error", ""},
		{"deadline error", recursion.Result{}, fmt.Errorf("run: %w", context.DeadlineExceeded), 504, "timeout_error", ""},
		{"upstream", recursion.Result{StopReason: recursion.StopUpstreamError, Error: "HTTP 500 from upstream"}, nil, 502, "upstream_error", ""},
		{"upstream error value", recursion.Result{}, &llm.Error{Upstream: "u", Attempts: 5, Err: errors.New("dial tcp: connection refused")}, 502, "upstream_error", ""},
		{"setup error", recursion.Result{}, errors.New("recursion: start REPL: no workers"), 500, "server_error", ""},
		{"setup error naming a file", recursion.Result{}, errors.New(`open document "a.txt": open /srv/rlm-data/files/open/file-1.blob: no such file`), 500, "server_error", ""},
		{"cancelled", recursion.Result{StopReason: recursion.StopCancelled}, nil, 499, "invalid_request_error", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := &fakeRunner{result: tt.result, err: tt.err}
			ts := startServer(t, Config{}, nil, fr)
			resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(""))
			if resp.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tt.status, resp.Body)
			}
			if tt.status != 200 {
				checkErrorBody(t, resp, tt.typ, "", "")
				if strings.Contains(string(resp.Body), "/srv/rlm-data") {
					t.Errorf("the answer shows the server's paths: %s", resp.Body)
				}
				return
			}
			var c api.ChatCompletion
			json.Unmarshal(resp.Body, &c)
			if len(c.Choices) != 1 || c.Choices[0].FinishReason != tt.finish || *c.Choices[0].Message.Content != tt.result.Answer {
				t.Errorf("choices %+v, want finish %q answer %q", c.Choices, tt.finish, tt.result.Answer)
			}
			if c.RLM == nil || c.RLM.StopReason != string(tt.result.StopReason) {
				t.Errorf("rlm %+v", c.RLM)
			}
		})
	}
}

func TestChatCompletion(t *testing.T) {
	// The models that answered: root turns and llm_query calls, by the
	// name the upstream gave itself when it did; a failed call answered
	// nothing.
	fr := &fakeRunner{result: finalResult("The answer is 42."), events: []recursion.Event{
		{Kind: recursion.EventModelCall, NodeID: "0", Model: &recursion.ModelCallEvent{Model: "root-up", ResponseModel: "root-up-2026-01"}},
		{Kind: recursion.EventSubCallEnd, NodeID: "0", SubCall: &recursion.SubCallEvent{ID: "s1", Kind: "llm"},
			Model: &recursion.ModelCallEvent{Model: "small-up"}},
		{Kind: recursion.EventSubCallEnd, NodeID: "0", SubCall: &recursion.SubCallEvent{ID: "s2", Kind: "llm", Err: "429"},
			Model: &recursion.ModelCallEvent{Model: "failed-up", Err: "429"}},
		{Kind: recursion.EventModelCall, NodeID: "0", Model: &recursion.ModelCallEvent{Model: "root-up", ResponseModel: "root-up-2026-01"}},
	}}
	cfg := Config{Models: []string{"rlm", "small"},
		MaxLimits: recursion.Limits{MaxDepth: 2, MaxIterations: 10, MaxLLMCalls: 50, MaxTotalTokens: 1000, Timeout: time.Minute, MaxFailedTurns: 4}}
	ts := startServer(t, cfg, nil, fr)
	body := `{"model":"rlm","unknown_field":{"x":1},"user":"u1","metadata":{"a":"b"},"seed":7,
	  "temperature":0,"top_p":0.5,"max_tokens":10,"max_completion_tokens":20,"stop":"END","n":1,
	  "response_format":{"type":"text"},
	  "messages":[{"role":"developer","content":"be brief"},
	    {"role":"user","content":[{"type":"text","text":"part one"},{"type":"text","text":"part two"}]},
	    {"role":"assistant","content":null},{"role":"user","content":"q"}],
	  "rlm":{"max_depth":5,"max_iterations":3,"max_failed_turns":9,"max_llm_calls":500,"max_total_tokens":10,"timeout":"2h","sub_model":"small","offload_threshold":1000}}`
	resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", strings.NewReader(body))
	if resp.Status != 200 {
		t.Fatalf("status %d: %s", resp.Status, resp.Body)
	}
	var c api.ChatCompletion
	if err := json.Unmarshal(resp.Body, &c); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.ID, "chatcmpl-") || c.Object != "chat.completion" || c.Model != "rlm" || c.Created == 0 {
		t.Errorf("header fields: %+v", c)
	}
	if c.Choices[0].Message.Role != "assistant" || *c.Choices[0].Message.Content != "The answer is 42." || c.Choices[0].FinishReason != "stop" {
		t.Errorf("choice %+v", c.Choices[0])
	}
	if *c.Usage != (api.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}) {
		t.Errorf("usage %+v", c.Usage)
	}
	if c.RLM.Iterations != 3 || c.RLM.LLMCalls != 7 || c.RLM.MaxDepth != 1 || c.RLM.DurationMS != 1500 || c.RLM.StopReason != "final" {
		t.Errorf("rlm %+v", c.RLM)
	}
	if fmt.Sprint(c.RLM.Models) != "[root-up-2026-01 small-up]" {
		t.Errorf("rlm.models %v: want the models that answered, each once", c.RLM.Models)
	}
	if tid := resp.Header.Get("X-RLM-Trace-Id"); tid == "" || tid != c.RLM.TraceID {
		t.Errorf("X-RLM-Trace-Id %q, rlm.trace_id %q", tid, c.RLM.TraceID)
	}
	reqs := fr.requests()
	if len(reqs) != 1 {
		t.Fatalf("runner got %d requests", len(reqs))
	}
	r := reqs[0]
	wantMsgs := []llm.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "part one\npart two"},
		{Role: "assistant", Content: ""}, {Role: "user", Content: "q"}}
	if fmt.Sprint(r.Messages) != fmt.Sprint(wantMsgs) {
		t.Errorf("messages %+v, want %+v", r.Messages, wantMsgs)
	}
	s := r.Sampling
	if s.Temperature == nil || *s.Temperature != 0 || s.TopP == nil || *s.TopP != 0.5 || s.MaxTokens == nil || *s.MaxTokens != 20 ||
		s.Seed == nil || *s.Seed != 7 || fmt.Sprint(s.Stop) != "[END]" {
		t.Errorf("sampling not passed through: %+v", s)
	}
	wantLim := recursion.Limits{MaxDepth: 2, MaxIterations: 3, MaxLLMCalls: 50, MaxTotalTokens: 10, Timeout: time.Minute, SubModel: "small", OffloadThreshold: 1000, MaxFailedTurns: 4}
	if r.Limits != wantLim {
		t.Errorf("limits %+v, want (clamped) %+v", r.Limits, wantLim)
	}
	if r.Model != "rlm" || r.TraceID == "" {
		t.Errorf("model %q trace %q", r.Model, r.TraceID)
	}
}

func TestNotConfigured(t *testing.T) {
	ts := startServer(t, Config{NotConfigured: "no upstream configured: set --upstream or RLM_UPSTREAM"}, nil, nil)
	resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(""))
	if resp.Status != http.StatusServiceUnavailable {
		t.Fatalf("status %d: %s", resp.Status, resp.Body)
	}
	checkErrorBody(t, resp, "server_error", "", "--upstream")
	if r := do(t, "GET", ts.URL+"/readyz", "", nil); r.Status != 503 {
		t.Errorf("readyz %d without upstream", r.Status)
	}
	if r := do(t, "GET", ts.URL+"/healthz", "", nil); r.Status != 200 {
		t.Errorf("healthz %d", r.Status)
	}
}

func TestModelsAndHealth(t *testing.T) {
	info := ModelInfo{Model: "tiny", ServedBy: "builtin", Description: "a demo model"}
	ts := startServer(t, Config{Models: []string{"rlm", "small"}, ModelInfo: map[string]ModelInfo{"rlm": info}}, nil, nil)
	// A model object as a client decodes it, with rlm's extension.
	type model struct {
		ID      string     `json:"id"`
		Object  string     `json:"object"`
		Created int64      `json:"created"`
		OwnedBy string     `json:"owned_by"`
		RLM     *ModelInfo `json:"rlm"`
	}
	var list struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}
	if err := json.Unmarshal(do(t, "GET", ts.URL+"/v1/models", "", nil).Body, &list); err != nil {
		t.Fatal(err)
	}
	if list.Object != "list" || len(list.Data) != 2 {
		t.Fatalf("models %+v", list)
	}
	for i, want := range []model{
		{ID: "rlm", Object: "model", OwnedBy: "rlm-project", RLM: &info},
		{ID: "small", Object: "model", OwnedBy: "rlm-project"},
	} {
		if got := list.Data[i]; !reflect.DeepEqual(got, want) {
			t.Errorf("model %d: %+v %+v, want %+v %+v", i, got, got.RLM, want, want.RLM)
		}
	}
	one := do(t, "GET", ts.URL+"/v1/models/rlm", "", nil)
	if one.Status != 200 || !strings.Contains(string(one.Body), `"rlm":{"model":"tiny","served_by":"builtin","description":"a demo model"}`) {
		t.Errorf("GET model: %d %s", one.Status, one.Body)
	}
	if r := do(t, "GET", ts.URL+"/readyz", "", nil); r.Status != 200 {
		t.Errorf("readyz %d: %s", r.Status, r.Body)
	}
}

func TestMetrics(t *testing.T) {
	fr := &fakeRunner{result: finalResult("x"), events: scriptEvents()}
	ts := startServer(t, Config{}, nil, fr)
	do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(""))
	do(t, "GET", ts.URL+"/v1/nope", "", nil)
	body := string(do(t, "GET", ts.URL+"/metrics", "", nil).Body)
	for _, want := range []string{
		`rlm_http_requests_total{code="200",method="POST",route="/v1/chat/completions"} 1`,
		`rlm_http_requests_total{code="404",method="GET",route="unmatched"} 1`,
		`rlm_http_request_duration_seconds_count{method="POST",route="/v1/chat/completions"} 1`,
		`rlm_run_iterations_sum 3`,
		`rlm_run_llm_calls_sum 7`,
		`rlm_subcalls_total{kind="llm"} 1`,
		`rlm_tokens_total{type="prompt"} 100`,
		`rlm_tokens_total{type="completion"} 20`,
		`rlm_repl_sessions 0`,
		`rlm_errors_total{kind="not_found"} 1`,
		`rlm_runs_total{stop_reason="final"} 1`,
		`rlm_runs_in_flight 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestConcurrencyLimit(t *testing.T) {
	fr := &fakeRunner{result: finalResult("x"), block: make(chan struct{}), started: make(chan struct{}, 4)}
	ts := startServer(t, Config{MaxConcurrent: 1, QueueWait: 100 * time.Millisecond, RetryAfter: 3 * time.Second}, nil, fr)
	first := make(chan response, 1)
	go func() { first <- do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody("")) }()
	<-fr.started
	resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(""))
	if resp.Status != 429 || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("second request: %d, Retry-After %q; want 429, 3", resp.Status, resp.Header.Get("Retry-After"))
	}
	checkErrorBody(t, resp, "rate_limit_error", "", "busy")
	// A queued request that gets a slot within QueueWait runs.
	queued := make(chan response, 1)
	go func() { queued <- do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody("")) }()
	time.Sleep(20 * time.Millisecond)
	close(fr.block)
	if r := <-first; r.Status != 200 {
		t.Errorf("first: %d", r.Status)
	}
	if r := <-queued; r.Status != 200 {
		t.Errorf("queued: %d %s", r.Status, r.Body)
	}
}

// TestQueueBounded fills the run slot and the queue: the next request is
// turned away at once instead of waiting out QueueWait with its body held.
// (Queueing after the body is read means slow clients still sending theirs
// cannot fill the queue.)
func TestQueueBounded(t *testing.T) {
	fr := &fakeRunner{result: finalResult("x"), block: make(chan struct{}), started: make(chan struct{}, 4)}
	ts := startServer(t, Config{MaxConcurrent: 1, MaxQueued: 1, QueueWait: 10 * time.Second, RetryAfter: 3 * time.Second}, nil, fr)
	running, queued := fillSlotAndQueue(t, ts, fr)
	start := time.Now()
	resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(""))
	if resp.Status != 429 || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("third request: %d, Retry-After %q; want 429, 3", resp.Status, resp.Header.Get("Retry-After"))
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Errorf("third request waited %v for a full queue; want an answer at once", waited)
	}
	checkErrorBody(t, resp, "rate_limit_error", "", "busy")
	close(fr.block)
	if r := <-running; r.Status != 200 {
		t.Errorf("running: %d", r.Status)
	}
	if r := <-queued; r.Status != 200 {
		t.Errorf("queued: %d %s", r.Status, r.Body)
	}
}

func TestAuthSchemes(t *testing.T) {
	ts := startServer(t, Config{Keys: []string{"k1"}}, nil, nil)
	tests := []struct {
		header string
		status int
	}{
		{"Bearer k1", 200},
		{"bearer k1", 200},
		{"Bearer  k1 ", 200},
		{"Basic k1", 401},
		{"k1", 401},
		{"Bearer k2", 401},
		{"", 401},
	}
	for _, tt := range tests {
		resp := do(t, "GET", ts.URL+"/v1/models", "", nil, "Authorization", tt.header)
		if resp.Status != tt.status {
			t.Errorf("Authorization %q: %d, want %d", tt.header, resp.Status, tt.status)
		}
	}
}

// TestReadyChecks: /readyz answers 503 while a configured check fails,
// naming it, and extra collectors show on /metrics.
func TestReadyChecks(t *testing.T) {
	var failing atomic.Bool
	extra := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "rlm_test_extra", Help: "test"}, func() float64 { return 7 })
	ts := startServer(t, Config{Collectors: []prometheus.Collector{extra}, ReadyChecks: map[string]func(context.Context) error{
		"trace_saving": func(context.Context) error {
			if failing.Load() {
				return errors.New("the last trace save failed 1s ago")
			}
			return nil
		},
	}}, nil, nil)
	if r := do(t, "GET", ts.URL+"/readyz", "", nil); r.Status != 200 {
		t.Fatalf("readyz: %d %s", r.Status, r.Body)
	}
	failing.Store(true)
	r := do(t, "GET", ts.URL+"/readyz", "", nil)
	if r.Status != 503 || !strings.Contains(string(r.Body), `"code":"trace_saving_unhealthy"`) || !strings.Contains(string(r.Body), "last trace save failed") {
		t.Fatalf("readyz with a failing check: %d %s", r.Status, r.Body)
	}
	if m := do(t, "GET", ts.URL+"/metrics", "", nil); !strings.Contains(string(m.Body), "rlm_test_extra 7") {
		t.Errorf("extra collector not on /metrics")
	}
}
