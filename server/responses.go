package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v5"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/store"
)

// OpenAI's Responses API on the RLM engine. A response runs like a chat
// completion (same engine, limits, files, tenants, run slots), with three
// things chat lacks:
//
//   - background: true. The run goes on without the client. Its record in
//     the store is the truth every replica reads: GET polls it, and every
//     event of the run is appended to an index of the store, so that
//     GET ?stream=true&starting_after=N resumes the stream on any replica.
//     Cancel reaches the run's replica through a marker in the store that
//     the run checks every ResponsePoll. A replica that dies mid-run leaves
//     its runs to the sweep of stored runs (runs.go): they become failed
//     with code server_stopped within RunLease.
//   - previous_response_id. A follow-up is run with the earlier turns of
//     the conversation (their input messages, files and answers) before its
//     own input: the engine offloads them with the rest.
//   - response objects and events in the Responses format, with the
//     engine's progress as extra events of type rlm.progress when the
//     request asks for them (rlm.progress: the official SDKs' stream
//     helpers refuse event types they do not know).
//
// Keys: collection "responses", key OWNER/ID holds a storedResponse; index
// "ev-OWNER-ID" holds its events by sequence number (background runs); index
// "cancel" holds cancel requests, key OWNER.ID.

const (
	collResponses = "responses"
	idxCancel     = "cancel"
	respPrefix    = "resp_"
	// maxConversation bounds how many earlier responses a follow-up may
	// stand on (previous_response_id, followed back).
	maxConversation = 100
)

// errResponseCancelled is the cause of a run stopped by POST .../cancel.
var errResponseCancelled = errors.New("response cancelled")

type responseObject struct {
	ID                 string             `json:"id"`
	Object             string             `json:"object"`
	CreatedAt          int64              `json:"created_at"`
	CompletedAt        *int64             `json:"completed_at"`
	Status             string             `json:"status"`
	Background         bool               `json:"background"`
	Error              *responseError     `json:"error"`
	IncompleteDetails  *incompleteDetails `json:"incomplete_details"`
	Instructions       *string            `json:"instructions"`
	MaxOutputTokens    *int               `json:"max_output_tokens"`
	Metadata           map[string]string  `json:"metadata"`
	Model              string             `json:"model"`
	Output             []outputMessage    `json:"output"`
	ParallelToolCalls  bool               `json:"parallel_tool_calls"`
	PreviousResponseID *string            `json:"previous_response_id"`
	Store              bool               `json:"store"`
	Temperature        *float64           `json:"temperature"`
	TopP               *float64           `json:"top_p"`
	Text               json.RawMessage    `json:"text"`
	ToolChoice         string             `json:"tool_choice"`
	Tools              []any              `json:"tools"`
	Truncation         string             `json:"truncation"`
	Usage              *responseUsage     `json:"usage"`
	RLM                *rlmInfo           `json:"rlm,omitempty"`
}

type responseError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// incompleteDetails says why a run stopped before FINAL: the engine's stop
// reason (max_iterations, timeout, budget_tokens, ...).
type incompleteDetails struct {
	Reason string `json:"reason"`
}

type outputMessage struct {
	Type    string       `json:"type"`
	ID      string       `json:"id"`
	Status  string       `json:"status"`
	Role    string       `json:"role"`
	Content []outputText `json:"content"`
}

type outputText struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
}

type responseUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

// storedResponse is a response's record in the store.
type storedResponse struct {
	Response responseObject `json:"response"`
	Input    []inputItem    `json:"input"`
}

func terminal(status string) bool {
	switch status {
	case "completed", "failed", "cancelled", "incomplete":
		return true
	}
	return false
}

