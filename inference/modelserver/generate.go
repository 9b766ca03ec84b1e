package modelserver

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/inference"
)

// shape is how one endpoint renders its answer; serve does the rest. Each
// function returns a whole response or one chunk of a stream.
type shape struct {
	idPrefix string
	// whole is the answer to a request not streamed.
	whole func(id string, created int64, outs []outcome, u *api.Usage, promptIDs any) any
	// start is a streamed choice's first chunk (nil: none), piece a chunk
	// of its text, finish its last chunk, usage the stream's usage chunk.
	start  func(id string, created int64, j job) any
	piece  func(id string, created int64, j job, d inference.Delta) any
	finish func(id string, created int64, j job, o outcome) any
	usage  func(id string, created int64, u *api.Usage) any
	// promptIDs sets prompt_token_ids on a stream's first chunk.
	promptIDs func(chunk any, ids any)
}

// serve runs the jobs and answers, streamed or not. perPrompt is the
// number of choices per distinct prompt (for usage).
func (s *Server) serve(c *echo.Context, jobs []job, perPrompt int, f *api.SamplingParams, sh shape) error {
	id, created := newID(sh.idPrefix), time.Now().Unix()
	var promptIDs any
	if f.ReturnTokenIDs {
		if perPrompt == len(jobs) {
			promptIDs = jobs[0].prompt
		} else {
			var all [][]int32
			for i := 0; i < len(jobs); i += perPrompt {
				all = append(all, jobs[i].prompt)
			}
			promptIDs = all
		}
	}
	r := c.Request()
	if !f.Stream {
		outs := s.runJobs(r, jobs, nil)
		if e := s.firstError(outs); e != nil {
			return e
		}
		return c.JSON(http.StatusOK, sh.whole(id, created, outs, usageOf(jobs, outs, perPrompt), promptIDs))
	}

	// The stream starts with the first piece, so a request that fails
	// before any (full queue, bad prompt) still gets a status and error JSON.
	var es *api.EventStream
	first := true
	send := func(chunk any) error {
		if first && promptIDs != nil {
			sh.promptIDs(chunk, promptIDs) // on the stream's first chunk
		}
		first = false
		return es.Data(chunk)
	}
	begin := func() {
		if es != nil {
			return
		}
		es = api.NewEventStream(c.Response())
		for _, j := range jobs {
			if sh.start == nil {
				break
			}
			send(sh.start(id, created, j))
		}
	}
	outs := s.runJobs(r, jobs, func(j job, d inference.Delta) error {
		begin()
		return send(sh.piece(id, created, j, d))
	})
	if e := s.firstError(outs); e != nil {
		if es == nil {
			return e
		}
		if e.Status != api.StatusClientClosed { // a client that left reads nothing more
			es.Data(e.Body())
			es.Done()
		}
		return nil
	}
	begin()
	for i, j := range jobs {
		send(sh.finish(id, created, j, outs[i]))
	}
	if f.StreamOptions != nil && f.StreamOptions.IncludeUsage {
		send(sh.usage(id, created, usageOf(jobs, outs, perPrompt)))
	}
	es.Done()
	return nil
}

// chat is POST /v1/chat/completions.
func (s *Server) chat(c *echo.Context) error {
	if err := s.refuseIfFull(c); err != nil {
		return err
	}
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	req, err := api.DecodeChatCompletionRequest(body, api.Limits{MaxMessages: s.cfg.MaxMessages, MaxContentParts: s.cfg.MaxContentParts})
	if err != nil {
		return err
	}
	if e := s.checkModel(req.Model); e != nil {
		return e
	}
	switch {
	case len(req.Tools) > 0 || len(req.Functions) > 0:
		return api.Unsupported("tools", "tools are not supported by this server")
	case req.ResponseFormat != nil && req.ResponseFormat.Type != "" && req.ResponseFormat.Type != "text":
		return api.Unsupported("response_format", "response_format %q is not supported by this server", req.ResponseFormat.Type)
	}
	base, n, e := params(&req.SamplingParams)
	if e != nil {
		return e
	}
	if req.TopLogprobs != nil {
		if *req.TopLogprobs < 0 || *req.TopLogprobs > 20 {
			return api.BadRequest("top_logprobs", "top_logprobs must be between 0 and 20, got %d", *req.TopLogprobs)
		}
		if *req.TopLogprobs > 0 && !req.Logprobs {
			return api.BadRequest("top_logprobs", "top_logprobs requires logprobs to be true")
		}
		base.TopLogprobs = *req.TopLogprobs
	}
	base.Logprobs = req.Logprobs
	msgs, e := chatMessages(req.Messages)
	if e != nil {
		return e
	}
	// Admitted before the prompt is built.
	if e := s.admit(n, "n"); e != nil {
		return e
	}
	defer s.adm.release(n)
	prompt, err := s.e.EncodeChat(msgs)
	if err != nil {
		return api.BadRequest("messages", "%v", err)
	}
	var jobs []job
	for i := range n {
		rq := base
		rq.Prompt, rq.Choice = prompt, i
		jobs = append(jobs, job{index: i, prompt: prompt, req: rq})
	}
	return s.serve(c, jobs, n, &req.SamplingParams, s.chatShape(req, jobs))
}

