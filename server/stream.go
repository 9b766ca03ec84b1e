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
	es := api.NewEventStream(c.Response())
	ctx := c.Request().Context()
	base := func() api.ChatCompletionChunk {
		ch := api.ChatCompletionChunk{ID: r.id, Object: "chat.completion.chunk", Created: r.created, Model: r.model, Choices: []api.ChunkChoice{}}
		if includeUsage {
			ch.Usage = (*api.Usage)(nil) // a typed nil: marshals as null, not omitted
		}
		return ch
	}
	withChoice := func(d api.Delta, finish *string) api.ChatCompletionChunk {
		ch := base()
		ch.Choices = []api.ChunkChoice{{Delta: d, FinishReason: finish}}
		return ch
	}
	progress := func(ev recursion.Event) {
		ch := base()
		ch.RLM = progressOf(ev)
		es.Data(ch)
	}
	empty := ""
	es.Data(withChoice(api.Delta{Role: "assistant", Content: &empty}, nil))

	keep := time.NewTicker(s.cfg.KeepAlive)
	defer keep.Stop()
	for {
		select {
		case ev := <-events:
			progress(ev)
		case <-keep.C:
			es.Comment("keep-alive")
		case out := <-done:
			// Progress that arrived before the end goes out first.
			for drained := false; !drained; {
				select {
				case ev := <-events:
					progress(ev)
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
				es.Data(ae.Body())
				es.Done()
				return nil
			}
			fr := finishReason(out.res.StopReason)
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
					es.Data(withChoice(d, nil))
				}
				fr = api.FinishToolCalls
				if r.functions {
					fr = api.FinishFunctionCall
				}
			}
			answer := out.res.Answer
			if out.res.StopReason == recursion.StopToolCalls {
				answer = ""
			}
			for len(answer) > 0 {
				piece := runePrefix(answer, deltaBytes)
				answer = answer[len(piece):]
				es.Data(withChoice(api.Delta{Content: &piece}, nil))
			}
			fin := withChoice(api.Delta{}, &fr)
			fin.RLM = r.info(out.res)
			es.Data(fin)
			if includeUsage {
				uc := base()
				uc.Usage = usageOf(out.res)
				es.Data(uc)
			}
			es.Done()
			return nil
		case <-ctx.Done():
			// Client gone: a stored run goes on, others were cancelled.
			c.Set(ctxStatus, api.StatusClientClosed)
			s.m.errors.WithLabelValues("cancelled").Inc()
			return nil
		}
	}
}
