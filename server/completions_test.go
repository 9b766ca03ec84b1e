package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/store"
)

// page is a decoded list answer of the stored-completion endpoints.
type page struct {
	Object  string            `json:"object"`
	Data    []json.RawMessage `json:"data"`
	FirstID *string           `json:"first_id"`
	LastID  *string           `json:"last_id"`
	HasMore bool              `json:"has_more"`
}

func (p page) ids(t *testing.T) []string {
	t.Helper()
	var ids []string
	for _, d := range p.Data {
		var x struct{ ID string }
		if err := json.Unmarshal(d, &x); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, x.ID)
	}
	return ids
}

func getPage(t *testing.T, url, key string) page {
	t.Helper()
	resp := do(t, "GET", url, key, nil)
	if resp.Status != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.Status, resp.Body)
	}
	var p page
	if err := json.Unmarshal(resp.Body, &p); err != nil {
		t.Fatalf("GET %s: %v: %s", url, err, resp.Body)
	}
	if p.Object != "list" {
		t.Errorf("GET %s: object %q", url, p.Object)
	}
	ids := p.ids(t)
	if len(ids) > 0 && (p.FirstID == nil || *p.FirstID != ids[0] || p.LastID == nil || *p.LastID != ids[len(ids)-1]) {
		t.Errorf("GET %s: first_id %v last_id %v for ids %v", url, p.FirstID, p.LastID, ids)
	}
	if len(ids) == 0 && (p.FirstID != nil || p.LastID != nil) {
		t.Errorf("GET %s: empty page with first_id %v last_id %v", url, p.FirstID, p.LastID)
	}
	return p
}

// createStored makes a stored completion and returns its id.
func createStored(t *testing.T, ts *testServer, key, model, metadata string) string {
	t.Helper()
	body := fmt.Sprintf(`{"model":%q,"store":true,"messages":[{"role":"user","content":"hi"}]`, model)
	if metadata != "" {
		body += `,"metadata":` + metadata
	}
	resp := do(t, "POST", ts.URL+"/v1/chat/completions", key, strings.NewReader(body+"}"))
	if resp.Status != 200 {
		t.Fatalf("create: %d %s", resp.Status, resp.Body)
	}
	id, _ := resp.json(t)["id"].(string)
	if h := resp.Header.Get("X-RLM-Completion-Id"); h != id || !validID(id, "chatcmpl-") {
		t.Fatalf("create: id %q, header %q", id, h)
	}
	return id
}

