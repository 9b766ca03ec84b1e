package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/repl"
)

// A run is one engine run for a request: a chat completion or a response.
// Both APIs share its lifecycle:
//
//  1. admission: a run slot, waited for QueueWait behind at most MaxQueued
//     requests (acquireSlot); a background response waits for its slot
//     after it was answered, counted among MaxBackground instead;
//  2. preparation: the request's files resolved to documents (resolveFiles);
//  3. the run, in its own goroutine (launch). Its context is cancelled with a
//     cause: errClientGone when the client leaves (unless the run is
//     stored, and so goes on), errShutdown at the end of the shutdown grace
//     period, errResponseCancelled by a Responses cancel. Everything the
//     run holds (its slot, its files) is given back when the engine
//     returns, before its answer goes out;
//  4. the outcome: the cause and the engine's result mapped to one status
//     (outcomeOf), which each API renders its own way.

// Why a run's context was cancelled.
var (
	errClientGone        = errors.New("client disconnected")
	errShutdown          = errors.New("server shut down")
	errResponseCancelled = errors.New("response cancelled")
)

// run is one request's engine run.
type run struct {
	id      string
	owner   string
	model   string
	created int64
	// stored runs are recorded in the store and go on when their client
	// leaves.
	stored bool
	req    recursion.Request
	// cleanup gives back the run's files; launch calls it when the run
	// ends, and the handler when the run never starts.
	cleanup []func()
	models  modelSet // who answered its model calls
	cancel  context.CancelCauseFunc
	// functions: the chat request used the legacy functions, so a call is
	// answered as function_call, not tool_calls.
	functions bool
	// note, for a chat run whose tool outputs found no paused run, says
	// why (rlm.session_note).
	note string
}

