package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/store/storetest"
)

// The upstream in these tests is fakellm, a scripted test double, not a
// model; the store is a real redis-server the tests start, pause and kill.

// finalUpstream answers every root turn with a cell that ends the run.
func finalUpstream(fakellm.Request) fakellm.Reply {
	return fakellm.Reply{Content: fakellm.Code(`FINAL("hi")`)}
}

type httpResult struct {
	status int
	header http.Header
	body   []byte
	took   time.Duration
}

func call(t *testing.T, method, url, key, body string) httpResult {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return httpResult{resp.StatusCode, resp.Header, b, time.Since(start)}
}

// metric reads one series' value from /metrics (0 when absent).
func metric(t *testing.T, url, key, series string) float64 {
	t.Helper()
	r := call(t, "GET", url, key, "")
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(r.body)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

func errorCode(t *testing.T, body []byte) string {
	t.Helper()
	var e struct {
		Error struct {
			Code    string
			Message string
		}
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not OpenAI error JSON (%v): %s", err, body)
	}
	return e.Error.Code
}

const chatHi = `{"model":"rlm","messages":[{"role":"user","content":"hi"}]}`
const chatHiStored = `{"model":"rlm","store":true,"messages":[{"role":"user","content":"hi"}]}`

// TestServeRedisDown reproduces, against a real redis-server, a request
// whose answer waited on the trace save of a store that was down, and a
// stored completion answered 200 although it was never stored. Now: the
// trace is saved in the background (the answer comes first, the loss is
// counted on /metrics and shown on /readyz), and a stored completion whose
// record cannot be written is an error naming its id.
func TestServeRedisDown(t *testing.T) {
	t.Parallel()
	rs := storetest.StartRedisServer(t)
	up := fakellm.New(finalUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--store", "redis", "--redis-url", rs.URL, "--redis-cache-dir", t.TempDir(),
		"--api-key", "k", "--metrics-key", "m", "--trace-save-timeout", "3s", "--store-timeout", "2s")...)
	metrics := s.URL + "/metrics"

	if r := call(t, "POST", s.URL+"/v1/chat/completions", "k", chatHi); r.status != 200 {
		t.Fatalf("with Redis up: %d %s", r.status, r.body)
	}
	if r := call(t, "GET", s.URL+"/readyz", "", ""); r.status != 200 {
		t.Fatalf("readyz with Redis up: %d %s", r.status, r.body)
	}

	t.Run("hung", func(t *testing.T) {
		// A paused Redis accepts connections and never answers: every
		// save waits for its timeout (3s here). The answer must not.
		rs.Pause()
		defer rs.Resume()
		failed := metric(t, metrics, "m", "rlm_trace_save_failures_total")
		r := call(t, "POST", s.URL+"/v1/chat/completions", "k", chatHi)
		after := metric(t, metrics, "m", "rlm_trace_save_failures_total")
		if r.status != 200 {
			t.Fatalf("not stored, Redis hung: %d %s", r.status, r.body)
		}
		if after != failed || r.took >= 3*time.Second {
			t.Errorf("the answer came after the trace save failed (took %v, --trace-save-timeout 3s): it waited on the store", r.took)
		}
		t.Logf("trivial request with Redis hung: %v", r.took)
		// The save then fails at its timeout, which is counted and shown.
		deadline := time.Now().Add(20 * time.Second)
		for metric(t, metrics, "m", "rlm_trace_save_failures_total") == failed {
			if time.Now().After(deadline) {
				t.Fatal("the failed trace save was never counted")
			}
			time.Sleep(100 * time.Millisecond)
		}
		if r := call(t, "GET", s.URL+"/readyz", "", ""); r.status != 503 {
			t.Errorf("readyz with Redis hung: %d %s", r.status, r.body)
		}
	})

	t.Run("killed mid-run", func(t *testing.T) {
		// The run's only upstream call waits until Redis is gone.
		started, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		blocking := fakellm.New(func(req fakellm.Request) fakellm.Reply {
			once.Do(func() { close(started) })
			<-release
			return finalUpstream(req)
		})
		defer blocking.Close()
		s2 := startServe(t, append(upstreamArgs(blocking.URL), "--store", "redis", "--redis-url", rs.URL,
			"--redis-cache-dir", t.TempDir(), "--api-key", "k", "--store-timeout", "2s")...)
		got := make(chan httpResult, 1)
		go func() { got <- call(t, "POST", s2.URL+"/v1/chat/completions", "k", chatHiStored) }()
		<-started
		rs.Stop()
		close(release)
		r := <-got
		t.Logf("stored killed %v", r.took)
		id := r.header.Get("X-RLM-Completion-Id")
		if r.status == 200 {
			t.Fatalf("a stored completion whose record could not be saved was answered 200: %s", r.body)
		}
		if r.status != 500 || errorCode(t, r.body) != "completion_not_stored" || id == "" || !bytes.Contains(r.body, []byte(id)) {
			t.Fatalf("got %d %s (id %q); want 500 completion_not_stored naming the id", r.status, r.body, id)
		}
		if g := call(t, "GET", s2.URL+"/v1/chat/completions/"+id, "k", ""); g.status == 200 {
			t.Errorf("the completion reads back as stored: %s", g.body)
		}
	})

	t.Run("down", func(t *testing.T) {
		rs.Stop() // connections refused from now on
		if r := call(t, "POST", s.URL+"/v1/chat/completions", "k", chatHiStored); r.status != 503 || errorCode(t, r.body) != "store_unavailable" {
			t.Errorf("stored, Redis down: %d %s; want 503 store_unavailable", r.status, r.body)
		}
		r := call(t, "POST", s.URL+"/v1/chat/completions", "k", chatHi)
		if r.status != 200 {
			t.Errorf("not stored, Redis down: %d %s", r.status, r.body)
		}
		t.Logf("trivial request with Redis down: %v", r.took)
		if r := call(t, "GET", s.URL+"/readyz", "", ""); r.status != 503 {
			t.Errorf("readyz with Redis down: %d %s", r.status, r.body)
		}
	})
}

