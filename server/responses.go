package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/store"
)

// OpenAI's Responses API on the RLM engine. A response runs like a chat
// completion (same engine, limits, files, tenants, run slots, and the run
// lifecycle of run.go), with three things chat lacks:
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
//     own input: the engine offloads them with the rest. Items of stored
//     responses can also be named in the input by reference.
//   - response objects and events in the Responses format, with the
//     engine's progress as extra events of type rlm.progress when the
//     request asks for them (rlm.progress: the official SDKs' stream
//     helpers refuse event types they do not know).
//
// The handlers are here; the run in responses_run.go, its events and
// streams in responses_events.go, the request's decoding in
// responses_request.go.
//
// Keys: collection "responses", key OWNER/ID holds a storedResponse; index
// "ev-OWNER-ID" holds its events by sequence number (background runs); index
// "cancel" holds cancel requests, key OWNER.ID.

const (
	collResponses = "responses"
	idxCancel     = "cancel"
	respPrefix    = "resp_"
	// maxConversation bounds how many earlier responses a follow-up may
	// stand on (previous_response_id, followed back): this one and 99
	// before it.
	maxConversation = 99
)

// createResponse answers POST /v1/responses.
func (s *Server) createResponse(c *echo.Context) error {
	if s.draining.Load() {
		return s.unavailable()
	}
	ctx := c.Request().Context()
	rr, items, size, err := s.readResponseRequest(c)
	if err != nil {
		return err
	}
	store := rr.Store == nil || *rr.Store
	md, err := rr.Metadata.Strings()
	if err != nil {
		return err
	}
	own := owner(c)
	if items, err = s.resolveReferences(ctx, own, items); err != nil {
		return err
	}
	// Outputs of a response's tool calls resume its paused run, whether
	// they follow previous_response_id or the whole conversation (as the
	// agent SDKs send it); without it (gone, or on another replica) the
	// conversation runs again, and the calls they answer are not made
	// again.
	var paused *pausedRun
	var gone string
	outputs := toolOutputsOf(items)
	if rr.PreviousResponseID == "" {
		outputs = trailingOutputItems(items)
	}
	paused, gone = s.pausedFor(own, outputs)
	history, prevTools, err := s.conversation(ctx, own, rr.PreviousResponseID)
	if err != nil {
		return err
	}
	if outputs != nil && len(rr.Tools) == 0 {
		// Outputs that answer the previous response's calls, sent without
		// its tools (the tools are not carried over from response to
		// response, and the suite's clients do not send them again): a run
		// of the conversation again needs them to answer its calls.
		rr.Tools = prevTools
	}
	cr, err := chatRequest(rr, history, items)
	if err != nil {
		return err
	}
	rreq, files, err := toRunRequest(cr, &s.cfg)
	if err != nil {
		return fixParam(err, len(cr.Messages)-len(items))
	}
	rreq.Keep = store // a follow-up can continue it
	if store {
		if err := s.checkResponseQuota(ctx, own, size); err != nil {
			return err
		}
	}
	if e := s.unavailable(); e != nil {
		if paused != nil {
			paused.Close()
		}
		return e
	}
	r := &respRun{run: run{owner: own, model: rr.Model, stored: store, req: rreq},
		done: make(chan struct{}), progress: rr.RLM != nil && rr.RLM.Progress, resume: paused, outputs: outputs}
	r.inputOffset = len(cr.Messages) - len(items)
	r.obj = newResponse(rr, md, store)
	r.id, r.created = r.obj.ID, r.obj.CreatedAt
	r.run.trace(c, paused)
	if gone != "" {
		r.session, r.sessionNote = "new", rerunNote(gone)
	} else if rr.PreviousResponseID != "" && paused == nil {
		files = s.continueSession(r, rr, items, files)
		if r.session != "continued" && rr.RLM != nil && rr.RLM.RequireSession {
			r.abandon()
			return sessionGone(r.sessionNote)
		}
	}
	for i, it := range items {
		r.input = append(r.input, stored(it, r.obj.ID, i))
	}
	if rr.Background {
		return s.startBackground(c, r, files, rr.Stream)
	}
	return s.runForeground(c, r, files, rr.Stream)
}

