package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/rlm-project/rlm/internal/jsonscan"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
)

// chatRequest is the body of POST /v1/chat/completions. Fields clients send
// that the server does not use (user, logit_bias...) are accepted and
// ignored, as are unknown fields; metadata is checked against OpenAI's
// limits and kept with a stored completion.
type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Stop                json.RawMessage `json:"stop"`
	Seed                *int            `json:"seed"`
	User                string          `json:"user"`
	Metadata            cappedMetadata  `json:"metadata"`
	Store               bool            `json:"store"`
	N                   *int            `json:"n"`
	ResponseFormat      *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	RLM *rlmOptions `json:"rlm"`
}

type chatMessage struct {
	Role    string         `json:"role"`
	Content messageContent `json:"content"`
	Name    string         `json:"name"`
}

// messageContent decodes a message's content, a string or an array of
// parts. A string is kept as its raw literal until resolve, which, for a
// body the server owns whole, makes the text share the body's memory
// instead of copying it: a 40 MB message is then held once, not twice. A
// malformed content is kept as err, so that the error can name the message
// it belongs to.
type messageContent struct {
	raw   []byte // the JSON string literal, quotes included, until resolve
	text  string
	parts []contentPart
	err   error
	caps  *decodeCaps // nil: no caps (a body decoded by json.Unmarshal alone)
}

func (m *messageContent) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
	case b[0] == '"':
		m.raw = b // a slice of the input, valid until resolve
	case b[0] == '[':
		m.parts = []contentPart{}
		err := jsonscan.Elements(b, func(_ int, elem []byte) error {
			if m.caps != nil && !m.caps.addPart() {
				return errTooManyParts
			}
			var p contentPart
			if err := json.Unmarshal(elem, &p); err != nil {
				return err
			}
			m.parts = append(m.parts, p)
			return nil
		})
		switch {
		case err == errTooManyParts:
			m.parts = nil
			return err // decoding stops: see decodeCaps
		case err != nil:
			m.err = errors.New("content parts must be objects with a type")
		}
	default:
		m.err = errors.New("content must be a string or an array of content parts")
	}
	return nil
}

// decodeCaps bound what one chat request may decode into, counted while it
// is decoded: a body of a million tiny messages or parts is refused at the
// first one past its cap, before a structure for the rest is built.
type decodeCaps struct {
	maxMessages int
	maxParts    int // content parts of all messages together
	parts       int // counted so far
}

// addPart counts one content part; false when it is one too many.
func (c *decodeCaps) addPart() bool {
	c.parts++
	return c.parts <= c.maxParts
}

// errTooManyParts stops the decoding of a message's parts; the messages'
// decoder turns it into the API error naming the message.
var errTooManyParts = errors.New("too many content parts")

// cappedMessages decodes the messages array under caps into *dst, one
// element at a time.
type cappedMessages struct {
	dst  *[]chatMessage
	caps *decodeCaps
}

func (cm cappedMessages) UnmarshalJSON(b []byte) error {
	*cm.dst = nil
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	err := jsonscan.Elements(b, func(i int, elem []byte) error {
		if i >= cm.caps.maxMessages {
			return arrayTooLong("messages", "messages", cm.caps.maxMessages)
		}
		msg := chatMessage{Content: messageContent{caps: cm.caps}}
		err := json.Unmarshal(elem, &msg)
		if errors.Is(err, errTooManyParts) {
			return arrayTooLong(fmt.Sprintf("messages[%d].content", i), "content parts in all messages together", cm.caps.maxParts)
		}
		if err != nil {
			return err
		}
		msg.Content.caps = nil
		*cm.dst = append(*cm.dst, msg)
		return nil
	})
	if errors.Is(err, jsonscan.ErrNotArray) {
		// The decoder adds the field's name.
		return &json.UnmarshalTypeError{Value: jsonValueKind(b), Type: reflect.TypeFor[[]chatMessage]()}
	}
	return err
}

// arrayTooLong is the 400 of an array past a cap, as OpenAI words it.
func arrayTooLong(param, what string, limit int) *apiError {
	return &apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: param, Code: "array_above_max_length",
		Kind: "invalid_request", Message: fmt.Sprintf("Invalid '%s': array too long. This server takes at most %d %s in one request.", param, limit, what)}
}

