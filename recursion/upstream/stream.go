package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-project/rlm/recursion/llm"
	openai "github.com/sashabaranov/go-openai"
)

// A streaming call (Config.Stream) reads the server-sent events of
// an OpenAI-compatible chat completion stream and assembles them into the
// Completion the non-streaming call would have returned. What upstreams send
// besides OpenAI's documented chunks is handled too:
//
//   - reasoning deltas in reasoning_content (vLLM, DeepSeek, llama.cpp) or
//     reasoning (Ollama, OpenRouter);
//   - usage in the last chunk with an empty choices array (OpenAI, vLLM,
//     Ollama with include_usage), in the chunk carrying finish_reason
//     (llama.cpp), in every chunk (vLLM's continuous usage stats: the last
//     wins) or nowhere (estimated, as for a non-streaming answer without it);
//   - comments and keep-alives (": ping"), blank lines, CRLF or CR line ends;
//   - errors inside the stream, after the 200: `data: {"error": {...}}`
//     (vLLM, OpenAI), an `error: {...}` line (llama.cpp), `event: error`
//     followed by its data, and a bare `{"error": ...}` line (Ollama's
//     documented mid-stream error object);
//   - a JSON body where a stream was asked for (a server or proxy that
//     ignores "stream"): parsed as the non-streaming answer it is.
//
// The stream must end with `data: [DONE]`, or at least have sent a
// finish_reason before the body ends: a body that ends before either was cut
// off, and the attempt fails with errStreamCut. It is retried like a
// non-streaming body cut off mid-way: nothing of an attempt reaches the
// caller before the stream is complete, so a retry cannot repeat output.

// errStreamCut is the cause of a stream that ended before it was complete.
var errStreamCut = errors.New("stream ended before data: [DONE]")

// errNotStream is a 200 answer to a streaming call that is neither JSON
// nor an event stream (a proxy's login page); not retried.
var errNotStream = errors.New("response is not an event stream")

// errBadChunk is a data line that is not a JSON chunk; not retried, as a
// complete non-streaming body that does not parse is not.
var errBadChunk = errors.New("stream chunk is not JSON")

// streamError is an error object the upstream sent inside a 200 stream.
type streamError struct {
	Code    int // the code it carries, 0 if none (retried as a server error)
	Type    string
	Message string
	Chunks  int // chunks received before it
}

func (e *streamError) Error() string {
	s := fmt.Sprintf("error inside the response stream after %d chunk(s): %s", e.Chunks, e.Message)
	if e.Type != "" || e.Code != 0 {
		s += fmt.Sprintf(" (type %q, code %d)", e.Type, e.Code)
	}
	return s
}

// parseStreamError reads an error value as upstreams send it: an object
// with message, type and a code that is a number, a numeric string or null,
// or a bare string.
func parseStreamError(raw []byte, chunks int) *streamError {
	se := &streamError{Chunks: chunks}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		se.Message = text
		return se
	}
	var obj struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(raw, &obj) != nil || obj.Message == "" {
		se.Message = string(raw)
		return se
	}
	se.Message, se.Type = obj.Message, obj.Type
	var code string
	if json.Unmarshal(obj.Code, &code) != nil {
		code = string(obj.Code)
	}
	if n, err := strconv.Atoi(code); err == nil && n >= 400 && n < 600 {
		se.Code = n
	}
	return se
}

