package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlm-project/rlm/api"
)

// fakeServer is a completions endpoint (a test double, not a model) that
// answers generated tokens after a short wait and counts the requests in
// flight at once.
func fakeServer(t *testing.T, generated func(asked int) int) (*httptest.Server, *atomic.Int64, *atomic.Int64) {
	var inFlight, most, prompts atomic.Int64
	var seen sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			json.NewEncoder(w).Encode(map[string]any{"data": []api.Model{{ID: "m"}}})
			return
		}
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		var req api.CompletionRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "m" || !req.IgnoreEOS || req.MaxTokens == nil {
			http.Error(w, fmt.Sprintf("bad request %v %+v", err, req), http.StatusBadRequest)
			return
		}
		var ids []int
		if err := json.Unmarshal(req.Prompt, &ids); err != nil || len(ids) != 8 {
			http.Error(w, "prompt", http.StatusBadRequest)
			return
		}
		if _, dup := seen.LoadOrStore(fmt.Sprint(ids), true); !dup {
			prompts.Add(1)
		}
		time.Sleep(20 * time.Millisecond)
		json.NewEncoder(w).Encode(map[string]any{"usage": api.Usage{PromptTokens: 8, CompletionTokens: generated(*req.MaxTokens)}})
	}))
	t.Cleanup(srv.Close)
	return srv, &most, &prompts
}

// TestRun: every level sends its requests, that many in flight at most,
// each prompt different, and prints a row per level.
func TestRun(t *testing.T) {
	t.Parallel()
	srv, most, prompts := fakeServer(t, func(asked int) int { return asked })
	var out strings.Builder
	c := config{url: srv.URL + "/v1", promptTokens: 8, maxNew: 4, vocab: 1000, requests: 24, levels: []int{2, 8}, timeout: time.Minute, seed: 1}
	if err := run(t.Context(), c, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "model m") {
		t.Fatalf("output:\n%s", out.String())
	}
	for i, level := range c.levels {
		f := strings.Fields(lines[2+i])
		if f[0] != fmt.Sprint(level) || f[1] != "24" {
			t.Errorf("row %q: want level %d, 24 requests", lines[2+i], level)
		}
	}
	if m := most.Load(); m > 8 || m < 2 {
		t.Errorf("%d requests in flight at most, want 2 to 8", m)
	}
	if p := prompts.Load(); p != 48 {
		t.Errorf("%d different prompts in 48 requests", p)
	}
}

// TestShortAnswerFails: a server that generates fewer tokens than asked
// (ignore_eos not honoured) fails the run instead of looking faster.
func TestShortAnswerFails(t *testing.T) {
	t.Parallel()
	srv, _, _ := fakeServer(t, func(asked int) int { return asked - 1 })
	c := config{url: srv.URL + "/v1", model: "m", promptTokens: 8, maxNew: 4, vocab: 1000, requests: 4, levels: []int{2}, timeout: time.Minute, seed: 1}
	err := run(t.Context(), c, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "3 tokens generated, 4 asked for") {
		t.Fatalf("err = %v", err)
	}
}
