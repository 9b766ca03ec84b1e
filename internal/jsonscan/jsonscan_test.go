package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// TestElementsAgreesWithEncodingJSON: for valid JSON, Elements yields
// exactly the elements encoding/json decodes, byte for byte.
func TestElementsAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`[]`, ` [ ] `, `[1]`, `[1,2,3]`, ` [ "a" , "b\"]" , "c\\" ] `,
		`[{"a":[1,{"b":"]}"}]},[],{},null,true,false,-1.5e3]`,
		`[[1],[2,3],[[4]]]`, "[\n\t\"\\u005d\"\r\n]",
	} {
		var want []json.RawMessage
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var got [][]byte
		err := Elements([]byte(in), func(i int, elem []byte) error {
			if i != len(got) {
				t.Errorf("%s: index %d, want %d", in, i, len(got))
			}
			got = append(got, elem)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d elements, want %d", in, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%s: element %d is %s, want %s", in, i, got[i], want[i])
			}
		}
	}
}

// TestElementsStops: fn's error stops the walk at once, which is how a
// cap refuses a long array without walking the rest.
func TestElementsStops(t *testing.T) {
	stop := errors.New("stop")
	seen := 0
	err := Elements([]byte(`[1,2,3,4,5]`), func(i int, _ []byte) error {
		seen++
		if i == 2 {
			return stop
		}
		return nil
	})
	if err != stop || seen != 3 {
		t.Errorf("err %v after %d elements, want stop after 3", err, seen)
	}
	if n, err := Count([]byte(`[1,2,3,4,5]`), 2); n != 3 || err != nil {
		t.Errorf("Count with limit 2: %d, %v; want 3 (one past the limit)", n, err)
	}
	if n, err := Count([]byte(`[1,2]`), 2); n != 2 || err != nil {
		t.Errorf("Count of 2 with limit 2: %d, %v", n, err)
	}
	if n, err := Members([]byte(`{"a":1,"b":[2,3],"c":{"d":4}}`), 10); n != 3 || err != nil {
		t.Errorf("Members: %d, %v; want 3", n, err)
	}
	if n, err := Members([]byte(`{"a":1,"b":2,"c":3}`), 1); n != 2 || err != nil {
		t.Errorf("Members with limit 1: %d, %v; want 2", n, err)
	}
	if n, err := Members([]byte(` { } `), 1); n != 0 || err != nil {
		t.Errorf("Members of {}: %d, %v", n, err)
	}
}

// TestMalformed: what is not an array, or not JSON, is an error, never a
// panic or a loop.
func TestMalformed(t *testing.T) {
	if err := Elements([]byte(`{"a":1}`), func(int, []byte) error { return nil }); err != ErrNotArray {
		t.Errorf("object: %v, want ErrNotArray", err)
	}
	for _, in := range []string{``, `[`, `[1`, `[1,`, `["a`, `[1 2]`, `[{]`, `["\`, `[,]`} {
		err := Elements([]byte(in), func(int, []byte) error { return nil })
		if err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	for _, in := range []string{`{`, `{"a"`, `{"a":}`, `{"a":1`, `{1:2}`, `[]`} {
		if _, err := Members([]byte(in), 5); err == nil {
			t.Errorf("Members(%q): no error", in)
		}
	}
}

// FuzzElements: on whatever encoding/json accepts as an array, Elements
// agrees with it; on anything else it returns without panicking.
func FuzzElements(f *testing.F) {
	for _, s := range []string{`[]`, `[1,"a",{"b":[2]}]`, `["\"]"]`, `[`, `{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		n := 0
		err := Elements([]byte(in), func(int, []byte) error { n++; return nil })
		var want []json.RawMessage
		if json.Unmarshal([]byte(in), &want) == nil && want != nil {
			if err != nil || n != len(want) {
				t.Fatalf("%q: %d elements, %v; encoding/json has %d", in, n, err, len(want))
			}
		}
	})
}