// release gives back what the run holds besides its slot: its files.
func (r *run) release() {
	for _, f := range r.cleanup {
		f()
	}
	r.cleanup = nil
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
func (s *Server) busy() *api.Error {
	return &api.Error{Status: http.StatusTooManyRequests, Type: api.TypeRateLimit, Code: "rate_limit_exceeded", Kind: "rate_limit",
		Message:    fmt.Sprintf("all %d run slots are busy; retry later", s.cfg.MaxConcurrent),
		RetryAfter: s.retryAfter()}
}

func (s *Server) retryAfter() int {
	return max(1, int(s.cfg.RetryAfter.Round(time.Second)/time.Second))
}

// unavailable is the answer of a server that takes no new runs: it shuts
// down, or it has no model to run them with.
func (s *Server) unavailable() *api.Error {
	if s.draining.Load() {
		return &api.Error{Status: http.StatusServiceUnavailable, Type: api.TypeServer, Code: "shutting_down",
			Kind: "shutting_down", Message: "server is shutting down; retry on another replica", RetryAfter: 1}
	}
	if s.runner == nil {
		return &api.Error{Status: http.StatusServiceUnavailable, Type: api.TypeServer, Code: "not_configured",
			Kind: "not_configured", Message: "this server cannot answer yet: " + s.cfg.NotConfigured}
	}
	return nil
}

// resolveFiles resolves files into the run's documents; on error, what it
// resolved is given back.
func (s *Server) resolveFiles(ctx context.Context, r *run, files []fileRef) error {
	for _, f := range files {
		doc, cleanup, err := s.resolveFile(ctx, r.owner, f)
		if err != nil {
			r.release()
			return err
		}
		r.cleanup = append(r.cleanup, cleanup)
		r.req.Documents = append(r.req.Documents, doc)
	}
	return nil
}

// runContext is r's context, which says why it was cancelled
// (context.Cause): errShutdown, errClientGone (reqCtx ended, unless r is
// stored) or what r.cancel was given. decorated is the same context with
// Config.RunContext's values, for the engine. stop ends the watches.
func (s *Server) runContext(reqCtx context.Context, r *run, h http.Header) (ctx, decorated context.Context, stop func()) {
	// Not derived from s.base: the cause must say why the run stopped.
	ctx, cancel := context.WithCancelCause(context.Background())
	r.cancel = cancel
	stops := []func() bool{context.AfterFunc(s.base, func() { cancel(errShutdown) })}
	if !r.stored {
		stops = append(stops, context.AfterFunc(reqCtx, func() { cancel(errClientGone) }))
	}
	decorated = ctx
	if s.cfg.RunContext != nil {
		decorated = s.cfg.RunContext(ctx, r.owner, h)
	}
	return ctx, decorated, func() {
		for _, f := range stops {
			f()
		}
		cancel(nil)
	}
}

// launch runs exec for r, which holds a run slot, in its own goroutine.
// When exec returns, the slot and r's files are given back, and then
// finish gets the outcome; the run counts among the server's runs (which
// Shutdown waits for) until finish returns.
func (s *Server) launch(ctx context.Context, r *run, exec func() (recursion.Result, error), finish func(outcome)) {
	s.runs.Add(1)
	s.m.runsInFlight.Inc()
	go func() {
		defer s.runs.Done()
		// Everything the run holds is given back before its answer goes
		// out, so that a client that has its answer finds its temporary
		// files gone and its run slot free for the next request.
		release := sync.OnceFunc(func() {
			r.release()
			<-s.slots
			s.m.runsInFlight.Dec()
		})
		defer release()
		res, err := exec()
		s.m.recordRun(res)
		out := s.outcomeOf(ctx, res, err)
		release()
		finish(out)
	}()
}

// outcome is how a run ended, for both APIs.
type outcome struct {
	res recursion.Result
	// status is a response's: completed (FINAL), incomplete (a limit
	// stopped the run before FINAL), failed or cancelled.
	status string
	// err says why a run that did not complete ended, as a client is told
	// it: nil for completed runs and for incomplete ones whose partial
	// answer is the answer (chat answers it with finish_reason length);
	// a timeout is both incomplete and an error, which chat answers.
	err *api.Error
}

// outcomeOf maps the engine's answer and the cause of ctx (runContext's)
// to an outcome.
func (s *Server) outcomeOf(ctx context.Context, res recursion.Result, err error) outcome {
	cause := context.Cause(ctx)
	cancelled := func(msg string) outcome {
		switch {
		case errors.Is(cause, errShutdown):
			return outcome{res, api.StatusFailed, &api.Error{Status: http.StatusServiceUnavailable, Type: api.TypeServer, Code: "shutting_down",
				Kind: "shutting_down", Message: "the server shut down before the run finished; retry the request", RetryAfter: 1}}
		case errors.Is(cause, errResponseCancelled):
			msg = "the response was cancelled"
		}
		return outcome{res, api.StatusCancelled, &api.Error{Status: api.StatusClientClosed, Type: api.TypeInvalidRequest, Code: "cancelled",
			Kind: "cancelled", Message: msg}}
	}
	failed := func(e *api.Error) outcome { return outcome{res, api.StatusFailed, e} }
	if err != nil {
		var ae *api.Error
		var ue *llm.Error
		switch {
		case errors.As(err, &ae):
			return failed(ae)
		case errors.As(err, new(*recursion.MissingOutputsError)):
			return failed(api.BadRequest("input", "%v", err))
		case errors.Is(err, recursion.ErrNotPaused):
			return failed(&api.Error{Status: http.StatusConflict, Type: api.TypeInvalidRequest, Code: "run_not_paused", Kind: "invalid_request",
				Message: "the run these tool outputs answer is no longer paused: another request resumed it, or it ended"})
		case errors.As(err, &ue):
			// Before the deadline case: an attempt's timeout is wrapped in it.
			return failed(upstreamFailed(ue))
		case errors.Is(err, context.DeadlineExceeded):
			return failed(&api.Error{Status: http.StatusGatewayTimeout, Type: api.TypeTimeout, Code: "timeout",
				Kind: "timeout", Message: "the run timed out: " + err.Error()})
		case errors.Is(err, context.Canceled) || cause != nil:
			return cancelled("the run was cancelled")
		case errors.Is(err, repl.ErrMemoryBudget):
			// Every REPL session of the server holds memory the new run
			// needs (--repl-memory-total): busy, not broken.
			return failed(&api.Error{Status: http.StatusServiceUnavailable, Type: api.TypeServer, Code: "repl_memory_exhausted",
				Kind: "busy", Message: "the server's REPL memory is all in use by other runs; retry later", RetryAfter: 5})
		}
		// The engine's other errors are a broken setup (the REPL cannot
		// start) or a request it refuses; the server validated the request
		// already, so this is the server's fault. Their text can name the
		// server's files, so it goes only to the log.
		s.log.Error("run failed", "trace_id", res.TraceID, "err", err)
		return failed(&api.Error{Status: http.StatusInternalServerError, Type: api.TypeServer, Code: "run_failed",
			Kind: "internal", Message: "the run could not start (internal error; details are in the server log)"})
	}
	switch res.StopReason {
	case recursion.StopFinal, recursion.StopNoContext, recursion.StopToolCalls:
		return outcome{res: res, status: api.StatusCompleted}
	case recursion.StopTimeout:
		return outcome{res, api.StatusIncomplete, &api.Error{Status: http.StatusGatewayTimeout, Type: api.TypeTimeout, Code: "timeout",
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
		return failed(&api.Error{Status: http.StatusBadGateway, Type: api.TypeUpstream, Code: "upstream_error",
			Kind: "upstream", Message: msg})
	}
	return outcome{res: res, status: api.StatusIncomplete}
}

// upstreamFailed is the answer to a run the model refused (Engine.Run's
// error): 400 context_length_exceeded when the request does not fit the
// model's context, which the client is to fix, else 502. The error's text
// names no URL, key or upstream body (llm.Error).
func upstreamFailed(ue *llm.Error) *api.Error {
	if errors.Is(ue, llm.ErrContextLengthExceeded) {
		msg := ue.Message
		if msg == "" {
			msg = "the request does not fit the model's context: " + ue.Error()
		}
		return &api.Error{Status: http.StatusBadRequest, Type: api.TypeInvalidRequest, Param: ue.Param,
			Code: "context_length_exceeded", Kind: "invalid_request", Message: msg}
	}
	return &api.Error{Status: http.StatusBadGateway, Type: api.TypeUpstream, Code: "upstream_error",
		Kind: "upstream", Message: ue.Error()}
}

func detail(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// info is the rlm object of r's answer.
func (r *run) info(res recursion.Result) *api.RLMInfo {
	tid := res.TraceID
	if tid == "" {
		tid = r.req.TraceID
	}
	info := &api.RLMInfo{TraceID: tid, StopReason: string(res.StopReason), Iterations: res.Iterations,
		LLMCalls: res.LLMCalls, MaxDepth: res.MaxDepth, DurationMS: res.Duration.Milliseconds(), Models: r.models.list()}
	if r.note != "" {
		info.Session, info.SessionNote = "new", r.note
	}
	return info
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

// trace names the run's trace, in its X-RLM-Trace-Id header too: a new
// one, or the trace of the paused run it resumes, whose models it counts.
func (r *run) trace(c *echo.Context, paused *pausedRun) {
	r.req.TraceID = newID("trace-")
	if paused != nil {
		r.req.TraceID = paused.traceID
		for _, m := range paused.models {
			r.models.add(m)
		}
	}
	c.Response().Header().Set("X-RLM-Trace-Id", r.req.TraceID)
}
