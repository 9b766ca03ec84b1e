package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/internal/clip"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/repl"
	"github.com/rlm-project/rlm/store"
)

// Why a run's context was cancelled.
var (
	errClientGone = errors.New("client disconnected")
	errShutdown   = errors.New("server shut down")
)

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// rlmInfo is the `rlm` object of a completion.
type rlmInfo struct {
	TraceID    string `json:"trace_id"`
	StopReason string `json:"stop_reason"`
	Iterations int    `json:"iterations"`
	LLMCalls   int    `json:"llm_calls"`
	MaxDepth   int    `json:"max_depth"`
	DurationMS int64  `json:"duration_ms"`
	// Models are the models that answered the run's calls (root turns and
	// sub-calls), as each upstream named itself: the request's model is an
	// alias of this server, these are who wrote the answer.
	Models []string `json:"models,omitempty"`
	// Session says, for a follow-up response, whether it ran in the
	// previous response's REPL session ("continued": its variables were
	// there) or in a new one ("new", with SessionNote saying why).
	Session     string `json:"session,omitempty"`
	SessionNote string `json:"session_note,omitempty"`
}

type choice struct {
	Index        int             `json:"index"`
	Message      assistantMsg    `json:"message"`
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason string          `json:"finish_reason"`
}

type assistantMsg struct {
	Role    string  `json:"role"`
	Content string  `json:"content"`
	Refusal *string `json:"refusal"`
}

// completion is a chat.completion; stored ones carry a status and, when they
// failed, the error.
type completion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []choice     `json:"choices"`
	Usage   *usage       `json:"usage,omitempty"`
	RLM     *rlmInfo     `json:"rlm,omitempty"`
	Status  string       `json:"status,omitempty"` // stored only: in_progress, completed, failed, interrupted, cancelled
	Error   *errorFields `json:"error,omitempty"`
}

// run is one chat completion in flight.
type run struct {
	id      string
	owner   string
	model   string
	created int64
	stored  bool
	req     recursion.Request
	cleanup []func()
	events  chan recursion.Event // nil unless streaming
	models  modelSet             // who answered its model calls
	done    chan runOutcome
}

// modelSet collects the models that answered a run's calls; the engine's
// observers may be called from several goroutines.
type modelSet struct {
	mu    sync.Mutex
	names []string
}

func (m *modelSet) add(name string) {
	if name == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !slices.Contains(m.names, name) {
		m.names = append(m.names, name)
	}
}

// list is the models in sorted order, nil when none answered.
func (m *modelSet) list() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.names) == 0 {
		return nil
	}
	out := slices.Clone(m.names)
	slices.Sort(out)
	return out
}

type runOutcome struct {
	res recursion.Result
	err error // *apiError for failures
}

