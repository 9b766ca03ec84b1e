package upstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
)

// Streamed calls go through go-openai like the others: it sends the
// request, reads an error status into its error types, and hands each
// data event to the client (ChatCompletionStream.RecvRaw). What go-openai
// cannot read is the dialect of upstreams that stream differently from
// OpenAI; go-openai collects any line that is not `data:` into an error
// buffer it reads only at the end (or after 300 such lines fails the
// stream). So between the body and go-openai sits sseReader, which reads
// the body line by line, each line at most the response cap, and writes
// standard data events:
//
//   - comments and keep-alives (": ping"), blank lines, id: and retry:
//     fields, CRLF or CR line ends are read and dropped;
//   - an error inside the stream, after the 200, in any of its forms
//     (`data: {"error": {...}}` as vLLM and OpenAI send it, an `error:
//     {...}` line as llama.cpp does, `event: error` followed by its data,
//     a bare `{"error": ...}` line as Ollama does) becomes one data event
//     {"rlm.stream_error": ...}, which the client turns into a
//     *streamError (go-openai would wait for another line before it
//     reported its own form);
//   - a JSON body where a stream was asked for (a server or proxy that
//     ignores "stream") becomes one chunk holding the whole answer, then
//     data: [DONE];
//   - a body that is neither (a proxy's login page) fails with
//     errNotStream;
//   - after data: [DONE] the rest of the body is read (within doneGrace)
//     before [DONE] is passed on, so that the connection serves the next
//     call.
//
// It notes whether [DONE] came, so that the client can tell a complete
// stream from one cut off (go-openai ends both with io.EOF).
type sseReader struct {
	body    io.ReadCloser
	sc      *bufio.Scanner
	maxLine int
	onDone  func() // called when data: [DONE] comes, before the rest is read
	out     bytes.Buffer
	event   string // the current event's type, until the blank line ending it
	cut     bool   // the body ended in the middle of a line
	err     error  // what ends the output once out is drained

	sawDone bool   // data: [DONE] came
	data    int    // data events passed on
	foreign string // the first line that is no SSE field
}

// errStreamCut is the cause of a stream that ended before it was complete.
var errStreamCut = errors.New("stream ended before data: [DONE]")

// errNotStream is a 200 answer to a streaming call that is neither JSON
// nor an event stream (a proxy's login page); not retried.
var errNotStream = errors.New("response is not an event stream")

// streamErrorField is the data event an error inside a stream becomes.
const streamErrorField = "rlm.stream_error"

// newSSEReader reads resp's body for go-openai. A JSON body is read whole
// at once (the body's cap bounds it).
func newSSEReader(resp *http.Response, maxLine int, onDone func()) *sseReader {
	r := &sseReader{body: resp.Body, maxLine: maxLine, onDone: onDone}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			r.err = err
			return r
		}
		r.wholeAnswer(body)
		if r.err == nil {
			r.err = io.EOF
		}
		return r
	}
	r.sc = bufio.NewScanner(resp.Body)
	r.sc.Buffer(make([]byte, 0, 64<<10), maxLine+2)
	r.sc.Split(scanSSELines(&r.cut))
	return r
}

func (r *sseReader) Close() error { return r.body.Close() }

func (r *sseReader) Read(p []byte) (int, error) {
	for r.out.Len() == 0 && r.err == nil {
		r.err = r.next()
	}
	if r.out.Len() > 0 {
		return r.out.Read(p)
	}
	return 0, r.err
}

// emit writes one data event.
func (r *sseReader) emit(data []byte) {
	r.out.WriteString("data: ")
	r.out.Write(data)
	r.out.WriteString("\n\n")
}

// emitError writes an error sent inside the stream as a data event of our
// own field.
func (r *sseReader) emitError(value []byte) error {
	b, err := json.Marshal(map[string]json.RawMessage{streamErrorField: errorValue(value)})
	if err != nil {
		return err
	}
	r.emit(b)
	return io.EOF // nothing after an error counts
}

// errorValue is an error as JSON: value itself when it is JSON, else the
// text as a string.
func errorValue(value []byte) json.RawMessage {
	if json.Valid(value) {
		return value
	}
	b, _ := json.Marshal(string(value))
	return b
}