// testStoredAPI drives list, get, update, delete and messages on one store.
func testStoredAPI(t *testing.T, st store.Store) {
	ts := startServer(t, Config{Keys: []string{"key-a", "key-b"}}, st, nil)
	base := ts.URL + "/v1/chat/completions"
	// Seven completions of key-a: models and metadata to filter on.
	specs := []struct{ model, md string }{
		{"rlm", `{"team":"red","env":"prod"}`},
		{"small", `{"team":"blue"}`},
		{"rlm", `{"team":"red"}`},
		{"rlm", ``},
		{"small", `{"team":"red","env":"prod"}`},
		{"rlm", `{"team":"blue","env":"prod"}`},
		{"rlm", `{"team":"red","env":"dev"}`},
	}
	var ids []string
	for _, s := range specs {
		ids = append(ids, createStored(t, ts, "key-a", s.model, s.md))
	}
	if !slices.IsSorted(ids) {
		t.Errorf("ids are not in creation order: %v", ids)
	}
	bID := createStored(t, ts, "key-b", "rlm", `{"team":"red"}`)
	rev := slices.Clone(ids)
	slices.Reverse(rev)
	pick := func(is ...int) []string {
		var out []string
		for _, i := range is {
			out = append(out, ids[i])
		}
		return out
	}

	tests := []struct {
		name    string
		query   string
		want    []string
		hasMore bool
	}{
		{"all, default ascending", "", ids, false},
		{"descending", "order=desc", rev, false},
		{"first page", "limit=3", ids[:3], true},
		{"second page", "limit=3&after=" + ids[2], ids[3:6], true},
		{"last page", "limit=3&after=" + ids[5], ids[6:], false},
		{"exact fit", "limit=7", ids, false},
		{"descending page", "order=desc&limit=2&after=" + ids[4], pick(3, 2), true},
		{"descending last page", "order=desc&limit=5&after=" + ids[2], pick(1, 0), false},
		{"model", "model=small", pick(1, 4), false},
		{"unknown model", "model=nope", nil, false},
		{"metadata", "metadata[team]=red", pick(0, 2, 4, 6), false},
		{"two metadata keys", "metadata[team]=red&metadata[env]=prod", pick(0, 4), false},
		{"model and metadata", "model=rlm&metadata[env]=prod", pick(0, 5), false},
		{"metadata page", "metadata[team]=red&limit=2", pick(0, 2), true},
		{"metadata next page", "metadata[team]=red&limit=2&after=" + ids[2], pick(4, 6), false},
		{"metadata descending", "metadata[team]=red&order=desc&limit=3", pick(6, 4, 2), true},
		{"metadata no match", "metadata[team]=green", nil, false},
		{"encoded brackets", url.Values{"metadata[env]": {"dev"}}.Encode(), pick(6), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := getPage(t, base+"?"+tt.query, "key-a")
			if got := p.ids(t); !slices.Equal(got, tt.want) || p.HasMore != tt.hasMore {
				t.Errorf("?%s: ids %v has_more %v\nwant %v has_more %v", tt.query, got, p.HasMore, tt.want, tt.hasMore)
			}
		})
	}

	// A listed completion is the full stored object with its metadata.
	p := getPage(t, base+"?limit=1", "key-a")
	var first map[string]any
	json.Unmarshal(p.Data[0], &first)
	if first["object"] != "chat.completion" || first["status"] != "completed" || first["model"] != "rlm" ||
		fmt.Sprint(first["metadata"]) != "map[env:prod team:red]" || len(first["choices"].([]any)) != 1 {
		t.Errorf("listed completion %v", first)
	}

	// Owner isolation: key-b sees its own one alone, and none of a's.
	if got := getPage(t, base, "key-b").ids(t); !slices.Equal(got, []string{bID}) {
		t.Errorf("key-b lists %v, want only %s", got, bID)
	}
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/" + ids[0], ""},
		{"GET", "/" + ids[0] + "/messages", ""},
		{"POST", "/" + ids[0], `{"metadata":{"x":"y"}}`},
		{"DELETE", "/" + ids[0], ""},
	} {
		var body io.Reader
		if r.body != "" {
			body = strings.NewReader(r.body)
		}
		if got := do(t, r.method, base+r.path, "key-b", body); got.Status != 404 {
			t.Errorf("key-b %s %s: %d %s, want 404", r.method, r.path, got.Status, got.Body)
		}
	}

	// Update replaces the metadata; the filter sees it at once.
	resp := do(t, "POST", base+"/"+ids[3], "key-a", strings.NewReader(`{"metadata":{"team":"red","reviewed":"yes"}}`))
	if resp.Status != 200 {
		t.Fatalf("update: %d %s", resp.Status, resp.Body)
	}
	if m := resp.json(t); m["id"] != ids[3] || fmt.Sprint(m["metadata"]) != "map[reviewed:yes team:red]" {
		t.Errorf("update answer %v", m)
	}
	if got := getPage(t, base+"?metadata[reviewed]=yes", "key-a").ids(t); !slices.Equal(got, pick(3)) {
		t.Errorf("after update, filter finds %v", got)
	}
	if m := do(t, "GET", base+"/"+ids[3], "key-a", nil).json(t); fmt.Sprint(m["metadata"]) != "map[reviewed:yes team:red]" {
		t.Errorf("GET after update: %v", m["metadata"])
	}
	if m := do(t, "POST", base+"/"+ids[3], "key-a", strings.NewReader(`{"metadata":null}`)).json(t); fmt.Sprint(m["metadata"]) != "map[]" {
		t.Errorf("update to null: %v", m)
	}

	// Delete, then everything about it is 404 and it is no longer listed.
	resp = do(t, "DELETE", base+"/"+ids[1], "key-a", nil)
	if m := resp.json(t); resp.Status != 200 || m["id"] != ids[1] || m["object"] != "chat.completion.deleted" || m["deleted"] != true {
		t.Errorf("delete: %d %v", resp.Status, m)
	}
	for _, r := range []struct{ method, path string }{
		{"GET", "/" + ids[1]}, {"GET", "/" + ids[1] + "/messages"}, {"DELETE", "/" + ids[1]},
	} {
		if got := do(t, r.method, base+r.path, "key-a", nil); got.Status != 404 {
			t.Errorf("after delete, %s %s: %d %s", r.method, r.path, got.Status, got.Body)
		} else {
			checkErrorBody(t, got, "invalid_request_error", "completion_id", ids[1])
		}
	}
	if got := getPage(t, base, "key-a").ids(t); slices.Contains(got, ids[1]) || len(got) != 6 {
		t.Errorf("after delete, list %v", got)
	}
	// A cursor naming a deleted completion still pages from its place.
	if got := getPage(t, base+"?limit=1&after="+ids[1], "key-a").ids(t); !slices.Equal(got, pick(2)) {
		t.Errorf("after a deleted cursor: %v", got)
	}
	for _, coll := range []string{collCompletions, collMessages} {
		if keys, _ := st.List(context.Background(), coll, ""); slices.ContainsFunc(keys, func(k string) bool { return strings.HasSuffix(k, ids[1]) }) {
			t.Errorf("the deleted completion is still in %s: %v", coll, keys)
		}
	}
}