// streamChunk is one chat.completion.chunk, with the fields of every
// upstream this client reads.
type streamChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          string               `json:"content"`
			ReasoningContent string               `json:"reasoning_content"`
			Reasoning        string               `json:"reasoning"`
			ToolCalls        []openai.ToolCall    `json:"tool_calls"`
			FunctionCall     *openai.FunctionCall `json:"function_call"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
		Logprobs     *struct {
			Content []openai.LogProb `json:"content"`
		} `json:"logprobs"`
	} `json:"choices"`
	Usage *openai.Usage   `json:"usage"`
	Error json.RawMessage `json:"error"`
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
	chunks             int    // data chunks received
	foreign            string // the first line that is no SSE field
	choices            bool   // a chunk with choice 0 came
	done               bool   // data: [DONE] came
}

// add applies one data chunk.
func (a *streamAssembler) add(data []byte) error {
	var ch streamChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return fmt.Errorf("%w: chunk %d: %w: %.200q", errBadChunk, a.chunks+1, err, data)
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		return parseStreamError(ch.Error, a.chunks)
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
		a.content.WriteString(d.Content)
		a.reasoning.WriteString(d.ReasoningContent)
		a.reasoning.WriteString(d.Reasoning)
		for i, tc := range d.ToolCalls {
			a.addToolCall(i, tc)
		}
		if d.FunctionCall != nil {
			a.addToolCall(0, openai.ToolCall{Index: new(-1), Function: *d.FunctionCall})
		}
		if c.FinishReason != "" {
			a.finish = c.FinishReason
		}
		if c.Logprobs != nil {
			for _, lp := range c.Logprobs.Content {
				a.logprobs = append(a.logprobs, llm.TokenLogprob{Token: lp.Token, Logprob: lp.LogProb, Bytes: lp.Bytes})
			}
		}
	}
	return nil
}

// addToolCall applies a tool call delta: its name comes whole in the first
// delta of its index, its arguments in pieces to concatenate. A delta
// without an index (some servers send each call whole) continues the last
// call unless it names a new id.
func (a *streamAssembler) addToolCall(pos int, tc openai.ToolCall) {
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

// noteForeign keeps the first line that is no SSE field we know, to tell a
// body that is no event stream at all.
func (a *streamAssembler) noteForeign(line []byte) {
	if a.foreign == "" {
		a.foreign = string(line[:min(len(line), 200)])
	}
}

// completion is the assembled answer, once the stream has ended.
func (a *streamAssembler) completion() (llm.Completion, error) {
	if a.chunks == 0 && a.foreign != "" {
		return llm.Completion{}, fmt.Errorf("%w: it starts %q", errNotStream, a.foreign)
	}
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

// readStream reads server-sent events from r to the end of the body. One
// line may be as long as maxLine (a server may send a whole answer in one
// chunk); r itself bounds the whole body. After data: [DONE] it calls done
// and reads on to the end of the body, so that the connection can serve
// the next call, ignoring what comes and how the body ends.
func readStream(r io.Reader, maxLine int, done func()) (*streamAssembler, error) {
	a := &streamAssembler{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine+2)
	cut := false
	sc.Split(scanSSELines(&cut))
	event := "" // the current event's type, until the blank line ending it
	for sc.Scan() {
		line := sc.Bytes()
		if a.done {
			continue
		}
		if cut {
			// The SSE format drops an unfinished last line: what it
			// carried was cut off, or the read failed (sc.Err says why).
			// It still tells a body that was never a stream.
			if len(line) > 0 && line[0] != ':' && !bytes.HasPrefix(line, []byte("data")) {
				a.noteForeign(line)
			}
			break
		}
		if len(line) == 0 {
			event = ""
			continue
		}
		if line[0] == ':' {
			continue // a comment: keep-alives such as ": ping"
		}
		if line[0] == '{' {
			// Not an SSE field: a bare JSON object, as Ollama writes an
			// error that happens after the stream started.
			var bare struct {
				Error json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &bare) == nil && len(bare.Error) > 0 && string(bare.Error) != "null" {
				return a, parseStreamError(bare.Error, a.chunks)
			}
			a.noteForeign(line)
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			event = string(value)
		case "error": // llama.cpp's server sends errors in a field of their own
			return a, parseStreamError(value, a.chunks)
		case "data":
			if event == "error" {
				var wrapped struct {
					Error json.RawMessage `json:"error"`
				}
				if json.Unmarshal(value, &wrapped) == nil && len(wrapped.Error) > 0 {
					value = wrapped.Error
				}
				return a, parseStreamError(value, a.chunks)
			}
			if len(value) == 0 {
				continue
			}
			if string(bytes.TrimSpace(value)) == "[DONE]" {
				a.done = true
				if done != nil {
					done()
				}
				continue
			}
			if err := a.add(value); err != nil {
				return a, err
			}
		case "id", "retry":
		default:
			a.noteForeign(line) // and ignore it, as the SSE format says
		}
	}
	if err := sc.Err(); err != nil && !a.done {
		if errors.Is(err, bufio.ErrTooLong) {
			return a, fmt.Errorf("%w: one stream line longer than %d bytes (the upstream response cap)", errResponseTooLarge, maxLine)
		}
		return a, fmt.Errorf("read stream after %d chunk(s): %w", a.chunks, err)
	}
	return a, nil
}

// scanSSELines splits lines ending in CRLF, LF or CR, as the SSE format
// allows all three. It returns a last line without an end too, and says so
// in *cut: the body ended in the middle of it.
func scanSSELines(cut *bool) bufio.SplitFunc {
	return func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
			if data[i] == '\n' {
				return i + 1, data[:i], nil
			}
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if !atEOF {
				return 0, nil, nil // a CR last: wait to see whether LF follows
			}
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			*cut = true
			return len(data), data, nil
		}
		return 0, nil, nil
	}
}

// doneGrace is how long the end of a body is awaited after data: [DONE]:
// servers end it at once, and reading that end lets the connection serve
// the next call; a server that keeps it open costs this much, and a fresh
// connection for the next call.
const doneGrace = 500 * time.Millisecond

// streamAttempt makes one streaming attempt.
func (c *Client) streamAttempt(ctx context.Context, oreq openai.ChatCompletionRequest, set map[string]any) (llm.Completion, attemptInfo, error) {
	var at attemptInfo
	body, err := json.Marshal(oreq)
	if err != nil {
		return llm.Completion{}, at, fmt.Errorf("encode request: %w", err)
	}
	fields := maps.Clone(set)
	fields["stream"] = true
	fields["stream_options"] = map[string]bool{"include_usage": true}
	if body, err = patchBody(body, fields); err != nil {
		return llm.Completion{}, at, err
	}
	actx, cancelCause := context.WithCancelCause(ctx)
	defer cancelCause(nil)
	watch := c.watchSilence(actx, cancelCause)
	defer watch.stop()
	actx, cancel := context.WithTimeout(actx, c.cfg.Timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint("/chat/completions"), bytes.NewReader(body))
	if err != nil {
		return llm.Completion{}, at, fmt.Errorf("build request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if c.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.hc.Do(hreq)
	if err != nil {
		return llm.Completion{}, at, c.silenceError(context.Cause(actx), 0, err)
	}
	watch.touch()
	at.status = resp.StatusCode
	at.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	rc := newIdleReader(resp.Body, c.cfg.IdleTimeout, func() { cancelCause(errStalled) }, watch.touch)
	defer rc.Close()
	r := &capReader{ReadCloser: rc, max: c.cfg.MaxResponseBytes}
	comp, err := c.readAttempt(resp, r, func() { rc.setIdle(doneGrace) })
	if err != nil {
		err = c.silenceError(context.Cause(actx), resp.StatusCode, err)
	}
	return comp, at, err
}

// readAttempt reads a streaming attempt's response: an error body, a JSON
// answer from a server that did not stream, or the stream.
func (c *Client) readAttempt(resp *http.Response, r io.Reader, done func()) (llm.Completion, error) {
	if resp.StatusCode < http.StatusOK || resp.StatusCode >= http.StatusBadRequest {
		body, err := io.ReadAll(r)
		if err != nil {
			return llm.Completion{}, fmt.Errorf("error, reading response body: %w", err)
		}
		return llm.Completion{}, statusError(resp, body)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		body, err := io.ReadAll(r)
		if err != nil {
			return llm.Completion{}, err
		}
		var oresp openai.ChatCompletionResponse
		if err := json.Unmarshal(body, &oresp); err != nil {
			return llm.Completion{}, fmt.Errorf("decode response: %w", err)
		}
		if len(oresp.Choices) == 0 {
			return llm.Completion{}, errNoChoices
		}
		comp := toCompletion(oresp)
		if comp.Reasoning == "" {
			comp.Reasoning = reasoningField(body)
		}
		return comp, nil
	}
	a, err := readStream(r, int(min(c.cfg.MaxResponseBytes, 1<<40)), done)
	if err != nil {
		return llm.Completion{}, err
	}
	return a.completion()
}

// statusError is the error of a failure status, typed as go-openai types it
// for a non-streaming call, so that both paths report and retry it alike.
func statusError(resp *http.Response, body []byte) error {
	var er openai.ErrorResponse
	err := json.Unmarshal(body, &er)
	if err != nil || er.Error == nil {
		re := &openai.RequestError{HTTPStatus: resp.Status, HTTPStatusCode: resp.StatusCode, Err: err, Body: body}
		if er.Error != nil {
			re.Err = er.Error
		}
		return re
	}
	er.Error.HTTPStatus = resp.Status
	er.Error.HTTPStatusCode = resp.StatusCode
	return er.Error
}
