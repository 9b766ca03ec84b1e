package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/store"
)

// uploadSized uploads with a Content-Length, as most clients do, so that
// the server can refuse before it reads the file.
func uploadSized(t *testing.T, url, key, name, content string) response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write([]byte(content))
	mw.WriteField("purpose", "user_data")
	mw.Close()
	return do(t, "POST", url+"/v1/files", key, &body, "Content-Type", mw.FormDataContentType())
}

// TestQuotas fills each per-key quota through the server: the write past it
// gets 400 storage_quota_exceeded, naming the field and what to do, keeps
// nothing, and the other key is not affected.
func TestQuotas(t *testing.T) {
	text := func(n int) string { return strings.Repeat("a", n) }
	uploadChunked := func(t *testing.T, url, key, s string) response {
		return upload(t, url, key, "f.txt", strings.NewReader(s))
	}
	chat := func(store bool, content string) func(t *testing.T, url, key string) response {
		return func(t *testing.T, url, key string) response {
			body := `{"model":"rlm","messages":[{"role":"user","content":"` + content + `"}]`
			if store {
				body += `,"store":true`
			}
			return do(t, "POST", url+"/v1/chat/completions", key, strings.NewReader(body+"}"))
		}
	}
	respond := func(store bool, content string) func(t *testing.T, url, key string) response {
		return func(t *testing.T, url, key string) response {
			return do(t, "POST", url+"/v1/responses", key, strings.NewReader(fmt.Sprintf(`{"model":"rlm","input":%q,"store":%v}`, content, store)))
		}
	}
	sized := func(n int) func(t *testing.T, url, key string) response {
		return func(t *testing.T, url, key string) response { return uploadSized(t, url, key, "f.txt", text(n)) }
	}
	chunked := func(n int) func(t *testing.T, url, key string) response {
		return func(t *testing.T, url, key string) response { return uploadChunked(t, url, key, text(n)) }
	}
	tests := []struct {
		name    string
		quota   Quota
		fill    []func(t *testing.T, url, key string) response // each must succeed
		over    func(t *testing.T, url, key string) response   // must be refused
		param   string
		message string
		coll    string // collection whose count must not grow with the refusal
	}{
		{"files", Quota{Files: 2}, []func(*testing.T, string, string) response{sized(10), sized(10)}, sized(10),
			"file", "has 2 uploaded files, its quota", collFileMeta},
		{"file bytes, known length", Quota{FileBytes: 1500}, []func(*testing.T, string, string) response{sized(800)}, sized(800),
			"file", "over its quota of 1.5 KiB", collFiles},
		{"file bytes, streamed", Quota{FileBytes: 1500}, []func(*testing.T, string, string) response{chunked(800)}, chunked(800),
			"file", "over its quota of 1.5 KiB", collFiles},
		{"stored completions", Quota{Completions: 1}, []func(*testing.T, string, string) response{chat(true, "one"), chat(false, "not stored")}, chat(true, "two"),
			"store", "has 1 stored completions, its quota", collCompletions},
		{"stored completion bytes", Quota{CompletionBytes: 2000}, []func(*testing.T, string, string) response{chat(true, text(500))}, chat(true, text(1500)),
			"store", "send store: false", collCompletions},
		{"stored responses", Quota{Completions: 1}, []func(*testing.T, string, string) response{respond(true, "one"), respond(false, "not stored"), chat(true, "a completion")},
			respond(true, "two"), "store", "has 1 stored responses, its quota; delete stored responses it no longer needs (DELETE /v1/responses/{id})", collResponses},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, Config{Keys: []string{"k1", "k2"}, Quota: tt.quota}, nil, nil)
			for i, f := range tt.fill {
				if r := f(t, ts.URL, "k1"); r.Status != 200 {
					t.Fatalf("write %d within the quota: %d %s", i, r.Status, r.Body)
				}
			}
			before := countColl(t, ts.Server, tt.coll)
			r := tt.over(t, ts.URL, "k1")
			if r.Status != 400 {
				t.Fatalf("write past the quota: %d %s", r.Status, r.Body)
			}
			checkErrorBody(t, r, "invalid_request_error", tt.param, tt.message)
			var e api.ErrorResponse
			json.Unmarshal(r.Body, &e)
			if e.Error.Code == nil || *e.Error.Code != "storage_quota_exceeded" || r.Header.Get("X-RLM-Completion-Id") != "" {
				t.Errorf("code %v, completion id %q", e.Error.Code, r.Header.Get("X-RLM-Completion-Id"))
			}
			if after := countColl(t, ts.Server, tt.coll); after != before {
				t.Errorf("the refused write left %d values in %s (%d before)", after, tt.coll, before)
			}
			if r := tt.over(t, ts.URL, "k2"); r.Status != 200 {
				t.Errorf("the other key's write: %d %s", r.Status, r.Body)
			}
		})
	}
}

// TestQuotaFreedByDelete checks that deleting frees the quota.
func TestQuotaFreedByDelete(t *testing.T) {
	ts := startServer(t, Config{Quota: Quota{Files: 1}}, nil, nil)
	first := uploadSized(t, ts.URL, "", "a.txt", "a")
	if first.Status != 200 {
		t.Fatalf("upload: %d %s", first.Status, first.Body)
	}
	if r := uploadSized(t, ts.URL, "", "b.txt", "b"); r.Status != 400 {
		t.Fatalf("upload past the quota: %d", r.Status)
	}
	var f api.File
	json.Unmarshal(first.Body, &f)
	if r := do(t, "DELETE", ts.URL+"/v1/files/"+f.ID, "", nil); r.Status != 200 {
		t.Fatalf("delete: %d", r.Status)
	}
	if r := uploadSized(t, ts.URL, "", "b.txt", "b"); r.Status != 200 {
		t.Errorf("upload after a delete: %d %s", r.Status, r.Body)
	}
}

// countColl is the number of values in coll.
func countColl(t *testing.T, s *Server, coll string) int {
	t.Helper()
	keys, err := s.store.List(context.Background(), coll, "")
	if err != nil {
		t.Fatal(err)
	}
	return len(keys)
}

// unwalkableStore fails every Walk, as a store that is down does.
type unwalkableStore struct{ store.Store }

func (unwalkableStore) Walk(context.Context, string, string, func(store.Info) bool) error {
	return errors.New("walk: connection refused")
}

// TestQuotaStoreDown checks that a quota the store cannot tell is answered
// as a write the store cannot take: 503 store_unavailable, nothing stored,
// and no detail of the store's failure.
func TestQuotaStoreDown(t *testing.T) {
	d, err := store.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, Config{Quota: Quota{Files: 5, Completions: 5}}, unwalkableStore{d}, nil)
	for name, r := range map[string]response{
		"upload":            uploadSized(t, ts.URL, "", "a.txt", "a"),
		"stored completion": do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(`"store":true`)),
	} {
		if r.Status != 503 || r.Header.Get("Retry-After") == "" || strings.Contains(string(r.Body), "connection refused") {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
		checkErrorBody(t, r, "server_error", "", "could not be checked")
	}
	for _, coll := range []string{collFiles, collCompletions} {
		if n := countColl(t, ts.Server, coll); n != 0 {
			t.Errorf("%d values in %s", n, coll)
		}
	}
}