// next reads one line and writes what it becomes; the error ends the
// output.
func (r *sseReader) next() error {
	if !r.sc.Scan() {
		if err := r.sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				return fmt.Errorf("%w: one stream line longer than %d bytes (the upstream response cap)", errResponseTooLarge, r.maxLine)
			}
			return fmt.Errorf("read stream after %d chunk(s): %w", r.data, err)
		}
		if r.data == 0 && r.foreign != "" {
			return fmt.Errorf("%w: it starts %q", errNotStream, r.foreign)
		}
		return io.EOF
	}
	line := r.sc.Bytes()
	if r.cut {
		// The SSE format drops an unfinished last line: what it carried
		// was cut off, or the read failed. It still tells a body that was
		// never a stream.
		if len(line) > 0 && line[0] != ':' && !bytes.HasPrefix(line, []byte("data")) {
			r.noteForeign(line)
		}
		return nil // the next Scan ends it
	}
	switch {
	case len(line) == 0:
		r.event = ""
		return nil
	case line[0] == ':':
		return nil // a comment: keep-alives such as ": ping"
	case line[0] == '{':
		// Not an SSE field: a bare JSON object, as Ollama writes an
		// error that happens after the stream started.
		if e := errorMember(line); e != nil {
			return r.emitError(e)
		}
		r.noteForeign(line)
		return nil
	}
	field, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(field) {
	case "event":
		r.event = string(value)
	case "error": // llama.cpp's server sends errors in a field of their own
		return r.emitError(value)
	case "data":
		if r.event == "error" {
			if e := errorMember(value); e != nil {
				value = e
			}
			return r.emitError(value)
		}
		if len(value) == 0 {
			return nil
		}
		if string(bytes.TrimSpace(value)) == "[DONE]" {
			r.finish()
			return io.EOF
		}
		if e := errorMember(value); e != nil {
			return r.emitError(e)
		}
		r.data++
		r.emit(value)
	case "id", "retry":
	default:
		r.noteForeign(line) // and ignore it, as the SSE format says
	}
	return nil
}

// finish passes on [DONE] after reading the rest of the body.
func (r *sseReader) finish() {
	r.sawDone = true
	if r.onDone != nil {
		r.onDone()
	}
	for r.sc.Scan() {
	}
	r.out.WriteString("data: [DONE]\n\n")
}

// errorMember is the "error" member of the JSON object b, nil when it has
// none (or it is null).
func errorMember(b []byte) json.RawMessage {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' || !bytes.Contains(b, []byte(`"error"`)) {
		return nil
	}
	var obj struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &obj) != nil || len(obj.Error) == 0 || string(obj.Error) == "null" {
		return nil
	}
	return obj.Error
}

// noteForeign keeps the first line that is no SSE field we know, to tell a
// body that is no event stream at all.
func (r *sseReader) noteForeign(line []byte) {
	if r.foreign == "" {
		r.foreign = string(line[:min(len(line), 200)])
	}
}

// wholeAnswer turns a non-streamed JSON answer into one chunk and [DONE]:
// each choice's message becomes its delta.
func (r *sseReader) wholeAnswer(body []byte) {
	if e := errorMember(body); e != nil {
		r.emitError(e)
		return
	}
	var whole struct {
		Model   string          `json:"model"`
		Choices []wholeChoice   `json:"choices"`
		Usage   json.RawMessage `json:"usage"`
	}
	if err := json.Unmarshal(body, &whole); err != nil {
		r.err = fmt.Errorf("decode response: %w", err)
		return
	}
	chunk := map[string]any{"model": whole.Model, "choices": whole.Choices}
	if len(whole.Usage) > 0 {
		chunk["usage"] = whole.Usage
	}
	b, _ := json.Marshal(chunk)
	r.data++
	r.emit(b)
	r.sawDone = true
	r.out.WriteString("data: [DONE]\n\n")
}

// wholeChoice is a choice of a non-streamed answer, written as a chunk's.
type wholeChoice struct {
	Index        int             `json:"index"`
	Message      json.RawMessage `json:"message"`
	FinishReason json.RawMessage `json:"finish_reason"`
	Logprobs     json.RawMessage `json:"logprobs"`
}

func (c wholeChoice) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"index": c.Index, "delta": c.Message, "finish_reason": c.FinishReason, "logprobs": c.Logprobs})
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