// chatShape is how a chat request's answers are written: whole, or as
// chunks.
func (s *Server) chatShape(req *api.ChatCompletionRequest, jobs []job) shape {
	model := s.e.Name()

	chunk := func(id string, created int64, choices ...api.ChunkChoice) *api.ChatCompletionChunk {
		if choices == nil {
			choices = []api.ChunkChoice{}
		}
		return &api.ChatCompletionChunk{ID: id, Object: "chat.completion.chunk", Created: created, Model: model, Choices: choices}
	}
	empty := ""
	return shape{
		idPrefix: "chatcmpl-",
		whole: func(id string, created int64, outs []outcome, u *api.Usage, promptIDs any) any {
			resp := api.ChatCompletion{ID: id, Object: "chat.completion", Created: created, Model: model, Usage: u, PromptTokenIDs: promptIDs}
			for i, j := range jobs {
				text := outs[i].res.Text
				resp.Choices = append(resp.Choices, api.Choice{Index: j.index, Message: api.AssistantMessage{Role: "assistant", Content: &text},
					Logprobs: s.chatLogprobs(req.Logprobs, outs[i].res.Tokens), FinishReason: outs[i].res.FinishReason, TokenIDs: tokenIDs(req.ReturnTokenIDs, outs[i].res.Tokens)})
			}
			return resp
		},
		start: func(id string, created int64, j job) any {
			return chunk(id, created, api.ChunkChoice{Index: j.index, Delta: api.Delta{Role: "assistant", Content: &empty}})
		},
		piece: func(id string, created int64, j job, d inference.Delta) any {
			text := d.Text
			return chunk(id, created, api.ChunkChoice{Index: j.index, Delta: api.Delta{Content: &text}, Logprobs: s.chatLogprobs(req.Logprobs, d.Tokens), TokenIDs: tokenIDs(req.ReturnTokenIDs, d.Tokens)})
		},
		finish: func(id string, created int64, j job, o outcome) any {
			fr := o.res.FinishReason
			return chunk(id, created, api.ChunkChoice{Index: j.index, FinishReason: &fr})
		},
		usage: func(id string, created int64, u *api.Usage) any {
			ch := chunk(id, created)
			ch.Usage = u
			return ch
		},
		promptIDs: func(ch any, ids any) { ch.(*api.ChatCompletionChunk).PromptTokenIDs = ids },
	}
}

// chatLogprobs are the chat logprobs of toks, when they were asked for.
func (s *Server) chatLogprobs(want bool, toks []inference.Token) *api.Logprobs {
	if !want {
		return nil
	}
	content := make([]api.TokenLogprob, 0, len(toks))
	for _, t := range toks {
		entry := s.logprob(t.ID, t.Logprob)
		entry.TopLogprobs = make([]api.TopLogprob, 0, len(t.Top))
		for _, alt := range t.Top {
			a := s.logprob(alt.ID, alt.Logprob)
			entry.TopLogprobs = append(entry.TopLogprobs, api.TopLogprob{Token: a.Token, Logprob: a.Logprob, Bytes: a.Bytes})
		}
		content = append(content, entry)
	}
	return &api.Logprobs{Content: content}
}

// tokenIDs are toks' ids, when they were asked for.
func tokenIDs(want bool, toks []inference.Token) []int32 {
	if !want {
		return nil
	}
	return ids32(toks)
}

func (s *Server) logprob(id int32, lp float64) api.TokenLogprob {
	text, b := s.tokenText(id)
	return api.TokenLogprob{Token: text, Logprob: lp, Bytes: b}
}

