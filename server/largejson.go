package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// A record whose input holds a 60 MB message must be written without a
// 60 MB (or, as encoding/json grows its buffer, a 120 MB) buffer of its
// JSON: encoding/json encodes a whole value before writing any of it. So
// large strings are taken out of the value before it is encoded, each
// replaced by a placeholder, and written in pieces in the placeholder's
// place as the encoded value is written.

// largeString is the length from which a string is written in pieces.
const largeString = 64 << 10

// largeStrings holds the large strings taken out of a value.
type largeStrings []string

// hold returns s, or, when it is large, a placeholder for it.
func (l *largeStrings) hold(s string) string {
	if len(s) < largeString {
		return s
	}
	*l = append(*l, s)
	return placeholderPrefix + strconv.Itoa(len(*l)-1) + "\x00"
}

// placeholderPrefix begins a placeholder; encoded, its NULs are \u0000,
// which no other string of the value holds as they are.
const placeholderPrefix = "\x00rlm-large-"

var encodedPlaceholder = []byte(`"\u0000rlm-large-`)

// encode writes v to w as JSON, each placeholder of l replaced by its
// string.
func (l largeStrings) encode(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b := buf.Bytes()
	for {
		i := bytes.Index(b, encodedPlaceholder)
		if i < 0 {
			_, err := w.Write(b)
			return err
		}
		rest := b[i+len(encodedPlaceholder):]
		end := bytes.Index(rest, []byte(`\u0000"`))
		n, err := strconv.Atoi(string(rest[:max(end, 0)]))
		if end < 0 || err != nil || n >= len(l) {
			return fmt.Errorf("encode: a malformed large-string placeholder")
		}
		if _, err := w.Write(b[:i]); err != nil {
			return err
		}
		if err := writeJSONString(w, l[n]); err != nil {
			return err
		}
		b = rest[end+len(`\u0000"`):]
	}
}

// writeJSONString writes s as a JSON string, escaped as encoding/json
// escapes it (without HTML escaping), in pieces of about largeString bytes.
func writeJSONString(w io.Writer, s string) error {
	if _, err := io.WriteString(w, `"`); err != nil {
		return err
	}
	var piece bytes.Buffer
	enc := json.NewEncoder(&piece)
	enc.SetEscapeHTML(false)
	for len(s) > 0 {
		n := min(len(s), largeString)
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		piece.Reset()
		if err := enc.Encode(s[:n]); err != nil {
			return err
		}
		quoted := bytes.TrimSuffix(piece.Bytes(), []byte("\n"))
		if _, err := w.Write(quoted[1 : len(quoted)-1]); err != nil {
			return err
		}
		s = s[n:]
	}
	_, err := io.WriteString(w, `"`)
	return err
}
