package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/store"
)

// respRun is a response running (or queued) on this server: a run (see
// run.go) with its response object and events.
type respRun struct {
	run
	obj   api.Response // the record's response, as of the last write
	input []api.Item
	out   outcome // how the run ended, once done is closed
	// ctx is the run's context, whose cause says why it stopped; runCtx
	// the same with Config.RunContext's values, which the engine gets.
	ctx, runCtx context.Context
	// fallback is the request to run when the kept session of a
	// follow-up (req.Continue) cannot be continued: the earlier turns as
	// messages, with fallbackFiles still to resolve. session and
	// sessionNote become rlm.session and rlm.session_note.
	fallback       *recursion.Request
	fallbackFiles  []fileRef
	session        string
	sessionNote    string
	requireSession bool
	// progress: emit the engine's events as rlm.progress.
	progress bool
	// inputOffset is where the input's items begin among the run's
	// messages (see fixParam).
	inputOffset int
	// resume is the paused run this response's tool outputs resume.
	resume  *pausedRun
	outputs map[string]string
	// sink receives the events of a foreground stream; nil otherwise.
	// gone is closed when the streaming handler returns, so that the run
	// never blocks on a client that left.
	sink chan []byte
	gone chan struct{}
	done chan struct{}

	mu  sync.Mutex
	seq int
}

// abandon gives back what a response that will not run holds: its files,
// and the kept session it was to continue.
func (r *respRun) abandon() {
	r.release()
	if c := r.req.Continue; c != nil {
		c.Close()
	}
	if r.resume != nil {
		r.resume.Close()
	}
}

// liveResponses are the responses this server runs, by owner/id.
type liveResponses struct {
	mu sync.Mutex
	m  map[string]*respRun
}

func (l *liveResponses) get(key string) *respRun {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m[key]
}

func (l *liveResponses) put(key string, r *respRun) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]*respRun{}
	}
	l.m[key] = r
}

func (l *liveResponses) remove(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, key)
}

// continueSession makes r a follow-up in the kept REPL session of the
// previous response, when this server keeps it and the new input can go
// into it (text only: a kept session's context cannot grow); the request
// with the earlier turns as messages becomes the fallback. It returns the
// files to resolve before the run starts.
func (s *Server) continueSession(r *respRun, rr *api.ResponseRequest, items []api.Item, files []fileRef) []fileRef {
	r.session = "new"
	key := r.owner + "/" + rr.PreviousResponseID
	for _, it := range items {
		for _, p := range it.Content {
			if p.Type == api.ContentInputFile {
				r.sessionNote = "the follow-up attaches files, which a kept REPL session cannot take: the earlier turns are given as messages"
				return files
			}
		}
	}
	conv, why := s.sessions.take(key)
	if why != "" {
		r.sessionNote = "the previous response's REPL session is gone: " + why + ": the earlier turns are given as messages"
		return files
	}
	// The same request without the history, in the kept session.
	own, err := chatRequest(rr, nil, items)
	if err != nil {
		conv.Close()
		return files
	}
	creq, _, err := toRunRequest(own, &s.cfg)
	if err != nil {
		conv.Close()
		return files
	}
	creq.Keep, creq.Continue, creq.TraceID = r.obj.Store, conv, r.req.TraceID
	fallback := r.req
	r.req, r.fallback, r.fallbackFiles, r.session = creq, &fallback, files, "continued"
	r.requireSession = rr.RLM != nil && rr.RLM.RequireSession
	return nil
}

// sessionGone is the answer to a follow-up that requires its previous
// response's REPL session (rlm.require_session) when it cannot have it:
// why is the one reason it cannot.
func sessionGone(why string) *api.Error {
	why, _, _ = strings.Cut(why, ": the earlier turns are given as messages")
	why = strings.TrimPrefix(why, "the previous response's REPL session is gone: ")
	return &api.Error{Status: http.StatusConflict, Type: api.TypeInvalidRequest, Param: "previous_response_id", Code: "session_gone",
		Kind: "invalid_request", Message: "the previous response's REPL session cannot be continued: " + why}
}

