// Package api is the OpenAI-compatible HTTP surface of an inference
// engine: /v1/chat/completions and /v1/completions (streamed or not, with
// logprobs and usage), /v1/models and /health. Chat messages are rendered
// with the Qwen3 chat template of training/tokenizer.
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
	// MaxRequestBytes bounds a request body (default 16 MiB).
	MaxRequestBytes int64
	// RetryAfter is the Retry-After of a 429 (default 1s).
	RetryAfter time.Duration
	Logger     *slog.Logger
}

// Handler serves one engine.
type Handler struct {
	e   *inference.Engine
	cfg Config
	mux *http.ServeMux
}

// New returns the handler of engine e.
func New(e *inference.Engine, cfg Config) *Handler {
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = 16 << 20
	}
	if cfg.RetryAfter <= 0 {
		cfg.RetryAfter = time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	h := &Handler{e: e, cfg: cfg, mux: http.NewServeMux()}
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