func (s *Server) chatCompletions(c *echo.Context) error {
	if s.draining.Load() {
		return &apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "shutting_down",
			Kind: "shutting_down", Message: "server is shutting down; retry on another replica", RetryAfter: 1}
	}
	// A server whose run slots and queue are all taken turns the request
	// away before reading its body; the connection, with the body still
	// on it, is closed after the answer (net/http would otherwise read
	// the body first).
	if s.full() {
		c.Response().Header().Set("Connection", "close")
		return s.busy()
	}
	hreq := c.Request()
	hreq.Body = http.MaxBytesReader(c.Response(), hreq.Body, s.cfg.MaxRequestBytes)
	length := hreq.ContentLength
	if length > s.cfg.MaxRequestBytes {
		return tooLarge(s.cfg.MaxRequestBytes, "the request body")
	}
	// Decoding is bounded (the body's size, the messages and parts caps)
	// and validation cheap: the request is checked whole before it waits.
	cr, err := decodeChatRequestSized(hreq.Body, length, s.cfg)
	if err != nil {
		return err
	}
	rreq, files, err := toRunRequest(cr, &s.cfg)
	if err != nil {
		return err
	}
	md, err := parseMetadata(cr.Metadata)
	if err != nil {
		return err
	}
	if cr.Store {
		if err := s.checkCompletionQuota(hreq.Context(), owner(c), length); err != nil {
			return err
		}
	}
	if s.runner == nil {
		return &apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "not_configured",
			Kind: "not_configured", Message: "this server cannot answer yet: " + s.cfg.NotConfigured}
	}

	// Wait briefly for a run slot, then turn the client away; when the
	// queue is full, at once. The slot comes before anything expensive is
	// built for the run (documents, inline files, the stored record).
	if err := s.acquireSlot(hreq.Context()); err != nil {
		if errors.Is(err, errClientGone) {
			c.Set(ctxStatus, statusClientClosed)
			return nil
		}
		return err
	}
	holdsSlot := true
	defer func() {
		if holdsSlot { // the run never started
			<-s.slots
		}
	}()
	r := &run{id: s.newCompletionID(), owner: owner(c), model: cr.Model, created: time.Now().Unix(),
		stored: cr.Store, req: rreq, done: make(chan runOutcome, 1)}
	defer func() {
		// Runs that keep going after the handler returns clean up themselves.
		if r.cleanup != nil {
			for _, f := range r.cleanup {
				f()
			}
		}
	}()
	for _, f := range files {
		doc, cleanup, err := s.resolveFile(hreq.Context(), r.owner, f)
		if err != nil {
			return err
		}
		r.cleanup = append(r.cleanup, cleanup)
		r.req.Documents = append(r.req.Documents, doc)
	}
	r.req.TraceID = newID("trace-")
	if r.stored {
		if err := s.createStored(hreq.Context(), r, cr.Messages, md); err != nil {
			s.log.Error("storing a new completion", "id", r.id, "err", err)
			return &apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "store_unavailable", Kind: "store",
				RetryAfter: 1, Message: "the completion could not be stored, so the run was not started; retry later (details are in the server log)"}
		}
		// From here on every answer names the stored completion, errors
		// included: it is where the outcome can be read again.
		c.Response().Header().Set("X-RLM-Completion-Id", r.id)
	}
	if cr.Stream {
		r.events = make(chan recursion.Event, 256)
	}
	c.Response().Header().Set("X-RLM-Trace-Id", r.req.TraceID)
	cleanup := r.cleanup
	r.cleanup = nil // owned by the run from here on, as is the slot
	holdsSlot = false
	s.start(hreq.Context(), hreq.Header, r, cleanup)
	if cr.Stream {
		includeUsage := cr.StreamOptions != nil && cr.StreamOptions.IncludeUsage
		return s.stream(c, r, includeUsage)
	}
	select {
	case out := <-r.done:
		if out.err != nil && r.stored {
			return withCompletionID(out.err, r.id)
		}
		if out.err != nil {
			return out.err
		}
		comp := s.completionOf(r, out.res)
		return c.JSON(http.StatusOK, comp)
	case <-hreq.Context().Done():
		// The client is gone. A stored run goes on; any other run was
		// cancelled with the request's context.
		c.Set(ctxStatus, statusClientClosed)
		s.m.errors.WithLabelValues("cancelled").Inc()
		return nil
	}
}

// acquireSlot takes a run slot, waiting up to QueueWait behind at most
// MaxQueued other requests: waiting requests hold their decoded bodies, so
// their number must be bounded. It fails with busy() or errClientGone.
func (s *Server) acquireSlot(ctx context.Context) error {
	select {
	case s.slots <- struct{}{}:
		return nil
	default:
	}
	select {
	case s.queued <- struct{}{}:
		defer func() { <-s.queued }()
	default:
		return s.busy()
	}
	wait := time.NewTimer(s.cfg.QueueWait)
	defer wait.Stop()
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-wait.C:
		return s.busy()
	case <-ctx.Done():
		return errClientGone
	}
}

// full reports whether every run slot is taken and MaxQueued requests
// already wait for one: a request that came now would be turned away.
func (s *Server) full() bool {
	return len(s.slots) == cap(s.slots) && len(s.queued) == cap(s.queued)
}

