package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/model/tokenizer"
	"github.com/rlm-project/rlm/models/tinydemo"
	"github.com/rlm-project/rlm/recursion"
)

// parseKVCache reads the size of the KV cache pool: bytes with a unit
// (4GiB, 512MiB) or tokens with the suffix "tokens" (65536tokens).
func parseKVCache(v string) (inference.Config, error) {
	var c inference.Config
	if n, ok := strings.CutSuffix(strings.TrimSpace(v), "tokens"); ok {
		t, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil || t <= 0 {
			return c, fmt.Errorf("not a positive token count like 65536tokens: %q", v)
		}
		c.KVCacheTokens = t
		return c, nil
	}
	b, err := parseSize(v)
	if err != nil {
		return c, fmt.Errorf("not a size like 4GiB or a token count like 65536tokens: %q", v)
	}
	c.KVCacheBytes = b
	return c, nil
}

// Values of --local-model other than a checkpoint directory.
const (
	// localBuiltin is the model built into the binary (models/tinydemo),
	// which serve and query fall back to when no upstream is configured.
	localBuiltin = "builtin"
	// localNone turns that fallback off: with no upstream, serve answers
	// chats with 503 and query refuses to run, naming what to set.
	localNone = "none"
	// builtinKVCache is the built-in model's KV cache pool when
	// --kv-cache is left at its default.
	builtinKVCache = "65536tokens"
)

// loadLocalModel loads a checkpoint directory, or with localBuiltin the
// built-in model after checking its checksums, into an inference engine on
// the device dev (a GPU it picks is named on log).
func loadLocalModel(dir string, cfg inference.Config, dev deviceSpec, log io.Writer) (*inference.Engine, error) {
	be, desc, err := dev.open()
	if err != nil {
		return nil, fmt.Errorf("local model: %w", err)
	}
	if be.Name() != "cpu" || dev.kind == "cpu" {
		fmt.Fprintf(log, "rlm: local model on %s\n", desc)
	}
	if dir == localBuiltin {
		if err := tinydemo.Verify(); err != nil {
			return nil, fmt.Errorf("built-in model: %w", err)
		}
		cfg.Name = tinydemo.Name
		e, err := inference.LoadFS(be, tinydemo.FS(), cfg)
		if err != nil {
			return nil, fmt.Errorf("built-in model: %w", err)
		}
		return e, nil
	}
	e, err := inference.Load(be, dir, cfg)
	if err != nil {
		return nil, fmt.Errorf("local model: %w", err)
	}
	return e, nil
}

// builtinNoContext is the built-in model's answer to a question with no
// document: it was trained to read documents in the REPL, and anything
// else it would write is noise.
const builtinNoContext = "rlm-tiny-demo, the small model built into rlm, only answers questions about an attached document " +
	"(a file, or a message longer than 16,000 characters): attach one and ask about it. It is not a general assistant. " +
	"For other questions, run rlm with a real model: rlm serve --upstream URL --root-model NAME (any OpenAI-compatible " +
	"server: OpenAI, vLLM, llama.cpp, Ollama), or set OPENAI_BASE_URL."

// builtinNotice is the one line serve and query write when the built-in
// model answers: what it is, what it scored, and how to use a real one.
func builtinNotice() string {
	s := "using the built-in model " + tinydemo.Name + " (" + tinydemo.About + ")"
	if rec, err := tinydemo.RecordedEval(); err == nil {
		s += fmt.Sprintf("; it solved %d/%d of %s", rec.Solved, rec.Instances, rec.Subset)
	}
	return s + "; set --upstream URL for a real model"
}

// localClient is the engine's upstream served in-process: recursion's
// ModelClient over an inference engine, with no HTTP hop. It serves every
// model name the engine asks for (root and sub-model are the same model).
// temperature applies when a request sets none.
type localClient struct {
	e           *inference.Engine
	temperature float64
}

var _ recursion.ModelClient = localClient{}

// Complete renders the messages with the chat template, generates, and
// reports usage and logprobs as an OpenAI upstream would.
func (c localClient) Complete(ctx context.Context, req recursion.CompletionRequest) (recursion.Completion, error) {
	msgs := make([]tokenizer.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = tokenizer.Message{Role: m.Role, Content: m.Content}
	}
	prompt, err := c.e.EncodeChat(msgs)
	if err != nil {
		return recursion.Completion{}, c.fail(http.StatusBadRequest, err)
	}
	r := inference.Request{Prompt: prompt, Stop: req.Sampling.Stop}
	s := req.Sampling
	r.Temperature = c.temperature
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
	res, err := c.e.Generate(ctx, r, nil)
	if err != nil {
		if ctx.Err() != nil {
			return recursion.Completion{}, fmt.Errorf("local model %s: %w", c.e.Name(), context.Cause(ctx))
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
		return recursion.Completion{}, c.fail(status, err)
	}
	out := recursion.Completion{Model: c.e.Name(), Content: res.Text, FinishReason: res.FinishReason,
		Usage: recursion.Usage{PromptTokens: len(res.PromptTokens), CompletionTokens: len(res.Tokens),
			TotalTokens: len(res.PromptTokens) + len(res.Tokens)}}
	if req.Logprobs {
		for _, t := range res.Tokens {
			b := c.e.Tokenizer().TokenBytes(int(t.ID))
			out.Logprobs = append(out.Logprobs, recursion.TokenLogprob{Token: string(b), Logprob: t.Logprob, Bytes: b})
		}
	}
	return out, nil
}

// fail is the error of a failed generation. Its text is the engine's own,
// which quotes nothing secret. A request the engine refuses as longer than
// the model's context (inference.RequestError on messages or max_tokens)
// is context_length_exceeded, as `rlm model serve` answers it, so that the
// gateway can answer 400 rather than 502.
func (c localClient) fail(status int, err error) error {
	ue := &recursion.UpstreamError{Upstream: c.name(), Attempts: 1, Status: status, Reason: err.Error(), Err: err}
	var re *inference.RequestError
	if errors.As(err, &re) {
		ue.Param, ue.Message = re.Param, re.Msg
		if re.Param == "messages" || re.Param == "max_tokens" {
			ue.Code = "context_length_exceeded"
		}
	}
	return ue
}

func (c localClient) name() string { return "local model " + c.e.Name() }

var _ recursion.RequestChecker = localClient{}

// CheckRequest refuses, before a run starts, a max_tokens that leaves no
// room for a prompt in the model's context: the run's token budget would
// refuse it first and answer 200 with no answer, where the client is at
// fault. One that fits alone but not with the prompt is refused by the
// first turn (see fail).
func (c localClient) CheckRequest(model string, s recursion.Sampling) error {
	limit := c.e.MaxModelLen()
	if s.MaxTokens == nil || *s.MaxTokens < limit {
		return nil
	}
	msg := fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens for the completion alone, "+
		"which leaves no room for the prompt. Please reduce the completion length.", limit, *s.MaxTokens)
	return &recursion.UpstreamError{Upstream: c.name(), Status: http.StatusBadRequest, Code: "context_length_exceeded",
		Param: "max_tokens", Message: msg, Reason: msg}
}