// TestStoredMessages checks GET /v1/chat/completions/{id}/messages: the
// request's messages with ids, content parts, and OpenAI's paging.
func TestStoredMessages(t *testing.T) {
	ts := startServer(t, Config{}, nil, nil)
	body := `{"model":"rlm","store":true,"messages":[
		{"role":"system","content":"be brief"},
		{"role":"user","content":"one","name":"ann"},
		{"role":"assistant","content":"two"},
		{"role":"user","content":[{"type":"text","text":"three"},{"type":"file","file":{"filename":"a.txt","file_data":"aGVsbG8="}}]},
		{"role":"developer","content":"four"}]}`
	resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", strings.NewReader(body))
	if resp.Status != 200 {
		t.Fatalf("create: %d %s", resp.Status, resp.Body)
	}
	id := resp.json(t)["id"].(string)
	mid := func(i int) string { return fmt.Sprintf("%s-%d", id, i) }
	base := ts.URL + "/v1/chat/completions/" + id + "/messages"
	all := []string{mid(0), mid(1), mid(2), mid(3), mid(4)}
	tests := []struct {
		query   string
		want    []string
		hasMore bool
	}{
		{"", all, false},
		{"limit=2", all[:2], true},
		{"limit=2&after=" + mid(1), all[2:4], true},
		{"limit=2&after=" + mid(3), all[4:], false},
		{"order=desc", []string{mid(4), mid(3), mid(2), mid(1), mid(0)}, false},
		{"order=desc&limit=2", []string{mid(4), mid(3)}, true},
		{"order=desc&limit=2&after=" + mid(2), []string{mid(1), mid(0)}, false},
		{"order=desc&after=" + mid(0), nil, false},
		{"after=" + mid(9), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			p := getPage(t, base+"?"+tt.query, "")
			if got := p.ids(t); !slices.Equal(got, tt.want) || p.HasMore != tt.hasMore {
				t.Errorf("?%s: %v has_more %v, want %v has_more %v", tt.query, got, p.HasMore, tt.want, tt.hasMore)
			}
		})
	}
	p := getPage(t, base, "")
	var msgs []storedMessage
	for _, d := range p.Data {
		var m storedMessage
		json.Unmarshal(d, &m)
		msgs = append(msgs, m)
	}
	if m := msgs[1]; m.Role != "user" || *m.Content != "one" || m.Name == nil || *m.Name != "ann" || m.ContentParts != nil {
		t.Errorf("message 1: %+v", m)
	}
	if m := msgs[3]; *m.Content != "three" || len(m.ContentParts) != 2 || m.ContentParts[1].File == nil || m.ContentParts[1].File.Filename != "a.txt" {
		t.Errorf("message 3: %+v", m)
	}
	if strings.Contains(string(p.Data[3]), "aGVsbG8") {
		t.Errorf("inline file_data was stored: %s", p.Data[3])
	}
	if msgs[4].Role != "developer" {
		t.Errorf("message 4 role %q, want the role as sent", msgs[4].Role)
	}
}

