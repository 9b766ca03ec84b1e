package main

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// uploadFile uploads content as key through the gateway.
func uploadFile(t *testing.T, url, key, content string) httpResult {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "notes.txt")
	fw.Write([]byte(content))
	mw.Close()
	req, _ := http.NewRequest("POST", url+"/v1/files", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+key)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return httpResult{resp.StatusCode, resp.Header, b.Bytes(), time.Since(start)}
}

// eventually polls cond every 20ms until it holds, failing after 15s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 15s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeQuotas reproduces issue 24's finding 6 through the gateway: a
// key could upload files and store completions without bound. Now a key
// past its quota gets 400 storage_quota_exceeded, naming what to delete,
// and the other key is not affected.
func TestServeQuotas(t *testing.T) {
	up := fakellm.New(finalUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--api-key", "k1,k2", "--metrics-key", "mk", "--quota-files", "2", "--quota-completions", "1")...)
	for i := range 2 {
		if r := uploadFile(t, s.URL, "k1", "line\n"); r.status != 200 {
			t.Fatalf("upload %d within the quota: %d %s", i, r.status, r.body)
		}
	}
	tests := []struct {
		name  string
		write func(key string) httpResult
		param string
	}{
		{"third upload", func(key string) httpResult { return uploadFile(t, s.URL, key, "line\n") }, "file"},
		{"second stored completion", func(key string) httpResult {
			return call(t, "POST", s.URL+"/v1/chat/completions", key, chatHiStored)
		}, "store"},
	}
	if r := call(t, "POST", s.URL+"/v1/chat/completions", "k1", chatHiStored); r.status != 200 {
		t.Fatalf("stored completion within the quota: %d %s", r.status, r.body)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.write("k1")
			var e struct {
				Error struct{ Type, Code, Param, Message string }
			}
			json.Unmarshal(r.body, &e)
			if r.status != 400 || e.Error.Type != "invalid_request_error" || e.Error.Code != "storage_quota_exceeded" ||
				e.Error.Param != tt.param || !strings.Contains(e.Error.Message, "quota") {
				t.Errorf("past the quota: %d %s", r.status, r.body)
			}
			if r := tt.write("k2"); r.status != 200 {
				t.Errorf("the other key: %d %s", r.status, r.body)
			}
		})
	}
	if r := call(t, "POST", s.URL+"/v1/chat/completions", "k1", chatHi); r.status != 200 {
		t.Errorf("a request that stores nothing: %d %s", r.status, r.body)
	}
	if n := metric(t, s.URL+"/metrics", "mk", `rlm_errors_total{kind="quota"}`); n != 2 {
		t.Errorf("rlm_errors_total{kind=\"quota\"} = %v, want 2", n)
	}
}

// traceIDs lists key's traces, newest first.
func traceIDs(t *testing.T, url, key string) []string {
	t.Helper()
	r := call(t, "GET", url+"/v1/traces", key, "")
	var p struct{ Data []struct{ ID string } }
	if err := json.Unmarshal(r.body, &p); r.status != 200 || err != nil {
		t.Fatalf("list traces: %d %s", r.status, r.body)
	}
	var ids []string
	for _, d := range p.Data {
		ids = append(ids, d.ID)
	}
	return ids
}

// TestServeTraceShare checks that a key's traces stay within its share:
// saving one past --quota-traces deletes the key's oldest first.
func TestServeTraceShare(t *testing.T) {
	up := fakellm.New(finalUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--quota-traces", "2")...)
	var ids []string
	for range 3 {
		r := call(t, "POST", s.URL+"/v1/chat/completions", "", chatHi)
		if r.status != 200 {
			t.Fatalf("chat: %d %s", r.status, r.body)
		}
		ids = append(ids, r.header.Get("X-RLM-Trace-Id"))
		// One at a time: the share is kept as each is saved.
		eventually(t, "trace saved", func() bool {
			return call(t, "GET", s.URL+"/v1/traces/"+ids[len(ids)-1], "", "").status == 200 &&
				metric(t, s.URL+"/metrics", "", "rlm_trace_saves_total") == float64(len(ids))
		})
	}
	if got := strings.Join(traceIDs(t, s.URL, ""), " "); got != ids[2]+" "+ids[1] {
		t.Errorf("traces kept %q, want the two newest %q %q", got, ids[2], ids[1])
	}
	if n := metric(t, s.URL+"/metrics", "", `rlm_retention_deleted_total{kind="traces",reason="owner_quota"}`); n != 1 {
		t.Errorf("owner_quota deletions counted: %v", n)
	}
}

// TestServeRetentionSweep checks the background sweep: a stored
// completion and its trace past their max age are deleted, and counted.
func TestServeRetentionSweep(t *testing.T) {
	up := fakellm.New(finalUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--retention-interval", "100ms",
		"--completion-max-age", "1s", "--trace-max-age", "1s")...)
	r := call(t, "POST", s.URL+"/v1/chat/completions", "", chatHiStored)
	if r.status != 200 {
		t.Fatalf("chat: %d %s", r.status, r.body)
	}
	id, trace := r.header.Get("X-RLM-Completion-Id"), r.header.Get("X-RLM-Trace-Id")
	if c := call(t, "GET", s.URL+"/v1/chat/completions/"+id, "", ""); c.status != 200 {
		t.Fatalf("the completion is not there at first: %d", c.status)
	}
	deletedByAge := func(kind string) float64 {
		return metric(t, s.URL+"/metrics", "", `rlm_retention_deleted_total{kind="`+kind+`",reason="age"}`)
	}
	// The counts come right after the deletions: wait for them too.
	eventually(t, "completion and trace deleted by age, and counted", func() bool {
		return call(t, "GET", s.URL+"/v1/chat/completions/"+id, "", "").status == 404 &&
			call(t, "GET", s.URL+"/v1/traces/"+trace, "", "").status == 404 &&
			deletedByAge("completions") == 1 && deletedByAge("traces") == 1
	})
	if got := call(t, "GET", s.URL+"/v1/chat/completions", "", ""); bytes.Contains(got.body, []byte(id)) {
		t.Errorf("still listed: %s", got.body)
	}
	eventually(t, "kept bytes at zero", func() bool {
		m := string(call(t, "GET", s.URL+"/metrics", "", "").body)
		return strings.Contains(m, `rlm_retention_kept_bytes{kind="traces"} 0`) &&
			strings.Contains(m, `rlm_retention_kept_bytes{kind="completions"} 0`)
	})
}
