package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/store"
)

// emitOutput puts the answer into the response as one assistant message
// and emits it as OpenAI streams text: item added, part added, deltas,
// text done, part done, item done.
func (s *Server) emitOutput(ctx context.Context, r *respRun, answer string) {
	msgID := itemID("msg", r.obj.ID, true, len(r.obj.Output))
	index := len(r.obj.Output)
	item := api.Item{Type: api.ItemMessage, ID: msgID, Status: api.StatusInProgress, Role: "assistant", Content: []api.ItemContent{}}
	s.emit(ctx, r, api.ResponseEvent{Type: api.EventOutputItemAdded, OutputIndex: index, Item: &item})
	part := api.ItemContent{Type: api.ContentOutputText}
	at := api.ResponseEvent{ItemID: msgID, OutputIndex: index}
	ev := func(typ string) api.ResponseEvent { e := at; e.Type = typ; return e }
	added := ev(api.EventContentPartAdded)
	added.Part = &part
	s.emit(ctx, r, added)
	for rest := answer; len(rest) > 0; {
		piece := runePrefix(rest, deltaBytes)
		rest = rest[len(piece):]
		delta := ev(api.EventOutputTextDelta)
		delta.Delta = piece
		s.emit(ctx, r, delta)
	}
	textDone := ev(api.EventOutputTextDone)
	textDone.Text = answer
	s.emit(ctx, r, textDone)
	donePart := api.ItemContent{Type: api.ContentOutputText, Text: answer}
	partDone := ev(api.EventContentPartDone)
	partDone.Part = &donePart
	s.emit(ctx, r, partDone)
	doneItem := api.Item{Type: api.ItemMessage, ID: msgID, Status: api.StatusCompleted, Role: "assistant", Content: []api.ItemContent{donePart}}
	s.emit(ctx, r, api.ResponseEvent{Type: api.EventOutputItemDone, OutputIndex: index, Item: &doneItem})
	r.obj.Output = append(r.obj.Output, doneItem)
}

// emitFunctionCalls puts a pause's calls into the response as
// function_call items and emits them as OpenAI streams them: item added,
// the arguments (one delta), arguments done, item done.
func (s *Server) emitFunctionCalls(ctx context.Context, r *respRun, calls []recursion.ToolCall) {
	for _, c := range calls {
		index := len(r.obj.Output)
		item := api.Item{Type: api.ItemFunctionCall, ID: itemID("fc", r.obj.ID, true, index), CallID: c.ID, Name: c.Name,
			Status: api.StatusInProgress}
		added := item
		s.emit(ctx, r, api.ResponseEvent{Type: api.EventOutputItemAdded, OutputIndex: index, Item: &added})
		s.emit(ctx, r, api.ResponseEvent{Type: api.EventFunctionArgumentsDelta, ItemID: item.ID, OutputIndex: index, Delta: c.Arguments})
		s.emit(ctx, r, api.ResponseEvent{Type: api.EventFunctionArgumentsDone, ItemID: item.ID, OutputIndex: index, Arguments: c.Arguments, Name: c.Name})
		item.Arguments, item.Status = c.Arguments, api.StatusCompleted
		done := item
		s.emit(ctx, r, api.ResponseEvent{Type: api.EventOutputItemDone, OutputIndex: index, Item: &done})
		r.obj.Output = append(r.obj.Output, item)
	}
}

