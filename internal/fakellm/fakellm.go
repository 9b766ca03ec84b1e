// Package fakellm is a test double: a scripted fake OpenAI-compatible
// upstream served over real HTTP (httptest). It is not a model. A test gives
// it a Script, a function from the request it received to the reply it
// should send, so a fake "root model" can write code for a task and a fake
// "sub-model" can answer from the text it was given. It records every
// request body, can add latency, and can inject 429 and 5xx answers.
// Streaming is not supported.
package fakellm

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Message is one chat message of a request. A content sent as parts
// (text and images) reads as its text parts joined; the images are in
// Request.Body.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (m *Message) UnmarshalJSON(b []byte) error {
	var raw struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	m.Role = raw.Role
	if json.Unmarshal(raw.Content, &m.Content) == nil {
		return nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw.Content, &parts); err != nil && string(raw.Content) != "null" && len(raw.Content) > 0 {
		return err
	}
	for _, p := range parts {
		m.Content += p.Text
	}
	return nil
}

// Request is one chat completion request as the fake received it.
type Request struct {
	Model    string
	Messages []Message
	// Body is the raw JSON body, for checking exactly what was sent
	// (e.g. that "temperature":0 is present).
	Body []byte
	// Fields is Body decoded into a map.
	Fields map[string]json.RawMessage
}

// System returns the content of the first system message.
func (r Request) System() string {
	for _, m := range r.Messages {
		if m.Role == "system" {
			return m.Content
		}
	}
	return ""
}

// FirstUser returns the content of the first user message: a root
// model's input, as the RLM shows it.
func (r Request) FirstUser() string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

// LastUser returns the content of the last user message.
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Turn returns how many assistant messages the request already holds plus
// one: the 1-based turn this request asks for.
func (r Request) Turn() int {
	n := 1
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}

// Reply is what the fake sends back.
type Reply struct {
	Content      string
	FinishReason string // default "stop"
	// Usage; zero means estimated as characters/4 of prompt and reply.
	PromptTokens, CompletionTokens int
	// Logprobs, returned in the OpenAI format when non-empty.
	Logprobs []Logprob
	// Status other than 0 or 200 sends an OpenAI-style error body with it.
	Status     int
	RetryAfter string // Retry-After header value for error replies
	// Delay is added to the server's latency for this reply.
	Delay time.Duration
	// Model is the model the reply says answered; empty echoes the request's.
	Model string
	// ReasoningContent is sent as message.reasoning_content, the way vLLM's
	// reasoning parser and DeepSeek separate reasoning from the answer.
	ReasoningContent string
	// ToolCalls are function names sent as message.tool_calls.
	ToolCalls []string
}

// Logprob is one token's log probability.
type Logprob struct {
	Token   string
	Logprob float64
}

// Script decides the reply to a request. It is called concurrently.
type Script func(Request) Reply

// Option configures a Server.
type Option func(*Server)

// WithLatency delays every reply by d (cancelled requests stop waiting).
func WithLatency(d time.Duration) Option { return func(s *Server) { s.latency = d } }

// WithFailures makes the first n requests fail with status, sending
// Retry-After: retryAfter when it is not empty.
func WithFailures(n, status int, retryAfter string) Option {
	return func(s *Server) { s.failN, s.failStatus, s.failRetryAfter = n, status, retryAfter }
}

// WithoutRecording keeps no request (Requests returns none; Count still
// counts them), for load tests that send the fake gigabytes of prompts.
func WithoutRecording() Option { return func(s *Server) { s.noRecord = true } }

// WithModels makes GET /v1/models list ids, as OpenAI's API does; without
// it the fake has no model list (404). With a key, GET /v1/models answers
// 401 unless the request carries it as a bearer token.
func WithModels(key string, ids ...string) Option {
	return func(s *Server) { s.models, s.modelsKey = ids, key }
}

// Server is the fake upstream. Its URL ends in /v1, ready to be an
// OpenAI base URL.
type Server struct {
	URL string

	script         Script
	latency        time.Duration
	failN          int
	failStatus     int
	failRetryAfter string
	models         []string
	modelsKey      string
	ts             *httptest.Server

	mu          sync.Mutex
	requests    []Request
	inFlight    int
	maxInFlight int
	served      int
	noRecord    bool
	listener    net.Listener
}