// busy is the answer to a request that finds every run slot taken.
func (s *Server) busy() *apiError {
	return &apiError{Status: http.StatusTooManyRequests, Type: "rate_limit_error", Code: "rate_limit_exceeded", Kind: "rate_limit",
		Message:    fmt.Sprintf("all %d run slots are busy; retry later", s.cfg.MaxConcurrent),
		RetryAfter: max(1, int(s.cfg.RetryAfter.Round(time.Second)/time.Second))}
}

// resolveFile turns a file part into a document on local disk.
func (s *Server) resolveFile(ctx context.Context, own string, f fileRef) (recursion.Document, func(), error) {
	if f.data != "" {
		tmp, err := os.CreateTemp("", "rlm-inline-*")
		if err != nil {
			return recursion.Document{}, nil, serverError("saving inline file: %v", err)
		}
		// Decoded as it is written: the file's bytes are never held whole.
		// An error of the decoder is the client's; any other, the disk's.
		src := &readErr{r: base64.NewDecoder(base64.StdEncoding, strings.NewReader(f.data))}
		_, err = io.Copy(tmp, src)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if src.err != nil {
			os.Remove(tmp.Name())
			return recursion.Document{}, nil, badRequest(f.param+".file_data", "file_data is not valid base64: %v", src.err)
		}
		if err != nil {
			os.Remove(tmp.Name())
			return recursion.Document{}, nil, serverError("saving inline file: %v", err)
		}
		doc, cleanup, err := s.extractDocument(ctx, f.param, f.filename, f.mediaType, tmp.Name())
		if err != nil {
			os.Remove(tmp.Name())
			return recursion.Document{}, nil, err
		}
		return doc, func() { cleanup(); os.Remove(tmp.Name()) }, nil
	}
	meta, err := s.fileMeta(ctx, own, f.id)
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			ae.Param = f.param + ".file_id"
		}
		return recursion.Document{}, nil, err
	}
	name := meta.Filename
	if f.filename != "" {
		name = f.filename
	}
	if name == "" {
		name = f.id // the engine would show the model the path instead
	}
	// An upload was read when it came: its text is ready.
	doc, cleanup, ok, err := s.uploadedDocument(ctx, own+"/"+f.id, name)
	if errors.Is(err, store.ErrNotFound) {
		return recursion.Document{}, nil, notFound(f.param+".file_id", "no such file: %q", f.id)
	}
	if err != nil {
		return recursion.Document{}, nil, serverError("preparing the file for the run: %v", err)
	}
	if ok {
		return doc, cleanup, nil
	}
	p, cleanup, err := s.documentPath(ctx, own, f.id)
	if errors.Is(err, store.ErrNotFound) {
		return recursion.Document{}, nil, notFound(f.param+".file_id", "no such file: %q", f.id)
	}
	if err != nil {
		return recursion.Document{}, nil, serverError("preparing the file for the run: %v", err)
	}
	// Uploaded before uploads were read: read it now. The stored file's
	// own name says what it is, whatever the request calls it.
	doc, extracted, err := s.extractDocument(ctx, f.param, meta.Filename, f.mediaType, p)
	if err != nil {
		cleanup()
		return recursion.Document{}, nil, err
	}
	doc.Name = name
	return doc, func() { extracted(); cleanup() }, nil
}

// readErr keeps the error, other than io.EOF, its reader returned.
type readErr struct {
	r   io.Reader
	err error
}

func (r *readErr) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}

