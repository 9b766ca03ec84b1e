package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/recursion"
)

// chatCompletions answers POST /v1/chat/completions.
func (s *Server) chatCompletions(c *echo.Context) error {
	if s.draining.Load() {
		return s.unavailable()
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
	cr, rreq, files, md, err := s.readChatRequest(c)
	if err != nil {
		return err
	}
	if e := s.unavailable(); e != nil {
		return e
	}

	// Wait briefly for a run slot, then turn the client away; when the
	// queue is full, at once. The slot comes before anything expensive is
	// built for the run (documents, inline files, the stored record).
	if err := s.acquireSlot(hreq.Context()); err != nil {
		if errors.Is(err, errClientGone) {
			c.Set(ctxStatus, api.StatusClientClosed)
			return nil
		}
		return err
	}
	r := &run{id: s.newCompletionID(), owner: owner(c), model: cr.Model, created: time.Now().Unix(),
		stored: cr.Store, req: rreq, functions: len(cr.Functions) > 0}
	// Tool outputs that answer a paused run resume it; without one (gone,
	// or on another replica) the conversation runs again, and the calls
	// they answer are not made again (rreq.ToolOutputs).
	first, outputs := trailingOutputs(cr.Messages)
	paused, gone := s.resumable(r.owner, first)
	if gone != "" {
		r.note = rerunNote(gone)
	}
	launched := false
	defer func() {
		if !launched { // the run never started: its slot and files go back
			r.release()
			<-s.slots
			if paused != nil {
				paused.Close()
			}
		}
	}()
	if err := s.resolveFiles(hreq.Context(), r, files); err != nil {
		return err
	}
	r.trace(c, paused)
	if r.stored {
		if err := s.startStored(c, r, cr.Messages, md); err != nil {
			return err
		}
	}
	var events chan recursion.Event
	if cr.Stream {
		events = make(chan recursion.Event, 256)
	}
	ctx, runCtx, stop := s.runContext(hreq.Context(), r, hreq.Header)
	r.req.Observer = &observer{s: s, events: events, models: &r.models}
	done := make(chan outcome, 1)
	launched = true
	exec := func() (recursion.Result, error) { return s.runner.Run(runCtx, r.req) }
	if paused != nil {
		exec = func() (recursion.Result, error) { return paused.p.Resume(runCtx, outputs) }
	}
	s.launch(ctx, r, exec, func(out outcome) {
		stop()
		s.keepPaused(r, out.res, r.owner+"/"+firstCall(out.res))
		if r.stored {
			out = s.recordCompletion(ctx, r, out)
		}
		done <- out
	})
	if cr.Stream {
		includeUsage := cr.StreamOptions != nil && cr.StreamOptions.IncludeUsage
		return s.streamChat(c, r, events, done, includeUsage)
	}
	return s.answerChat(c, r, done)
}

// readChatRequest reads and checks a chat request whole before it waits
// for anything: decoding is bounded (the body's size, the messages and
// parts caps) and validation cheap.
func (s *Server) readChatRequest(c *echo.Context) (cr *api.ChatCompletionRequest, rreq recursion.Request, files []fileRef, md map[string]string, err error) {
	hreq := c.Request()
	hreq.Body = http.MaxBytesReader(c.Response(), hreq.Body, s.cfg.MaxRequestBytes)
	length := hreq.ContentLength
	if length > s.cfg.MaxRequestBytes {
		return nil, rreq, nil, nil, api.TooLarge(s.cfg.MaxRequestBytes, "the request body")
	}
	body, err := api.ReadBody(hreq.Body, length)
	if err != nil {
		return nil, rreq, nil, nil, err
	}
	if cr, err = api.DecodeChatCompletionRequest(body, s.cfg.limits()); err != nil {
		return nil, rreq, nil, nil, err
	}
	if rreq, files, err = toRunRequest(cr, &s.cfg); err != nil {
		return nil, rreq, nil, nil, err
	}
	if md, err = cr.Metadata.Strings(); err != nil {
		return nil, rreq, nil, nil, err
	}
	if cr.Store {
		if err := s.checkCompletionQuota(hreq.Context(), owner(c), length); err != nil {
			return nil, rreq, nil, nil, err
		}
	}
	return cr, rreq, files, md, nil
}

// startStored records a store: true completion before its run starts; a
// store that cannot take it keeps the run from starting.
func (s *Server) startStored(c *echo.Context, r *run, msgs []api.Message, md map[string]string) error {
	if err := s.createStored(c.Request().Context(), r, msgs, md); err != nil {
		s.log.Error("storing a new completion", "id", r.id, "err", err)
		return &api.Error{Status: http.StatusServiceUnavailable, Type: api.TypeServer, Code: "store_unavailable", Kind: "store",
			RetryAfter: 1, Message: "the completion could not be stored, so the run was not started; retry later (details are in the server log)"}
	}
	// From here on every answer names the stored completion, errors
	// included: it is where the outcome can be read again.
	c.Response().Header().Set("X-RLM-Completion-Id", r.id)
	return nil
}

// answerChat waits for a run that is not streamed and answers it.
func (s *Server) answerChat(c *echo.Context, r *run, done <-chan outcome) error {
	select {
	case out := <-done:
		if failed(out) {
			return r.failure(out)
		}
		return c.JSON(http.StatusOK, s.completionOf(r, out.res))
	case <-c.Request().Context().Done():
		// The client is gone. A stored run goes on; any other run was
		// cancelled with the request's context.
		c.Set(ctxStatus, api.StatusClientClosed)
		s.m.errors.WithLabelValues("cancelled").Inc()
		return nil
	}
}

// failure is the error a chat client gets for a run that did not answer,
// naming the stored completion when there is one.
func (r *run) failure(out outcome) *api.Error {
	if r.stored {
		return withCompletionID(out.err, r.id)
	}
	return out.err
}

// recordCompletion writes a stored completion's final record. A
// completion deleted during its run is not written back; one whose record
// cannot be written is not a success, since its client was promised a
// stored completion.
func (s *Server) recordCompletion(ctx context.Context, r *run, out outcome) outcome {
	comp := s.completionOf(r, out.res)
	comp.Status = "completed"
	if failed(out) {
		comp.Status = "failed"
		if errors.Is(context.Cause(ctx), errShutdown) {
			comp.Status = "interrupted"
		}
		e := out.err.Object()
		comp.Error = &e
	}
	if !s.storedStillThere(ctx, r) {
		s.log.Info("stored completion deleted during its run; its final record is not written", "id", r.id)
		s.unregisterRun(ctx, r.owner, r.id)
		return out
	}
	if err := s.saveCompletion(ctx, r, comp); err != nil {
		// Left registered: once this server stops, a sweep records the
		// run as interrupted, not in_progress.
		s.log.Error("storing a finished completion", "id", r.id, "err", err)
		if !failed(out) {
			out.err = &api.Error{Status: http.StatusInternalServerError, Type: api.TypeServer, Code: "completion_not_stored", Kind: "store",
				Message: fmt.Sprintf("the run finished but its stored completion %s could not be saved, so its answer was not kept; "+
					"retry the request (details are in the server log)", r.id)}
			out.status = api.StatusFailed
		}
		return out
	}
	s.unregisterRun(ctx, r.owner, r.id)
	return out
}

// failed reports whether a chat client gets an error for out rather than
// an answer: every outcome but completed and incomplete, and the timeout.
func failed(out outcome) bool {
	return out.err != nil && (out.status != api.StatusIncomplete || out.res.StopReason == recursion.StopTimeout)
}

// finishReason tells clients whether the answer is whole: "length" for a
// run that stopped before FINAL (its answer is "No answer: ..."), as for a
// completion cut short.
func finishReason(sr recursion.StopReason) string {
	if sr == recursion.StopFinal || sr == recursion.StopNoContext || sr == "" {
		return api.FinishStop
	}
	return api.FinishLength
}

func (s *Server) completionOf(r *run, res recursion.Result) *api.ChatCompletion {
	answer := res.Answer
	msg := api.AssistantMessage{Role: "assistant", Content: &answer}
	finish := finishReason(res.StopReason)
	if res.StopReason == recursion.StopToolCalls {
		msg.Content = nil
		msg.ToolCalls, finish = toolCallsOf(res.ToolCalls), api.FinishToolCalls
		if r.functions { // the legacy form has one call: the run's calls went one at a time
			first := msg.ToolCalls[0].Function
			msg.ToolCalls, msg.FunctionCall, finish = nil, &first, api.FinishFunctionCall
		}
	}
	return &api.ChatCompletion{
		ID: r.id, Object: "chat.completion", Created: r.created, Model: r.model,
		Choices: []api.Choice{{Message: msg, FinishReason: finish}},
		Usage:   usageOf(res),
		RLM:     r.info(res),
	}
}

// toolCallsOf are a pause's calls as chat's tool_calls.
func toolCallsOf(calls []recursion.ToolCall) []api.ToolCall {
	out := make([]api.ToolCall, len(calls))
	for i, c := range calls {
		out[i] = api.ToolCall{ID: c.ID, Type: "function", Function: api.FunctionCall{Name: c.Name, Arguments: c.Arguments}}
	}
	return out
}

// firstCall is the id of a pause's first call, "" for a run that did not
// pause.
func firstCall(res recursion.Result) string {
	if len(res.ToolCalls) == 0 {
		return ""
	}
	return res.ToolCalls[0].ID
}

// keepPaused keeps a run that paused at client tool calls under key, for
// the request that brings their outputs.
func (s *Server) keepPaused(r *run, res recursion.Result, key string) {
	if res.StopReason != recursion.StopToolCalls || res.Paused == nil {
		return
	}
	tid := res.TraceID
	if tid == "" {
		tid = r.req.TraceID
	}
	s.paused.put(key, &pausedRun{p: res.Paused, calls: res.ToolCalls, traceID: tid, models: r.models.list()})
}

func usageOf(res recursion.Result) *api.Usage {
	u := res.Usage
	return &api.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
}