// prepare resolves the run's files and writes its first record; on error
// everything it made is undone.
func (s *Server) prepare(ctx context.Context, r *respRun, files []fileRef) error {
	if err := s.resolveFiles(ctx, &r.run, files); err != nil {
		r.abandon()
		return fixParam(err, r.inputOffset)
	}
	if !r.obj.Store {
		return nil
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.StoreTimeout)
	defer cancel()
	err := s.registerRun(wctx, r.owner, r.obj.ID, r.obj.CreatedAt)
	if err == nil {
		err = s.saveResponse(wctx, r)
	}
	if err != nil {
		s.log.Error("storing a new response", "id", r.obj.ID, "err", err)
		s.store.DeleteEntry(wctx, collRuns, idxRunning, runningKey(r.owner, r.obj.ID))
		r.abandon()
		return &api.Error{Status: http.StatusServiceUnavailable, Type: api.TypeServer, Code: "store_unavailable", Kind: "store",
			RetryAfter: 1, Message: "the response could not be stored, so the run was not started; retry later (details are in the server log)"}
	}
	return nil
}

// runForeground runs a response for a client that waits: like a chat
// completion, it holds a run slot (waiting QueueWait at most), and a run
// that is not stored stops when the client leaves.
func (s *Server) runForeground(c *echo.Context, r *respRun, files []fileRef, stream bool) error {
	ctx := c.Request().Context()
	if s.full() {
		r.abandon()
		c.Response().Header().Set("Connection", "close")
		return s.busy()
	}
	if err := s.acquireSlot(ctx); err != nil {
		r.abandon()
		if errors.Is(err, errClientGone) {
			c.Set(ctxStatus, api.StatusClientClosed)
			return nil
		}
		return err
	}
	r.obj.Status = api.StatusInProgress
	if err := s.prepare(ctx, r, files); err != nil {
		<-s.slots
		return err
	}
	if stream {
		r.sink, r.gone = make(chan []byte, 1024), make(chan struct{})
		defer close(r.gone)
	}
	s.startResponse(ctx, r, c.Request().Header, false)
	if stream {
		return s.streamLive(c, r)
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		c.Set(ctxStatus, api.StatusClientClosed)
		return nil
	}
	if r.obj.Status == api.StatusFailed {
		ae := *r.out.err
		if r.obj.Store {
			ae.Message += " (stored as response " + r.obj.ID + ")"
		}
		return &ae
	}
	return c.JSON(http.StatusOK, r.obj)
}

// startBackground answers at once with the queued response and runs it
// when a run slot is free, for as long as it takes: background responses
// are bounded by MaxBackground per server, not by the queue of waiting
// requests.
func (s *Server) startBackground(c *echo.Context, r *respRun, files []fileRef, stream bool) error {
	ctx := c.Request().Context()
	if n := s.background.Add(1); n > int64(s.cfg.MaxBackground) {
		s.background.Add(-1)
		r.abandon()
		return &api.Error{Status: http.StatusTooManyRequests, Type: api.TypeRateLimit, Code: "rate_limit_exceeded", Kind: "rate_limit",
			Message:    fmt.Sprintf("this server already holds %d background responses; retry later or on another replica", s.cfg.MaxBackground),
			RetryAfter: s.retryAfter()}
	}
	if err := s.prepare(ctx, r, files); err != nil {
		s.background.Add(-1)
		return err
	}
	obj := r.obj
	// The queued run counts among the server's runs (Shutdown waits for
	// it) until it starts, when launch counts it.
	s.runs.Add(1)
	queued := func(runCtx context.Context) {
		defer s.runs.Done()
		select {
		case s.slots <- struct{}{}:
			s.startRun(r)
		case <-runCtx.Done():
			// Cancelled or shut down while queued: recorded as such.
			r.abandon()
			s.finishResponse(runCtx, r, s.outcomeOf(runCtx, recursion.Result{StopReason: recursion.StopCancelled}, nil))
		}
	}
	s.prepareRun(context.WithoutCancel(ctx), r, c.Request().Header, true)
	s.emit(r.runCtx, r, api.ResponseEvent{Type: api.EventCreated, Response: &obj})
	go queued(r.runCtx)
	if stream {
		return s.streamStored(c, r.owner, obj.ID, -1)
	}
	return c.JSON(http.StatusOK, obj)
}