// respRun is a response running (or queued) on this server.
type respRun struct {
	owner string
	obj   responseObject // the record's response, as of the last write
	input []inputItem
	req   recursion.Request
	// files are released when the run ends.
	cleanup []func()
	// fallback is the request to run when the kept session of a
	// follow-up (req.Continue) cannot be continued: the earlier turns as
	// messages, with fallbackFiles still to resolve. session and
	// sessionNote become rlm.session and rlm.session_note.
	fallback       *recursion.Request
	fallbackFiles  []fileRef
	session        string
	sessionNote    string
	requireSession bool
	// progress: emit the engine's events as rlm.progress (rlm.progress).
	progress bool
	cancel   context.CancelCauseFunc
	models   modelSet
	// sink receives the events of a foreground stream; nil otherwise.
	// gone is closed when the streaming handler returns, so that the run
	// never blocks on a client that left.
	sink chan []byte
	gone chan struct{}
	done chan struct{}

	mu  sync.Mutex
	seq int
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

// createResponse answers POST /v1/responses.
func (s *Server) createResponse(c *echo.Context) error {
	if s.draining.Load() {
		return &apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "shutting_down",
			Kind: "shutting_down", Message: "server is shutting down; retry on another replica", RetryAfter: 1}
	}
	hreq := c.Request()
	ctx := hreq.Context()
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), hreq.Body, s.cfg.MaxRequestBytes))
	if err != nil {
		return jsonError(err)
	}
	rr, items, err := decodeResponsesRequest(body, s.cfg)
	if err != nil {
		return err
	}
	store := rr.Store == nil || *rr.Store
	if rr.Background && !store {
		return badRequest("background", "background responses must be stored: leave store unset or true")
	}
	md, err := parseMetadata(rr.Metadata)
	if err != nil {
		return err
	}
	own := owner(c)
	history, err := s.conversation(ctx, own, rr.PreviousResponseID)
	if err != nil {
		return err
	}
	cr := rr.chatRequest(history, items)
	cr.Store = store
	rreq, files, err := toRunRequest(cr, &s.cfg)
	if err != nil {
		return fixParam(err)
	}
	rreq.Keep = store // a follow-up can continue it
	if store {
		if err := s.checkCompletionQuota(ctx, own, int64(len(body))); err != nil {
			return err
		}
	}
	if s.runner == nil {
		return &apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "not_configured",
			Kind: "not_configured", Message: "this server cannot answer yet: " + s.cfg.NotConfigured}
	}
	r := &respRun{owner: own, req: rreq, done: make(chan struct{}), progress: rr.RLM != nil && rr.RLM.Progress}
	r.obj = newResponseObject(rr, md, store)
	if rr.PreviousResponseID != "" {
		files = s.continueSession(r, rr, items, files)
		if r.session != "continued" && rr.RLM != nil && rr.RLM.RequireSession {
			return sessionGone(r.sessionNote)
		}
	}
	for _, it := range items {
		r.input = append(r.input, it.stored())
	}
	if rr.Background {
		return s.startBackground(c, r, files, rr.Stream)
	}
	return s.runForeground(c, r, files, rr.Stream)
}

// continueSession makes r a follow-up in the kept REPL session of the
// previous response, when this server keeps it and the new input can go
// into it (text only: a kept session's context cannot grow); the request
// with the earlier turns as messages becomes the fallback. It returns the
// files to resolve before the run starts.
func (s *Server) continueSession(r *respRun, rr *responsesRequest, items []inputItem, files []fileRef) []fileRef {
	r.session = "new"
	key := r.owner + "/" + rr.PreviousResponseID
	for _, it := range items {
		for _, p := range it.Content {
			if p.Type == "input_file" {
				r.sessionNote = "the follow-up attaches files, which a kept REPL session cannot take: the earlier turns are given as messages"
				return files
			}
		}
	}
	conv := s.sessions.take(key)
	if conv == nil {
		r.sessionNote = "this server keeps no REPL session of the previous response (it ran on another replica or before a restart, " +
			"its session expired or was evicted, or another follow-up took it): the earlier turns are given as messages"
		return files
	}
	// The same request without the history, in the kept session.
	own := rr.chatRequest(nil, items)
	creq, _, err := toRunRequest(own, &s.cfg)
	if err != nil {
		conv.Close()
		return files
	}
	creq.Keep, creq.Continue = r.obj.Store, conv
	fallback := r.req
	r.req, r.fallback, r.fallbackFiles, r.session = creq, &fallback, files, "continued"
	r.requireSession = rr.RLM != nil && rr.RLM.RequireSession
	return nil
}

// fixParam renames the chat request's parameters in an error to the
// Responses API's.
func fixParam(err error) error {
	var ae *apiError
	if !errors.As(err, &ae) {
		return err
	}
	switch {
	case ae.Param == "max_tokens":
		ae.Param, ae.Message = "max_output_tokens", strings.ReplaceAll(ae.Message, "max_tokens", "max_output_tokens")
	case strings.HasPrefix(ae.Param, "messages"):
		ae.Param = "input"
	}
	return ae
}

func newResponseObject(rr *responsesRequest, md map[string]string, store bool) responseObject {
	if md == nil {
		md = map[string]string{}
	}
	obj := responseObject{ID: newID(respPrefix), Object: "response", CreatedAt: time.Now().Unix(), Status: "queued",
		Background: rr.Background, Instructions: rr.Instructions, MaxOutputTokens: rr.MaxOutputTokens, Metadata: md,
		Model: rr.Model, Output: []outputMessage{}, Store: store, Temperature: rr.Temperature, TopP: rr.TopP,
		Text: json.RawMessage(`{"format":{"type":"text"}}`), ToolChoice: "auto", Tools: []any{}, Truncation: "disabled"}
	if rr.PreviousResponseID != "" {
		prev := rr.PreviousResponseID
		obj.PreviousResponseID = &prev
	}
	return obj
}

