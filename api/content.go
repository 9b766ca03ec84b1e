package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/rlm-project/rlm/internal/jsonscan"
)

// Content is a message's content: a string (Text), an array of parts
// (Parts, non-nil), or null (neither).
//
// Decoded by DecodeChatCompletionRequest, a string is kept as its raw
// literal until the whole body is decoded; then, for a body that is mostly
// such strings, the text shares the body's memory instead of copying it: a
// 40 MB message is held once, not twice. A malformed content does not fail
// the decoding: Err reports it, so that the error can name its message.
type Content struct {
	Text  string
	Parts []ContentPart

	raw  []byte // the JSON string literal, quotes included, until resolve
	err  error
	caps *decodeCaps // nil: no caps (decoded by json.Unmarshal alone)
}

// TextContent is a content of text.
func TextContent(s string) Content { return Content{Text: s} }

// Err is what was wrong with the content as sent, nil if nothing.
func (c *Content) Err() error { return c.err }

func (c Content) MarshalJSON() ([]byte, error) {
	if c.Parts != nil {
		return json.Marshal(c.Parts)
	}
	return json.Marshal(c.Text)
}

func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
	case b[0] == '"':
		if c.caps == nil { // no body to share: decode it now
			return json.Unmarshal(b, &c.Text)
		}
		c.raw = b // a slice of the body, valid until resolve
	case b[0] == '[':
		c.Parts = []ContentPart{}
		err := jsonscan.Elements(b, func(_ int, elem []byte) error {
			if c.caps != nil && !c.caps.addPart() {
				return errTooManyParts
			}
			var p ContentPart
			if err := json.Unmarshal(elem, &p); err != nil {
				return err
			}
			c.Parts = append(c.Parts, p)
			return nil
		})
		switch {
		case err == errTooManyParts:
			c.Parts = nil
			return err // decoding stops: see decodeCaps
		case err != nil:
			c.err = errors.New("content parts must be objects with a type")
		}
	default:
		c.err = errors.New("content must be a string or an array of content parts")
	}
	return nil
}

// resolve turns the raw string literal into text. With share, a literal
// that needs no unquoting (no escapes, no control characters, valid UTF-8:
// what json.Unmarshal would copy as is) becomes a string over the same
// bytes of the body, which belongs to the request for good and is never
// written again.
func (c *Content) resolve(share bool) {
	raw := c.raw
	c.raw = nil
	if raw == nil {
		return
	}
	body := raw[1 : len(raw)-1]
	if share && len(body) > 0 && plainJSONString(body) {
		c.Text = unsafe.String(&body[0], len(body))
		return
	}
	c.err = json.Unmarshal(raw, &c.Text)
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

// Limits bound what one request may decode into, counted while it is
// decoded: a body of a million tiny messages or parts is refused at the
// first one past its cap, before a structure for the rest is built.
type Limits struct {
	MaxMessages     int // messages, or Responses input items
	MaxContentParts int // content parts of all messages together
}

// Default limits: OpenAI's 2048 messages, and 8192 parts in all.
const (
	DefaultMaxMessages     = 2048
	DefaultMaxContentParts = 8192
)

// decodeCaps counts the parts decoded so far against Limits.
type decodeCaps struct {
	Limits
	parts int
}

// addPart counts one content part; false when it is one too many.
func (c *decodeCaps) addPart() bool {
	c.parts++
	return c.parts <= c.MaxContentParts
}

// errTooManyParts stops the decoding of a message's parts; the messages'
// decoder turns it into the API error naming the message.
var errTooManyParts = errors.New("too many content parts")

// cappedMessages decodes the messages array under caps into *dst, one
// element at a time.
type cappedMessages struct {
	dst  *[]Message
	caps *decodeCaps
}

func (cm cappedMessages) UnmarshalJSON(b []byte) error {
	*cm.dst = nil
	if isNull(b) {
		return nil
	}
	err := jsonscan.Elements(b, func(i int, elem []byte) error {
		if i >= cm.caps.MaxMessages {
			return ArrayTooLong("messages", "messages", cm.caps.MaxMessages)
		}
		msg := Message{Content: Content{caps: cm.caps}}
		err := json.Unmarshal(elem, &msg)
		if errors.Is(err, errTooManyParts) {
			return ArrayTooLong(fmt.Sprintf("messages[%d].content", i), "content parts in all messages together", cm.caps.MaxContentParts)
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
		return &json.UnmarshalTypeError{Value: JSONValueKind(b), Type: reflect.TypeFor[[]Message]()}
	}
	return err
}

// DecodeChatCompletionRequest parses a chat request body under lim. The
// body belongs to the request for good: message text may share its memory
// (see Content). Errors are *Error naming the offending parameter where the
// decoder knows it.
func DecodeChatCompletionRequest(body []byte, lim Limits) (*ChatCompletionRequest, error) {
	var cr ChatCompletionRequest
	caps := decodeCaps{Limits: lim}
	// The messages decode through cappedMessages: the outer field shadows
	// the embedded one of the same name.
	capped := struct {
		*ChatCompletionRequest
		Messages cappedMessages `json:"messages"`
	}{&cr, cappedMessages{dst: &cr.Messages, caps: &caps}}
	if err := json.Unmarshal(body, &capped); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// The decoder names the embedded struct too; it is no field
			// of the request.
			te.Field = strings.TrimPrefix(te.Field, "ChatCompletionRequest.")
		}
		return nil, DecodeError(err)
	}
	cr.resolve(body)
	return &cr, nil
}

// resolve decodes the messages' text out of body. A string shares body's
// memory only when such strings are most of it: then the body would be held
// anyway; otherwise a short message keeping a body of large file parts
// alive for the whole run would cost more than a copy.
func (cr *ChatCompletionRequest) resolve(body []byte) {
	plain := 0
	for _, m := range cr.Messages {
		if raw := m.Content.raw; raw != nil && plainJSONString(raw[1:len(raw)-1]) {
			plain += len(raw)
		}
	}
	share := 2*plain >= len(body)
	for i := range cr.Messages {
		cr.Messages[i].Content.resolve(share)
	}
}

// ReadBody reads a request body whole into one buffer: exactly sized for a
// body of known length (-1: unknown), so that the body is held once instead
// of in a decoder's doubling buffer plus a copy. Wrap r in
// http.MaxBytesReader to bound it.
func ReadBody(r io.Reader, length int64) ([]byte, error) {
	if length <= 0 {
		buf, err := io.ReadAll(r)
		if err != nil {
			return nil, DecodeError(err)
		}
		return buf, nil
	}
	buf := make([]byte, length)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, DecodeError(err)
	}
	// Anything after the declared length is a malformed request.
	if n, _ := r.Read(make([]byte, 1)); n > 0 {
		return nil, BadRequest("", "the request body is longer than its Content-Length")
	}
	return buf, nil
}

// MaxStop is OpenAI's limit on stop sequences.
const MaxStop = 4

// StopSequences reads a stop field: a string or an array of at most
// MaxStop strings, counted before they are decoded (a million empty
// strings are small in the body and not as strings).
func StopSequences(raw json.RawMessage) ([]string, *Error) {
	if isNull(raw) {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	if n, _ := jsonscan.Count(raw, MaxStop); n > MaxStop {
		return nil, ArrayTooLong("stop", "stop sequences", MaxStop)
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, BadRequest("stop", "stop must be a string or an array of strings")
	}
	return many, nil
}
