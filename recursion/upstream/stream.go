package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/recursion/llm"
)

// A streaming call (Config.Stream) reads the chunks of an OpenAI-compatible
// chat completion stream and assembles them into the Completion the
// non-streaming call would have returned. go-openai sends it and hands over
// each data event; sseReader (sse.go) reads the dialects of upstreams that
// stream unlike OpenAI. What the chunks carry besides OpenAI's documented
// fields is handled too:
//
//   - reasoning deltas in reasoning_content (vLLM, DeepSeek, llama.cpp) or
//     reasoning (Ollama, OpenRouter);
//   - usage in the last chunk with an empty choices array (OpenAI, vLLM,
//     Ollama with include_usage), in the chunk carrying finish_reason
//     (llama.cpp), in every chunk (vLLM's continuous usage stats: the last
//     wins) or nowhere (estimated, as for a non-streaming answer without it).
//
// The stream must end with `data: [DONE]`, or at least have sent a
// finish_reason before the body ends: a body that ends before either was cut
// off, and the attempt fails with errStreamCut. It is retried like a
// non-streaming body cut off mid-way: nothing of an attempt reaches the
// caller before the stream is complete, so a retry cannot repeat output.

// errBadChunk is a data line that is not a JSON chunk; not retried, as a
// complete non-streaming body that does not parse is not.
var errBadChunk = errors.New("stream chunk is not JSON")

// streamChunk is one chat.completion.chunk as upstreams send it, with the
// error sseReader writes in the place of one.
type streamChunk struct {
	api.ChatCompletionChunk
	Usage       *api.Usage      `json:"usage"`
	StreamError json.RawMessage `json:"rlm.stream_error"`
}

// streamToolCall is a tool call assembled from its deltas.
type streamToolCall struct {
	ID, Name, Arguments string
}

// streamAssembler accumulates a stream's chunks.
type streamAssembler struct {
	model              string
	content, reasoning strings.Builder
	finish             string
	usage              llm.Usage
	tools              []streamToolCall
	toolAt             map[int]int // a tool call's index in the stream -> its place in tools
	logprobs           []llm.TokenLogprob
	chunks             int  // data chunks received
	choices            bool // a chunk with choice 0 came
	done               bool // data: [DONE] came
}

// add applies one data chunk.
func (a *streamAssembler) add(data []byte) error {
	var ch streamChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return fmt.Errorf("%w: chunk %d: %w: %.200q", errBadChunk, a.chunks+1, err, data)
	}
	if len(ch.StreamError) > 0 {
		return parseStreamError(ch.StreamError, a.chunks)
	}
	a.chunks++
	if ch.Model != "" {
		a.model = ch.Model
	}
	if ch.Usage != nil {
		a.usage = llm.Usage{PromptTokens: ch.Usage.PromptTokens, CompletionTokens: ch.Usage.CompletionTokens, TotalTokens: ch.Usage.TotalTokens}
	}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue // only the first choice is used, as in a non-streaming answer
		}
		a.choices = true
		d := c.Delta
		if d.Content != nil {
			a.content.WriteString(*d.Content)
		}
		a.reasoning.WriteString(d.ReasoningContent)
		a.reasoning.WriteString(d.Reasoning)
		for i, tc := range d.ToolCalls {
			a.addToolCall(i, tc)
		}
		if d.FunctionCall != nil {
			a.addToolCall(0, api.ToolCall{Index: new(-1), Function: *d.FunctionCall})
		}
		if c.FinishReason != nil && *c.FinishReason != "" {
			a.finish = *c.FinishReason
		}
		if c.Logprobs != nil {
			for _, lp := range c.Logprobs.Content {
				a.logprobs = append(a.logprobs, llm.TokenLogprob{Token: lp.Token, Logprob: lp.Logprob, Bytes: intBytes(lp.Bytes)})
			}
		}
	}
	return nil
}