// conversation returns the earlier turns of the conversation that prev
// ends, oldest first: each turn's input messages and its answer. A turn's
// files come again by file_id; a file sent inline is not kept, and its
// place says so.
func (s *Server) conversation(ctx context.Context, own, prev string) ([]chatMessage, error) {
	var turns []storedResponse
	for id := prev; id != ""; {
		if len(turns) == maxConversation {
			return nil, badRequest("previous_response_id", "the conversation is longer than %d responses; start a new one", maxConversation)
		}
		sr, err := s.loadResponse(ctx, own, id)
		if err != nil {
			var ae *apiError
			if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
				ae.Param = "previous_response_id"
				if id != prev {
					ae.Message = fmt.Sprintf("response %s, an earlier turn of this conversation, was deleted", id)
				}
			}
			return nil, err
		}
		if st := sr.Response.Status; st != "completed" && st != "incomplete" {
			return nil, badRequest("previous_response_id", "response %s is %s: a conversation continues from a completed or incomplete response", id, st)
		}
		turns = append(turns, *sr)
		id = ""
		if p := sr.Response.PreviousResponseID; p != nil {
			id = *p
		}
	}
	var msgs []chatMessage
	for i := len(turns) - 1; i >= 0; i-- {
		for _, it := range turns[i].Input {
			msgs = append(msgs, historyMessage(it))
		}
		msgs = append(msgs, chatMessage{Role: "assistant", Content: messageContent{text: answerText(turns[i].Response)}})
	}
	return msgs, nil
}

// historyMessage is a stored input item as a message of a later turn.
func historyMessage(it inputItem) chatMessage {
	for i, p := range it.Content {
		if p.Type == "input_file" && p.FileID == "" {
			it.Content[i] = inputPart{Type: "input_text",
				Text: fmt.Sprintf("(The file %s was sent inline in an earlier turn and is not kept; upload it with /v1/files to keep it across turns.)", p.Filename)}
		}
	}
	return it.chatMessage()
}

func answerText(r responseObject) string {
	var b strings.Builder
	for _, o := range r.Output {
		for _, c := range o.Content {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// prepare resolves the run's files and writes its first record; on error
// everything it made is undone.
func (s *Server) prepare(ctx context.Context, r *respRun, files []fileRef) error {
	for _, f := range files {
		doc, cleanup, err := s.resolveFile(ctx, r.owner, f)
		if err != nil {
			r.abandon()
			return fixParam(err)
		}
		r.cleanup = append(r.cleanup, cleanup)
		r.req.Documents = append(r.req.Documents, doc)
	}
	r.req.TraceID = newID("trace-")
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
		return &apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "store_unavailable", Kind: "store",
			RetryAfter: 1, Message: "the response could not be stored, so the run was not started; retry later (details are in the server log)"}
	}
	return nil
}

func (r *respRun) release() {
	for _, f := range r.cleanup {
		f()
	}
	r.cleanup = nil
}

// abandon gives back what a response that will not run holds: its files,
// and the kept session it was to continue.
func (r *respRun) abandon() {
	r.release()
	if c := r.req.Continue; c != nil {
		c.Close()
	}
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
			c.Set(ctxStatus, statusClientClosed)
			return nil
		}
		return err
	}
	r.obj.Status = "in_progress"
	if err := s.prepare(ctx, r, files); err != nil {
		<-s.slots
		return err
	}
	if stream {
		r.sink, r.gone = make(chan []byte, 1024), make(chan struct{})
		defer close(r.gone)
	}
	runCtx := s.responseContext(ctx, r, c.Request().Header)
	s.startResponse(runCtx, r, false)
	if stream {
		return s.streamLive(c, r)
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		c.Set(ctxStatus, statusClientClosed)
		return nil
	}
	if r.obj.Status == "failed" && r.obj.Error != nil {
		ae := &apiError{Status: http.StatusInternalServerError, Type: "server_error", Code: r.obj.Error.Code, Kind: "response_failed",
			Message: r.obj.Error.Message}
		if st, ok := failureStatus[r.obj.Error.Code]; ok {
			ae.Status = st
		}
		if r.obj.Store {
			ae.Message += " (stored as response " + r.obj.ID + ")"
		}
		return ae
	}
	return c.JSON(http.StatusOK, r.obj)
}