// startResponse prepares r's run (see prepareRun) and starts it.
func (s *Server) startResponse(reqCtx context.Context, r *respRun, h http.Header, background bool) {
	s.prepareRun(reqCtx, r, h, background)
	s.startRun(r)
}

// prepareRun gives r its context (see runContext): a background run also
// watches the store for a cancel from another replica. r is listed among
// the live responses until it ends.
func (s *Server) prepareRun(reqCtx context.Context, r *respRun, h http.Header, background bool) {
	ctx, runCtx, stop := s.runContext(reqCtx, &r.run, h)
	r.ctx, r.runCtx = ctx, runCtx
	key := r.owner + "/" + r.obj.ID
	s.responses.put(key, r)
	go func() {
		<-r.done
		stop()
		s.responses.remove(key)
	}()
	if background {
		go s.watchCancel(ctx, r)
	}
	obs := &observer{s: s, models: &r.models}
	if r.progress {
		obs.progress = func(ev recursion.Event) {
			s.emit(runCtx, r, api.ResponseEvent{Type: api.EventProgress, RLM: progressOf(ev)})
		}
	}
	r.req.Observer = obs
}

// startRun runs r, which holds a run slot and its context, in its own
// goroutine.
func (s *Server) startRun(r *respRun) {
	ctx := r.runCtx
	r.obj.Status = api.StatusInProgress
	if r.obj.Background {
		s.saveResponseLogged(ctx, r)
	} else {
		obj := r.obj
		s.emit(ctx, r, api.ResponseEvent{Type: api.EventCreated, Response: &obj})
	}
	obj := r.obj
	s.emit(ctx, r, api.ResponseEvent{Type: api.EventInProgress, Response: &obj})
	exec := func() (recursion.Result, error) {
		if r.resume != nil {
			return r.resume.p.Resume(ctx, r.outputs)
		}
		res, err := s.runner.Run(ctx, r.req)
		if errors.Is(err, recursion.ErrCannotContinue) && r.fallback != nil {
			res, err = s.runFallback(ctx, r, err)
		}
		if c := r.req.Continue; c != nil && c != res.Conversation && res.Paused == nil {
			c.Close() // the run did not keep it (it failed before its root ran)
		}
		return res, err
	}
	s.launch(r.ctx, &r.run, exec, func(out outcome) { s.finishResponse(ctx, r, out) })
}

// watchCancel cancels a background run when another replica asks for it
// (a marker in the store), checking every ResponsePoll.
func (s *Server) watchCancel(ctx context.Context, r *respRun) {
	tick := time.NewTicker(s.cfg.ResponsePoll)
	defer tick.Stop()
	key := r.owner + "." + r.obj.ID
	for {
		select {
		case <-r.done:
			return
		case <-tick.C:
		}
		gctx, cancel := context.WithTimeout(ctx, s.cfg.StoreTimeout)
		_, err := s.store.GetEntry(gctx, collResponses, idxCancel, key)
		cancel()
		if err == nil {
			r.cancel(errResponseCancelled)
			return
		}
	}
}

// runFallback runs a follow-up whose kept session could not be continued
// (why) afresh, with the earlier turns as messages; with
// rlm.require_session it fails instead.
func (s *Server) runFallback(ctx context.Context, r *respRun, why error) (recursion.Result, error) {
	r.req.Continue.Close()
	if r.requireSession {
		return recursion.Result{}, sessionGone(why.Error())
	}
	obs, trace := r.req.Observer, r.req.TraceID
	r.req, r.fallback = *r.fallback, nil
	r.req.Observer, r.req.TraceID = obs, trace
	r.session, r.sessionNote = "new", why.Error()+": the earlier turns are given as messages"
	if err := s.resolveFiles(ctx, &r.run, r.fallbackFiles); err != nil {
		return recursion.Result{}, err
	}
	return s.runner.Run(ctx, r.req)
}

