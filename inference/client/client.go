// Package client is the RLM engine's model client over an in-process
// inference engine: llm.Client with no HTTP hop. rlm serve,
// query and eval use it for --local-model (and the built-in model), and the
// RL trainer for its policy, with hooks that seed each call and record what
// it sampled.
package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/model/tokenizer"
	"github.com/rlm-project/rlm/recursion/llm"
)

// Client answers every model name with its engine (root and sub-model are
// one model). Its errors are llm.Errors with the statuses an
// OpenAI-compatible server would give, so that the gateway answers them as
// it answers an upstream's.
type Client struct {
	Engine *inference.Engine
	// Temperature applies when a request sets none.
	Temperature float64
	// Prepare, when set, adjusts a call's generation request once it is
	// built from the completion request (the RL trainer fixes sampling and
	// seeds there); an error fails the call as it is.
	Prepare func(ctx context.Context, req *inference.Request) error
	// Done, when set, gets each call that generated, with its result.
	Done func(ctx context.Context, req inference.Request, res inference.Result)
}

var (
	_ llm.Client         = (*Client)(nil)
	_ llm.RequestChecker = (*Client)(nil)
)

// Complete renders the messages with the chat template, generates, and
// reports usage and logprobs as an OpenAI upstream would.
func (c *Client) Complete(ctx context.Context, req llm.Request) (llm.Completion, error) {
	msgs := make([]tokenizer.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = tokenizer.Message{Role: m.Role, Content: m.Content}
	}
	prompt, err := c.Engine.EncodeChat(msgs)
	if err != nil {
		return llm.Completion{}, c.fail(http.StatusBadRequest, err)
	}
	r := inference.Request{Prompt: prompt, Stop: req.Sampling.Stop}
	s := req.Sampling
	r.Temperature = c.Temperature
	if s.Temperature != nil {
		r.Temperature = *s.Temperature
	}
	if s.TopP != nil {
		r.TopP = *s.TopP
	}
	if s.MaxTokens != nil {
		r.MaxTokens = *s.MaxTokens
	}
	if s.Seed != nil {
		seed := uint64(*s.Seed)
		r.Seed = &seed
	}
	r.Logprobs = req.Logprobs
	if c.Prepare != nil {
		if err := c.Prepare(ctx, &r); err != nil {
			return llm.Completion{}, err
		}
	}
	res, err := c.Engine.Generate(ctx, r, nil)
	if err != nil {
		if ctx.Err() != nil {
			return llm.Completion{}, fmt.Errorf("%s: %w", c.name(), context.Cause(ctx))
		}
		status := http.StatusInternalServerError
		var re *inference.RequestError
		switch {
		case errors.As(err, &re):
			status = http.StatusBadRequest
		case errors.Is(err, inference.ErrQueueFull), errors.Is(err, inference.ErrQueueTimeout):
			status = http.StatusTooManyRequests
		case errors.Is(err, inference.ErrClosed):
			status = http.StatusServiceUnavailable
		}
		return llm.Completion{}, c.fail(status, err)
	}
	if c.Done != nil {
		c.Done(ctx, r, res)
	}
	out := llm.Completion{Model: c.Engine.Name(), Content: res.Text, FinishReason: res.FinishReason,
		Usage: llm.Usage{PromptTokens: len(res.PromptTokens), CompletionTokens: len(res.Tokens),
			TotalTokens: len(res.PromptTokens) + len(res.Tokens)}}
	if req.Logprobs {
		for _, t := range res.Tokens {
			b := c.Engine.Tokenizer().TokenBytes(int(t.ID))
			out.Logprobs = append(out.Logprobs, llm.TokenLogprob{Token: string(b), Logprob: t.Logprob, Bytes: b})
		}
	}
	return out, nil
}

// fail is the error of a failed generation. Its text is the engine's own,
// which quotes nothing secret. A request the engine refuses as longer than
// the model's context (inference.RequestError on messages or max_tokens)
// is context_length_exceeded, as `rlm model serve` answers it, so that the
// gateway can answer 400 rather than 502.
func (c *Client) fail(status int, err error) error {
	ue := &llm.Error{Upstream: c.name(), Attempts: 1, Status: status, Reason: err.Error(), Err: err}
	var re *inference.RequestError
	if errors.As(err, &re) {
		ue.Param, ue.Message = re.Param, re.Msg
		if re.Param == "messages" || re.Param == "max_tokens" {
			ue.Code = "context_length_exceeded"
		}
	}
	return ue
}

func (c *Client) name() string { return "local model " + c.Engine.Name() }

// CheckRequest refuses, before a run starts, a max_tokens that leaves no
// room for a prompt in the model's context: the run's token budget would
// refuse it first and answer 200 with no answer, where the client is at
// fault. One that fits alone but not with the prompt is refused by the
// first turn (see fail).
func (c *Client) CheckRequest(model string, s llm.Sampling) error {
	limit := c.Engine.MaxModelLen()
	if s.MaxTokens == nil || *s.MaxTokens < limit {
		return nil
	}
	msg := fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens for the completion alone, "+
		"which leaves no room for the prompt. Please reduce the completion length.", limit, *s.MaxTokens)
	return &llm.Error{Upstream: c.name(), Status: http.StatusBadRequest, Code: "context_length_exceeded",
		Param: "max_tokens", Message: msg, Reason: msg}
}
