package server

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/store"
)

// TestInlineFilesRemoved checks that the temporary copies of inline
// file_data parts are gone when the answer reaches the client, whatever the
// answer was.
func TestInlineFilesRemoved(t *testing.T) {
	inline := `{"type":"file","file":{"filename":"a.txt","file_data":"aGVsbG8="}}`
	tests := []struct {
		name    string
		content string
		busy    bool // another run holds the only slot
		cancel  bool // the client goes away mid-run
		status  int
	}{
		{"answered", inline, false, false, 200},
		{"a later part fails", inline + `,{"type":"file","file":{"file_id":"file-000000000000000000000000"}}`, false, false, 404},
		{"queue full", inline, true, false, 429},
		{"client gone", inline, false, true, 499},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := store.OpenDisk(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			fr := &fakeRunner{result: finalResult("ok")}
			if tt.busy || tt.cancel {
				fr.block = make(chan struct{})
				fr.started = make(chan struct{}, 2)
				defer close(fr.block)
			}
			ts := startServer(t, Config{MaxConcurrent: 1, QueueWait: 50 * time.Millisecond}, st, fr)
			if tt.busy {
				go http.Post(ts.URL+"/v1/chat/completions", "application/json", chatBody(""))
				<-fr.started
			}
			body := `{"model":"rlm","messages":[{"role":"user","content":[` + tt.content + `]}]}`
			if tt.cancel {
				ctx, cancel := context.WithCancel(context.Background())
				go func() { <-fr.started; cancel() }()
				req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/chat/completions", strings.NewReader(body))
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
					t.Fatalf("request answered %d, want the client to give up", resp.StatusCode)
				}
			} else if resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", strings.NewReader(body)); resp.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tt.status, resp.Body)
			}
			// A cancelled run ends on its own time; every other answer
			// comes after the cleanup.
			deadline := time.Now().Add(5 * time.Second)
			for {
				left, _ := filepath.Glob(filepath.Join(tmp, "rlm-*"))
				if len(left) == 0 {
					break
				}
				if !tt.cancel || time.Now().After(deadline) {
					t.Fatalf("temporary files left: %q", left)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if !tt.busy && !tt.cancel && tt.status == 200 && (len(fr.docs) != 1 || fr.docs[0] != "hello") {
				t.Errorf("the run saw documents %q", fr.docs)
			}
		})
	}
}