// jsonValueKind names the JSON kind of the value b, as
// json.UnmarshalTypeError.Value does.
func jsonValueKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "value"
	}
	switch b[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// resolve turns the raw string literal into text. With share, a literal
// that needs no unquoting (no escapes, no control characters, valid UTF-8:
// what json.Unmarshal would copy as is) becomes a string over the same
// bytes of the body, which belongs to the request for good and is never
// written again.
func (m *messageContent) resolve(share bool) {
	raw := m.raw
	m.raw = nil
	if raw == nil {
		return
	}
	body := raw[1 : len(raw)-1]
	if share && len(body) > 0 && plainJSONString(body) {
		m.text = unsafe.String(&body[0], len(body))
		return
	}
	m.err = json.Unmarshal(raw, &m.text)
}

// plainJSONString reports whether the body of a JSON string literal is its
// own value: no escapes, no control characters, valid UTF-8.
func plainJSONString(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c < 0x20 {
			return false
		}
	}
	return utf8.Valid(b)
}

// resolve decodes the messages' text out of buf, the whole body. A string
// shares buf's memory only when such strings are most of the body: then
// the body would be held anyway; otherwise a short message keeping a body
// of large file parts alive for the whole run would cost more than a copy.
func (cr *chatRequest) resolve(buf []byte) {
	plain := 0
	for _, m := range cr.Messages {
		if raw := m.Content.raw; raw != nil && plainJSONString(raw[1:len(raw)-1]) {
			plain += len(raw)
		}
	}
	share := 2*plain >= len(buf)
	for i := range cr.Messages {
		cr.Messages[i].Content.resolve(share)
	}
}

type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
	File *struct {
		FileID   string `json:"file_id"`
		FileData string `json:"file_data"`
		Filename string `json:"filename"`
	} `json:"file"`
}

// rlmOptions are the per-request limits; each is clamped to the server's
// maximum. Timeout is seconds (a number) or a Go duration ("90s"). Unlike
// the rest of the request, whose unknown fields are ignored for
// compatibility with OpenAI clients, the `rlm` object is this server's own:
// an unknown key in it is a typo ("max_iteration") that would silently lose
// a limit, so it is refused (see UnmarshalJSON).
type rlmOptions struct {
	MaxDepth         *int            `json:"max_depth"`
	MaxIterations    *int            `json:"max_iterations"`
	MaxFailedTurns   *int            `json:"max_failed_turns"`
	MaxLLMCalls      *int            `json:"max_llm_calls"`
	MaxTotalTokens   *int            `json:"max_total_tokens"`
	Timeout          json.RawMessage `json:"timeout"`
	SubModel         string          `json:"sub_model"`
	OffloadThreshold *int            `json:"offload_threshold"`
	// RequireSession makes a follow-up response (previous_response_id) fail
	// with 409 session_gone rather than run in a new REPL session when the
	// previous response's session cannot be continued. Chat ignores it.
	RequireSession bool `json:"require_session"`
	// Progress adds the engine's events to a Responses stream as events
	// of type rlm.progress. Off by default: the official SDKs' stream
	// helpers refuse event types they do not know. Chat streams always
	// carry progress chunks.
	Progress bool `json:"progress"`
}

// rlmKeys are the keys the `rlm` object accepts, from rlmOptions' tags.
var rlmKeys = func() []string {
	t := reflect.TypeFor[rlmOptions]()
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	sort.Strings(keys)
	return keys
}()

// UnmarshalJSON decodes the `rlm` object, refusing keys it does not know.
func (o *rlmOptions) UnmarshalJSON(b []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// The decoder adds where the `rlm` object is.
			return &json.UnmarshalTypeError{Value: te.Value, Type: reflect.TypeFor[rlmOptions](), Offset: te.Offset}
		}
		return err
	}
	var unknown []string
	for k := range fields {
		if _, ok := slices.BinarySearch(rlmKeys, k); !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return &apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Param: "rlm." + unknown[0],
			Code: "unknown_parameter", Kind: "invalid_request",
			Message: fmt.Sprintf("unknown key %q in the rlm object; allowed keys: %s", unknown[0], strings.Join(rlmKeys, ", "))}
	}
	type plain rlmOptions // without this method
	return json.Unmarshal(b, (*plain)(o))
}