// TestServeNoServerPaths reproduces the server's file paths shown to API
// clients in a trace's context[].path: neither the trace, the listing, the
// export nor the answer shows where the server keeps documents.
func TestServeNoServerPaths(t *testing.T) {
	up := fakellm.New(finalUpstream)
	defer up.Close()
	data := filepath.Join(t.TempDir(), "server-data-dir")
	s := startServe(t, append(upstreamArgs(up.URL), "--data-dir", data, "--api-key", "k")...)

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "notes.txt")
	fw.Write([]byte("uploaded document text"))
	mw.Close()
	req, _ := http.NewRequest("POST", s.URL+"/v1/files", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&f)
	resp.Body.Close()
	inline := base64.StdEncoding.EncodeToString([]byte("inline document text"))
	chat := fmt.Sprintf(`{"model":"rlm","messages":[{"role":"user","content":[{"type":"text","text":"read"},`+
		`{"type":"file","file":{"file_id":%q}},{"type":"file","file":{"filename":"inline.txt","file_data":"data:text/plain;base64,%s"}}]}]}`, f.ID, inline)
	r := call(t, "POST", s.URL+"/v1/chat/completions", "k", chat)
	if r.status != 200 {
		t.Fatalf("chat: %d %s", r.status, r.body)
	}
	var c struct {
		RLM struct {
			TraceID string `json:"trace_id"`
		} `json:"rlm"`
	}
	json.Unmarshal(r.body, &c)

	leaks := func(what string, b []byte) {
		t.Helper()
		for _, p := range []string{data, os.TempDir() + "/", `"path"`} {
			if bytes.Contains(b, []byte(p)) {
				t.Errorf("%s shows %q: %s", what, p, b)
			}
		}
	}
	leaks("the answer", r.body)
	tr := call(t, "GET", s.URL+"/v1/traces/"+c.RLM.TraceID, "k", "")
	if tr.status != 200 || !bytes.Contains(tr.body, []byte(`"name":"notes.txt"`)) || !bytes.Contains(tr.body, []byte(`"sha256"`)) {
		t.Fatalf("trace: %d %s", tr.status, tr.body)
	}
	leaks("the trace", tr.body)
	for _, path := range []string{"/v1/traces", "/v1/traces/export?format=sft", "/v1/traces/export?format=chat", "/v1/traces/" + c.RLM.TraceID + "/events"} {
		g := call(t, "GET", s.URL+path, "k", "")
		if g.status != 200 {
			t.Errorf("%s: %d %s", path, g.status, g.body)
		}
		leaks(path, g.body)
	}
}

// TestServeMetricsAddr: with --metrics-addr, /metrics is served there and
// not on --listen; with --api-key and no metrics settings it is refused.
func TestServeMetricsAddr(t *testing.T) {
	up := fakellm.New(finalUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--api-key", "k", "--metrics-addr", "127.0.0.1:0")...)
	var addr string
	deadline := time.Now().Add(10 * time.Second)
	for addr == "" {
		if m := regexp.MustCompile(`metrics on (http://\S+)`).FindStringSubmatch(s.Stdout.String()); m != nil {
			addr = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no metrics address printed: %q", s.Stdout.String())
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if r := call(t, "GET", addr, "", ""); r.status != 200 || !bytes.Contains(r.body, []byte("rlm_trace_save_queue_capacity 256")) {
		t.Errorf("metrics listener: %d %.200s", r.status, r.body)
	}
	if r := call(t, "GET", s.URL+"/metrics", "k", ""); r.status != 404 {
		t.Errorf("/metrics on --listen with --metrics-addr: %d", r.status)
	}
	closed := startServe(t, append(upstreamArgs(up.URL), "--api-key", "k")...)
	if r := call(t, "GET", closed.URL+"/metrics", "", ""); r.status != 401 {
		t.Errorf("/metrics without a key on a server with keys: %d %.200s", r.status, r.body)
	}
}
