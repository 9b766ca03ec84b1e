package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/store/storetest"
)

func upload(t *testing.T, url, key, name string, content io.Reader) response {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		fw, err := mw.CreateFormFile("file", name)
		if err == nil {
			_, err = io.Copy(fw, content)
		}
		if err == nil {
			err = mw.WriteField("purpose", "user_data")
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	return do(t, "POST", url+"/v1/files", key, pr, "Content-Type", mw.FormDataContentType())
}

// TestStores runs the file and stored-completion flows on both stores:
// disk, and a real redis-server.
func TestStores(t *testing.T) {
	stores := []struct {
		name string
		open func(t *testing.T) store.Store
	}{
		{"disk", func(t *testing.T) store.Store {
			d, err := store.OpenDisk(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return d
		}},
		{"redis", func(t *testing.T) store.Store {
			r, err := store.OpenRedis(context.Background(), store.RedisConfig{URL: storetest.StartRedis(t), CacheDir: t.TempDir(), ChunkBytes: 64 << 10})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			return r
		}},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Run("Files", func(t *testing.T) { testFiles(t, st.open(t)) })
			t.Run("Isolation", func(t *testing.T) { testIsolation(t, st.open(t)) })
			t.Run("StoredCompletions", func(t *testing.T) { testStoredAPI(t, st.open(t)) })
			t.Run("Documents", func(t *testing.T) { testStoredDocuments(t, st.open(t)) })
		})
	}
}

func testFiles(t *testing.T, st store.Store) {
	fr := &fakeRunner{result: finalResult("ok")}
	ts := startServer(t, Config{MaxUploadBytes: 1 << 20}, st, fr)
	doc := strings.Repeat("line of the document\n", 10000) // 210 KB
	resp := upload(t, ts.URL, "", "doc.txt", strings.NewReader(doc))
	if resp.Status != 200 {
		t.Fatalf("upload: %d %s", resp.Status, resp.Body)
	}
	var f api.File
	json.Unmarshal(resp.Body, &f)
	if !strings.HasPrefix(f.ID, "file-") || f.Object != "file" || f.Bytes != int64(len(doc)) || f.Filename != "doc.txt" ||
		f.Purpose != "user_data" || f.Status != "processed" || f.CreatedAt == 0 {
		t.Errorf("file object %+v", f)
	}
	if got := do(t, "GET", ts.URL+"/v1/files/"+f.ID, "", nil); got.Status != 200 || !bytes.Contains(got.Body, []byte(f.ID)) {
		t.Errorf("GET file: %d %s", got.Status, got.Body)
	}
	if got := do(t, "GET", ts.URL+"/v1/files/"+f.ID+"/content", "", nil); got.Status != 200 || string(got.Body) != doc {
		t.Errorf("GET content: %d, %d bytes", got.Status, len(got.Body))
	}
	list := do(t, "GET", ts.URL+"/v1/files", "", nil).json(t)
	if data, _ := list["data"].([]any); list["object"] != "list" || len(data) != 1 {
		t.Errorf("list %v", list)
	}
	// The file referenced in a message reaches the runner as a document.
	body := fmt.Sprintf(`{"model":"rlm","messages":[{"role":"user","content":[{"type":"text","text":"count lines"},{"type":"file","file":{"file_id":%q}}]}]}`, f.ID)
	if got := do(t, "POST", ts.URL+"/v1/chat/completions", "", strings.NewReader(body)); got.Status != 200 {
		t.Fatalf("chat with file: %d %s", got.Status, got.Body)
	}
	reqs := fr.requests()
	if len(reqs) != 1 || len(reqs[0].Documents) != 1 || reqs[0].Documents[0].Name != "doc.txt" {
		t.Fatalf("documents %+v", reqs)
	}
	if fr.docs[0] != doc {
		t.Errorf("document content differs (%d bytes)", len(fr.docs[0]))
	}
	// Inline file_data works too.
	body = `{"model":"rlm","messages":[{"role":"user","content":[{"type":"file","file":{"filename":"a.txt","file_data":"data:text/plain;base64,aGVsbG8="}}]}]}`
	if got := do(t, "POST", ts.URL+"/v1/chat/completions", "", strings.NewReader(body)); got.Status != 200 {
		t.Fatalf("chat with file_data: %d %s", got.Status, got.Body)
	}
	if fr.docs[1] != "hello" {
		t.Errorf("inline document %q", fr.docs[1])
	}
	// Too large: 413 and nothing stored.
	big := upload(t, ts.URL, "", "big.txt", bytes.NewReader(bytes.Repeat([]byte("x"), 1<<20+1)))
	if big.Status != 413 {
		t.Errorf("oversized upload: %d %s", big.Status, big.Body)
	} else {
		checkErrorBody(t, big, "invalid_request_error", "", "limit")
	}
	if keys, _ := st.List(context.Background(), collFiles, ""); len(keys) != 1 {
		t.Errorf("after a refused upload the store holds %q", keys)
	}
	// Delete.
	if got := do(t, "DELETE", ts.URL+"/v1/files/"+f.ID, "", nil).json(t); got["deleted"] != true {
		t.Errorf("delete: %v", got)
	}
	if got := do(t, "GET", ts.URL+"/v1/files/"+f.ID+"/content", "", nil); got.Status != 404 {
		t.Errorf("content after delete: %d", got.Status)
	}
	if got := do(t, "DELETE", ts.URL+"/v1/files/"+f.ID, "", nil); got.Status != 404 {
		t.Errorf("second delete: %d", got.Status)
	}
}

