package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestLargeStringsEncode: a value whose large strings are written in
// pieces encodes to what encoding/json writes for it, whatever the strings
// hold (escapes, non-ASCII runes across piece boundaries, invalid UTF-8,
// text that looks like a placeholder).
func TestLargeStringsEncode(t *testing.T) {
	t.Parallel()
	big := func(unit string) string { return strings.Repeat(unit, largeString/len(unit)+77) }
	for _, s := range []string{
		big("plain text "), big("é\"\\\n\t<&>"), big("日本語"), big("a\xffb"), big(`\u0000rlm-large-0\u0000`), "short",
	} {
		type rec struct {
			A string   `json:"a"`
			B []string `json:"b"`
		}
		want := rec{A: s, B: []string{"x", s, s + "y"}}
		var l largeStrings
		held := rec{A: l.hold(want.A), B: []string{l.hold("x"), l.hold(s), l.hold(s + "y")}}
		var got bytes.Buffer
		if err := l.encode(&got, held); err != nil {
			t.Fatal(err)
		}
		var back rec
		if err := json.Unmarshal(got.Bytes(), &back); err != nil {
			t.Fatalf("%.40q: %v", s, err)
		}
		// What encoding/json gives for the value, read back the same way.
		wantJSON, _ := json.Marshal(want)
		var wantBack rec
		json.Unmarshal(wantJSON, &wantBack)
		if back.A != wantBack.A || strings.Join(back.B, "|") != strings.Join(wantBack.B, "|") {
			t.Errorf("%.40q: round trip differs", s)
		}
	}
}
