package api

import (
	"encoding/json"
	"strings"
	"testing"
	"unsafe"
)

// TestMessageTextDecoding: the sized path shares the body's memory for
// plain strings and unquotes the rest; both paths give exactly what
// encoding/json gives for the same literal.
func TestMessageTextDecoding(t *testing.T) {
	for _, lit := range []string{`"plain text"`, `"line\nbreak \"quoted\" \u00e9"`, `"caf` + "\xc3\xa9" + `"`, `"bad ` + "\xff" + ` utf8"`, `""`} {
		body := `{"model":"rlm","messages":[{"role":"user","content":` + lit + `}]}`
		var want string
		wantErr := json.Unmarshal([]byte(lit), &want) != nil
		for _, sized := range []bool{true, false} {
			length := int64(-1)
			if sized {
				length = int64(len(body))
			}
			buf, err := ReadBody(strings.NewReader(body), length)
			if err != nil {
				t.Fatal(err)
			}
			cr, err := DecodeChatCompletionRequest(buf, Limits{MaxMessages: DefaultMaxMessages, MaxContentParts: DefaultMaxContentParts})
			if err != nil {
				t.Fatalf("%q sized=%v: %v", lit, sized, err)
			}
			mc := cr.Messages[0].Content
			if (mc.Err() != nil) != wantErr || (!wantErr && mc.Text != want) {
				t.Errorf("%q sized=%v: text %q err %v, want %q (error %v)", lit, sized, mc.Text, mc.Err(), want, wantErr)
			}
		}
	}
}

// TestMessageTextSharesBody: a body that is mostly one plain message is
// held once (the text points into it); a short message beside large file
// parts is copied, so that it does not keep the parts' bytes alive.
func TestMessageTextSharesBody(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	tests := []struct {
		name  string
		body  string
		share bool
	}{
		{"one large message", `{"model":"rlm","messages":[{"role":"user","content":"` + big + `"}]}`, true},
		{"short message, large part", `{"model":"rlm","messages":[{"role":"system","content":"be brief"},` +
			`{"role":"user","content":[{"type":"text","text":"` + big + `"}]}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := []byte(tt.body)
			cr, err := DecodeChatCompletionRequest(buf, Limits{MaxMessages: 10, MaxContentParts: 10})
			if err != nil {
				t.Fatal(err)
			}
			text := cr.Messages[0].Content.Text
			p := uintptr(unsafe.Pointer(unsafe.StringData(text)))
			start := uintptr(unsafe.Pointer(&buf[0]))
			if shared := p >= start && p < start+uintptr(len(buf)); shared != tt.share {
				t.Errorf("text shares the body: %v, want %v", shared, tt.share)
			}
		})
	}
}