// TestStoredBadRequests checks the 400s: metadata beyond OpenAI's limits on
// create and update, bad update bodies and bad list parameters. A refused
// create stores nothing.
func TestStoredBadRequests(t *testing.T) {
	ts := startServer(t, Config{}, nil, nil)
	base := ts.URL + "/v1/chat/completions"
	manyKeys := func(n int) string {
		var kv []string
		for i := range n {
			kv = append(kv, fmt.Sprintf(`"k%02d":"v"`, i))
		}
		return "{" + strings.Join(kv, ",") + "}"
	}
	long := func(n int) string { return strings.Repeat("é", n) } // characters, not bytes
	metadata := []struct {
		name, md, param, code string // param "" means accepted
	}{
		{"16 keys", manyKeys(16), "", ""},
		{"17 keys", manyKeys(17), "metadata", "object_above_max_properties"},
		{"64-character key", fmt.Sprintf(`{%q:"v"}`, long(64)), "", ""},
		{"65-character key", fmt.Sprintf(`{%q:"v"}`, long(65)), "metadata", "invalid_metadata_key"},
		{"empty key", `{"":"v"}`, "metadata", "invalid_metadata_key"},
		{"512-character value", fmt.Sprintf(`{"k":%q}`, long(512)), "", ""},
		{"513-character value", fmt.Sprintf(`{"k":%q}`, long(513)), "metadata.k", "string_above_max_length"},
		{"number value", `{"k":1}`, "metadata.k", "invalid_type"},
		{"object value", `{"k":{}}`, "metadata.k", "invalid_type"},
	}
	for _, tt := range metadata {
		t.Run("create/"+tt.name, func(t *testing.T) {
			before, _ := ts.store.List(context.Background(), collCompletions, "")
			resp := do(t, "POST", base, "", chatBody(`"store":true,"metadata":`+tt.md))
			if tt.param == "" {
				if resp.Status != 200 {
					t.Errorf("%d %s", resp.Status, resp.Body)
				}
				return
			}
			if resp.Status != 400 {
				t.Fatalf("%d %s, want 400", resp.Status, resp.Body)
			}
			checkErrorBody(t, resp, "invalid_request_error", tt.param, "metadata")
			if e := resp.json(t)["error"].(map[string]any); e["code"] != tt.code {
				t.Errorf("code %v, want %s", e["code"], tt.code)
			}
			if after, _ := ts.store.List(context.Background(), collCompletions, ""); len(after) != len(before) {
				t.Errorf("a refused request was stored: %d records, then %d", len(before), len(after))
			}
		})
	}
	id := createStored(t, ts, "", "rlm", `{"keep":"me"}`)
	for _, tt := range metadata {
		t.Run("update/"+tt.name, func(t *testing.T) {
			resp := do(t, "POST", base+"/"+id, "", strings.NewReader(`{"metadata":`+tt.md+`}`))
			if tt.param == "" {
				if resp.Status != 200 {
					t.Errorf("%d %s", resp.Status, resp.Body)
				}
				return
			}
			if resp.Status != 400 {
				t.Fatalf("%d %s, want 400", resp.Status, resp.Body)
			}
			checkErrorBody(t, resp, "invalid_request_error", tt.param, "metadata")
		})
	}
	others := []struct {
		name, method, path, body, param string
	}{
		{"update without metadata", "POST", "/" + id, `{}`, "metadata"},
		{"update of another field", "POST", "/" + id, `{"metadata":{},"model":"x"}`, "model"},
		{"update with metadata not an object", "POST", "/" + id, `{"metadata":"x"}`, "metadata"},
		{"update not JSON", "POST", "/" + id, `{`, ""},
		{"limit 0", "GET", "?limit=0", "", "limit"},
		{"limit 101", "GET", "?limit=101", "", "limit"},
		{"limit not a number", "GET", "?limit=ten", "", "limit"},
		{"order", "GET", "?order=newest", "", "order"},
		{"after not an id", "GET", "?after=file-1", "", "after"},
		{"metadata filter without a key", "GET", "?metadata[]=x", "", "metadata"},
		{"messages after of another completion", "GET", "/" + id + "/messages?after=chatcmpl-000000000000000000000000-1", "", "after"},
		{"messages limit", "GET", "/" + id + "/messages?limit=1000", "", "limit"},
	}
	for _, tt := range others {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			resp := do(t, tt.method, base+tt.path, "", body)
			if resp.Status != 400 {
				t.Fatalf("%d %s, want 400", resp.Status, resp.Body)
			}
			checkErrorBody(t, resp, "invalid_request_error", tt.param, "")
		})
	}
	if m := do(t, "GET", base+"/"+id, "", nil).json(t); fmt.Sprint(m["metadata"]) != "map[k:"+long(512)+"]" {
		t.Errorf("after refused updates the metadata is %v, want the last accepted one", m["metadata"])
	}
}