// failureStatus is the HTTP status of a foreground response that failed,
// by error code.
var failureStatus = map[string]int{
	"upstream_error":          http.StatusBadGateway,
	"context_length_exceeded": http.StatusBadRequest,
	"timeout":                 http.StatusGatewayTimeout,
	"shutting_down":           http.StatusServiceUnavailable,
	"repl_memory_exhausted":   http.StatusServiceUnavailable,
	"session_gone":            http.StatusConflict,
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
		return &apiError{Status: http.StatusTooManyRequests, Type: "rate_limit_error", Code: "rate_limit_exceeded", Kind: "rate_limit",
			Message:    fmt.Sprintf("this server already holds %d background responses; retry later or on another replica", s.cfg.MaxBackground),
			RetryAfter: max(1, int(s.cfg.RetryAfter.Round(time.Second)/time.Second))}
	}
	if err := s.prepare(ctx, r, files); err != nil {
		s.background.Add(-1)
		return err
	}
	runCtx := s.responseContext(context.WithoutCancel(ctx), r, c.Request().Header)
	s.emit(runCtx, r, "response.created", map[string]any{"response": r.obj})
	obj := r.obj
	s.runs.Add(1) // given back by finishResponse
	go func() {
		select {
		case s.slots <- struct{}{}:
			s.startResponse(runCtx, r, true)
		case <-runCtx.Done():
			// Cancelled or shut down while queued: recorded as such.
			r.abandon()
			s.finishResponse(runCtx, r, recursion.Result{StopReason: recursion.StopCancelled}, nil)
		}
	}()
	if stream {
		return s.streamStored(c, r.owner, obj.ID, -1)
	}
	return c.JSON(http.StatusOK, obj)
}

// responseContext is the run's context: cancelled by POST .../cancel (its
// cause errResponseCancelled), by the end of the shutdown grace period
// (errShutdown) and, for a foreground run that is not stored, when the
// client leaves.
func (s *Server) responseContext(reqCtx context.Context, r *respRun, h http.Header) context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	r.cancel = cancel
	stops := []func() bool{context.AfterFunc(s.base, func() { cancel(errShutdown) })}
	if !r.obj.Store {
		stops = append(stops, context.AfterFunc(reqCtx, func() { cancel(errClientGone) }))
	}
	key := r.owner + "/" + r.obj.ID
	s.responses.put(key, r)
	go func() {
		<-r.done
		for _, stop := range stops {
			stop()
		}
		cancel(nil)
		s.responses.remove(key)
	}()
	if r.obj.Background {
		go s.watchCancel(ctx, r)
	}
	if s.cfg.RunContext != nil {
		return s.cfg.RunContext(ctx, r.owner, h)
	}
	return ctx
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

// startResponse runs r, which holds a run slot, in its own goroutine.
func (s *Server) startResponse(ctx context.Context, r *respRun, background bool) {
	obs := &observer{s: s, models: &r.models}
	if r.progress {
		obs.progress = func(ev recursion.Event) {
			s.emit(ctx, r, "rlm.progress", map[string]any{"rlm": progressOf(ev)})
		}
	}
	r.req.Observer = obs
	if !background {
		s.runs.Add(1)
	}
	s.m.runsInFlight.Inc()
	r.obj.Status = "in_progress"
	if background {
		s.saveResponseLogged(ctx, r)
	} else {
		s.emit(ctx, r, "response.created", map[string]any{"response": r.obj})
	}
	s.emit(ctx, r, "response.in_progress", map[string]any{"response": r.obj})
	go func() {
		res, err := s.runner.Run(ctx, r.req)
		if errors.Is(err, recursion.ErrCannotContinue) && r.fallback != nil {
			res, err = s.runFallback(ctx, r, err)
		}
		if c := r.req.Continue; c != nil && c != res.Conversation {
			c.Close() // the run did not keep it (it failed before its root ran)
		}
		s.m.recordRun(res)
		<-s.slots
		s.m.runsInFlight.Dec()
		r.release()
		s.finishResponse(ctx, r, res, err)
	}()
}

// sessionGone is the answer to a follow-up that requires its previous
// response's REPL session (rlm.require_session) when it cannot have it.
func sessionGone(why string) *apiError {
	why, _, _ = strings.Cut(why, ": the earlier turns are given as messages")
	return &apiError{Status: http.StatusConflict, Type: "invalid_request_error", Param: "previous_response_id", Code: "session_gone",
		Kind: "invalid_request", Message: "the previous response's REPL session cannot be continued: " + why}
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
	for _, f := range r.fallbackFiles {
		doc, cleanup, err := s.resolveFile(ctx, r.owner, f)
		if err != nil {
			return recursion.Result{}, err
		}
		r.cleanup = append(r.cleanup, cleanup)
		r.req.Documents = append(r.req.Documents, doc)
	}
	return s.runner.Run(ctx, r.req)
}