// readResponseRequest reads and checks a response request whole before
// it waits for anything, and returns it with its input items and the
// body's size.
func (s *Server) readResponseRequest(c *echo.Context) (*api.ResponseRequest, []api.Item, int64, error) {
	hreq := c.Request()
	hreq.Body = http.MaxBytesReader(c.Response(), hreq.Body, s.cfg.MaxRequestBytes)
	if hreq.ContentLength > s.cfg.MaxRequestBytes {
		return nil, nil, 0, api.TooLarge(s.cfg.MaxRequestBytes, "the request body")
	}
	body, err := api.ReadBody(hreq.Body, hreq.ContentLength)
	if err != nil {
		return nil, nil, 0, err
	}
	rr, items, err := api.DecodeResponseRequest(body, s.cfg.limits())
	if err != nil {
		return nil, nil, 0, err
	}
	if err := checkResponseRequest(rr); err != nil {
		return nil, nil, 0, err
	}
	if rr.Background && rr.Store != nil && !*rr.Store {
		return nil, nil, 0, api.BadRequest("background", "background responses must be stored: leave store unset or true")
	}
	return rr, items, int64(len(body)), nil
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
		return nil, api.ServerError("reading response %s: %v", id, err)
	}
	defer rd.Close()
	var sr storedResponse
	if err := json.NewDecoder(rd).Decode(&sr); err != nil {
		return nil, api.ServerError("reading response %s: %v", id, err)
	}
	return &sr, nil
}

// putResponse writes a response's record within StoreTimeout, whether or
// not ctx is cancelled: a record once begun is finished. The record is
// encoded into the store's writer, not into a buffer: its input may be a
// 60 MB message, held once already.
func (s *Server) putResponse(ctx context.Context, own string, sr storedResponse) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.StoreTimeout)
	defer cancel()
	var large largeStrings
	held := sr
	held.Input = make([]api.Item, len(sr.Input))
	for i, it := range sr.Input {
		it.Content = slices.Clone(it.Content)
		for j := range it.Content {
			it.Content[j].Text = large.hold(it.Content[j].Text)
		}
		held.Input[i] = it
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(large.encode(pw, held)) }()
	n, err := s.store.Put(ctx, collResponses, own+"/"+sr.Response.ID, pr)
	// Unblocks the encoder if the store stopped reading early.
	pr.CloseWithError(errors.New("store write ended"))
	if err == nil {
		s.quotas.responses.Add(own, sr.Response.ID, n)
	}
	return err
}

func responseNotFound(id string) *api.Error {
	return api.NotFound("response_id", "no response %q", id)
}

// isNotFound reports whether err is a 404 API error, as loadResponse
// returns for a response that is not there.
func isNotFound(err error) bool {
	var ae *api.Error
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
		return api.BadRequest("stream", "only background responses can be streamed again")
	}
	after := -1
	if v := q.Get("starting_after"); v != "" {
		if _, err := fmt.Sscanf(v, "%d", &after); err != nil || after < 0 {
			return api.BadRequest("starting_after", "starting_after must be a non-negative integer, not %q", v)
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
		return api.BadRequest("response_id", "only background responses can be cancelled")
	}
	if api.Terminal(sr.Response.Status) {
		return c.JSON(http.StatusOK, sr.Response)
	}
	if err := s.requestCancel(ctx, own, id); err != nil {
		return api.ServerError("requesting the cancel: %v", err)
	}
	deadline := time.Now().Add(s.cfg.CancelWait)
	for !api.Terminal(sr.Response.Status) && time.Now().Before(deadline) {
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
	if !api.Terminal(sr.Response.Status) {
		if err := s.requestCancel(ctx, own, id); err != nil {
			return api.ServerError("cancelling the run: %v", err)
		}
		if r := s.responses.get(own + "/" + id); r != nil {
			<-r.done
		}
	}
	if err := s.store.Delete(ctx, collResponses, own+"/"+id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return api.ServerError("deleting response: %v", err)
	}
	s.quotas.responses.Drop(own, id)
	s.sessions.drop(own + "/" + id)
	s.deleteEvents(ctx, own, id)
	return c.JSON(http.StatusOK, api.DeletedObject{ID: id, Object: "response.deleted", Deleted: true})
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
		items = make([]api.Item, len(sr.Input))
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
	return c.JSON(http.StatusOK, api.NewPage(page, ids, start+len(page) < len(items)))
}
