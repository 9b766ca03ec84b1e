package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// object is a JSON object that keeps its keys in the order written: a
// schema's properties are described, and checked, in the order the client
// gave them (OpenAI's models write them in that order too).
type object struct {
	keys []string
	vals map[string]any
}

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// decodeOrdered decodes one JSON value with objects as *object, numbers as
// json.Number, and nothing after it but space. A key given twice keeps its
// first place and its last value, as encoding/json keeps the last.
func decodeOrdered(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := orderedValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// maxSchemaNesting bounds the nesting of a schema document, so that
// decoding and compiling it cannot recurse without bound: real schemas
// nest a few dozen levels at most.
const maxSchemaNesting = 512

func orderedValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxSchemaNesting {
		return nil, fmt.Errorf("nested more than %d levels deep", maxSchemaNesting)
	}
	t, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", kt)
				}
				v, err := orderedValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.vals[k] = v
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, err
			}
			return o, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := orderedValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil // nil, bool, json.Number or string
	}
}

// plain turns a decoded schema value into what encoding/json would have
// decoded (maps for objects), the form values are checked in.
func plain(v any) any {
	switch v := v.(type) {
	case *object:
		m := make(map[string]any, len(v.vals))
		for k, x := range v.vals {
			m[k] = plain(x)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = plain(x)
		}
		return a
	}
	return v
}