// WithListener serves on ln instead of a new loopback port (a fixed
// address for a tool that runs the fake on its own).
func WithListener(ln net.Listener) Option { return func(s *Server) { s.listener = ln } }

// New starts a fake upstream answering with script. Close it when done.
func New(script Script, opts ...Option) *Server {
	s := &Server{script: script}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	if s.models != nil {
		mux.HandleFunc("GET /v1/models", s.listModels)
	}
	if s.listener != nil {
		s.ts = httptest.NewUnstartedServer(mux)
		s.ts.Listener.Close()
		s.ts.Listener = s.listener
		s.ts.Start()
	} else {
		s.ts = httptest.NewServer(mux)
	}
	s.URL = s.ts.URL + "/v1"
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.ts.Close() }

// Requests returns a copy of every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count is the number of requests received so far.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served
}

// MaxInFlight is the largest number of requests the fake was handling at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	if s.modelsKey != "" && r.Header.Get("Authorization") != "Bearer "+s.modelsKey {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
		return
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		OwnedBy string `json:"owned_by"`
	}
	out := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, id := range s.models {
		out.Data = append(out.Data, model{ID: id, Object: "model", OwnedBy: "fakellm"})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req struct {
		Model    string    `json:"model"`
		Messages []Message `json:"messages"`
		Stream   bool      `json:"stream"`
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil || json.Unmarshal(body, &fields) != nil {
		writeError(w, http.StatusBadRequest, "", fmt.Sprintf("fakellm: bad JSON body: %v", err))
		return
	}
	rec := Request{Model: req.Model, Messages: req.Messages, Body: body, Fields: fields}

	s.mu.Lock()
	if !s.noRecord {
		s.requests = append(s.requests, rec)
	}
	s.served++
	n := s.served
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()

	if req.Stream {
		writeError(w, http.StatusBadRequest, "", "fakellm: streaming is not supported")
		return
	}
	if n <= s.failN {
		if !sleep(r, s.latency) {
			return
		}
		writeError(w, s.failStatus, s.failRetryAfter, fmt.Sprintf("fakellm: injected failure %d of %d", n, s.failN))
		return
	}
	rep := s.script(rec)
	if !sleep(r, s.latency+rep.Delay) {
		return
	}
	if rep.Status != 0 && rep.Status != http.StatusOK {
		writeError(w, rep.Status, rep.RetryAfter, "fakellm: scripted failure")
		return
	}
	writeReply(w, rec, rep)
}

func sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func writeError(w http.ResponseWriter, status int, retryAfter, msg string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "fakellm_error"}})
}

func writeReply(w http.ResponseWriter, req Request, rep Reply) {
	prompt, completion := rep.PromptTokens, rep.CompletionTokens
	if prompt == 0 && completion == 0 {
		chars := 0
		for _, m := range req.Messages {
			chars += len(m.Content)
		}
		prompt, completion = chars/4+1, len(rep.Content)/4+1
	}
	finish := rep.FinishReason
	if finish == "" {
		finish = "stop"
	}
	msg := map[string]any{"role": "assistant", "content": rep.Content}
	if rep.ReasoningContent != "" {
		msg["reasoning_content"] = rep.ReasoningContent
	}
	if len(rep.ToolCalls) > 0 {
		var calls []any
		for i, name := range rep.ToolCalls {
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d", i), "type": "function",
				"function": map[string]any{"name": name, "arguments": "{}"}})
		}
		msg["tool_calls"] = calls
	}
	choice := map[string]any{
		"index":         0,
		"message":       msg,
		"finish_reason": finish,
	}
	if len(rep.Logprobs) > 0 {
		content := make([]map[string]any, len(rep.Logprobs))
		for i, lp := range rep.Logprobs {
			content[i] = map[string]any{"token": lp.Token, "logprob": lp.Logprob, "top_logprobs": []any{}}
		}
		choice["logprobs"] = map[string]any{"content": content}
	}
	model := rep.Model
	if model == "" {
		model = req.Model
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id":      "fakellm-1",
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   model,
		"choices": []any{choice},
		"usage":   map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
	})
}

// Code wraps Go source in a ```go fence, the way a root model writes a cell.
func Code(src string) string {
	return "```go\n" + strings.TrimSpace(src) + "\n```"
}