// completions is POST /v1/completions.
func (s *Server) completions(c *echo.Context) error {
	if err := s.refuseIfFull(c); err != nil {
		return err
	}
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	var req api.CompletionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return api.DecodeError(err)
	}
	if e := s.checkModel(req.Model); e != nil {
		return e
	}
	switch {
	case req.Echo:
		return api.Unsupported("echo", "echo is not supported by this server")
	case req.Suffix != nil && *req.Suffix != "":
		return api.Unsupported("suffix", "suffix is not supported by this server")
	}
	base, n, e := params(&req.SamplingParams)
	if e != nil {
		return e
	}
	if req.Logprobs != nil {
		if *req.Logprobs < 0 || *req.Logprobs > 20 {
			return api.BadRequest("logprobs", "logprobs must be between 0 and 20, got %d", *req.Logprobs)
		}
		base.Logprobs, base.TopLogprobs = true, *req.Logprobs
	}
	// The prompts are counted, not decoded, before the request is
	// admitted; they are built (tokenized) after.
	count, e := promptCount(req.Prompt, s.cfg.MaxPrompts)
	if e != nil {
		return e
	}
	param := "prompt"
	if n > 1 {
		param = "n"
	}
	if e := s.admit(count*n, param); e != nil {
		return e
	}
	defer s.adm.release(count * n)
	ps, e := prompts(req.Prompt, s.e.Tokenizer(), s.e.MaxModelLen())
	if e != nil {
		return e
	}
	var jobs []job
	for pi, p := range ps {
		for i := range n {
			rq := base
			rq.Prompt, rq.Choice = p, i
			jobs = append(jobs, job{index: pi*n + i, prompt: p, req: rq})
		}
	}
	return s.serve(c, jobs, n, &req.SamplingParams, s.textShape(&req, jobs))
}

// textShape is how a completions request's answers are written: whole, or
// as chunks.
func (s *Server) textShape(req *api.CompletionRequest, jobs []job) shape {
	model := s.e.Name()
	text := func(id string, created int64, choices ...api.TextChoice) *api.TextCompletion {
		if choices == nil {
			choices = []api.TextChoice{}
		}
		return &api.TextCompletion{ID: id, Object: "text_completion", Created: created, Model: model, Choices: choices}
	}
	return shape{
		idPrefix: "cmpl-",
		whole: func(id string, created int64, outs []outcome, u *api.Usage, promptIDs any) any {
			resp := text(id, created)
			resp.Usage, resp.PromptTokenIDs = u, promptIDs
			for i, j := range jobs {
				fr := outs[i].res.FinishReason
				resp.Choices = append(resp.Choices, api.TextChoice{Index: j.index, Text: outs[i].res.Text,
					Logprobs: s.textLogprobs(req.Logprobs != nil, outs[i].res.Tokens), FinishReason: &fr, TokenIDs: tokenIDs(req.ReturnTokenIDs, outs[i].res.Tokens)})
			}
			return resp
		},
		piece: func(id string, created int64, j job, d inference.Delta) any {
			return text(id, created, api.TextChoice{Index: j.index, Text: d.Text, Logprobs: s.textLogprobs(req.Logprobs != nil, d.Tokens), TokenIDs: tokenIDs(req.ReturnTokenIDs, d.Tokens)})
		},
		finish: func(id string, created int64, j job, o outcome) any {
			fr := o.res.FinishReason
			return text(id, created, api.TextChoice{Index: j.index, FinishReason: &fr})
		},
		usage: func(id string, created int64, u *api.Usage) any {
			ch := text(id, created)
			ch.Usage = u
			return ch
		},
		promptIDs: func(ch any, ids any) { ch.(*api.TextCompletion).PromptTokenIDs = ids },
	}
}

// textLogprobs are the completions logprobs of toks, when they were asked
// for.
func (s *Server) textLogprobs(want bool, toks []inference.Token) *api.TextLogprobs {
	if !want {
		return nil
	}
	lp := &api.TextLogprobs{Tokens: []string{}, TokenLogprobs: []float64{}, TopLogprobs: []map[string]float64{}, TextOffset: []int{}}
	off := 0
	for _, t := range toks {
		text, _ := s.tokenText(t.ID)
		lp.Tokens, lp.TokenLogprobs, lp.TextOffset = append(lp.Tokens, text), append(lp.TokenLogprobs, t.Logprob), append(lp.TextOffset, off)
		off += len(text)
		top := map[string]float64{}
		for _, alt := range t.Top {
			str, _ := s.tokenText(alt.ID)
			top[str] = alt.Logprob
		}
		lp.TopLogprobs = append(lp.TopLogprobs, top)
	}
	return lp
}
