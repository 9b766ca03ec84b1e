// Package modelserver is the OpenAI-compatible HTTP server of one
// inference engine (rlm model serve): /v1/chat/completions and
// /v1/completions (streamed or not, with logprobs and usage), /v1/models
// and /health, on echo, in the wire format of package api. Chat messages
// are rendered with the Qwen3 chat template of model/tokenizer.
//
// Beyond OpenAI's fields it takes vLLM's top_k, ignore_eos and
// return_token_ids (the response then carries prompt_token_ids and, per
// choice, token_ids: the exact tokens of the prompt and of the sampled
// completion, for training on rollouts without re-tokenizing); a
// completion's prompt may be token ids.
package modelserver

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/inference"
)

// Config configures a Server.
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
	DefaultMaxPrompts = 256
	// DefaultMaxRequestBytes is rlm serve's default too: one limit for
	// both servers.
	DefaultMaxRequestBytes = 64 << 20
)

// Server serves one engine.
type Server struct {
	e   *inference.Engine
	cfg Config
	h   *echo.Echo
	adm *admission
}

// New returns the server of engine e.
func New(e *inference.Engine, cfg Config) *Server {
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if cfg.MaxMessages <= 0 {
		cfg.MaxMessages = api.DefaultMaxMessages
	}
	if cfg.MaxContentParts <= 0 {
		cfg.MaxContentParts = api.DefaultMaxContentParts
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
	s := &Server{e: e, cfg: cfg, adm: &admission{limit: e.Capacity()}}
	h := echo.NewWithConfig(echo.Config{
		Logger: cfg.Logger,
		Router: echo.NewRouter(echo.RouterConfig{
			NotFoundHandler:         func(c *echo.Context) error { return echo.ErrNotFound },
			MethodNotAllowedHandler: func(c *echo.Context) error { return echo.ErrMethodNotAllowed },
		}),
	})
	h.HTTPErrorHandler = func(c *echo.Context, err error) {
		if resp, uerr := echo.UnwrapResponse(c.Response()); uerr == nil && resp.Committed {
			return // a stream reports its own errors
		}
		api.WriteError(c.Response(), c.Request(), api.ErrorOf(err))
	}
	h.GET("/health", func(c *echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) })
	v1 := h.Group("/v1", s.auth)
	v1.GET("/models", s.models)
	v1.GET("/models/*", s.model) // Hugging Face names have a slash
	v1.POST("/chat/completions", s.chat)
	v1.POST("/completions", s.completions)
	s.h = h
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.h.ServeHTTP(w, r) }

// auth checks the bearer key, when the server has keys.
func (s *Server) auth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if len(s.cfg.Keys) > 0 {
			key, _ := strings.CutPrefix(c.Request().Header.Get("Authorization"), "Bearer ")
			ok := false
			for _, k := range s.cfg.Keys {
				ok = ok || subtle.ConstantTimeCompare([]byte(key), []byte(k)) == 1
			}
			if !ok {
				return &api.Error{Status: http.StatusUnauthorized, Type: api.TypeAuthentication, Code: "invalid_api_key",
					Message: "missing or invalid API key: send Authorization: Bearer KEY"}
			}
		}
		return next(c)
	}
}

func (s *Server) modelCard() api.Model {
	return api.Model{ID: s.e.Name(), Object: "model", OwnedBy: "rlm", MaxModelLen: s.e.MaxModelLen()}
}

func (s *Server) models(c *echo.Context) error {
	return c.JSON(http.StatusOK, api.NewList([]api.Model{s.modelCard()}))
}

func (s *Server) model(c *echo.Context) error {
	if id := c.Param("*"); id != s.e.Name() {
		return s.unknownModel(id)
	}
	return c.JSON(http.StatusOK, s.modelCard())
}

func (s *Server) unknownModel(name string) *api.Error {
	return &api.Error{Status: http.StatusNotFound, Type: api.TypeInvalidRequest, Param: "model", Code: "model_not_found",
		Message: "The model `" + name + "` does not exist; this server serves `" + s.e.Name() + "`"}
}

func (s *Server) checkModel(name string) *api.Error {
	if name == "" {
		return api.BadRequest("model", "model is required")
	}
	if name != s.e.Name() {
		return s.unknownModel(name)
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
func (s *Server) runJobs(r *http.Request, jobs []job, onDelta func(j job, d inference.Delta) error) []outcome {
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
			res, err := s.e.Generate(r.Context(), j.req, cb)
			out[i] = outcome{res, err}
		}()
	}
	wg.Wait()
	return out
}

func (s *Server) retryAfter() int { return max(1, int(s.cfg.RetryAfter.Seconds()+0.5)) }

// admission counts the sequences (choices) of the requests the server has
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
func (s *Server) admit(n int, param string) *api.Error {
	if n > s.adm.limit {
		return api.BadRequest(param, "this request asks for %d choices at once; the server runs or queues at most %d (--max-seqs plus --max-queued)", n, s.adm.limit)
	}
	if !s.adm.tryAcquire(n) {
		return s.busy()
	}
	return nil
}

// busy is the answer to a request the server has no room for now.
func (s *Server) busy() *api.Error {
	return &api.Error{Status: http.StatusTooManyRequests, Type: api.TypeRateLimit, Code: "rate_limit_exceeded",
		Message:    fmt.Sprintf("the server is running or queueing all the %d sequences it holds; retry later", s.adm.limit),
		RetryAfter: s.retryAfter()}
}

// refuseIfFull answers 429 at once, before the body is read, when the
// server has no sequence free; the connection, with the body unread, is
// closed after the answer.
func (s *Server) refuseIfFull(c *echo.Context) error {
	if !s.adm.full() {
		return nil
	}
	c.Response().Header().Set("Connection", "close")
	return s.busy()
}

// firstError returns the error of the first failed job, if any.
func (s *Server) firstError(outs []outcome) *api.Error {
	for _, o := range outs {
		if o.err != nil {
			return fromEngine(o.err, s.retryAfter())
		}
	}
	return nil
}

// usageOf counts each distinct prompt once and every choice's completion.
func usageOf(jobs []job, outs []outcome, perPrompt int) *api.Usage {
	u := &api.Usage{PromptTokensDetails: &api.PromptTokensDetails{}}
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
func (s *Server) tokenText(id int32) (string, []int) {
	raw := s.e.Tokenizer().TokenBytes(int(id))
	b := make([]int, len(raw))
	for i, c := range raw {
		b[i] = int(c)
	}
	str := string(raw)
	if !utf8.ValidString(str) {
		str = strings.ToValidUTF8(str, "\uFFFD")
	}
	return str, b
}

func ids32(toks []inference.Token) []int32 {
	out := make([]int32, len(toks))
	for i, t := range toks {
		out[i] = t.ID
	}
	return out
}