// finishResponse settles a run's outcome, emits the output and terminal
// events, writes the final record and ends the run (r.done). It is called
// with one count of s.runs held, which it gives back.
func (s *Server) finishResponse(ctx context.Context, r *respRun, res recursion.Result, err error) {
	defer s.runs.Done()
	defer close(r.done)
	if r.obj.Background {
		defer s.background.Add(-1)
	}
	o := &r.obj
	now := time.Now().Unix()
	o.CompletedAt = &now
	o.Status, o.Error, o.IncompleteDetails = s.responseStatus(ctx, res, err)
	if o.Status == "completed" || o.Status == "incomplete" {
		u := responseUsage{InputTokens: res.Usage.PromptTokens, OutputTokens: res.Usage.CompletionTokens, TotalTokens: res.Usage.TotalTokens}
		o.Usage = &u
		s.emitOutput(ctx, r, res.Answer)
	}
	if res.TraceID != "" || r.req.TraceID != "" {
		o.RLM = infoOf(&run{req: r.req}, res)
		o.RLM.Models = r.models.list()
		o.RLM.Session, o.RLM.SessionNote = r.session, r.sessionNote
	}
	s.keepSession(r, res.Conversation)
	typ := "response." + o.Status
	if o.Status == "cancelled" {
		// The Responses stream has no cancelled event, and the SDKs refuse
		// types they do not know: a cancelled run ends its stream as a
		// failed one, its response saying cancelled.
		typ = "response.failed"
	}
	s.emit(ctx, r, typ, map[string]any{"response": *o})
	if !o.Store {
		return
	}
	if _, err := s.loadResponse(ctx, r.owner, o.ID); isNotFound(err) {
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
// reporting whether there was one. The gateway gives it to the REPL pool's
// memory budget: a run that needs memory takes it from idle kept sessions
// before it waits.
func (s *Server) ReclaimREPLMemory() bool { return s.sessions.evictOldest() }

// keepSession keeps a finished response's REPL session for a follow-up
// when the response is stored and can be followed up (completed or
// incomplete); otherwise the session is closed.
func (s *Server) keepSession(r *respRun, conv *recursion.Conversation) {
	if conv == nil {
		return
	}
	if !r.obj.Store || (r.obj.Status != "completed" && r.obj.Status != "incomplete") {
		conv.Close()
		return
	}
	s.sessions.put(r.owner+"/"+r.obj.ID, conv)
}

// responseStatus maps a run's outcome to a response status: FINAL is
// completed; a stop at a limit (turns, calls, tokens, time, failed turns)
// is incomplete, with the partial answer as output; a cancel is cancelled;
// anything else failed.
func (s *Server) responseStatus(ctx context.Context, res recursion.Result, err error) (string, *responseError, *incompleteDetails) {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errResponseCancelled), errors.Is(cause, errClientGone):
		return "cancelled", nil, nil
	case errors.Is(cause, errShutdown):
		return "failed", &responseError{Code: "shutting_down", Message: "the server shut down before the run finished; retry the request"}, nil
	case err != nil:
		ae := toAPIError(s.outcome(ctx, res, err).err)
		return "failed", &responseError{Code: ae.Code, Message: ae.Message}, nil
	}
	switch res.StopReason {
	case recursion.StopFinal, recursion.StopNoContext:
		return "completed", nil, nil
	case recursion.StopCancelled:
		return "cancelled", nil, nil
	case recursion.StopUpstreamError:
		msg := "the upstream model failed"
		if res.Error != "" {
			msg = "the run stopped: " + res.Error
		}
		return "failed", &responseError{Code: "upstream_error", Message: msg}, nil
	}
	return "incomplete", nil, &incompleteDetails{Reason: string(res.StopReason)}
}

// emitOutput puts the answer into the response as one assistant message
// and emits it as OpenAI streams text: item added, part added, deltas,
// text done, part done, item done.
func (s *Server) emitOutput(ctx context.Context, r *respRun, answer string) {
	msgID := newID("msg_")
	item := outputMessage{Type: "message", ID: msgID, Status: "in_progress", Role: "assistant", Content: []outputText{}}
	s.emit(ctx, r, "response.output_item.added", map[string]any{"output_index": 0, "item": item})
	part := outputText{Type: "output_text", Annotations: []any{}}
	at := map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0}
	s.emit(ctx, r, "response.content_part.added", with(at, "part", part))
	for rest := answer; len(rest) > 0; {
		piece := runePrefix(rest, deltaBytes)
		rest = rest[len(piece):]
		s.emit(ctx, r, "response.output_text.delta", with(with(at, "delta", piece), "logprobs", []any{}))
	}
	s.emit(ctx, r, "response.output_text.done", with(with(at, "text", answer), "logprobs", []any{}))
	part.Text = answer
	s.emit(ctx, r, "response.content_part.done", with(at, "part", part))
	item.Status, item.Content = "completed", []outputText{part}
	s.emit(ctx, r, "response.output_item.done", map[string]any{"output_index": 0, "item": item})
	r.obj.Output = []outputMessage{item}
}

