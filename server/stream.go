package server

import (
	"time"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/recursion"
)

// deltaBytes is the size of the content deltas the answer is sent in.
const deltaBytes = 256

// streamChat answers a chat run as server-sent events the way OpenAI does:
// a role delta, progress chunks while the run goes on, the answer as
// content deltas, a finish chunk, a usage chunk when asked for, and
// "data: [DONE]". A run that fails after the 200 ends with an error event.
func (s *Server) streamChat(c *echo.Context, r *run, events <-chan recursion.Event, done <-chan outcome, includeUsage bool) error {
	cs := &chatStream{es: api.NewEventStream(c.Response()), r: r, includeUsage: includeUsage}
	empty := ""
	cs.es.Data(cs.withChoice(api.Delta{Role: "assistant", Content: &empty}, nil))
	keep := time.NewTicker(s.cfg.KeepAlive)
	defer keep.Stop()
	for {
		select {
		case ev := <-events:
			cs.progress(ev)
		case <-keep.C:
			cs.es.Comment("keep-alive")
		case out := <-done:
			// Progress that arrived before the end goes out first.
			for drained := false; !drained; {
				select {
				case ev := <-events:
					cs.progress(ev)
				default:
					drained = true
				}
			}
			if failed(out) {
				// The 200 went out; the failure is the stream's last
				// event, and the access log says what happened.
				ae := r.failure(out)
				s.m.errors.WithLabelValues(ae.Kind).Inc()
				c.Set(ctxOutcome, ae.Code)
				cs.es.Data(ae.Body())
				cs.es.Done()
				return nil
			}
			cs.finish(out)
			return nil
		case <-c.Request().Context().Done():
			// Client gone: a stored run goes on, others were cancelled.
			c.Set(ctxStatus, api.StatusClientClosed)
			s.m.errors.WithLabelValues("cancelled").Inc()
			return nil
		}
	}
}

// chatStream writes a chat run's chunks.
type chatStream struct {
	es           *api.EventStream
	r            *run
	includeUsage bool
}

func (cs *chatStream) base() api.ChatCompletionChunk {
	r := cs.r
	ch := api.ChatCompletionChunk{ID: r.id, Object: "chat.completion.chunk", Created: r.created, Model: r.model, Choices: []api.ChunkChoice{}}
	if cs.includeUsage {
		ch.Usage = (*api.Usage)(nil) // a typed nil: marshals as null, not omitted
	}
	return ch
}

func (cs *chatStream) withChoice(d api.Delta, finish *string) api.ChatCompletionChunk {
	ch := cs.base()
	ch.Choices = []api.ChunkChoice{{Delta: d, FinishReason: finish}}
	return ch
}

// progress sends a recursion event as a chunk without choices.
func (cs *chatStream) progress(ev recursion.Event) {
	ch := cs.base()
	ch.RLM = progressOf(ev)
	cs.es.Data(ch)
}

// finish sends a run's answer, or its tool calls, then the finish reason,
// the usage when asked for, and [DONE].
func (cs *chatStream) finish(out outcome) {
	r := cs.r
	fr := finishReason(out.res.StopReason)
	answer := out.res.Answer
	if out.res.StopReason == recursion.StopToolCalls {
		// The calls, each whole in one delta, as OpenAI streams them.
		for i, tc := range toolCallsOf(out.res.ToolCalls) {
			d := api.Delta{}
			if r.functions {
				d.FunctionCall = &tc.Function
			} else {
				tc.Index = &i
				d.ToolCalls = []api.ToolCall{tc}
			}
			cs.es.Data(cs.withChoice(d, nil))
		}
		fr, answer = api.FinishToolCalls, ""
		if r.functions {
			fr = api.FinishFunctionCall
		}
	}
	for len(answer) > 0 {
		piece := runePrefix(answer, deltaBytes)
		answer = answer[len(piece):]
		cs.es.Data(cs.withChoice(api.Delta{Content: &piece}, nil))
	}
	fin := cs.withChoice(api.Delta{}, &fr)
	fin.RLM = r.info(out.res)
	cs.es.Data(fin)
	if cs.includeUsage {
		uc := cs.base()
		uc.Usage = usageOf(out.res)
		cs.es.Data(uc)
	}
	cs.es.Done()
}
