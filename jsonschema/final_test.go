package jsonschema

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestExtractJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want string // the JSON returned, or the error's text after "not JSON: "
		ok   bool
	}{
		{`{"city":"Paris","temp":21}`, `{"city":"Paris","temp":21}`, true},
		{"  \n{\"a\": [1, 2]}\n ", `{"a": [1, 2]}`, true},
		{"```json\n{\"a\":1}\n```", `{"a":1}`, true},
		{"```\n[1,2]\n```", `[1,2]`, true},
		{`42`, `42`, true},
		{`"Paris"`, `"Paris"`, true},
		{`[5]`, `[5]`, true},
		{`{}`, `{}`, true},
		{`map[city:Paris temp:21]`, "the answer is a Go map printed with %v (map[city:Paris temp:21]); FINAL its JSON instead: " + marshalHint, false},
		{`map[]`, "the answer is a Go map printed with %v (map[]); FINAL its JSON instead: " + marshalHint, false},
		{`[123 34 97 34 58 49 125]`, "the answer is a []byte printed as numbers ([123 34 97 34 58 49 125]); FINAL(string(b)) instead", false},
		{`[Paris London]`, "the answer looks like a Go slice printed with %v ([Paris London]); FINAL its JSON instead: " + marshalHint, false},
		{`[1 2 300]`, "the answer looks like a Go slice printed with %v ([1 2 300]); FINAL its JSON instead: " + marshalHint, false},
		{`{Paris 21}`, "the answer looks like a Go struct printed with %v ({Paris 21}), or malformed JSON; FINAL its JSON instead: " + marshalHint, false},
		{`&{Paris 21}`, "the answer looks like a Go struct printed with %v (&{Paris 21}), or malformed JSON; FINAL its JSON instead: " + marshalHint, false},
		{`{"a":1,}`, "the answer looks like a Go struct printed with %v ({\"a\":1,}), or malformed JSON; FINAL its JSON instead: " + marshalHint, false},
		{`Paris`, `the answer "Paris" is not JSON (invalid character 'P' looking for beginning of value); FINAL a JSON value: ` + marshalHint, false},
		{`{"a":1} and more`, "the answer looks like a Go struct printed with %v ({\"a\":1} and more), or malformed JSON; FINAL its JSON instead: " + marshalHint, false},
		{"  ", "the answer is empty; FINAL a JSON value: " + marshalHint, false},
		{"```python\n{\"a\":1}\n```", "the answer \"```python\\n{\\\"a\\\":1}\\n```\" is not JSON (invalid character '`' looking for beginning of value); FINAL a JSON value: " + marshalHint, false},
	} {
		got, err := ExtractJSON(tc.text)
		switch {
		case tc.ok && (err != nil || string(got) != tc.want):
			t.Errorf("ExtractJSON(%q) = %q, %v; want %q", tc.text, got, err, tc.want)
		case !tc.ok && (!errors.Is(err, ErrNotJSON) || err.Error() != "not JSON: "+tc.want):
			t.Errorf("ExtractJSON(%q) = %q, %v\nwant error: not JSON: %s", tc.text, got, err, tc.want)
		}
	}
}

// TestExtractJSONOfGoValues: what fmt.Sprint makes of the values a model's
// code holds is JSON only where it means the same thing.
func TestExtractJSONOfGoValues(t *testing.T) {
	t.Parallel()
	for _, v := range []any{
		map[string]any{"city": "Paris"}, []string{"a", "b"}, []int{1, 2}, []byte(`{"a":1}`),
		struct{ City string }{"Paris"}, &struct{ N int }{1},
	} {
		if _, err := ExtractJSON(fmt.Sprint(v)); !errors.Is(err, ErrNotJSON) {
			t.Errorf("%#v printed as %q: err = %v, want ErrNotJSON", v, fmt.Sprint(v), err)
		}
	}
	for _, v := range []any{42, 1.5, true, "[]", `{"a":1}`, []int{7}} {
		if _, err := ExtractJSON(fmt.Sprint(v)); err != nil {
			t.Errorf("%#v printed as %q: %v", v, fmt.Sprint(v), err)
		}
	}
}

func TestJSONObject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value, err string
	}{
		{`{"a":1}`, ""},
		{` {} `, ""},
		{`[{"a":1}]`, `value does not match the schema: (root): want a JSON object, got [{"a":1}] (an array)`},
		{`"{}"`, `value does not match the schema: (root): want a JSON object, got "{}" (a string)`},
		{`null`, `value does not match the schema: (root): want a JSON object, got null`},
		{`{"a":1}{}`, `not JSON: more follows the first JSON value`},
		{`{a:1}`, `not JSON: invalid character 'a' looking for beginning of object key string`},
	} {
		err := JSONObject([]byte(tc.value))
		if got := fmt.Sprint(err); (err == nil) != (tc.err == "") || (err != nil && got != tc.err) {
			t.Errorf("JSONObject(%s) = %v, want %s", tc.value, err, tc.err)
		}
	}
	if err := JSONObject([]byte(`nope`)); !errors.Is(err, ErrNotJSON) {
		t.Errorf("JSONObject(nope) = %v, want ErrNotJSON", err)
	}
	if err := JSONObject([]byte(`1`)); strings.Contains(fmt.Sprint(err), "not JSON") {
		t.Errorf("JSONObject(1) = %v: 1 is JSON", err)
	}
}