func with(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for mk, mv := range m {
		out[mk] = mv
	}
	out[k] = v
	return out
}

// emit gives an event of r its sequence number and sends it where the
// run's streams read: the live sink of a foreground stream, the store's
// event index of a background response. Progress events a slow stream
// cannot take are dropped (and counted); no other event is.
func (s *Server) emit(ctx context.Context, r *respRun, typ string, fields map[string]any) {
	r.mu.Lock()
	seq := r.seq
	r.seq++
	r.mu.Unlock()
	if !r.obj.Background && r.sink == nil {
		return // no stream reads it: a foreground response answered whole
	}
	ev := with(fields, "type", typ)
	ev["sequence_number"] = seq
	b, err := json.Marshal(ev)
	if err != nil {
		s.log.Error("encoding a response event", "type", typ, "err", err)
		return
	}
	if r.obj.Background {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.StoreTimeout)
		err := s.store.PutEntry(wctx, collResponses, eventsIndex(r.owner, r.obj.ID), eventKey(seq), b)
		cancel()
		if err != nil {
			s.log.Error("storing a response event", "id", r.obj.ID, "type", typ, "err", err)
		}
	}
	if r.sink == nil {
		return
	}
	if typ == "rlm.progress" {
		select {
		case r.sink <- b:
		default:
			s.m.dropped.Inc()
		}
		return
	}
	select {
	case r.sink <- b:
	case <-r.gone:
	}
}

func eventsIndex(owner, id string) string { return "ev-" + owner + "-" + id }
func eventKey(seq int) string             { return fmt.Sprintf("%010d", seq) }

// streamLive writes a foreground run's events as they come.
func (s *Server) streamLive(c *echo.Context, r *respRun) error {
	w := startEventStream(c)
	ctx := c.Request().Context()
	keep := time.NewTicker(s.cfg.KeepAlive)
	defer keep.Stop()
	for {
		select {
		case b := <-r.sink:
			if w.event(b) != nil {
				return nil
			}
		case <-r.done:
			for {
				select {
				case b := <-r.sink:
					w.event(b)
				default:
					return nil
				}
			}
		case <-keep.C:
			w.comment("keep-alive")
		case <-ctx.Done():
			c.Set(ctxStatus, statusClientClosed)
			return nil
		}
	}
}

// streamStored writes the stored events of a background response after
// sequence number after, following new ones (read every ResponsePoll)
// until the terminal event. Any replica can serve it.
func (s *Server) streamStored(c *echo.Context, own, id string, after int) error {
	ctx := c.Request().Context()
	w := startEventStream(c)
	idx := eventsIndex(own, id)
	from := ""
	if after >= 0 {
		from = eventKey(after)
	}
	keepAlive := time.Now()
	for {
		var end bool
		err := s.store.ScanEntries(ctx, collResponses, idx, from, false, func(e store.Entry) bool {
			from = e.Key
			var ev struct {
				Type string `json:"type"`
			}
			json.Unmarshal(e.Value, &ev)
			if w.event(e.Value) != nil {
				end = true
				return false
			}
			end = end || isTerminalEvent(ev.Type)
			return !end
		})
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("reading a response's events", "id", id, "err", err)
			}
			return nil
		}
		if end {
			return nil
		}
		if time.Since(keepAlive) >= s.cfg.KeepAlive {
			w.comment("keep-alive")
			keepAlive = time.Now()
		}
		// No terminal event yet: the run goes on, or its server died and
		// the sweep has yet to record it (its record says which).
		if sr, err := s.loadResponse(ctx, own, id); err != nil || terminal(sr.Response.Status) && !s.hasEventsAfter(ctx, idx, from) {
			if err == nil {
				w.terminal(sr.Response)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(s.cfg.ResponsePoll):
		}
	}
}

func isTerminalEvent(typ string) bool {
	switch typ {
	case "response.completed", "response.failed", "response.incomplete":
		return true
	}
	return false
}

func (s *Server) hasEventsAfter(ctx context.Context, idx, after string) bool {
	found := false
	s.store.ScanEntries(ctx, collResponses, idx, after, false, func(store.Entry) bool { found = true; return false })
	return found
}

// eventWriter writes server-sent events in the Responses format: each
// event's type as its SSE event name, the event as its data.
type eventWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func startEventStream(c *echo.Context) *eventWriter {
	w := c.Response()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &eventWriter{w: w, rc: http.NewResponseController(w)}
}

func (e *eventWriter) event(b []byte) error {
	var ev struct {
		Type string `json:"type"`
	}
	json.Unmarshal(b, &ev)
	if _, err := fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", ev.Type, b); err != nil {
		return err
	}
	return e.rc.Flush()
}

