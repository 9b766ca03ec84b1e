// Package llm is the vocabulary of one model call, shared by whoever makes
// calls (the RLM engine in recursion, the trainer's rollouts) and whoever
// answers them (recursion/upstream over HTTP, inference/client in process):
// the Client interface, its Request and Completion, the call's place in a
// run (CallInfo), and the Error a failed call returns. It holds no
// behavior of its own, so that both sides can import it and neither
// imports the other.
package llm

import (
	"context"
	"errors"
	"fmt"
)

// Client makes one chat completion. The engine uses it for root turns,
// llm_query calls and children's turns; recursion/upstream's Client is the
// implementation for any OpenAI-compatible upstream, inference/client's for
// a model served in process.
type Client interface {
	Complete(ctx context.Context, req Request) (Completion, error)
}

// A RequestChecker is a Client that can tell before a run starts that
// its root turns could never be served as sampled: a local model knows its
// context length, so a max_tokens at or past it is refused up front rather
// than by the token budget or on the first turn. Engine.Run returns the
// error of a check that fails (an *Error matching
// ErrContextLengthExceeded, for one that is too long).
type RequestChecker interface {
	CheckRequest(model string, s Sampling) error
}

// Request is one chat completion as the engine asks for it.
type Request struct {
	Model    string
	Messages []Message
	Sampling Sampling
	// Logprobs asks the upstream for token log probabilities.
	Logprobs bool
}

// CallKind says what a model call is for.
type CallKind string

const (
	CallTurn     CallKind = "turn"      // a turn of an RLM node (root or child)
	CallLLMQuery CallKind = "llm_query" // a plain sub-call made by a node's code
)

// CallInfo identifies a model call within its run. The engine puts it in
// the context it passes to Client.Complete; clients that record calls
// (a trainer collecting its policy's samples) read it with CallFrom.
type CallInfo struct {
	NodeID string
	Depth  int // depth of the node making the call; the root is 0
	Turn   int // that node's turn
	Kind   CallKind
}

type callKey struct{}

// WithCall returns ctx carrying c, for CallFrom.
func WithCall(ctx context.Context, c CallInfo) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFrom returns the CallInfo of the call whose context is ctx.
func CallFrom(ctx context.Context) (CallInfo, bool) {
	c, ok := ctx.Value(callKey{}).(CallInfo)
	return c, ok
}

// Completion is what the upstream answered.
type Completion struct {
	Model        string // the model the upstream reports, if any
	Content      string
	FinishReason string
	Usage        Usage
	Logprobs     []TokenLogprob
	// Reasoning is reasoning_content, when the upstream separates the
	// model's reasoning from its answer (vLLM's reasoning parser, DeepSeek).
	Reasoning string
	// ToolCalls names the tool calls the upstream answered with.
	ToolCalls []string
	// UsageEstimated is set when the upstream reported no usage (some
	// llama.cpp builds and proxies) and Usage was estimated from the
	// characters sent and received.
	UsageEstimated bool
}

// Usage counts tokens.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + o.PromptTokens,
		CompletionTokens: u.CompletionTokens + o.CompletionTokens,
		TotalTokens:      u.TotalTokens + o.TotalTokens,
	}
}

// Message is one chat message as sent to a model.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// Images are shown with Content, each an https URL or a data URL:
	// only a model that takes images gets them (llm_query_image).
	Images []string `json:"images,omitempty"`
}

// TokenLogprob is one generated token with its log probability.
type TokenLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
	Bytes   []byte  `json:"bytes,omitempty"`
}

// Sampling holds the sampling parameters passed faithfully to the root
// model. Nil means "not set": the upstream's default applies. A set zero
// (temperature 0) reaches the upstream as 0.
type Sampling struct {
	Temperature *float64
	TopP        *float64
	MaxTokens   *int
	Stop        []string
	Seed        *int
}

// ErrContextLengthExceeded matches (errors.Is) an *Error whose model
// refused the request because its prompt plus max_tokens does not fit the
// model's context: the request is at fault, not the upstream.
var ErrContextLengthExceeded = errors.New("context length exceeded")

// CodeContextLength is OpenAI's error code for a request longer than the
// model's context, which the local models use too.
const CodeContextLength = "context_length_exceeded"

// Error is a call that failed for good: a non-retryable status, or
// retries exhausted, or a request the model refused before any attempt.
// Its Error text is safe to show anyone; Err is not.
type Error struct {
	// Upstream names the upstream in the error text: upstream.DefaultName,
	// "upstream NAME" for a named one, "local model NAME".
	Upstream string
	Attempts int // 0: refused before any attempt
	Status   int // HTTP status of the last attempt; 0 for connection errors
	// Reason says what went wrong, in words safe to show a client.
	Reason string
	// Code, Param and Message are the upstream's own error code, request
	// field and message, kept only when it sent a well-formed OpenAI error
	// and they hold nothing secret.
	Code, Param, Message string
	// Err is the last attempt's error as the transport or go-openai gave it:
	// it may hold the URL and the upstream's body. Never show it as is.
	Err error
}

func (e *Error) Error() string {
	reason := e.Reason
	if reason == "" {
		reason = "the call failed"
	}
	if e.Attempts == 0 {
		return fmt.Sprintf("%s refused the request: %s", e.Upstream, reason)
	}
	return fmt.Sprintf("%s failed after %d attempt(s): %s", e.Upstream, e.Attempts, reason)
}

func (e *Error) Unwrap() error { return e.Err }

// Is reports whether the model refused the request as longer than its
// context (ErrContextLengthExceeded).
func (e *Error) Is(target error) bool {
	return target == ErrContextLengthExceeded && e.Code == CodeContextLength
}

// EstimateTokens is a rough count used for placeholders and reservations:
// about four characters per token for English text and code.
func EstimateTokens(chars int) int { return (chars + 3) / 4 }