func testIsolation(t *testing.T, st store.Store) {
	fr := &fakeRunner{result: finalResult("ok")}
	ts := startServer(t, Config{Keys: []string{"key-a", "key-b"}}, st, fr)
	f := upload(t, ts.URL, "key-a", "secret.txt", strings.NewReader("a's secret")).json(t)
	id, _ := f["id"].(string)
	comp := do(t, "POST", ts.URL+"/v1/chat/completions", "key-a", chatBody(`"store":true`)).json(t)
	cid, _ := comp["id"].(string)
	if id == "" || cid == "" {
		t.Fatalf("setup: %v %v", f, comp)
	}
	fileRef := fmt.Sprintf(`{"model":"rlm","messages":[{"role":"user","content":[{"type":"file","file":{"file_id":%q}}]}]}`, id)
	tests := []struct {
		method, path, body string
		status             int
	}{
		{"GET", "/v1/files/" + id, "", 404},
		{"GET", "/v1/files/" + id + "/content", "", 404},
		{"DELETE", "/v1/files/" + id, "", 404},
		{"GET", "/v1/chat/completions/" + cid, "", 404},
		{"POST", "/v1/chat/completions", fileRef, 404},
	}
	for _, tt := range tests {
		var body io.Reader
		if tt.body != "" {
			body = strings.NewReader(tt.body)
		}
		if got := do(t, tt.method, ts.URL+tt.path, "key-b", body); got.Status != tt.status {
			t.Errorf("key-b %s %s: %d, want %d: %s", tt.method, tt.path, got.Status, tt.status, got.Body)
		}
	}
	if list := do(t, "GET", ts.URL+"/v1/files", "key-b", nil).json(t); len(list["data"].([]any)) != 0 {
		t.Errorf("key-b lists a's files: %v", list)
	}
	// The owner still sees everything.
	for _, p := range []string{"/v1/files/" + id, "/v1/files/" + id + "/content", "/v1/chat/completions/" + cid} {
		if got := do(t, "GET", ts.URL+p, "key-a", nil); got.Status != http.StatusOK {
			t.Errorf("key-a GET %s: %d", p, got.Status)
		}
	}
	if got := do(t, "POST", ts.URL+"/v1/chat/completions", "key-a", strings.NewReader(fileRef)); got.Status != 200 {
		t.Errorf("key-a chat with own file: %d %s", got.Status, got.Body)
	}
}

// failingStore is a store test double whose writes fail, as a full disk
// or an unreachable Redis would.
type failingStore struct{ store.Store }

func (failingStore) Put(ctx context.Context, coll, key string, r io.Reader) (int64, error) {
	io.Copy(io.Discard, r)
	return 0, fmt.Errorf("put %s/%s: no space left on device", coll, key)
}

func TestStoreFailure(t *testing.T) {
	d, err := store.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, Config{}, failingStore{d}, nil)
	resp := upload(t, ts.URL, "", "a.txt", strings.NewReader("hello"))
	if resp.Status != 500 {
		t.Fatalf("upload to a failing store: %d %s", resp.Status, resp.Body)
	}
	checkErrorBody(t, resp, "server_error", "", "storing the upload failed")
	if strings.Contains(string(resp.Body), "no space") || strings.Contains(string(resp.Body), "files/") {
		t.Errorf("internal detail sent to the client: %s", resp.Body)
	}
	resp = do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(`"store":true`))
	if resp.Status != 503 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("stored completion on a failing store: %d %s", resp.Status, resp.Body)
	}
	checkErrorBody(t, resp, "server_error", "", "the run was not started")
}

