package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// marshalHint is what a model is told to do instead of printing a Go value.
const marshalHint = "b, _ := json.Marshal(v); FINAL(string(b))"

// JSONObject checks a value given for a json_object response format: nil
// when it is one JSON object, otherwise an error (wrapping ErrNotJSON when
// it is not JSON at all) that says what it is instead.
func JSONObject(value []byte) error {
	x, err := decodeValue(value)
	if err != nil {
		return err
	}
	if _, ok := x.(map[string]any); !ok {
		return &ValidationError{Violations: []Violation{{Reason: "want a JSON object, got " + describeJSON(x)}}}
	}
	return nil
}

// ExtractJSON reads the JSON value out of a FINAL answer as the REPL
// renders it (the argument formatted like fmt.Sprint). Text that is one
// JSON value, once trimmed of space and of a Markdown code fence around
// it, is returned trimmed. Anything else is an error wrapping ErrNotJSON
// that tells the model what to do; Go's own rendering of a map, slice,
// struct or []byte (map[city:Paris], [1 2 3], {Paris 21}) is recognized
// and named as such, never parsed: the model is to FINAL a JSON string.
func ExtractJSON(text string) ([]byte, error) {
	t := strings.TrimSpace(unfence(strings.TrimSpace(text)))
	if t == "" {
		return nil, fmt.Errorf("%w: the answer is empty; FINAL a JSON value: %s", ErrNotJSON, marshalHint)
	}
	if json.Valid([]byte(t)) {
		return []byte(t), nil
	}
	switch {
	case strings.HasPrefix(t, "map["):
		return nil, fmt.Errorf("%w: the answer is a Go map printed with %%v (%s); FINAL its JSON instead: %s", ErrNotJSON, clipped(t), marshalHint)
	case isByteSlice(t):
		return nil, fmt.Errorf("%w: the answer is a []byte printed as numbers (%s); FINAL(string(b)) instead", ErrNotJSON, clipped(t))
	case strings.HasPrefix(t, "["):
		return nil, fmt.Errorf("%w: the answer looks like a Go slice printed with %%v (%s); FINAL its JSON instead: %s", ErrNotJSON, clipped(t), marshalHint)
	case strings.HasPrefix(t, "{") || strings.HasPrefix(t, "&{"):
		return nil, fmt.Errorf("%w: the answer looks like a Go struct printed with %%v (%s), or malformed JSON; FINAL its JSON instead: %s",
			ErrNotJSON, clipped(t), marshalHint)
	}
	err := json.Unmarshal([]byte(t), new(any))
	return nil, fmt.Errorf("%w: the answer %s is not JSON (%v); FINAL a JSON value: %s", ErrNotJSON, clipped(strconv.Quote(t)), err, marshalHint)
}

// unfence removes a Markdown code fence around t (```json … ```).
func unfence(t string) string {
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return t
	}
	inner := t[3 : len(t)-3]
	nl := strings.IndexByte(inner, '\n')
	if nl < 0 {
		return t
	}
	if lang := strings.TrimSpace(inner[:nl]); lang != "" && lang != "json" && lang != "JSON" {
		return t
	}
	return inner[nl+1:]
}

// isByteSlice reports whether t is how fmt prints a []byte: numbers from
// 0 to 255 between brackets, separated by single spaces, more than one.
func isByteSlice(t string) bool {
	if len(t) < 5 || t[0] != '[' || t[len(t)-1] != ']' {
		return false
	}
	fields := bytes.Split([]byte(t[1:len(t)-1]), []byte(" "))
	if len(fields) < 2 {
		return false
	}
	for _, f := range fields {
		n, err := strconv.Atoi(string(f))
		if err != nil || n < 0 || n > 255 {
			return false
		}
	}
	return true
}
