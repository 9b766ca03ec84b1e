package api

import (
	"bytes"
	"net/http"
	"time"

	"github.com/rlm-project/rlm/inference"
)

// shape is how one endpoint renders its choices; serve does the rest.
type shape struct {
	object, chunkObject, idPrefix string
	choice                        func(j job, o outcome) map[string]any         // a whole choice
	delta                         func(j job, d inference.Delta) map[string]any // a streamed piece
	finish                        func(j job, o outcome) map[string]any         // a streamed choice's end
	start                         func(j job) map[string]any                    // a streamed choice's first chunk; may be nil
}

// serve runs the jobs and answers, streamed or not. perPrompt is the
// number of choices per distinct prompt (for usage).
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, jobs []job, perPrompt int, f *samplingFields, sh shape) {
	id, created := newID(sh.idPrefix), time.Now().Unix()
	envelope := func(object string, choices []any) map[string]any {
		return map[string]any{"id": id, "object": object, "created": created, "model": h.e.Name(), "choices": choices}
	}
	promptIDs := func(m map[string]any) {
		if f.ReturnTokenIDs {
			if perPrompt == len(jobs) {
				m["prompt_token_ids"] = jobs[0].prompt
			} else {
				var all [][]int32
				for i := 0; i < len(jobs); i += perPrompt {
					all = append(all, jobs[i].prompt)
				}
				m["prompt_token_ids"] = all
			}
		}
	}
	if !f.Stream {
		outs := h.runJobs(r, jobs, nil)
		if e := h.firstError(outs); e != nil {
			writeError(w, e)
			return
		}
		choices := make([]any, len(jobs))
		for i, j := range jobs {
			c := sh.choice(j, outs[i])
			c["index"] = j.index
			if f.ReturnTokenIDs {
				c["token_ids"] = ids32(outs[i].res.Tokens)
			}
			choices[i] = c
		}
		resp := envelope(sh.object, choices)
		resp["usage"] = usageOf(jobs, outs, perPrompt)
		promptIDs(resp)
		writeJSON(w, http.StatusOK, resp)
		return
	}

	// The stream starts with the first piece, so a request that fails
	// before any (full queue, bad prompt) still gets a status and error JSON.
	var s *sse
	var sendErr error
	first := true
	send := func(v map[string]any) {
		if first {
			promptIDs(v) // on the stream's first chunk
			first = false
		}
		if sendErr == nil {
			sendErr = s.send(v)
		}
	}
	begin := func() {
		if s != nil {
			return
		}
		s = startSSE(w)
		for _, j := range jobs {
			if sh.start == nil {
				break
			}
			c := sh.start(j)
			c["index"] = j.index
			send(envelope(sh.chunkObject, []any{c}))
		}
	}
	outs := h.runJobs(r, jobs, func(j job, d inference.Delta) error {
		begin()
		c := sh.delta(j, d)
		c["index"] = j.index
		if f.ReturnTokenIDs {
			c["token_ids"] = ids32(d.Tokens)
		}
		send(envelope(sh.chunkObject, []any{c}))
		return sendErr
	})
	if e := h.firstError(outs); e != nil {
		if s == nil {
			writeError(w, e)
			return
		}
		if e.status != 499 && sendErr == nil { // a client that left reads nothing more
			s.send(e.body())
			s.done()
		}
		return
	}
	begin()
	for i, j := range jobs {
		c := sh.finish(j, outs[i])
		c["index"] = j.index
		send(envelope(sh.chunkObject, []any{c}))
	}
	if f.StreamOptions != nil && f.StreamOptions.IncludeUsage {
		u := envelope(sh.chunkObject, []any{})
		u["usage"] = usageOf(jobs, outs, perPrompt)
		send(u)
	}
	if sendErr == nil {
		s.done()
	}
}