func (e *eventWriter) comment(text string) {
	fmt.Fprintf(e.w, ": %s\n\n", text)
	e.rc.Flush()
}

// terminal writes the terminal event of a response whose run ended
// without one in its events (its server died; the sweep recorded it).
func (e *eventWriter) terminal(r responseObject) {
	b, _ := json.Marshal(map[string]any{"type": "response." + r.Status, "sequence_number": -1, "response": r})
	e.event(b)
}

// saveResponse writes r's record within StoreTimeout, whether or not ctx
// is cancelled: a record once begun is finished.
func (s *Server) saveResponse(ctx context.Context, r *respRun) error {
	return s.putResponse(ctx, r.owner, storedResponse{Response: r.obj, Input: r.input})
}

func (s *Server) putResponse(ctx context.Context, own string, sr storedResponse) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.StoreTimeout)
	defer cancel()
	b, err := json.Marshal(sr)
	if err != nil {
		return err
	}
	_, err = s.store.Put(ctx, collResponses, own+"/"+sr.Response.ID, bytes.NewReader(b))
	return err
}

func (s *Server) saveResponseLogged(ctx context.Context, r *respRun) {
	if err := s.saveResponse(ctx, r); err != nil {
		s.log.Error("storing a response's progress", "id", r.obj.ID, "err", err)
	}
}

// loadResponse reads a stored response of own; another owner's is not
// found.
func (s *Server) loadResponse(ctx context.Context, own, id string) (*storedResponse, error) {
	if !validID(id, respPrefix) {
		return nil, responseNotFound(id)
	}
	rd, err := s.store.Get(ctx, collResponses, own+"/"+id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, responseNotFound(id)
	}
	if err != nil {
		return nil, serverError("reading response %s: %v", id, err)
	}
	defer rd.Close()
	var sr storedResponse
	if err := json.NewDecoder(rd).Decode(&sr); err != nil {
		return nil, serverError("reading response %s: %v", id, err)
	}
	return &sr, nil
}

func responseNotFound(id string) *apiError {
	return notFound("response_id", "no response %q", id)
}

// isNotFound reports whether err is a 404 API error, as loadResponse
// returns for a response that is not there.
func isNotFound(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound
}

// getResponse answers GET /v1/responses/{id}: the response, or with
// stream=true its events after starting_after.
func (s *Server) getResponse(c *echo.Context) error {
	id := c.Param("id")
	own := owner(c)
	q := c.Request().URL.Query()
	sr, err := s.loadResponse(c.Request().Context(), own, id)
	if err != nil {
		return err
	}
	if q.Get("stream") != "true" {
		return c.JSON(http.StatusOK, sr.Response)
	}
	if !sr.Response.Background {
		return badRequest("stream", "only background responses can be streamed again")
	}
	after := -1
	if v := q.Get("starting_after"); v != "" {
		if _, err := fmt.Sscanf(v, "%d", &after); err != nil || after < 0 {
			return badRequest("starting_after", "starting_after must be a non-negative integer, not %q", v)
		}
	}
	return s.streamStored(c, own, id, after)
}

// cancelResponse answers POST /v1/responses/{id}/cancel. A run on this
// server is cancelled at once; one on another replica through a marker
// in the store, which its replica reads within ResponsePoll. The answer is
// the response once its run has ended, or as it stands after
// CancelWait.
func (s *Server) cancelResponse(c *echo.Context) error {
	id := c.Param("id")
	own := owner(c)
	ctx := c.Request().Context()
	sr, err := s.loadResponse(ctx, own, id)
	if err != nil {
		return err
	}
	if !sr.Response.Background {
		return badRequest("response_id", "only background responses can be cancelled")
	}
	if terminal(sr.Response.Status) {
		return c.JSON(http.StatusOK, sr.Response)
	}
	if err := s.requestCancel(ctx, own, id); err != nil {
		return serverError("requesting the cancel: %v", err)
	}
	deadline := time.Now().Add(s.cfg.CancelWait)
	for !terminal(sr.Response.Status) && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(min(s.cfg.ResponsePoll, 50*time.Millisecond)):
		}
		if sr, err = s.loadResponse(ctx, own, id); err != nil {
			return err
		}
	}
	return c.JSON(http.StatusOK, sr.Response)
}

// requestCancel cancels a response's run: at once when it runs here, else
// through a marker its replica reads within ResponsePoll.
func (s *Server) requestCancel(ctx context.Context, own, id string) error {
	if r := s.responses.get(own + "/" + id); r != nil {
		r.cancel(errResponseCancelled)
		return nil
	}
	return s.store.PutEntry(ctx, collResponses, idxCancel, own+"."+id, []byte(`{}`))
}