// start runs r in its own goroutine. Its context descends from the server's
// base context (cancelled at the end of shutdown) and, unless the run is
// stored, from the request's (cancelled when the client goes away).
func (s *Server) start(reqCtx context.Context, h http.Header, r *run, cleanup []func()) {
	// Not derived from s.base: the cause must say why the run stopped.
	ctx, cancel := context.WithCancelCause(context.Background())
	stopWatch := func() bool { return false }
	if !r.stored {
		stopWatch = context.AfterFunc(reqCtx, func() { cancel(errClientGone) })
	}
	stopBase := context.AfterFunc(s.base, func() { cancel(errShutdown) })
	runCtx := ctx
	if s.cfg.RunContext != nil {
		runCtx = s.cfg.RunContext(ctx, r.owner, h)
	}
	r.req.Observer = &observer{s: s, events: r.events, models: &r.models}
	s.runs.Add(1)
	s.m.runsInFlight.Inc()
	go func() {
		defer s.runs.Done()
		// Everything the run holds is given back before its answer goes
		// out, so that a client that has its answer finds its temporary
		// files gone and its run slot free for the next request.
		release := sync.OnceFunc(func() {
			stopBase()
			stopWatch()
			cancel(nil)
			for _, f := range cleanup {
				f()
			}
			<-s.slots
			s.m.runsInFlight.Dec()
		})
		defer release()
		res, err := s.runner.Run(runCtx, r.req)
		out := s.outcome(ctx, res, err)
		s.m.recordRun(res)
		if r.stored {
			comp := s.completionOf(r, res)
			comp.Status = "completed"
			if out.err != nil {
				ae := toAPIError(out.err)
				comp.Status = "failed"
				if errors.Is(context.Cause(ctx), errShutdown) {
					comp.Status = "interrupted"
				}
				b := ae.body().Error
				comp.Error = &b
			}
			if !s.storedStillThere(ctx, r) {
				s.log.Info("stored completion deleted during its run; its final record is not written", "id", r.id)
				s.unregisterRun(ctx, r.owner, r.id)
			} else if err := s.saveCompletion(ctx, r, comp); err != nil {
				// Left registered: once this server stops, a sweep
				// records the run as interrupted, not in_progress.
				s.log.Error("storing a finished completion", "id", r.id, "err", err)
				if out.err == nil {
					// The client was promised a stored completion: an
					// answer it cannot fetch again is not a success.
					out.err = &apiError{Status: http.StatusInternalServerError, Type: "server_error", Code: "completion_not_stored", Kind: "store",
						Message: fmt.Sprintf("the run finished but its stored completion %s could not be saved, so its answer was not kept; "+
							"retry the request (details are in the server log)", r.id)}
				}
			} else {
				s.unregisterRun(ctx, r.owner, r.id)
			}
		}
		release()
		r.done <- out
	}()
}

// outcome maps the runner's answer to a result or an API error.
func (s *Server) outcome(ctx context.Context, res recursion.Result, err error) runOutcome {
	cause := context.Cause(ctx)
	cancelled := func(msg string) runOutcome {
		if errors.Is(cause, errShutdown) {
			return runOutcome{res, &apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "shutting_down",
				Kind: "shutting_down", Message: "the server shut down before the run finished", RetryAfter: 1}}
		}
		return runOutcome{res, &apiError{Status: statusClientClosed, Type: "invalid_request_error", Code: "cancelled",
			Kind: "cancelled", Message: msg}}
	}
	if err != nil {
		var ae *apiError
		var ue *llm.Error
		switch {
		case errors.As(err, &ae):
			return runOutcome{res, ae}
		case errors.As(err, &ue):
			// Before the deadline case: an attempt's timeout is wrapped in it.
			return runOutcome{res, upstreamFailed(ue)}
		case errors.Is(err, context.DeadlineExceeded):
			return runOutcome{res, &apiError{Status: http.StatusGatewayTimeout, Type: "timeout_error", Code: "timeout",
				Kind: "timeout", Message: "the run timed out: " + err.Error()}}
		case errors.Is(err, context.Canceled) || cause != nil:
			return cancelled("the run was cancelled")
		}
		if errors.Is(err, repl.ErrMemoryBudget) {
			// Every REPL session of the server holds memory the new run
			// needs (--repl-memory-total): busy, not broken.
			return runOutcome{res, &apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "repl_memory_exhausted",
				Kind: "busy", Message: "the server's REPL memory is all in use by other runs; retry later", RetryAfter: 5}}
		}
		// The engine's other errors are a broken setup (the REPL cannot
		// start) or a request it refuses; the server validated the request
		// already, so this is the server's fault. Their text can name the
		// server's files, so it goes only to the log.
		s.log.Error("run failed", "trace_id", res.TraceID, "err", err)
		return runOutcome{res, &apiError{Status: http.StatusInternalServerError, Type: "server_error", Code: "run_failed",
			Kind: "internal", Message: "the run could not start (internal error; details are in the server log)"}}
	}
	switch res.StopReason {
	case recursion.StopTimeout:
		return runOutcome{res, &apiError{Status: http.StatusGatewayTimeout, Type: "timeout_error", Code: "timeout",
			Kind: "timeout", Message: "the run reached its time limit before a final answer" + detail(res.Error)}}
	case recursion.StopCancelled:
		return cancelled("the run was cancelled" + detail(res.Error))
	case recursion.StopUpstreamError:
		// res.Error names what failed ("the upstream model failed after 3
		// attempt(s): HTTP 503 Service Unavailable"), never its URL or body.
		msg := "the upstream model failed"
		if res.Error != "" {
			msg = "the run stopped: " + res.Error
		}
		return runOutcome{res, &apiError{Status: http.StatusBadGateway, Type: "upstream_error", Code: "upstream_error",
			Kind: "upstream", Message: msg}}
	}
	return runOutcome{res: res}
}