// chat is POST /v1/chat/completions.
func (h *Handler) chat(w http.ResponseWriter, r *http.Request) {
	if h.refuseIfFull(w) {
		return
	}
	var req chatRequest
	if e := decode(w, r, h.cfg.MaxRequestBytes, &req); e != nil {
		writeError(w, e)
		return
	}
	if e := h.checkModel(req.Model); e != nil {
		writeError(w, e)
		return
	}
	if t := bytes.TrimSpace(req.Tools); len(t) > 0 && string(t) != "null" && string(t) != "[]" {
		writeError(w, unsupported("tools"))
		return
	}
	if req.ResponseFormat != nil && req.ResponseFormat.Type != "" && req.ResponseFormat.Type != "text" {
		writeError(w, unsupported("response_format"))
		return
	}
	base, n, e := req.params()
	if e != nil {
		writeError(w, e)
		return
	}
	if req.TopLogprobs != nil {
		if *req.TopLogprobs < 0 || *req.TopLogprobs > 20 {
			writeError(w, invalid("top_logprobs", "top_logprobs must be between 0 and 20, got %d", *req.TopLogprobs))
			return
		}
		if *req.TopLogprobs > 0 && !req.Logprobs {
			writeError(w, invalid("top_logprobs", "top_logprobs requires logprobs to be true"))
			return
		}
		base.TopLogprobs = *req.TopLogprobs
	}
	base.Logprobs = req.Logprobs
	msgs, e := h.chatMessages(req.Messages)
	if e != nil {
		writeError(w, e)
		return
	}
	// Admitted before the prompt is built.
	if e := h.admit(n, "n"); e != nil {
		writeError(w, e)
		return
	}
	defer h.adm.release(n)
	prompt, err := h.e.EncodeChat(msgs)
	if err != nil {
		writeError(w, invalid("messages", "%v", err))
		return
	}
	var jobs []job
	for i := range n {
		rq := base
		rq.Prompt, rq.Choice = prompt, i
		jobs = append(jobs, job{index: i, prompt: prompt, req: rq})
	}
	logprobs := func(toks []inference.Token) any {
		if !req.Logprobs {
			return nil
		}
		content := make([]any, 0, len(toks))
		for _, t := range toks {
			entry := h.logprobEntry(t.ID, t.Logprob)
			top := make([]any, 0, len(t.Top))
			for _, c := range t.Top {
				top = append(top, h.logprobEntry(c.ID, c.Logprob))
			}
			entry["top_logprobs"] = top
			content = append(content, entry)
		}
		return map[string]any{"content": content}
	}
	h.serve(w, r, jobs, n, &req.samplingFields, shape{
		object: "chat.completion", chunkObject: "chat.completion.chunk", idPrefix: "chatcmpl-",
		choice: func(j job, o outcome) map[string]any {
			return map[string]any{"message": map[string]any{"role": "assistant", "content": o.res.Text},
				"logprobs": logprobs(o.res.Tokens), "finish_reason": o.res.FinishReason}
		},
		start: func(j job) map[string]any {
			return map[string]any{"delta": map[string]any{"role": "assistant", "content": ""}, "logprobs": nil, "finish_reason": nil}
		},
		delta: func(j job, d inference.Delta) map[string]any {
			return map[string]any{"delta": map[string]any{"content": d.Text}, "logprobs": logprobs(d.Tokens), "finish_reason": nil}
		},
		finish: func(j job, o outcome) map[string]any {
			return map[string]any{"delta": map[string]any{}, "logprobs": nil, "finish_reason": o.res.FinishReason}
		},
	})
}

func (h *Handler) logprobEntry(id int32, lp float64) map[string]any {
	text, b := h.tokenText(id)
	return map[string]any{"token": text, "logprob": lp, "bytes": b}
}

// completions is POST /v1/completions.
func (h *Handler) completions(w http.ResponseWriter, r *http.Request) {
	if h.refuseIfFull(w) {
		return
	}
	var req completionRequest
	if e := decode(w, r, h.cfg.MaxRequestBytes, &req); e != nil {
		writeError(w, e)
		return
	}
	if e := h.checkModel(req.Model); e != nil {
		writeError(w, e)
		return
	}
	switch {
	case req.Echo:
		writeError(w, unsupported("echo"))
		return
	case req.Suffix != nil && *req.Suffix != "":
		writeError(w, unsupported("suffix"))
		return
	}
	base, n, e := req.params()
	if e != nil {
		writeError(w, e)
		return
	}
	if req.Logprobs != nil {
		if *req.Logprobs < 0 || *req.Logprobs > 20 {
			writeError(w, invalid("logprobs", "logprobs must be between 0 and 20, got %d", *req.Logprobs))
			return
		}
		base.Logprobs, base.TopLogprobs = true, *req.Logprobs
	}
	// The prompts are counted, not decoded, before the request is
	// admitted; they are built (tokenized) after.
	count, e := promptCount(req.Prompt, h.cfg.MaxPrompts)
	if e != nil {
		writeError(w, e)
		return
	}
	param := "prompt"
	if n > 1 {
		param = "n"
	}
	if e := h.admit(count*n, param); e != nil {
		writeError(w, e)
		return
	}
	defer h.adm.release(count * n)
	ps, e := prompts(req.Prompt, h.e.Tokenizer(), h.e.MaxModelLen())
	if e != nil {
		writeError(w, e)
		return
	}
	var jobs []job
	for pi, p := range ps {
		for i := range n {
			rq := base
			rq.Prompt, rq.Choice = p, i
			jobs = append(jobs, job{index: pi*n + i, prompt: p, req: rq})
		}
	}
	logprobs := func(toks []inference.Token) any {
		if req.Logprobs == nil {
			return nil
		}
		lp := map[string]any{"tokens": []string{}, "token_logprobs": []float64{}, "top_logprobs": []any{}, "text_offset": []int{}}
		var tokens []string
		var lps []float64
		var tops []any
		var offs []int
		off := 0
		for _, t := range toks {
			text, _ := h.tokenText(t.ID)
			tokens, lps, offs = append(tokens, text), append(lps, t.Logprob), append(offs, off)
			off += len(text)
			top := map[string]float64{}
			for _, c := range t.Top {
				s, _ := h.tokenText(c.ID)
				top[s] = c.Logprob
			}
			tops = append(tops, top)
		}
		if len(toks) > 0 {
			lp["tokens"], lp["token_logprobs"], lp["top_logprobs"], lp["text_offset"] = tokens, lps, tops, offs
		}
		return lp
	}
	h.serve(w, r, jobs, n, &req.samplingFields, shape{
		object: "text_completion", chunkObject: "text_completion", idPrefix: "cmpl-",
		choice: func(j job, o outcome) map[string]any {
			return map[string]any{"text": o.res.Text, "logprobs": logprobs(o.res.Tokens), "finish_reason": o.res.FinishReason}
		},
		delta: func(j job, d inference.Delta) map[string]any {
			return map[string]any{"text": d.Text, "logprobs": logprobs(d.Tokens), "finish_reason": nil}
		},
		finish: func(j job, o outcome) map[string]any {
			return map[string]any{"text": "", "logprobs": nil, "finish_reason": o.res.FinishReason}
		},
	})
}
