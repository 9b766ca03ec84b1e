package server

import (
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

// peakRise runs f and returns how far the process's peak RSS rose above
// its RSS before, in KiB.
func peakRise(f func()) int64 {
	debug.FreeOSMemory()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	before := statusKB("VmRSS")
	f()
	return statusKB("VmHWM") - before
}

// TestResponsesBodyCostsNoMoreThanChat is the audit's finding: a large
// Responses body was copied about three times before its caps were
// checked (about 180 MiB for a 63 MB body; chat about 70). Now both read
// the body once and share its memory for large plain texts: the peak rise
// of a 63 MB body on /v1/responses is within 10% (and 8 MB) of the same
// body on chat, for one large message and for a content array past the
// parts cap.
func TestResponsesBodyCostsNoMoreThanChat(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 63 MB bodies")
	}
	if _, err := os.Stat("/proc/self/clear_refs"); err != nil {
		t.Skip("needs Linux /proc to measure peak RSS")
	}
	const size = 63 << 20
	ts := startServer(t, Config{MaxRequestBytes: 70 << 20}, nil, &nullRunner{})
	text := func() (io.Reader, int64) { return &pattern{n: size}, size }
	// A content array is built before the measure, so that only the
	// server's memory is counted.
	parts := func(part string) string {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(part)
		}
		return b.String()
	}
	for _, tt := range []struct {
		name           string
		chat, response [2]string // prefix and suffix around the payload
		payload        func() (io.Reader, int64)
		status         int
	}{
		{"one 63 MB message",
			[2]string{`{"model":"rlm","messages":[{"role":"user","content":"`, `"}]}`},
			[2]string{`{"model":"rlm","store":false,"input":[{"role":"user","content":"`, `"}]}`},
			text, 200},
		{"one 63 MB message, stored",
			[2]string{`{"model":"rlm","store":true,"messages":[{"role":"user","content":"`, `"}]}`},
			[2]string{`{"model":"rlm","store":true,"input":[{"role":"user","content":"`, `"}]}`},
			text, 200},
		{"63 MB of content parts, past the cap",
			[2]string{`{"model":"rlm","messages":[{"role":"user","content":[`, `]}]}`},
			[2]string{`{"model":"rlm","store":false,"input":[{"role":"user","content":[`, `]}]}`},
			nil, 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			chatParts, respParts := "", ""
			if tt.payload == nil {
				chatParts = parts(`{"type":"text","text":"` + strings.Repeat("p", 4000) + `"}`)
				respParts = parts(`{"type":"input_text","text":"` + strings.Repeat("p", 4000) + `"}`)
			}
			send := func(path string, around [2]string, payload io.Reader, n int64) {
				body := io.MultiReader(strings.NewReader(around[0]), payload, strings.NewReader(around[1]))
				req, _ := http.NewRequest("POST", ts.URL+path, body)
				req.Header.Set("Content-Type", "application/json")
				req.ContentLength = int64(len(around[0])+len(around[1])) + n // as SDKs send it
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tt.status {
					t.Fatalf("%s: %d, want %d", path, resp.StatusCode, tt.status)
				}
			}
			var chat, resp int64
			for range 2 { // alternated; the lower of each
				payload := func(array string) (io.Reader, int64) {
					if tt.payload != nil {
						return tt.payload()
					}
					return strings.NewReader(array), int64(len(array))
				}
				c := peakRise(func() {
					p, n := payload(chatParts)
					send("/v1/chat/completions", tt.chat, p, n)
				})
				r := peakRise(func() {
					p, n := payload(respParts)
					send("/v1/responses", tt.response, p, n)
				})
				if chat == 0 || c < chat {
					chat = c
				}
				if resp == 0 || r < resp {
					resp = r
				}
			}
			t.Logf("peak rise: chat %d MiB, responses %d MiB", chat>>10, resp>>10)
			if resp > chat*11/10+8<<10 {
				t.Errorf("responses peak rise %d MiB, chat %d MiB: want within 10%% and 8 MB", resp>>10, chat>>10)
			}
		})
	}
}