// switchStore fails every Put once broken is set: a store that goes down
// while a run is under way.
type switchStore struct {
	store.Store
	broken atomic.Bool
}

func (s *switchStore) Put(ctx context.Context, coll, key string, r io.Reader) (int64, error) {
	if s.broken.Load() {
		io.Copy(io.Discard, r)
		return 0, fmt.Errorf("put %s/%s: dial tcp 10.0.0.7:6379: connection refused", coll, key)
	}
	return s.Store.Put(ctx, coll, key, r)
}

// TestStoredCompletionNotSaved reproduces a stored completion answered 200
// although its record could not be saved: when the store fails as the run
// ends, the client gets a 500 completion_not_stored naming the id (in the
// message and X-RLM-Completion-Id), as JSON or as the stream's error event.
func TestStoredCompletionNotSaved(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			d, err := store.OpenDisk(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			st := &switchStore{Store: d}
			fr := &fakeRunner{result: finalResult("lost"), block: make(chan struct{}), started: make(chan struct{}, 1)}
			ts := startServer(t, Config{}, st, fr)
			go func() {
				<-fr.started
				st.broken.Store(true) // the store goes down during the run
				close(fr.block)
			}()
			extra := `"store":true`
			if stream {
				extra += `,"stream":true`
			}
			resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(extra))
			id := resp.Header.Get("X-RLM-Completion-Id")
			if !validID(id, "chatcmpl-") {
				t.Fatalf("no completion id header: %v", resp.Header)
			}
			body := resp.Body
			if stream {
				data, _ := sseEvents(t, resp.Body)
				if resp.Status != 200 || len(data) < 2 || data[len(data)-1] != "[DONE]" {
					t.Fatalf("stream: %d %q", resp.Status, data)
				}
				body = []byte(data[len(data)-2])
				if strings.Contains(string(resp.Body), `"content":"lost"`) {
					t.Errorf("the stream sent the answer of a completion that was not stored")
				}
			} else if resp.Status != 500 {
				t.Fatalf("status %d, want 500: %s", resp.Status, body)
			}
			var e api.ErrorResponse
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Code == nil || *e.Error.Code != "completion_not_stored" ||
				e.Error.Type != "server_error" || !strings.Contains(e.Error.Message, id) {
				t.Fatalf("error %s; want completion_not_stored naming %s", body, id)
			}
			if strings.Contains(string(body), "10.0.0.7") {
				t.Errorf("the store's address reached the client: %s", body)
			}
			metrics := string(do(t, "GET", ts.URL+"/metrics", "", nil).Body)
			if !strings.Contains(metrics, `rlm_errors_total{kind="store"} 1`) {
				t.Errorf("the failure is not counted as kind=store")
			}
		})
	}
}

// TestEmptyFilesRefused: a file with nothing in it, uploaded or inline, is
// refused with 400 naming it, and keeps nothing; it used to run to "No
// answer" with finish_reason length.
func TestEmptyFilesRefused(t *testing.T) {
	t.Parallel()
	runner := &fakeRunner{}
	ts := startServer(t, Config{}, nil, runner)
	if r := upload(t, ts.URL, "", "empty.txt", strings.NewReader("")); r.Status != 400 || !strings.Contains(string(r.Body), "empty") {
		t.Errorf("empty upload: %d %s", r.Status, r.Body)
	}
	if n := countColl(t, ts.Server, collFiles); n != 0 {
		t.Errorf("the refused upload left %d files", n)
	}
	for _, body := range []string{
		`{"model":"rlm","messages":[{"role":"user","content":[{"type":"text","text":"q"},{"type":"file","file":{"file_data":"data:text/plain;base64,","filename":"e.txt"}}]}]}`,
		`{"model":"rlm","messages":[{"role":"user","content":[{"type":"text","text":"q"},{"type":"file","file":{"file_data":"","filename":"e.txt"}}]}]}`,
	} {
		r := do(t, "POST", ts.URL+"/v1/chat/completions", "", strings.NewReader(body))
		if r.Status != 400 {
			t.Errorf("%s: %d %s", body, r.Status, r.Body)
		}
	}
	runner.mu.Lock()
	defer runner.mu.Unlock()
	if n := len(runner.reqs); n != 0 {
		t.Errorf("the runner ran %d times", n)
	}
}
