package server

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/labstack/echo/v5"
)

// chunk is a chat.completion.chunk. Choices is never omitted: progress and
// usage chunks carry an empty array, as OpenAI's usage chunk does.
type chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	RLM     any           `json:"rlm,omitempty"`
	// Usage is absent unless the client asked for include_usage; then, as
	// in OpenAI's streams, it is null on every chunk but the last.
	Usage any `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int             `json:"index"`
	Delta        delta           `json:"delta"`
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason *string         `json:"finish_reason"`
}

type delta struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

// deltaBytes is the size of the content deltas the answer is sent in.
const deltaBytes = 256

// stream answers r as server-sent events the way OpenAI does: a role delta,
// progress chunks while the run goes on, the answer as content deltas, a
// finish chunk, a usage chunk when asked for, and "data: [DONE]".
func (s *Server) stream(c *echo.Context, r *run, includeUsage bool) error {
	ew := startEventStream(c)
	w, rc := ew.w, ew.rc
	ctx := c.Request().Context()
	failed := false
	send := func(v any) {
		if failed {
			return
		}
		b, err := json.Marshal(v)
		if err == nil {
			_, err = fmt.Fprintf(w, "data: %s\n\n", b)
		}
		if err == nil {
			err = rc.Flush()
		}
		if err != nil {
			failed = true
		}
	}
	base := func() chunk {
		ch := chunk{ID: r.id, Object: "chat.completion.chunk", Created: r.created, Model: r.model, Choices: []chunkChoice{}}
		if includeUsage {
			ch.Usage = (*usage)(nil) // a typed nil: marshals as null, not omitted
		}
		return ch
	}
	withChoice := func(d delta, finish *string) chunk {
		ch := base()
		ch.Choices = []chunkChoice{{Delta: d, Logprobs: json.RawMessage("null"), FinishReason: finish}}
		return ch
	}
	empty := ""
	send(withChoice(delta{Role: "assistant", Content: &empty}, nil))

	keep := time.NewTicker(s.cfg.KeepAlive)
	defer keep.Stop()
	for {
		select {
		case ev := <-r.events:
			ch := base()
			ch.RLM = progressOf(ev)
			send(ch)
		case <-keep.C:
			if !failed {
				if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
					failed = true
				}
			}
		case out := <-r.done:
			// Progress that arrived before the end goes out first.
			for drained := false; !drained; {
				select {
				case ev := <-r.events:
					ch := base()
					ch.RLM = progressOf(ev)
					send(ch)
				default:
					drained = true
				}
			}
			if out.err != nil {
				ae := toAPIError(out.err)
				if r.stored {
					ae = withCompletionID(out.err, r.id)
				}
				s.m.errors.WithLabelValues(ae.Kind).Inc()
				c.Set(ctxStatus, ae.Status)
				send(ae.body())
				if !failed {
					fmt.Fprint(w, "data: [DONE]\n\n")
					rc.Flush()
				}
				return nil
			}
			answer := out.res.Answer
			for len(answer) > 0 {
				piece := runePrefix(answer, deltaBytes)
				answer = answer[len(piece):]
				send(withChoice(delta{Content: &piece}, nil))
			}
			fr := finishReason(out.res.StopReason)
			fin := withChoice(delta{}, &fr)
			fin.RLM = infoOf(r, out.res)
			send(fin)
			if includeUsage {
				u := usage(out.res.Usage)
				uc := base()
				uc.Usage = &u
				send(uc)
			}
			if !failed {
				fmt.Fprint(w, "data: [DONE]\n\n")
				rc.Flush()
			}
			return nil
		case <-ctx.Done():
			// Client gone: a stored run goes on, others were cancelled.
			c.Set(ctxStatus, statusClientClosed)
			s.m.errors.WithLabelValues("cancelled").Inc()
			return nil
		}
	}
}