// TestInterruptedReachable reproduces a stored request interrupted by a
// shutdown answered 503 with no completion id: its answer now names the id
// (header and error body), and the interrupted record is found by listing
// on the next server over the same store.
func TestInterruptedReachable(t *testing.T) {
	d, err := store.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			fr := &fakeRunner{result: finalResult("never"), block: make(chan struct{}), started: make(chan struct{}, 1)}
			defer close(fr.block)
			ts := startServer(t, Config{}, d, fr)
			extra := `"store":true,"metadata":{"job":"nightly"}`
			if stream {
				extra += `,"stream":true`
			}
			got := make(chan response, 1)
			go func() { got <- do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(extra)) }()
			<-fr.started
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			ts.Shutdown(ctx)
			resp := <-got
			id := resp.Header.Get("X-RLM-Completion-Id")
			if !validID(id, "chatcmpl-") {
				t.Fatalf("interrupted answer %d has no completion id header: %v", resp.Status, resp.Header)
			}
			body := resp.Body
			if stream {
				data, _ := sseEvents(t, resp.Body)
				if len(data) < 2 {
					t.Fatalf("stream %q", data)
				}
				body = []byte(data[len(data)-2])
			} else if resp.Status != 503 {
				t.Fatalf("interrupted request: %d %s, want 503", resp.Status, body)
			}
			var e api.ErrorResponse
			if err := json.Unmarshal(body, &e); err != nil || e.Error.CompletionID != id || !strings.Contains(e.Error.Message, id) {
				t.Errorf("error body %s does not name %s", body, id)
			}

			next := startServer(t, Config{}, d, nil)
			p := getPage(t, next.URL+"/v1/chat/completions?order=desc&limit=1&metadata[job]=nightly", "")
			if ids := p.ids(t); len(ids) != 1 || ids[0] != id {
				t.Fatalf("list after restart: %v, want %s", ids, id)
			}
			var c struct {
				Status string
				Error  *api.ErrorObject
			}
			json.Unmarshal(p.Data[0], &c)
			if c.Status != "interrupted" || c.Error == nil || *c.Error.Code != "shutting_down" {
				t.Errorf("listed record: status %q error %+v", c.Status, c.Error)
			}
		})
	}
}

