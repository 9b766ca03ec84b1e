package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
)

// DecodeError describes an error of decoding a request body in the
// client's terms: the field and the JSON kinds, never Go's type names. An
// *Error passes through as it is.
func DecodeError(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return TooLarge(mbe.Limit, "the request body")
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if i := strings.LastIndex(field, "SamplingParams."); i >= 0 {
			field = field[:i] + field[i+len("SamplingParams."):]
		}
		return BadRequest(field, "invalid type for %q: expected %s, got %s", field, jsonKind(te.Type), jsonValue(te.Value))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return BadRequest("", "the request body is not valid JSON: %v (at byte %d)", se, se.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return BadRequest("", "the request body is empty or truncated JSON")
	}
	return BadRequest("", "invalid request body: %v", err)
}

// jsonKind describes, in JSON's terms, what a field of Go type t accepts.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a JSON value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case reflect.TypeFor[Message]():
		return "a message object"
	case reflect.TypeFor[ContentPart]():
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

// JSONValueKind names the JSON kind of the value b, as
// json.UnmarshalTypeError.Value does.
func JSONValueKind(b []byte) string {
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

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}