// upstreamFailed is the answer to a run the model refused (Engine.Run's
// error): 400 context_length_exceeded when the request does not fit the
// model's context, which the client is to fix, else 502. The error's text
// names no URL, key or upstream body (llm.Error).
func upstreamFailed(ue *llm.Error) *apiError {
	if errors.Is(ue, llm.ErrContextLengthExceeded) {
		msg := ue.Message
		if msg == "" {
			msg = "the request does not fit the model's context: " + ue.Error()
		}
		return &apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: ue.Param,
			Code: "context_length_exceeded", Kind: "invalid_request", Message: msg}
	}
	return &apiError{Status: http.StatusBadGateway, Type: "upstream_error", Code: "upstream_error",
		Kind: "upstream", Message: ue.Error()}
}

func detail(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// finishReason tells clients whether the answer is whole: "length" for a
// run that stopped before FINAL (its answer is "No answer: ..."), as for a
// completion cut short.
func finishReason(sr recursion.StopReason) string {
	if sr == recursion.StopFinal || sr == recursion.StopNoContext || sr == "" {
		return "stop"
	}
	return "length"
}

func (s *Server) completionOf(r *run, res recursion.Result) *completion {
	u := usage(res.Usage)
	return &completion{
		ID: r.id, Object: "chat.completion", Created: r.created, Model: r.model,
		Choices: []choice{{Message: assistantMsg{Role: "assistant", Content: res.Answer},
			Logprobs: json.RawMessage("null"), FinishReason: finishReason(res.StopReason)}},
		Usage: &u,
		RLM:   infoOf(r, res),
	}
}

func infoOf(r *run, res recursion.Result) *rlmInfo {
	tid := res.TraceID
	if tid == "" {
		tid = r.req.TraceID
	}
	return &rlmInfo{TraceID: tid, StopReason: string(res.StopReason), Iterations: res.Iterations,
		LLMCalls: res.LLMCalls, MaxDepth: res.MaxDepth, DurationMS: res.Duration.Milliseconds(), Models: r.models.list()}
}

// saveCompletion writes r's stored record, within StoreTimeout and whether
// or not ctx is cancelled: a record once begun is finished.
func (s *Server) saveCompletion(ctx context.Context, r *run, comp *completion) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.StoreTimeout)
	defer cancel()
	if comp.ID == "" {
		comp.ID, comp.Object, comp.Created, comp.Model = r.id, "chat.completion", r.created, r.model
		comp.Choices = []choice{}
		comp.RLM = &rlmInfo{TraceID: r.req.TraceID}
	}
	b, err := json.Marshal(comp)
	if err != nil {
		return err
	}
	_, err = s.store.Put(ctx, collCompletions, r.owner+"/"+r.id, strings.NewReader(string(b)))
	return err
}