// decodeChatRequest parses a request body under the default caps. Errors
// are *apiError with the offending parameter named where the decoder knows
// it.
func decodeChatRequest(r io.Reader) (*chatRequest, error) {
	return decodeChatRequestSized(r, -1, Config{}.withDefaults())
}

// decodeChatRequestSized is decodeChatRequest for a body of known length
// (-1: unknown) under cfg's caps. A known length is read into one exactly
// sized buffer that the messages' text then shares: the body is held once
// instead of in the decoder's doubling buffer plus a copy.
func decodeChatRequestSized(r io.Reader, length int64, cfg Config) (*chatRequest, error) {
	var buf []byte
	if length > 0 {
		buf = make([]byte, length)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, jsonError(err)
		}
		// Anything after the declared length is a malformed request.
		if n, _ := r.Read(make([]byte, 1)); n > 0 {
			return nil, badRequest("", "the request body is longer than its Content-Length")
		}
	} else {
		// Without a length, read the body whole into a buffer of our own
		// (the http.MaxBytesReader around it bounds it), which the text
		// then shares as above: cheaper than the JSON decoder's own
		// growing buffer plus a copy of every string.
		var err error
		if buf, err = io.ReadAll(r); err != nil {
			return nil, jsonError(err)
		}
	}
	var cr chatRequest
	caps := decodeCaps{maxMessages: cfg.MaxMessages, maxParts: cfg.MaxContentParts}
	// The messages decode through cappedMessages: the outer field shadows
	// the embedded one of the same name.
	capped := struct {
		*chatRequest
		Messages cappedMessages `json:"messages"`
	}{&cr, cappedMessages{dst: &cr.Messages, caps: &caps}}
	if err := json.Unmarshal(buf, &capped); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// The decoder names the embedded struct too; it is no field
			// of the request.
			te.Field = strings.TrimPrefix(te.Field, "chatRequest.")
		}
		return nil, jsonError(err)
	}
	cr.resolve(buf) // buf is never written again
	return &cr, nil
}

func jsonError(err error) error {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge(mbe.Limit, "the request body")
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return badRequest(te.Field, "invalid type for %q: expected %s, got %s", te.Field, jsonKind(te.Type), jsonValue(te.Value))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return badRequest("", "the request body is not valid JSON: %v (at byte %d)", se, se.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return badRequest("", "the request body is empty or truncated JSON")
	}
	return badRequest("", "invalid request body: %v", err)
}

// jsonKind describes, in JSON's terms, what a field of Go type t accepts:
// clients know JSON, not the server's type names.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case reflect.TypeFor[chatMessage]():
		return "a message object"
	case reflect.TypeFor[contentPart]():
		return "a content part object"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		// "a message object" -> "an array of message objects"
		elem := jsonKind(t.Elem())
		if _, rest, ok := strings.Cut(elem, " "); ok && (strings.HasPrefix(elem, "a ") || strings.HasPrefix(elem, "an ")) {
			return "an array of " + rest + "s"
		}
		return "an array"
	}
	return "a JSON value"
}

// jsonValue describes the JSON value encoding/json found ("string",
// "number 1.5", ...).
func jsonValue(v string) string {
	switch v {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "an array"
	case "object":
		return "an object"
	}
	if n, ok := strings.CutPrefix(v, "number "); ok {
		return n
	}
	return v
}

// maxStop is OpenAI's limit on stop sequences.
const maxStop = 4

// fileRef is a `file` content part to resolve to a local document.
type fileRef struct {
	param     string // messages[i].content[j].file
	id        string // an uploaded file, or
	data      string // inline file_data, base64: decoded once the request has a run slot
	mediaType string // of a file_data data URL
	filename  string
}