// finishResponse settles a run's outcome, emits the output and terminal
// events, writes the final record and ends the run (r.done).
func (s *Server) finishResponse(ctx context.Context, r *respRun, out outcome) {
	defer close(r.done)
	if r.obj.Background {
		defer s.background.Add(-1)
	}
	r.out = out
	res := out.res
	o := &r.obj
	now := time.Now().Unix()
	o.CompletedAt = &now
	o.Status = out.status
	switch out.status {
	case api.StatusFailed:
		o.Error = &api.ResponseError{Code: out.err.Code, Message: out.err.Message}
	case api.StatusIncomplete:
		o.IncompleteDetails = &api.IncompleteDetails{Reason: string(res.StopReason)}
	}
	if o.Status == api.StatusCompleted || o.Status == api.StatusIncomplete {
		o.Usage = &api.ResponseUsage{InputTokens: res.Usage.PromptTokens, OutputTokens: res.Usage.CompletionTokens, TotalTokens: res.Usage.TotalTokens}
		if res.StopReason == recursion.StopToolCalls {
			s.emitFunctionCalls(ctx, r, res.ToolCalls)
			s.keepPaused(&r.run, res, r.owner+"/"+firstCall(res))
		} else {
			s.emitOutput(ctx, r, res.Answer)
		}
	}
	if res.TraceID != "" || r.req.TraceID != "" {
		o.RLM = r.info(res)
		o.RLM.Session, o.RLM.SessionNote = r.session, r.sessionNote
	}
	s.keepSession(r, res.Conversation)
	typ := "response." + o.Status
	if o.Status == api.StatusCancelled {
		// The Responses stream has no cancelled event, and the SDKs refuse
		// types they do not know: a cancelled run ends its stream as a
		// failed one, its response saying cancelled.
		typ = api.EventFailed
	}
	final := *o
	s.emit(ctx, r, api.ResponseEvent{Type: typ, Response: &final})
	if !o.Store {
		return
	}
	if !s.responseExists(ctx, r.owner, o.ID) {
		// Deleted during its run (from another replica): nothing to keep.
		s.sessions.drop(r.owner + "/" + o.ID)
		s.deleteEvents(ctx, r.owner, o.ID)
		s.unregisterRun(ctx, r.owner, o.ID)
		return
	}
	if err := s.saveResponse(ctx, r); err != nil {
		// Left registered: once this server stops, the sweep records the
		// run as failed rather than in_progress.
		s.log.Error("storing a finished response", "id", o.ID, "err", err)
		return
	}
	s.unregisterRun(ctx, r.owner, o.ID)
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.StoreTimeout)
	defer cancel()
	s.store.DeleteEntry(dctx, collResponses, idxCancel, r.owner+"."+o.ID)
}

// ReclaimREPLMemory closes the oldest REPL session kept for a follow-up,
// or else the oldest run paused at client tool calls, reporting whether
// there was one. The gateway gives it to the REPL pool's memory budget: a
// run that needs memory takes it from idle sessions before it waits. A
// paused run is second: outputs that come for it later run its
// conversation again (see rerunNote), which costs more than a follow-up
// starting a fresh session.
func (s *Server) ReclaimREPLMemory() bool {
	return s.sessions.evictOldest() || s.paused.evictOldest()
}

// keepSession keeps a finished response's REPL session for a follow-up
// when the response is stored and can be followed up (completed or
// incomplete); otherwise the session is closed.
func (s *Server) keepSession(r *respRun, conv *recursion.Conversation) {
	if conv == nil {
		return
	}
	if !r.obj.Store || (r.obj.Status != api.StatusCompleted && r.obj.Status != api.StatusIncomplete) {
		conv.Close()
		return
	}
	s.sessions.put(r.owner+"/"+r.obj.ID, conv)
}

// responseExists reports whether own's response id is still stored: one
// deleted during its run (from another replica) must not come back with
// its final record. It reads no record: a record may hold a 60 MB input.
// A store that cannot answer counts as yes (the save that follows reports
// the failure).
func (s *Server) responseExists(ctx context.Context, own, id string) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.StoreTimeout)
	defer cancel()
	found := false
	err := s.store.Walk(ctx, collResponses, own+"/"+id, func(store.Info) bool { found = true; return false })
	return found || err != nil
}

// saveResponse writes r's record (see putResponse).
func (s *Server) saveResponse(ctx context.Context, r *respRun) error {
	return s.putResponse(ctx, r.owner, storedResponse{Response: r.obj, Input: r.input})
}

func (s *Server) saveResponseLogged(ctx context.Context, r *respRun) {
	if err := s.saveResponse(ctx, r); err != nil {
		s.log.Error("storing a response's progress", "id", r.obj.ID, "err", err)
	}
}