// observer feeds metrics and, for streams, the stream's event channel. It
// never blocks the engine: when the client reads too slowly, progress events
// are dropped (and counted), never the answer.
type observer struct {
	s      *Server
	events chan recursion.Event
	models *modelSet
	// progress, when set, gets every event (a response's rlm.progress).
	progress func(recursion.Event)
}

func (o *observer) Observe(ev recursion.Event) {
	switch ev.Kind {
	case recursion.EventNodeStart:
		o.s.m.replSessions.Inc()
	case recursion.EventNodeEnd:
		o.s.m.replSessions.Dec()
	case recursion.EventSubCallEnd:
		kind := "llm"
		if ev.SubCall != nil && ev.SubCall.Kind != "" {
			kind = ev.SubCall.Kind
		}
		o.s.m.subCalls.WithLabelValues(kind).Inc()
	}
	// Root turns (model_call) and llm_query calls (subcall_end) carry the
	// model call; the model that answered is the upstream's own name for
	// itself when it gave one.
	if m := ev.Model; m != nil && m.Err == "" && o.models != nil {
		name := m.ResponseModel
		if name == "" {
			name = m.Model
		}
		o.models.add(name)
	}
	if o.progress != nil {
		o.progress(ev)
	}
	if o.events == nil {
		return
	}
	select {
	case o.events <- ev:
	default:
		o.s.m.dropped.Inc()
	}
}

// progress is the `rlm` field of a progress chunk: a summary of an engine
// event, small enough to stream (no prompts or full outputs).
type progress struct {
	Event      string `json:"event"`
	Node       string `json:"node,omitempty"`
	Parent     string `json:"parent,omitempty"`
	Depth      int    `json:"depth"`
	Turn       int    `json:"turn,omitempty"`
	Cell       int    `json:"cell,omitempty"`
	Code       string `json:"code,omitempty"`
	Output     string `json:"output,omitempty"`
	OutputSize int    `json:"output_bytes,omitempty"`
	Error      string `json:"error,omitempty"`
	SubCall    string `json:"subcall_id,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Model      string `json:"model,omitempty"`
	Prompt     string `json:"prompt,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
	StopReason string `json:"stop_reason,omitempty"`
	Tokens     int    `json:"tokens,omitempty"`
}

// summaryBytes bounds every text field of a progress event.
const summaryBytes = 400

func summarize(s string) string {
	if len(s) <= summaryBytes {
		return s
	}
	return clip.Head(s, summaryBytes) + fmt.Sprintf("… (%d bytes)", len(s))
}

func progressOf(ev recursion.Event) progress {
	p := progress{Event: string(ev.Kind), Node: ev.NodeID, Parent: ev.ParentID, Depth: ev.Depth, Turn: ev.Turn, Cell: ev.Cell}
	if cr := ev.CellRun; cr != nil {
		p.Code, p.Output, p.OutputSize, p.Error = summarize(cr.Code), summarize(cr.Output), cr.OutputBytes, summarize(cr.Error)
		p.DurationMS = cr.Duration.Milliseconds()
	}
	if sc := ev.SubCall; sc != nil {
		p.SubCall, p.Kind, p.Prompt, p.Error = sc.ID, sc.Kind, summarize(sc.Prompt), summarize(sc.Err)
		p.DurationMS = sc.Duration.Milliseconds()
		p.Tokens = sc.Usage.TotalTokens
	}
	if m := ev.Model; m != nil {
		p.Model, p.Tokens = m.Model, m.Usage.TotalTokens
		if p.Error == "" {
			p.Error = summarize(m.Err)
		}
		if p.DurationMS == 0 {
			p.DurationMS = m.Latency.Milliseconds()
		}
	}
	if e := ev.End; e != nil {
		p.StopReason, p.Tokens = string(e.StopReason), e.Usage.TotalTokens
	}
	return p
}
