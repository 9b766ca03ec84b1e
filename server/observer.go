package server

import (
	"fmt"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/internal/clip"
	"github.com/rlm-project/rlm/recursion"
)

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

// summaryBytes bounds every text field of a progress event.
const summaryBytes = 400

func summarize(s string) string {
	if len(s) <= summaryBytes {
		return s
	}
	return clip.Head(s, summaryBytes) + fmt.Sprintf("… (%d bytes)", len(s))
}

func progressOf(ev recursion.Event) *api.Progress {
	p := &api.Progress{Event: string(ev.Kind), Node: ev.NodeID, Parent: ev.ParentID, Depth: ev.Depth, Turn: ev.Turn, Cell: ev.Cell}
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
