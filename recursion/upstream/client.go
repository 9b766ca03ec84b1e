// Package upstream is the client for an OpenAI-compatible chat completions
// endpoint (OpenAI, vLLM, llama.cpp, Ollama) that the RLM engine calls for
// root turns and sub-calls: retries with backoff, streaming or not, a
// liveness check for a silent upstream, response caps, and errors that
// never quote a URL, a key or the upstream's body. It implements llm.Client;
// the engine in recursion knows only that interface.
package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-project/rlm/recursion/llm"
	openai "github.com/sashabaranov/go-openai"
)

// Config configures an Client.
type Config struct {
	// Name identifies the upstream in errors ("upstream NAME"); empty means
	// DefaultName. Errors never name BaseURL, which may carry
	// credentials; logs name it redacted (RedactURL).
	Name string
	// BaseURL is e.g. https://api.openai.com/v1. A query in it (an
	// ?api-version=, a ?key=) is sent with every request.
	BaseURL string
	APIKey  string
	// Timeout bounds one attempt of one call (default 120s).
	Timeout time.Duration
	// CheckAfter is how long an attempt may hear nothing from the upstream
	// (no response headers yet, or no byte of the body) before the client
	// checks that the upstream still answers at all: a GET of BASE/models
	// that must bring a complete response, of any status, within
	// CheckTimeout. An upstream that fails the check fails the call at once,
	// not retried: it is hung or unreachable, not slow. One that passes is
	// waited for (up to Timeout, and IdleTimeout once the headers came) and
	// checked again after each further CheckAfter of silence. A
	// non-streaming upstream sends nothing until its completion is done, so
	// silence alone cannot tell a hung upstream from a slow answer; the
	// check can. Checks are shared by the calls in flight: at most one runs
	// at a time. Default DefaultCheckAfter; negative: never checked.
	CheckAfter time.Duration
	// CheckTimeout bounds one liveness check (default 5s).
	CheckTimeout time.Duration
	// Logger, when set, gets one warning for each call that failed for
	// good, with what went wrong in detail: the URL redacted and the
	// credentials scrubbed, but the upstream's body quoted (cut short).
	Logger *slog.Logger
	// IdleTimeout bounds the silence while a response body is read, once
	// its headers have arrived (default 30s): an upstream that sends
	// headers and then stalls fails the attempt, which is retried, instead
	// of holding the call for the whole Timeout. It does not bound the wait
	// for the headers themselves, which a non-streaming upstream sends only
	// when the completion is done.
	IdleTimeout time.Duration
	// MaxRetries is how many times a call is retried after a 429, a 5xx, a
	// timeout or a connection error (default 4; negative means none).
	MaxRetries int
	// BackoffBase is the first retry's maximum wait; each retry doubles it,
	// with full jitter, up to BackoffMax (defaults 500ms and 20s). A
	// Retry-After header from the upstream takes precedence when longer.
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// HTTPClient sends the requests; nil means a client with a connection
	// pool sized for many concurrent calls.
	HTTPClient *http.Client
	// Stream makes every call a streaming one ("stream": true, with
	// "stream_options": {"include_usage": true}) and assembles the server-sent
	// chunks into the same Completion a non-streaming call returns. For
	// upstreams that only stream, and for proxies that cut a connection that
	// stays silent while a long completion is generated: a stream sends
	// bytes as the model writes, so IdleTimeout bounds the gap between two
	// chunks instead of the wait for the whole answer.
	Stream bool
	// MaxResponseBytes bounds the body of one response, streamed or not, and
	// so one server-sent line too (default DefaultMaxResponseBytes): an
	// upstream that sends more fails the call without a retry.
	MaxResponseBytes int64
}

// DefaultMaxResponseBytes is Config.MaxResponseBytes' default: far
// above any completion (128k tokens with their logprobs, streamed, is a few
// tens of MiB), far below what would hurt the process.
const DefaultMaxResponseBytes = 64 << 20

// Client talks to an OpenAI-compatible chat completions endpoint
// through go-openai, adding retries and faithful sampling parameters.
type Client struct {
	cfg      Config
	hc       *http.Client
	client   *openai.Client
	base     string     // BaseURL without its query and trailing slash
	query    url.Values // BaseURL's query, sent with every request
	label    string     // how errors name the upstream
	redacted string     // BaseURL as logs show it
	secrets  secrets
	live     *liveness
}

