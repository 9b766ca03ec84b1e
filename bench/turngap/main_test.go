package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTimer plays a two-turn run and a second run's first turn against the
// scripted upstream: each request gets its turn's reply, and only the
// second request of a run counts as a gap.
func TestTimer(t *testing.T) {
	t.Parallel()
	replies, err := scriptReplies("turns", 3)
	if err != nil {
		t.Fatal(err)
	}
	tm := &timer{replies: replies}
	srv := httptest.NewServer(http.HandlerFunc(tm.chat))
	defer srv.Close()
	post := func(assistants int) string {
		msgs := []map[string]string{{"role": "system", "content": "s"}, {"role": "user", "content": "q"}}
		for range assistants {
			msgs = append(msgs, map[string]string{"role": "assistant", "content": "a"}, map[string]string{"role": "user", "content": "out"})
		}
		body, _ := json.Marshal(map[string]any{"model": "m", "messages": msgs})
		resp, err := http.Post(srv.URL, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Choices []struct{ Message struct{ Content string } }
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Choices) != 1 {
			t.Fatalf("reply: %v %+v", err, out)
		}
		return out.Choices[0].Message.Content
	}
	for i, want := range []string{replies[0], replies[1], replies[0]} {
		if got := post(i % 2); got != want {
			t.Fatalf("request %d: reply %q, want %q", i, got, want)
		}
	}
	var report strings.Builder
	tm.report(&report)
	lines := strings.Split(strings.TrimSpace(report.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), "m 2 1 ") {
		t.Errorf("report:\n%s\nwant model m with 2 runs and 1 gap", report.String())
	}
}

// TestHaystack checks the haystack's size and its one needle line.
func TestHaystack(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "h.txt")
	if err := writeHaystack(path, 100_000); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	needle := needlePrefix + needleCode + "."
	if len(b) != 100_000 || strings.Count(string(b), needle) != 1 || strings.Index(string(b), needle) < 60_000 {
		t.Errorf("haystack of %d bytes, needle %d times at %d", len(b), strings.Count(string(b), needle), strings.Index(string(b), needle))
	}
}