// toRunRequest validates the request against the server's configuration and
// turns it into the engine's Request. Files are returned unresolved.
func toRunRequest(cr *chatRequest, cfg *Config) (recursion.Request, []fileRef, error) {
	var req recursion.Request
	if cr.Model == "" {
		return req, nil, badRequest("model", "you must provide a model parameter")
	}
	if len(cfg.Models) > 0 && !contains(cfg.Models, cr.Model) {
		return req, nil, &apiError{Status: http.StatusNotFound, Type: "invalid_request_error", Param: "model",
			Code: "model_not_found", Kind: "not_found",
			Message: fmt.Sprintf("the model %q does not exist; this server offers %s", cr.Model, strings.Join(cfg.Models, ", "))}
	}
	req.Model = cr.Model
	if len(cr.Messages) == 0 {
		return req, nil, badRequest("messages", "messages must be a non-empty array")
	}
	if cr.N != nil && *cr.N != 1 {
		return req, nil, badRequest("n", "only n=1 is supported")
	}
	if cr.ResponseFormat != nil && cr.ResponseFormat.Type != "" && cr.ResponseFormat.Type != "text" {
		return req, nil, badRequest("response_format", "only response_format type \"text\" is supported, not %q", cr.ResponseFormat.Type)
	}
	if cr.StreamOptions != nil && !cr.Stream {
		return req, nil, badRequest("stream_options", "stream_options is only allowed when stream is true")
	}
	var files []fileRef
	for i, m := range cr.Messages {
		p := fmt.Sprintf("messages[%d]", i)
		role := m.Role
		switch role {
		case "system", "user", "assistant":
		case "developer":
			role = "system"
		case "":
			return req, nil, badRequest(p+".role", "%s.role is required", p)
		default:
			return req, nil, badRequest(p+".role", "unsupported role %q: use system, developer, user or assistant", m.Role)
		}
		text, refs, err := contentOf(p, m.Content)
		if err != nil {
			return req, nil, err
		}
		files = append(files, refs...)
		req.Messages = append(req.Messages, llm.Message{Role: role, Content: text})
	}
	s := &req.Sampling
	if cr.Temperature != nil && (*cr.Temperature < 0 || *cr.Temperature > 2) {
		return req, nil, badRequest("temperature", "temperature must be between 0 and 2")
	}
	if cr.TopP != nil && (*cr.TopP < 0 || *cr.TopP > 1) {
		return req, nil, badRequest("top_p", "top_p must be between 0 and 1")
	}
	s.Temperature, s.TopP, s.Seed = cr.Temperature, cr.TopP, cr.Seed
	s.MaxTokens = cr.MaxTokens
	if cr.MaxCompletionTokens != nil {
		s.MaxTokens = cr.MaxCompletionTokens
	}
	if s.MaxTokens != nil && *s.MaxTokens < 1 {
		return req, nil, badRequest("max_tokens", "max_tokens must be at least 1")
	}
	if len(cr.Stop) > 0 && string(cr.Stop) != "null" {
		var one string
		if err := json.Unmarshal(cr.Stop, &one); err == nil {
			s.Stop = []string{one}
		} else if n, _ := jsonscan.Count(cr.Stop, maxStop); n > maxStop {
			// Counted before decoding: a million empty strings are small
			// in the body and not as strings.
			return req, nil, arrayTooLong("stop", "stop sequences", maxStop)
		} else if err := json.Unmarshal(cr.Stop, &s.Stop); err != nil {
			return req, nil, badRequest("stop", "stop must be a string or an array of strings")
		}
	}
	lim, err := limits(cr.RLM, cfg)
	if err != nil {
		return req, nil, err
	}
	req.Limits = lim
	return req, files, nil
}

func contentOf(p string, mc messageContent) (string, []fileRef, error) {
	if mc.err != nil {
		return "", nil, badRequest(p+".content", "%s.content: %v", p, mc.err)
	}
	if mc.parts == nil {
		return mc.text, nil, nil
	}
	parts := mc.parts
	var texts []string
	var refs []fileRef
	for j, part := range parts {
		pp := fmt.Sprintf("%s.content[%d]", p, j)
		switch part.Type {
		case "text":
			texts = append(texts, part.Text)
		case "file":
			if part.File == nil {
				return "", nil, badRequest(pp+".file", "a file part needs a file object")
			}
			ref := fileRef{param: pp + ".file", id: part.File.FileID, filename: part.File.Filename}
			switch {
			case part.File.FileID != "":
			case part.File.FileData != "":
				data := part.File.FileData
				// OpenAI clients send a data URL; plain base64 is accepted too.
				if rest, ok := strings.CutPrefix(data, "data:"); ok {
					if i := strings.Index(rest, ","); i >= 0 {
						ref.mediaType, _, _ = strings.Cut(rest[:i], ";base64")
						data = rest[i+1:]
					}
				}
				ref.data = data
				if ref.filename == "" {
					ref.filename = "inline"
				}
			default:
				return "", nil, badRequest(pp+".file.file_id", "a file part needs file_id or file_data")
			}
			refs = append(refs, ref)
		case "":
			return "", nil, badRequest(pp+".type", "%s.type is required", pp)
		default:
			return "", nil, badRequest(pp+".type", "unsupported content part type %q: use text or file", part.Type)
		}
	}
	return strings.Join(texts, "\n"), refs, nil
}