// TestDeletedDuringRun checks that a completion deleted while its run goes
// on does not come back when the run ends.
func TestDeletedDuringRun(t *testing.T) {
	fr := &fakeRunner{result: finalResult("late"), block: make(chan struct{}), started: make(chan struct{}, 1), finished: make(chan error, 1)}
	ts := startServer(t, Config{}, nil, fr)
	got := make(chan response, 1)
	go func() { got <- do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(`"store":true`)) }()
	<-fr.started
	p := getPage(t, ts.URL+"/v1/chat/completions", "")
	ids := p.ids(t)
	if len(ids) != 1 {
		t.Fatalf("running completion not listed: %v", ids)
	}
	if resp := do(t, "DELETE", ts.URL+"/v1/chat/completions/"+ids[0], "", nil); resp.Status != 200 {
		t.Fatalf("delete: %d %s", resp.Status, resp.Body)
	}
	close(fr.block)
	<-fr.finished
	if resp := <-got; resp.Status != 200 {
		t.Errorf("the client of a deleted completion got %d %s", resp.Status, resp.Body)
	}
	if resp := do(t, "GET", ts.URL+"/v1/chat/completions/"+ids[0], "", nil); resp.Status != 404 {
		t.Errorf("deleted completion came back after its run: %d %s", resp.Status, resp.Body)
	}
	if keys, _ := ts.store.List(context.Background(), collCompletions, ""); len(keys) != 0 {
		t.Errorf("records left: %v", keys)
	}
}

// refusingStore fails the writes named in failPut (by collection) without
// reading their values, and the PutEntry calls of the collection failEntry.
type refusingStore struct {
	store.Store
	failPut   string
	failEntry string
}

func (s *refusingStore) Put(ctx context.Context, coll, key string, r io.Reader) (int64, error) {
	if coll == s.failPut {
		return 0, fmt.Errorf("put %s/%s: connection reset", coll, key)
	}
	return s.Store.Put(ctx, coll, key, r)
}

func (s *refusingStore) PutEntry(ctx context.Context, coll, index, key string, v []byte) error {
	if coll == s.failEntry {
		return fmt.Errorf("put entry %s/%s/%s: connection reset", coll, index, key)
	}
	return s.Store.PutEntry(ctx, coll, index, key, v)
}

// TestStoredCreateFailure checks that a stored request whose first writes
// fail at any of its four steps is refused with 503 before its run, and
// leaves nothing behind: no registration, no record, no messages, nothing
// listed, and no goroutine of the streamed messages write.
func TestStoredCreateFailure(t *testing.T) {
	tests := []struct {
		name string
		st   func(store.Store) *refusingStore
	}{
		{"messages", func(d store.Store) *refusingStore { return &refusingStore{Store: d, failPut: collMessages} }},
		{"record", func(d store.Store) *refusingStore { return &refusingStore{Store: d, failPut: collCompletions} }},
		{"registration", func(d store.Store) *refusingStore { return &refusingStore{Store: d, failEntry: collRuns} }},
		{"summary", func(d store.Store) *refusingStore { return &refusingStore{Store: d, failEntry: collCompletions} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := store.OpenDisk(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			fr := &fakeRunner{result: finalResult("x")}
			ts := startServer(t, Config{}, tt.st(d), fr)
			before := runtime.NumGoroutine()
			// A message larger than any pipe buffer: the writer goroutine
			// would block on it if nothing unblocked it.
			big := strings.Repeat("x", 4<<20)
			resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(`"store":true,"messages":[{"role":"user","content":"`+big+`"}]`))
			if resp.Status != 503 || resp.Header.Get("X-RLM-Completion-Id") != "" {
				t.Errorf("%d %s (completion id %q), want 503 and no id", resp.Status, resp.Body, resp.Header.Get("X-RLM-Completion-Id"))
			}
			if n := len(fr.requests()); n != 0 {
				t.Errorf("%d runs started", n)
			}
			for _, coll := range []string{collCompletions, collMessages} {
				if keys, _ := d.List(context.Background(), coll, ""); len(keys) != 0 {
					t.Errorf("%s left behind: %v", coll, keys)
				}
			}
			if got := getPage(t, ts.URL+"/v1/chat/completions", "").ids(t); len(got) != 0 {
				t.Errorf("listed: %v", got)
			}
			d.ScanEntries(context.Background(), collRuns, idxRunning, "", false, func(e store.Entry) bool {
				t.Errorf("left registered as in progress: %s", e.Key)
				return true
			})
			// Kept-alive connections hold goroutines on both sides.
			http.DefaultClient.CloseIdleConnections()
			deadline := time.Now().Add(5 * time.Second)
			for runtime.NumGoroutine() > before {
				if time.Now().After(deadline) {
					t.Fatalf("goroutines: %d before, %d after", before, runtime.NumGoroutine())
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}
