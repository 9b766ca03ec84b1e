// Package api is the OpenAI-compatible HTTP surface of an inference
// engine: /v1/chat/completions and /v1/completions (streamed or not, with
// logprobs and usage), /v1/models and /health. Chat messages are rendered
// with the Qwen3 chat template of model/tokenizer.
//
// Beyond OpenAI's fields it takes vLLM's top_k, ignore_eos and
// return_token_ids (the response then carries prompt_token_ids and, per
// choice, token_ids: the exact tokens of the prompt and of the sampled
// completion, for training on rollouts without re-tokenizing); a
// completion's prompt may be token ids.
package api

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rlm-project/rlm/inference"
)

// Config configures a Handler.
type Config struct {
	// Keys, when not empty, are the API keys clients must send as
	// "Authorization: Bearer KEY".
	Keys []string
	// MaxRequestBytes bounds a request body (default
	// DefaultMaxRequestBytes).
	MaxRequestBytes int64
	// MaxMessages bounds the messages of a chat request (default 2048,
	// OpenAI's limit), MaxContentParts the content parts of all its
	// messages together (default 8192), and MaxPrompts the prompts of a
	// completions request (default 256). Each is counted while the body
	// is decoded: one past the cap refuses the request with 400 before
	// anything is built for the rest.
	MaxMessages     int
	MaxContentParts int
	MaxPrompts      int
	// RetryAfter is the Retry-After of a 429 (default 1s).
	RetryAfter time.Duration
	Logger     *slog.Logger
}

// Defaults of Config's caps.
const (
	DefaultMaxMessages     = 2048
	DefaultMaxContentParts = 8192
	DefaultMaxPrompts      = 256
	// DefaultMaxRequestBytes is rlm serve's default too: one limit for
	// both servers.
	DefaultMaxRequestBytes = 64 << 20
)

// Handler serves one engine.
type Handler struct {
	e   *inference.Engine
	cfg Config
	mux *http.ServeMux
	adm *admission
}

// New returns the handler of engine e.
func New(e *inference.Engine, cfg Config) *Handler {
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if cfg.MaxMessages <= 0 {
		cfg.MaxMessages = DefaultMaxMessages
	}
	if cfg.MaxContentParts <= 0 {
		cfg.MaxContentParts = DefaultMaxContentParts
	}
	if cfg.MaxPrompts <= 0 {
		cfg.MaxPrompts = DefaultMaxPrompts
	}
	if cfg.RetryAfter <= 0 {
		cfg.RetryAfter = time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	h := &Handler{e: e, cfg: cfg, mux: http.NewServeMux(), adm: &admission{limit: e.Capacity()}}
	h.mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, map[string]string{"status": "ok"}) })
	h.mux.HandleFunc("GET /v1/models", h.models)
	h.mux.HandleFunc("GET /v1/models/{id...}", h.model)
	h.mux.HandleFunc("POST /v1/chat/completions", h.chat)
	h.mux.HandleFunc("POST /v1/completions", h.completions)
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apiError{status: http.StatusNotFound, typ: "invalid_request_error", code: "not_found",
			message: "no route " + r.Method + " " + r.URL.Path})
	})
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if len(h.cfg.Keys) > 0 && r.URL.Path != "/health" {
		key, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		ok := false
		for _, k := range h.cfg.Keys {
			ok = ok || subtle.ConstantTimeCompare([]byte(key), []byte(k)) == 1
		}
		if !ok {
			writeError(w, &apiError{status: http.StatusUnauthorized, typ: "authentication_error", code: "invalid_api_key",
				message: "missing or invalid API key: send Authorization: Bearer KEY"})
			return
		}
	}
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) modelCard() map[string]any {
	return map[string]any{"id": h.e.Name(), "object": "model", "created": 0, "owned_by": "rlm",
		"max_model_len": h.e.MaxModelLen()}
}

func (h *Handler) models(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]any{"object": "list", "data": []any{h.modelCard()}})
}

func (h *Handler) model(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("id") != h.e.Name() {
		writeError(w, h.unknownModel(r.PathValue("id")))
		return
	}
	writeJSON(w, 200, h.modelCard())
}

func (h *Handler) unknownModel(name string) *apiError {
	return &apiError{status: http.StatusNotFound, typ: "invalid_request_error", param: "model", code: "model_not_found",
		message: "The model `" + name + "` does not exist; this server serves `" + h.e.Name() + "`"}
}

func (h *Handler) checkModel(name string) *apiError {
	if name == "" {
		return invalid("model", "model is required")
	}
	if name != h.e.Name() {
		return h.unknownModel(name)
	}
	return nil
}

func newID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// job is one choice to generate: its prompt and engine request.
type job struct {
	index  int
	prompt []int32
	req    inference.Request
}