// emit gives an event of r its sequence number and sends it where the
// run's streams read: the live sink of a foreground stream, the store's
// event index of a background response. Progress events a slow stream
// cannot take are dropped (and counted); no other event is.
func (s *Server) emit(ctx context.Context, r *respRun, ev api.ResponseEvent) {
	r.mu.Lock()
	ev.SequenceNumber = r.seq
	r.seq++
	r.mu.Unlock()
	if !r.obj.Background && r.sink == nil {
		return // no stream reads it: a foreground response answered whole
	}
	b, err := json.Marshal(ev)
	if err != nil {
		s.log.Error("encoding a response event", "type", ev.Type, "err", err)
		return
	}
	if r.obj.Background {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.StoreTimeout)
		err := s.store.PutEntry(wctx, collResponses, eventsIndex(r.owner, r.obj.ID), eventKey(ev.SequenceNumber), b)
		cancel()
		if err != nil {
			s.log.Error("storing a response event", "id", r.obj.ID, "type", ev.Type, "err", err)
		}
		s.feeds.notify(r.owner, r.obj.ID)
	}
	if r.sink == nil {
		return
	}
	if ev.Type == api.EventProgress {
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

// eventType reads an encoded event's type.
func eventType(b []byte) string {
	var ev struct {
		Type string `json:"type"`
	}
	json.Unmarshal(b, &ev)
	return ev.Type
}

// writeEvent writes an encoded event under its type's name, and notes in
// the access log how a stream that failed after its 200 ended.
func writeEvent(c *echo.Context, es *api.EventStream, b []byte) error {
	typ := eventType(b)
	if typ == api.EventFailed {
		var ev struct {
			Response struct {
				Status string             `json:"status"`
				Error  *api.ResponseError `json:"error"`
			} `json:"response"`
		}
		json.Unmarshal(b, &ev)
		if e := ev.Response.Error; e != nil {
			c.Set(ctxOutcome, e.Code)
		} else {
			c.Set(ctxOutcome, ev.Response.Status)
		}
	}
	return es.Event(typ, b)
}

// streamLive writes a foreground run's events as they come.
func (s *Server) streamLive(c *echo.Context, r *respRun) error {
	es := api.NewEventStream(c.Response())
	ctx := c.Request().Context()
	keep := time.NewTicker(s.cfg.KeepAlive)
	defer keep.Stop()
	for {
		select {
		case b := <-r.sink:
			if writeEvent(c, es, b) != nil {
				return nil
			}
		case <-r.done:
			for {
				select {
				case b := <-r.sink:
					writeEvent(c, es, b)
				default:
					return nil
				}
			}
		case <-keep.C:
			es.Comment("keep-alive")
		case <-ctx.Done():
			c.Set(ctxStatus, api.StatusClientClosed)
			return nil
		}
	}
}

// streamStored writes the stored events of a background response after
// sequence number after, following new ones as its feed announces them
// (feeds.go), until the terminal event. Any replica can serve it. The
// connection may be closed under it when the server needs room for new
// ones (see connLimiter): the client resumes with starting_after.
func (s *Server) streamStored(c *echo.Context, own, id string, after int) error {
	ctx := c.Request().Context()
	es := api.NewEventStream(c.Response())
	if lc := connOf(ctx); lc != nil {
		lc.setResumable(true)
		defer lc.setResumable(false)
	}
	f, leave := s.feeds.join(own, id)
	defer leave()
	idx := eventsIndex(own, id)
	from := ""
	if after >= 0 {
		from = eventKey(after)
	}
	keep := time.NewTicker(s.cfg.KeepAlive)
	defer keep.Stop()
	for {
		changed := s.feeds.changed(f) // before the read: a change during it wakes the wait
		var end bool
		err := s.store.ScanEntries(ctx, collResponses, idx, from, false, func(e store.Entry) bool {
			from = e.Key
			if writeEvent(c, es, e.Value) != nil {
				end = true
				return false
			}
			end = end || api.TerminalEvent(eventType(e.Value))
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
		// No terminal event yet: the run goes on, or its server died and
		// the sweep has yet to record it (its record says which).
		if sr, err := s.loadResponse(ctx, own, id); err != nil || api.Terminal(sr.Response.Status) && !s.hasEventsAfter(ctx, idx, from) {
			if err == nil {
				// The run ended without a terminal event among its
				// events: its server died, and the sweep recorded it.
				b, _ := json.Marshal(api.ResponseEvent{Type: "response." + sr.Response.Status, SequenceNumber: -1, Response: &sr.Response})
				writeEvent(c, es, b)
			}
			return nil
		}
		for waiting := true; waiting; {
			select {
			case <-ctx.Done():
				return nil
			case <-changed:
				waiting = false
			case <-keep.C:
				if es.Comment("keep-alive") != nil {
					return nil
				}
			}
		}
	}
}

func (s *Server) hasEventsAfter(ctx context.Context, idx, after string) bool {
	found := false
	s.store.ScanEntries(ctx, collResponses, idx, after, false, func(store.Entry) bool { found = true; return false })
	return found
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
	case !api.Terminal(sr.Response.Status):
		o := orphanError()
		now := time.Now().Unix()
		sr.Response.Status, sr.Response.CompletedAt = api.StatusFailed, &now
		sr.Response.Error = &api.ResponseError{Code: *o.Code, Message: o.Message}
		if err := s.putResponse(ctx, re.Owner, *sr); err != nil {
			return err
		}
		if sr.Response.Background {
			// After the last event, unless a replica sweeping at the same
			// time wrote the end already.
			idx := eventsIndex(re.Owner, re.ID)
			seq, ended := 0, false
			s.store.ScanEntries(ctx, collResponses, idx, "", true, func(e store.Entry) bool {
				fmt.Sscanf(e.Key, "%d", &seq)
				seq, ended = seq+1, api.TerminalEvent(eventType(e.Value))
				return false
			})
			if !ended {
				b, _ := json.Marshal(api.ResponseEvent{Type: api.EventFailed, SequenceNumber: seq, Response: &sr.Response})
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