func limits(o *rlmOptions, cfg *Config) (recursion.Limits, error) {
	var l recursion.Limits
	if o == nil {
		return l, nil
	}
	max := cfg.MaxLimits
	ints := []struct {
		name string
		v    *int
		max  int
		dst  *int
	}{
		{"rlm.max_depth", o.MaxDepth, max.MaxDepth, &l.MaxDepth},
		{"rlm.max_iterations", o.MaxIterations, max.MaxIterations, &l.MaxIterations},
		{"rlm.max_failed_turns", o.MaxFailedTurns, max.MaxFailedTurns, &l.MaxFailedTurns},
		{"rlm.max_llm_calls", o.MaxLLMCalls, max.MaxLLMCalls, &l.MaxLLMCalls},
		{"rlm.max_total_tokens", o.MaxTotalTokens, max.MaxTotalTokens, &l.MaxTotalTokens},
		{"rlm.offload_threshold", o.OffloadThreshold, 0, &l.OffloadThreshold},
	}
	for _, f := range ints {
		if f.v == nil {
			continue
		}
		if *f.v < 0 {
			return l, badRequest(f.name, "%s must not be negative", f.name)
		}
		*f.dst = *f.v
		if f.max > 0 && *f.dst > f.max {
			*f.dst = f.max
		}
	}
	// The API's max_depth 0 means the root alone; the engine's Limits read 0
	// as "default" and a negative depth as the root alone. A negative
	// server maximum is the root alone too, whatever the request asks.
	if o.MaxDepth != nil && (*o.MaxDepth == 0 || max.MaxDepth < 0) {
		l.MaxDepth = -1
	}
	if len(o.Timeout) > 0 && string(o.Timeout) != "null" {
		var d time.Duration
		var secs float64
		var str string
		if err := json.Unmarshal(o.Timeout, &secs); err == nil {
			d = seconds(secs)
		} else if err := json.Unmarshal(o.Timeout, &str); err == nil {
			if d, err = time.ParseDuration(str); err != nil {
				if f, ferr := strconv.ParseFloat(str, 64); ferr == nil {
					d = seconds(f)
				} else {
					return l, badRequest("rlm.timeout", "rlm.timeout must be seconds or a duration like \"90s\"")
				}
			}
		} else {
			return l, badRequest("rlm.timeout", "rlm.timeout must be seconds or a duration like \"90s\"")
		}
		if d < 0 {
			return l, badRequest("rlm.timeout", "rlm.timeout must not be negative")
		}
		if max.Timeout > 0 && d > max.Timeout {
			d = max.Timeout
		}
		l.Timeout = d
	}
	if o.SubModel != "" {
		if len(cfg.Models) > 0 && !contains(cfg.Models, o.SubModel) {
			return l, badRequest("rlm.sub_model", "unknown sub_model %q; this server offers %s", o.SubModel, strings.Join(cfg.Models, ", "))
		}
		l.SubModel = o.SubModel
	}
	return l, nil
}

// seconds converts a client's number of seconds to a Duration. Values too
// large for a Duration saturate (and are then clamped to the server's
// maximum) instead of wrapping around to a negative duration.
func seconds(f float64) time.Duration {
	switch d := f * float64(time.Second); {
	case math.IsNaN(d):
		return 0
	case d >= math.MaxInt64:
		return math.MaxInt64
	case d <= math.MinInt64:
		return math.MinInt64
	default:
		return time.Duration(d)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
