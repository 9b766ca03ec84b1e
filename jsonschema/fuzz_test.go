package jsonschema

import (
	"encoding/json"
	"errors"
	"testing"
)

// fuzzSchemas are the schemas FuzzValidate checks values against: one of
// each family of keywords, recursion included.
var fuzzSchemas = []struct {
	schema string
	strict bool
}{
	{weatherSchema, true}, {userSchema, true}, {itemSchema, true}, {uiSchema, true}, {linkedListSchema, true}, {querySchema, true},
	{`{"type":"object","properties":{"d":{"type":"string","format":"date-time"},"t":{"type":"string","format":"time"},
		"du":{"type":"string","format":"duration"},"e":{"type":"string","format":"email"},"h":{"type":"string","format":"hostname"},
		"4":{"type":"string","format":"ipv4"},"6":{"type":"string","format":"ipv6"},"u":{"type":"string","format":"uuid"},
		"n":{"type":"number","multipleOf":0.25,"exclusiveMinimum":-1e3,"maximum":1e300}},
		"required":["d","t","du","e","h","4","6","u","n"],"additionalProperties":false}`, true},
	{`{"oneOf":[{"type":"array","prefixItems":[{"type":"string"}],"items":{"$ref":"#"},"uniqueItems":true,"contains":{"type":"object"},"maxContains":2},
		{"type":"object","patternProperties":{"^x":{"not":{"type":"null"}}},"propertyNames":{"maxLength":4},"dependentRequired":{"a":["b"]},
		 "if":{"required":["k"]},"then":{"properties":{"k":{"const":1}}},"else":{"minProperties":1}},
		{"enum":[1,"a",null,[1],{"a":[]}]}]}`, false},
}

// FuzzValidate: no value makes Validate panic, and it answers nil, a
// *ValidationError with violations, or ErrNotJSON for what
// encoding/json refuses.
func FuzzValidate(f *testing.F) {
	for _, v := range []string{
		`{"location":"Paris","unit":null,"value":21}`, `{"type":"div","label":"","children":[{"type":"div"}],"attributes":[]}`,
		`{"linked_list":{"value":1,"next":{"value":2,"next":null}}}`, `[["a",[],{}],{"x":1}]`, `{"a":1,"k":2,"xyz":null}`,
		`{"d":"2024-01-01T00:00:00Z","n":1e301,"u":"x"}`, `1e99999`, `[1,1.0,-0]`, `"\ud800"`, `{"":""}`, `null`, `[`,
	} {
		f.Add([]byte(v))
	}
	schemas := make([]*Schema, len(fuzzSchemas))
	for i, s := range fuzzSchemas {
		schemas[i] = mustCompile(f, s.schema, s.strict)
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		valid := json.Valid(value)
		for _, s := range schemas {
			err := s.Validate(value)
			var ve *ValidationError
			switch {
			case err == nil:
				if !valid {
					t.Fatalf("Validate(%q) accepted what is not JSON", value)
				}
			case errors.Is(err, ErrNotJSON):
				if valid {
					t.Fatalf("Validate(%q): %v, but it is JSON", value, err)
				}
			case errors.As(err, &ve):
				if len(ve.Violations) == 0 || !valid {
					t.Fatalf("Validate(%q): %v", value, err)
				}
			default:
				t.Fatalf("Validate(%q): unexpected error %v", value, err)
			}
		}
		if _, err := ExtractJSON(string(value)); err != nil && !errors.Is(err, ErrNotJSON) {
			t.Fatalf("ExtractJSON(%q): %v", value, err)
		}
	})
}

// FuzzCompile: no schema makes Compile, or Describe and Validate of what
// it compiles, panic or run on.
func FuzzCompile(f *testing.F) {
	for _, s := range fuzzSchemas {
		f.Add([]byte(s.schema), s.strict)
	}
	for _, s := range []string{`{"$ref":"#"}`, `{"$ref":"#/$defs/a","$defs":{"a":{"items":{"$ref":"#"}}}}`, `true`, `{"pattern":"\\u12"}`} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, schema []byte, strict bool) {
		s, err := Compile(schema, strict)
		if err != nil {
			var se *SchemaError
			if !errors.As(err, &se) || len(se.Problems) == 0 {
				t.Fatalf("Compile(%q): %v", schema, err)
			}
			return
		}
		if len(s.Describe()) > describeBytes+200 {
			t.Fatalf("Describe of %q is %d bytes", schema, len(s.Describe()))
		}
		for _, v := range []string{`{}`, `[]`, `1`, `"a"`, `null`, `{"a":[1,{"b":"c"}]}`} {
			err := s.Validate([]byte(v))
			var ve *ValidationError
			if err != nil && (!errors.As(err, &ve) || len(ve.Violations) == 0) {
				t.Fatalf("Validate(%s) against %q: %v", v, schema, err)
			}
		}
	})
}