// CloseIdleConnections closes the kept-alive connections to the upstream.
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// New returns a client for the upstream at cfg.BaseURL.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("upstream: base URL is required")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, errors.New("upstream: base URL does not parse") // its text would quote the URL
	}
	query := u.Query()
	u.RawQuery, u.ForceQuery = "", false
	label := DefaultName
	if cfg.Name != "" {
		label = "upstream " + cfg.Name
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 120 * time.Second
	}
	if cfg.CheckAfter == 0 {
		cfg.CheckAfter = DefaultCheckAfter
	}
	if cfg.CheckTimeout <= 0 {
		cfg.CheckTimeout = DefaultCheckTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 4
	} else if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.BackoffBase <= 0 {
		cfg.BackoffBase = 500 * time.Millisecond
	}
	if cfg.BackoffMax <= 0 {
		cfg.BackoffMax = 20 * time.Second
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	hc := cfg.HTTPClient
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConns = 512
		tr.MaxIdleConnsPerHost = 256
		hc = &http.Client{Transport: tr}
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(u.String(), "/")
	oc.HTTPClient = &patchingDoer{client: hc, idle: cfg.IdleTimeout, max: cfg.MaxResponseBytes, query: query}
	c := &Client{cfg: cfg, hc: hc, client: openai.NewClientWithConfig(oc), base: oc.BaseURL, query: query,
		label: label, redacted: RedactURL(cfg.BaseURL), secrets: newSecrets(cfg.BaseURL, cfg.APIKey)}
	c.live = &liveness{check: c.answers}
	return c, nil
}

// endpoint is the URL of path under the base URL, with the base URL's query.
func (c *Client) endpoint(path string) string {
	if len(c.query) == 0 {
		return c.base + path
	}
	return c.base + path + "?" + c.query.Encode()
}

// DefaultIdleTimeout is Config.IdleTimeout's default.
const DefaultIdleTimeout = 30 * time.Second

// DefaultCheckAfter and DefaultCheckTimeout are Config.CheckAfter's
// and CheckTimeout's defaults: an upstream that accepts connections and
// never answers, or sends headers and stalls, fails a call within their sum.
const (
	DefaultCheckAfter   = 10 * time.Second
	DefaultCheckTimeout = 5 * time.Second
)

// errStalled is the cause of an attempt cancelled because its response body
// went silent for longer than IdleTimeout.
var errStalled = errors.New("response stalled")

// callState travels in the request context from Complete to patchingDoer:
// the request body to send, the attempt's cancel function (for a stalled
// body), and the status and Retry-After it saw.
type callState struct {
	request    []byte // the JSON body (see chatBody)
	cancel     context.CancelCauseFunc
	watch      *silenceWatch // told of every sign of life
	retryAfter time.Duration
	status     int
	body       bytes.Buffer // the response body, up to maxKeptBody, for fields go-openai does not parse
	// stream: the call asked for a stream, whose body sse reads for
	// go-openai (see sse.go).
	stream bool
	sse    *sseReader
}

// maxKeptBody bounds the copy of a response body kept for the fields
// go-openai drops (message.reasoning).
const maxKeptBody = 8 << 20

type callStateKey struct{}

// patchingDoer sends go-openai's requests with the body Complete encoded
// (see chatBody) in place of go-openai's own. It also records Retry-After,
// which go-openai's errors do not carry, and cancels the attempt when the
// response body stalls.
type patchingDoer struct {
	client *http.Client
	idle   time.Duration
	max    int64      // MaxResponseBytes
	query  url.Values // the base URL's query, which go-openai would append the path to
}