// deleteResponse answers DELETE /v1/responses/{id}: the record, its
// events and any cancel marker go; a run still going is cancelled.
func (s *Server) deleteResponse(c *echo.Context) error {
	id := c.Param("id")
	own := owner(c)
	ctx := c.Request().Context()
	sr, err := s.loadResponse(ctx, own, id)
	if err != nil {
		return err
	}
	if !terminal(sr.Response.Status) {
		if err := s.requestCancel(ctx, own, id); err != nil {
			return serverError("cancelling the run: %v", err)
		}
		if r := s.responses.get(own + "/" + id); r != nil {
			<-r.done
		}
	}
	if err := s.store.Delete(ctx, collResponses, own+"/"+id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return serverError("deleting response: %v", err)
	}
	s.sessions.drop(own + "/" + id)
	s.deleteEvents(ctx, own, id)
	return c.JSON(http.StatusOK, map[string]any{"id": id, "object": "response.deleted", "deleted": true})
}

// deleteEvents removes a response's stored events and cancel marker.
func (s *Server) deleteEvents(ctx context.Context, own, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.StoreTimeout)
	defer cancel()
	deleteResponseEntries(ctx, s.store, own, id)
}

// deleteResponseEntries removes a response's index entries: its events and
// any cancel marker. Best effort: what is left is never listed.
func deleteResponseEntries(ctx context.Context, st store.Store, own, id string) {
	idx := eventsIndex(own, id)
	var keys []string
	st.ScanEntries(ctx, collResponses, idx, "", false, func(e store.Entry) bool { keys = append(keys, e.Key); return true })
	for _, k := range keys {
		st.DeleteEntry(ctx, collResponses, idx, k)
	}
	st.DeleteEntry(ctx, collResponses, idxCancel, own+"."+id)
}

// responseInputItems answers GET /v1/responses/{id}/input_items: the
// response's own input (not the earlier turns'), newest first unless
// order=asc.
func (s *Server) responseInputItems(c *echo.Context) error {
	q := c.Request().URL.Query()
	if q.Get("order") == "" {
		q.Set("order", "desc")
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	sr, err := s.loadResponse(c.Request().Context(), owner(c), c.Param("id"))
	if err != nil {
		return err
	}
	items := sr.Input
	if p.desc {
		items = make([]inputItem, len(sr.Input))
		for i, it := range sr.Input {
			items[len(items)-1-i] = it
		}
	}
	start := 0
	if p.after != "" {
		start = len(items)
		for i, it := range items {
			if it.ID == p.after {
				start = i + 1
				break
			}
		}
	}
	page := items[start:min(len(items), start+p.limit)]
	ids := make([]string, len(page))
	for i, it := range page {
		ids[i] = it.ID
	}
	return c.JSON(http.StatusOK, newPage(page, ids, start+len(page) < len(items)))
}

// endOrphanResponse records as failed a stored response whose server
// stopped under it, with a terminal event for its streams, and unregisters
// it.
func (s *Server) endOrphanResponse(ctx context.Context, re runningEntry) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.StoreTimeout)
	defer cancel()
	sr, err := s.loadResponse(ctx, re.Owner, re.ID)
	switch {
	case isNotFound(err):
	case err != nil:
		return err
	case !terminal(sr.Response.Status):
		o := orphanError()
		now := time.Now().Unix()
		sr.Response.Status, sr.Response.CompletedAt = "failed", &now
		sr.Response.Error = &responseError{Code: *o.Code, Message: o.Message}
		if err := s.putResponse(ctx, re.Owner, *sr); err != nil {
			return err
		}
		if sr.Response.Background {
			// After the last event, unless a replica sweeping at the same
			// time wrote the end already.
			idx := eventsIndex(re.Owner, re.ID)
			seq, ended := 0, false
			s.store.ScanEntries(ctx, collResponses, idx, "", true, func(e store.Entry) bool {
				var ev struct {
					Type string `json:"type"`
				}
				json.Unmarshal(e.Value, &ev)
				fmt.Sscanf(e.Key, "%d", &seq)
				seq, ended = seq+1, isTerminalEvent(ev.Type)
				return false
			})
			if !ended {
				b, _ := json.Marshal(map[string]any{"type": "response.failed", "sequence_number": seq, "response": sr.Response})
				if err := s.store.PutEntry(ctx, collResponses, idx, eventKey(seq), b); err != nil {
					return err
				}
			}
		}
	}
	err = s.store.DeleteEntry(ctx, collRuns, idxRunning, runningKey(re.Owner, re.ID))
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// runePrefix is the longest prefix of s of at most n bytes (more when a
// rune is longer) that ends at a rune boundary.
func runePrefix(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n < len(s) && !utf8.RuneStart(s[n]) {
		n++
	}
	return s[:n]
}