// intBytes is a logprob's bytes, sent as a JSON array of numbers.
func intBytes(b []int) []byte {
	if b == nil {
		return nil
	}
	out := make([]byte, len(b))
	for i, x := range b {
		out[i] = byte(x)
	}
	return out
}

// addToolCall applies a tool call delta: its name comes whole in the first
// delta of its index, its arguments in pieces to concatenate. A delta
// without an index (some servers send each call whole) continues the last
// call unless it names a new id.
func (a *streamAssembler) addToolCall(pos int, tc api.ToolCall) {
	idx := pos
	if tc.Index != nil {
		idx = *tc.Index
	} else if n := len(a.tools); n > 0 && (tc.ID == "" || tc.ID == a.tools[n-1].ID) {
		a.tools[n-1].Arguments += tc.Function.Arguments
		return
	} else {
		idx = -2 - n // a fresh key no indexed call uses
	}
	if a.toolAt == nil {
		a.toolAt = map[int]int{}
	}
	at, ok := a.toolAt[idx]
	if !ok {
		at = len(a.tools)
		a.toolAt[idx] = at
		a.tools = append(a.tools, streamToolCall{})
	}
	t := &a.tools[at]
	if t.ID == "" {
		t.ID = tc.ID
	}
	if t.Name == "" {
		t.Name = tc.Function.Name
	}
	t.Arguments += tc.Function.Arguments
}

// completion is the assembled answer, once the stream has ended.
func (a *streamAssembler) completion() (llm.Completion, error) {
	if !a.done && a.finish == "" {
		return llm.Completion{}, fmt.Errorf("%w: %d chunk(s) and no finish_reason: %w", errStreamCut, a.chunks, io.ErrUnexpectedEOF)
	}
	if !a.choices {
		return llm.Completion{}, errNoChoices
	}
	out := llm.Completion{
		Model:        a.model,
		Content:      a.content.String(),
		FinishReason: a.finish,
		Reasoning:    a.reasoning.String(),
		Usage:        a.usage,
		Logprobs:     a.logprobs,
	}
	for _, t := range a.tools {
		out.ToolCalls = append(out.ToolCalls, t.Name)
	}
	if out.Usage.TotalTokens == 0 {
		out.Usage.TotalTokens = out.Usage.PromptTokens + out.Usage.CompletionTokens
	}
	return out, nil
}

// doneGrace is how long the end of a body is awaited after data: [DONE]:
// servers end it at once, and reading that end lets the connection serve
// the next call; a server that keeps it open costs this much, and a fresh
// connection for the next call.
const doneGrace = 500 * time.Millisecond

// streamAttempt makes one streaming attempt through go-openai.
func (c *Client) streamAttempt(ctx context.Context, oreq openai.ChatCompletionRequest, body []byte) (llm.Completion, attemptInfo, error) {
	actx, cancelCause := context.WithCancelCause(ctx)
	defer cancelCause(nil)
	watch := c.watchSilence(actx, cancelCause)
	defer watch.stop()
	st := &callState{request: body, cancel: cancelCause, watch: watch, stream: true}
	actx, cancel := context.WithTimeout(context.WithValue(actx, callStateKey{}, st), c.cfg.Timeout)
	defer cancel()
	stream, err := c.client.CreateChatCompletionStream(actx, oreq)
	at := attemptInfo{status: st.status, retryAfter: st.retryAfter}
	if err != nil {
		return llm.Completion{}, at, c.silenceError(context.Cause(actx), st.status, err)
	}
	defer stream.Close()
	a := &streamAssembler{}
	for {
		raw, err := stream.RecvRaw()
		if err == io.EOF {
			break
		}
		if err != nil {
			return llm.Completion{}, at, c.silenceError(context.Cause(actx), st.status, err)
		}
		if err := a.add(raw); err != nil {
			return llm.Completion{}, at, err
		}
	}
	a.done = st.sse != nil && st.sse.sawDone
	comp, err := a.completion()
	return comp, at, err
}