// outcome is a finished choice.
type outcome struct {
	res inference.Result
	err error
}

// runJobs runs every job concurrently (the engine batches them) and calls
// onDelta, serialised, with each job's pieces as they come.
func (h *Handler) runJobs(r *http.Request, jobs []job, onDelta func(j job, d inference.Delta) error) []outcome {
	out := make([]outcome, len(jobs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var cb func(inference.Delta) error
			if onDelta != nil {
				cb = func(d inference.Delta) error {
					mu.Lock()
					defer mu.Unlock()
					return onDelta(j, d)
				}
			}
			res, err := h.e.Generate(r.Context(), j.req, cb)
			out[i] = outcome{res, err}
		}()
	}
	wg.Wait()
	return out
}

func (h *Handler) retryAfter() int { return max(1, int(h.cfg.RetryAfter.Seconds()+0.5)) }

// admission counts the sequences (choices) of the requests the handler has
// admitted, up to what the engine holds at once, running or queued. A
// request is admitted, or refused with 429, after its body is decoded
// under the caps and before its prompts are built (tokenized, turned into
// jobs): a full server spends nothing on a request it cannot take.
type admission struct {
	limit int
	mu    sync.Mutex
	used  int
}

// tryAcquire takes n sequences, or nothing when they are not free.
func (a *admission) tryAcquire(n int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used+n > a.limit {
		return false
	}
	a.used += n
	return true
}

func (a *admission) release(n int) {
	a.mu.Lock()
	a.used -= n
	a.mu.Unlock()
}

// full reports whether not one sequence is free.
func (a *admission) full() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.used >= a.limit
}

// admit takes the sequences of a request of n choices, or says why not:
// 400 when the engine could never hold them at once, 429 when they are not
// free now. The caller releases them with release(n) when it answered.
func (h *Handler) admit(n int, param string) *apiError {
	if n > h.adm.limit {
		return invalid(param, "this request asks for %d choices at once; the server runs or queues at most %d (--max-seqs plus --max-queued)", n, h.adm.limit)
	}
	if !h.adm.tryAcquire(n) {
		return h.busy()
	}
	return nil
}

// busy is the answer to a request the server has no room for now.
func (h *Handler) busy() *apiError {
	return &apiError{status: http.StatusTooManyRequests, typ: "rate_limit_exceeded", code: "rate_limit_exceeded",
		message:    fmt.Sprintf("the server is running or queueing all the %d sequences it holds; retry later", h.adm.limit),
		retryAfter: h.retryAfter()}
}

// refuseIfFull answers 429 at once, before the body is read, when the
// server has no sequence free; the connection, with the body unread, is
// closed after the answer.
func (h *Handler) refuseIfFull(w http.ResponseWriter) bool {
	if !h.adm.full() {
		return false
	}
	w.Header().Set("Connection", "close")
	writeError(w, h.busy())
	return true
}

// firstError returns the error of the first failed job, if any.
func (h *Handler) firstError(outs []outcome) *apiError {
	for _, o := range outs {
		if o.err != nil {
			return fromEngine(o.err, h.retryAfter())
		}
	}
	return nil
}

type usage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// usageOf counts each distinct prompt once and every choice's completion.
func usageOf(jobs []job, outs []outcome, perPrompt int) usage {
	var u usage
	for i, o := range outs {
		if i%perPrompt == 0 {
			u.PromptTokens += len(jobs[i].prompt)
			u.PromptTokensDetails.CachedTokens += o.res.CachedTokens
		}
		u.CompletionTokens += len(o.res.Tokens)
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// tokenText is a token as logprobs show it: its text (special tokens as
// written, e.g. <|im_end|>) and its bytes.
func (h *Handler) tokenText(id int32) (string, []int) {
	raw := h.e.Tokenizer().TokenBytes(int(id))
	b := make([]int, len(raw))
	for i, c := range raw {
		b[i] = int(c)
	}
	s := string(raw)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s, b
}

func ids32(toks []inference.Token) []int32 {
	out := make([]int32, len(toks))
	for i, t := range toks {
		out[i] = t.ID
	}
	return out
}

// sse writes a server-sent event stream.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(200)
	f, _ := w.(http.Flusher)
	s := &sse{w: w, f: f}
	s.flush()
	return s
}

func (s *sse) flush() {
	if s.f != nil {
		s.f.Flush()
	}
}

func (s *sse) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := s.w.Write(append(append([]byte("data: "), b...), '\n', '\n')); err != nil {
		return err
	}
	s.flush()
	return nil
}

func (s *sse) done() {
	s.w.Write([]byte("data: [DONE]\n\n"))
	s.flush()
}