func (d *patchingDoer) Do(req *http.Request) (*http.Response, error) {
	if len(d.query) > 0 {
		q := req.URL.Query()
		for k, vs := range d.query {
			q[k] = vs
		}
		req.URL.RawQuery = q.Encode()
	}
	st, _ := req.Context().Value(callStateKey{}).(*callState)
	if st != nil && st.request != nil {
		body := st.request
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := d.client.Do(req)
	if st != nil && resp != nil {
		st.status = resp.StatusCode
		st.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		st.watch.touch()
		var idle *idleReader
		if st.cancel != nil {
			idle = newIdleReader(resp.Body, d.idle, func() { st.cancel(errStalled) }, st.watch.touch)
			resp.Body = idle
		}
		if !st.stream {
			resp.Body = &keepReader{ReadCloser: resp.Body, buf: &st.body}
		}
		resp.Body = &capReader{ReadCloser: resp.Body, max: d.max}
		if st.stream && resp.StatusCode >= 200 && resp.StatusCode < 300 {
			onDone := func() {}
			if idle != nil {
				onDone = func() { idle.setIdle(doneGrace) }
			}
			st.sse = newSSEReader(resp, int(min(d.max, 1<<40)), onDone)
			resp.Body = st.sse
		}
	}
	return resp, err
}

// errResponseTooLarge is the cause of a call whose response went past
// MaxResponseBytes. It is not retried: the same request would most likely
// get the same answer.
var errResponseTooLarge = errors.New("response too large")

// capReader fails the read that goes past max bytes, so that neither
// go-openai's decoder nor the stream reader holds more than max bytes of one
// response.
type capReader struct {
	io.ReadCloser
	max, n int64
}

func (r *capReader) Read(p []byte) (int, error) {
	if r.n > r.max {
		return 0, r.err()
	}
	if left := r.max - r.n + 1; int64(len(p)) > left {
		p = p[:left] // one byte past max is enough to know
	}
	n, err := r.ReadCloser.Read(p)
	r.n += int64(n)
	if r.n > r.max {
		return n - int(r.n-r.max), r.err()
	}
	return n, err
}

func (r *capReader) err() error {
	return fmt.Errorf("%w: more than %d bytes (the upstream response cap)", errResponseTooLarge, r.max)
}

// idleReader calls stall when no byte has arrived for idle: a read blocked
// on a silent connection has no deadline of its own, so the stall cancels
// the attempt's context, which unblocks it. Every read that brings bytes
// calls alive.
type idleReader struct {
	rc    io.ReadCloser
	idle  time.Duration
	timer *time.Timer
	alive func()
}

func newIdleReader(rc io.ReadCloser, idle time.Duration, stall, alive func()) *idleReader {
	return &idleReader{rc: rc, idle: idle, timer: time.AfterFunc(idle, stall), alive: alive}
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	if n > 0 {
		r.timer.Reset(r.idle)
		r.alive()
	}
	return n, err
}

// setIdle changes the silence allowed from now on. Call it only from the
// goroutine that reads.
func (r *idleReader) setIdle(d time.Duration) {
	r.idle = d
	r.timer.Reset(d)
}

func (r *idleReader) Close() error {
	r.timer.Stop()
	return r.rc.Close()
}

// keepReader copies what is read into buf, up to maxKeptBody.
type keepReader struct {
	io.ReadCloser
	buf *bytes.Buffer
}

func (k *keepReader) Read(p []byte) (int, error) {
	n, err := k.ReadCloser.Read(p)
	if room := maxKeptBody - k.buf.Len(); room > 0 && n > 0 {
		k.buf.Write(p[:min(n, room)])
	}
	return n, err
}

// reasoningField reads choices[0].message.reasoning, where Ollama and newer
// vLLM put the reasoning that others call reasoning_content.
func reasoningField(body []byte) string {
	if !bytes.Contains(body, []byte(`"reasoning"`)) {
		return "" // most answers: not decoded a second time
	}
	var r struct {
		Choices []struct {
			Message struct {
				Reasoning string `json:"reasoning"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(body, &r) != nil || len(r.Choices) == 0 {
		return ""
	}
	return r.Choices[0].Message.Reasoning
}

// parseRetryAfter reads either form of the header: seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// chatBody is the JSON body of a chat completion request. Complete
// encodes it and patchingDoer sends it in place of the body go-openai
// marshals from its request, which is built without the messages, for
// go-openai's checks of the model and its parameters. go-openai's request
// tags temperature and top_p with omitempty, so a requested 0 would vanish
// and the upstream would sample at its default; and each of its messages
// marshals through a MarshalJSON whose output encoding/json then checks
// and compacts again: five times the cost of this plain struct, most of
// what a root turn spent encoding its request (BenchmarkEncodeRequest).
type chatBody struct {
	Model         string         `json:"model"`
	Messages      []chatMessage  `json:"messages"`
	Temperature   *float64       `json:"temperature,omitempty"`
	TopP          *float64       `json:"top_p,omitempty"`
	MaxTokens     *int           `json:"max_tokens,omitempty"`
	Seed          *int           `json:"seed,omitempty"`
	Stop          []string       `json:"stop,omitempty"`
	LogProbs      bool           `json:"logprobs,omitempty"`
	Stream        bool           `json:"stream,omitempty"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
}

// chatMessage is one message of chatBody. Content is the text, or, for a
// message that shows images (llm_query_image), its parts: the text and an
// image_url part per image.
type chatMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

// contentPart is a part of a message's content.
type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

// messageContent is m's content as chatMessage sends it.
func messageContent(m llm.Message) any {
	if len(m.Images) == 0 {
		return m.Content
	}
	parts := []contentPart{{Type: "text", Text: m.Content}}
	for _, u := range m.Images {
		parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: u}})
	}
	return parts
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// encodeRequest encodes the body of req, streamed or not.
func encodeRequest(req llm.Request, stream bool) ([]byte, error) {
	s := req.Sampling
	body := chatBody{Model: req.Model, Messages: make([]chatMessage, len(req.Messages)), Temperature: s.Temperature,
		TopP: s.TopP, MaxTokens: s.MaxTokens, Seed: s.Seed, Stop: s.Stop, LogProbs: req.Logprobs, Stream: stream}
	for i, m := range req.Messages {
		body.Messages[i] = chatMessage{Role: m.Role, Content: messageContent(m)}
	}
	if stream {
		body.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(body); err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return b.Bytes(), nil
}

// Complete makes the call, retrying transient failures.
func (c *Client) Complete(ctx context.Context, req llm.Request) (llm.Completion, error) {
	body, err := encodeRequest(req, c.cfg.Stream)
	if err != nil {
		return llm.Completion{}, fmt.Errorf("%s: %w", c.label, err)
	}
	// What go-openai checks; the messages and the sampling it would drop
	// are in body.
	oreq := openai.ChatCompletionRequest{Model: req.Model, LogProbs: req.Logprobs}
	if s := req.Sampling; s.MaxTokens != nil {
		oreq.MaxTokens = *s.MaxTokens
	}

	var lastErr error
	lastStatus := 0
	attempts := 0
	for attempt := 0; attempt <= c.cfg.MaxRetries; attempt++ {
		attempts++
		var (
			comp llm.Completion
			at   attemptInfo
			err  error
		)
		if c.cfg.Stream {
			comp, at, err = c.streamAttempt(ctx, oreq, body)
		} else {
			comp, at, err = c.plainAttempt(ctx, oreq, body)
		}
		if err == nil {
			if comp.Usage == (llm.Usage{}) {
				// No usage reported: estimate it, so that budgets still count.
				chars := 0
				for _, m := range req.Messages {
					chars += len(m.Content)
				}
				comp.Usage = llm.Usage{PromptTokens: llm.EstimateTokens(chars), CompletionTokens: llm.EstimateTokens(len(comp.Content) + len(comp.Reasoning))}
				comp.Usage.TotalTokens = comp.Usage.PromptTokens + comp.Usage.CompletionTokens
				comp.UsageEstimated = true
			}
			return comp, nil
		}
		if ctx.Err() != nil {
			return llm.Completion{}, fmt.Errorf("%s: %w", c.label, context.Cause(ctx))
		}
		lastErr, lastStatus = err, at.status
		if !retryable(err, at.status) || attempt == c.cfg.MaxRetries {
			break
		}
		wait := c.backoff(attempt)
		if at.retryAfter > wait {
			wait = at.retryAfter
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return llm.Completion{}, fmt.Errorf("%s: %w", c.label, context.Cause(ctx))
		case <-t.C:
		}
	}
	ue := c.failure(lastErr, lastStatus, attempts)
	c.logFailure(req.Model, ue)
	return llm.Completion{}, ue
}

// maxLoggedDetail bounds the raw error text a failure's log line quotes:
// enough for an error page's title, not a whole page.
const maxLoggedDetail = 600

// logFailure writes a call that failed for good to the log, in detail but
// with the URL redacted and the credentials scrubbed.
func (c *Client) logFailure(model string, ue *llm.Error) {
	if c.cfg.Logger == nil {
		return
	}
	detail := ""
	if ue.Err != nil {
		detail = c.secrets.scrub(ue.Err.Error())
		if len(detail) > maxLoggedDetail {
			detail = detail[:maxLoggedDetail] + "..."
		}
	}
	c.cfg.Logger.Warn("upstream call failed", "upstream", c.redacted, "model", model, "attempts", ue.Attempts,
		"status", ue.Status, "reason", ue.Error(), "detail", detail)
}

// attemptInfo is what one attempt's response said besides its body: the
// HTTP status (0: none came) and the Retry-After wait.
type attemptInfo struct {
	status     int
	retryAfter time.Duration
}

// errNoChoices is a complete response without a choice; it is not retried.
var errNoChoices = errors.New("response has no choices")

// plainAttempt makes one non-streaming attempt through go-openai.
func (c *Client) plainAttempt(ctx context.Context, oreq openai.ChatCompletionRequest, body []byte) (llm.Completion, attemptInfo, error) {
	actx, cancelCause := context.WithCancelCause(ctx)
	defer cancelCause(nil)
	watch := c.watchSilence(actx, cancelCause)
	defer watch.stop()
	st := &callState{request: body, cancel: cancelCause, watch: watch}
	actx, cancel := context.WithTimeout(context.WithValue(actx, callStateKey{}, st), c.cfg.Timeout)
	resp, err := c.client.CreateChatCompletion(actx, oreq)
	cause := context.Cause(actx)
	cancel()
	at := attemptInfo{status: st.status, retryAfter: st.retryAfter}
	if err != nil {
		return llm.Completion{}, at, c.silenceError(cause, st.status, err)
	}
	if len(resp.Choices) == 0 {
		return llm.Completion{}, at, errNoChoices
	}
	comp := toCompletion(resp)
	if comp.Reasoning == "" {
		comp.Reasoning = reasoningField(st.body.Bytes())
	}
	return comp, at, nil
}

// silenceError names an attempt that silence ended, by the cause of its
// context: a stalled body, or an upstream that failed a liveness check.
// Other errors are returned as they are.
func (c *Client) silenceError(cause error, status int, err error) error {
	switch {
	case errors.Is(cause, errStalled):
		return fmt.Errorf("%w: no data for %v after the headers (status %d): %w", errStalled, c.cfg.IdleTimeout, status, err)
	case errors.Is(cause, errUnresponsive):
		return fmt.Errorf("%w: %w", cause, err)
	}
	return err
}

// backoff is full jitter: a uniform wait in [0, min(max, base*2^attempt)].
func (c *Client) backoff(attempt int) time.Duration {
	d := c.cfg.BackoffBase << attempt
	if d > c.cfg.BackoffMax || d <= 0 {
		d = c.cfg.BackoffMax
	}
	return time.Duration(rand.Int64N(int64(d) + 1))
}

// retryable reports whether a failed attempt is worth another. status is
// the HTTP status the transport saw (0: no response came).
func retryable(err error, status int) bool {
	// An upstream that failed a liveness check, whatever status it sent
	// first, would only hold the next attempt as long.
	if errors.Is(err, errUnresponsive) {
		return false
	}
	if status == 0 {
		// Only when the transport saw none: go-openai's errors carry a
		// status too, but a body like {"error":"text"} gives a RequestError
		// wrapping an APIError whose status is 0.
		var reqErr *openai.RequestError
		var apiErr *openai.APIError
		switch {
		case errors.As(err, &reqErr) && reqErr.HTTPStatusCode != 0:
			status = reqErr.HTTPStatusCode
		case errors.As(err, &apiErr):
			status = apiErr.HTTPStatusCode
		}
	}
	switch {
	case status == http.StatusTooManyRequests || status >= 500:
		return true
	case status >= 300:
		return false
	}
	// No status, or a success whose body never arrived whole: the request
	// never got an answer (refused connection, reset, per-attempt timeout,
	// a stalled body) or the answer was cut off. An answer that arrived
	// whole but does not parse, or is too large, is not retried. An error
	// the upstream sent inside a stream is retried unless its code says
	// the request was at fault.
	if errors.Is(err, errResponseTooLarge) || errors.Is(err, errNoChoices) || errors.Is(err, errBadChunk) || errors.Is(err, errNotStream) {
		return false
	}
	var se *streamError
	if errors.As(err, &se) {
		return se.Code == 0 || se.Code == http.StatusTooManyRequests || se.Code >= 500
	}
	var netErr net.Error
	return errors.Is(err, errStalled) || errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "connection")
}

func toCompletion(resp openai.ChatCompletionResponse) llm.Completion {
	ch := resp.Choices[0]
	out := llm.Completion{
		Model:        resp.Model,
		Content:      ch.Message.Content,
		FinishReason: string(ch.FinishReason),
		Reasoning:    ch.Message.ReasoningContent,
		Usage: llm.Usage{
			PromptTokens:     resp.Usage.PromptTokens,
			CompletionTokens: resp.Usage.CompletionTokens,
			TotalTokens:      resp.Usage.TotalTokens,
		},
	}
	for _, tc := range ch.Message.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, tc.Function.Name)
	}
	if ch.Message.FunctionCall != nil {
		out.ToolCalls = append(out.ToolCalls, ch.Message.FunctionCall.Name)
	}
	if out.Usage.TotalTokens == 0 {
		out.Usage.TotalTokens = out.Usage.PromptTokens + out.Usage.CompletionTokens
	}
	if ch.LogProbs != nil {
		for _, lp := range ch.LogProbs.Content {
			out.Logprobs = append(out.Logprobs, llm.TokenLogprob{Token: lp.Token, Logprob: lp.LogProb, Bytes: lp.Bytes})
		}
	}
	return out
}
