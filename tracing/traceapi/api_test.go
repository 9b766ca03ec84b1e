package traceapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/traceapi"
	"github.com/rlm-project/rlm/tracing/tracingtest"
)

// keyOwners stands in for the gateway's authentication: API key -> owner.
var keyOwners = map[string]string{"k-alice": "alice", "k-bob": "bob"}

func ownerOf(r *http.Request) (string, error) {
	k, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if o, ok := keyOwners[k]; ok {
		return o, nil
	}
	return "", errors.New("incorrect API key provided")
}

type apiEnv struct {
	svc *tracing.Service
	srv *httptest.Server
}

// newAPIEnv serves the API over a Service that keeps its runs in st.
func newAPIEnv(t *testing.T, st tracing.Store) *apiEnv {
	t.Helper()
	svc := tracing.NewService(tracing.Config{Store: st})
	srv := httptest.NewServer(traceapi.New(svc, traceapi.Config{KeepAlive: 50 * time.Millisecond}).Handler(ownerOf))
	t.Cleanup(srv.Close)
	return &apiEnv{svc: svc, srv: srv}
}

func (e *apiEnv) do(t *testing.T, method, path, key, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func TestAPIIsolationAndErrors(t *testing.T) {
	e := newAPIEnv(t, tracingtest.NewMemStore())
	t0 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	tracingtest.SaveRun(t, e.svc, "alice", "tr_alice", t0, recursion.StopFinal, "m1")
	tracingtest.SaveRun(t, e.svc, "bob", "tr_bob", t0, recursion.StopMaxIterations, "m2")
	tests := []struct {
		name, method, path, key, body string
		status                        int
		contains                      string
	}{
		{"list own", "GET", "/v1/traces", "k-alice", "", 200, `"id":"tr_alice"`},
		{"list filter miss", "GET", "/v1/traces?model=m2", "k-alice", "", 200, `"data":[]`},
		{"list bad limit", "GET", "/v1/traces?limit=0", "k-alice", "", 400, "limit"},
		{"list bad since", "GET", "/v1/traces?since=yesterday", "k-alice", "", 400, "since"},
		{"no key", "GET", "/v1/traces", "nope", "", 401, "incorrect API key"},
		{"get own", "GET", "/v1/traces/tr_alice", "k-alice", "", 200, `"nodes":[`},
		{"get other's", "GET", "/v1/traces/tr_alice", "k-bob", "", 404, "not found"},
		{"get bad id", "GET", "/v1/traces/..%2Fx", "k-alice", "", 400, "invalid"},
		{"events other's", "GET", "/v1/traces/tr_alice/events", "k-bob", "", 404, "not found"},
		{"events finished", "GET", "/v1/traces/tr_alice/events", "k-alice", "", 200, "event: end"},
		{"feedback other's", "POST", "/v1/traces/tr_alice/feedback", "k-bob", `{"score":1}`, 404, "not found"},
		{"feedback no score", "POST", "/v1/traces/tr_alice/feedback", "k-alice", `{"label":"x"}`, 400, "score"},
		{"feedback not json", "POST", "/v1/traces/tr_alice/feedback", "k-alice", `score=1`, 400, "feedback body"},
		{"feedback unknown field", "POST", "/v1/traces/tr_alice/feedback", "k-alice", `{"score":1,"bogus":2}`, 400, "bogus"},
		{"feedback long label", "POST", "/v1/traces/tr_alice/feedback", "k-alice", `{"score":1,"label":"` + strings.Repeat("x", 300) + `"}`, 400, "label"},
		{"feedback ok", "POST", "/v1/traces/tr_alice/feedback", "k-alice", `{"score":0.9,"label":"correct"}`, 200, `"score":0.9`},
		{"export own only", "GET", "/v1/traces/export?format=sft", "k-bob", "", 200, `"trace_id":"tr_bob"`},
		{"export bad format", "GET", "/v1/traces/export?format=xml", "k-alice", "", 400, "unknown export format"},
		{"export by reward", "GET", "/v1/traces/export?format=sft&min_reward=0.5", "k-alice", "", 200, `"trace_id":"tr_alice"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := e.do(t, tc.method, tc.path, tc.key, tc.body)
			if status != tc.status || !strings.Contains(string(body), tc.contains) {
				t.Errorf("%s %s: %d %s; want %d containing %q", tc.method, tc.path, status, body, tc.status, tc.contains)
			}
			if status != 200 {
				return
			}
			if strings.Contains(string(body), "tr_bob") && tc.key == "k-alice" || strings.Contains(string(body), "tr_alice") && tc.key == "k-bob" {
				t.Errorf("response leaks another owner's run: %s", body)
			}
		})
	}
}

// TestAPIEventsLive follows a run over SSE while it happens.
func TestAPIEventsLive(t *testing.T) {
	e := newAPIEnv(t, tracingtest.NewMemStore())
	run, err := e.svc.StartRun(t.Context(), tracing.RunInfo{Owner: "alice", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(t.Context(), "GET", e.srv.URL+"/v1/traces/"+run.ID()+"/events", nil)
	req.Header.Set("Authorization", "Bearer k-alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	// The live GET sees the run in progress.
	if status, body := e.do(t, "GET", "/v1/traces/"+run.ID(), "k-alice", ""); status != 200 || !strings.Contains(string(body), `"status":"running"`) {
		t.Errorf("live get: %d %s", status, body)
	}
	if status, _ := e.do(t, "POST", "/v1/traces/"+run.ID()+"/feedback", "k-alice", `{"score":1}`); status != http.StatusConflict {
		t.Errorf("feedback on a live run: %d", status)
	}
	shape := tracingtest.Shape{Turns: 2, Depth: 1, Fanout: 2}
	go func() {
		time.Sleep(120 * time.Millisecond) // long enough for a keep-alive
		res := tracingtest.Emit(run.Observer(), shape)
		run.Finish(t.Context(), res, nil)
	}()
	kinds := map[string]int{}
	sc := bufio.NewScanner(resp.Body)
	keepAlive := false
	var last tracing.LiveEvent
	for sc.Scan() {
		line := sc.Text()
		if line == ": keep-alive" {
			keepAlive = true
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			if err := json.Unmarshal([]byte(data), &last); err != nil {
				t.Fatal(err)
			}
			kinds[last.Kind]++
		}
	}
	want := shape.Expect()
	if kinds["node_start"] != want.Nodes || kinds["subcall_end"] != want.SubCalls || kinds["end"] != 1 {
		t.Errorf("events %v; want %d node_start, %d subcall_end, 1 end", kinds, want.Nodes, want.SubCalls)
	}
	if last.Kind != "end" || last.Status != tracing.StatusCompleted {
		t.Errorf("last event %+v", last)
	}
	if !keepAlive {
		t.Error("no keep-alive on an idle stream")
	}
}

// TestAPIEcho mounts the endpoints on an echo group, as the gateway does.
func TestAPIEcho(t *testing.T) {
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	tracingtest.SaveRun(t, svc, "alice", "tr_e", time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC), recursion.StopFinal, "m")
	e := echo.New()
	v1 := e.Group("/v1", func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			o, err := ownerOf(c.Request())
			if err != nil {
				return echo.ErrUnauthorized
			}
			c.Set("owner", o)
			return next(c)
		}
	})
	traceapi.New(svc, traceapi.Config{}).Register(v1, func(c *echo.Context) string { s, _ := c.Get("owner").(string); return s })
	for _, tc := range []struct {
		path, key string
		status    int
	}{
		{"/v1/traces/tr_e", "k-alice", 200},
		{"/v1/traces/tr_e", "k-bob", 404},
		{"/v1/traces", "k-alice", 200},
		{"/v1/traces/export?format=chat", "k-alice", 200},
		{"/v1/traces/tr_e/events", "k-alice", 200},
	} {
		req := httptest.NewRequest("GET", tc.path, nil)
		req.Header.Set("Authorization", "Bearer "+tc.key)
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("%s as %s: %d %s", tc.path, tc.key, rec.Code, rec.Body)
		}
	}
	req := httptest.NewRequest("POST", "/v1/traces/tr_e/feedback", strings.NewReader(`{"score":1,"label":"ok"}`))
	req.Header.Set("Authorization", "Bearer k-alice")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Errorf("feedback via echo: %d %s", rec.Code, rec.Body)
	}
}

// storeDetail is what a store's error may say that a client must never
// see: where the store lives.
const storeDetail = "dial tcp 10.0.0.5:6379: connect: connection refused"

// brokenStore fails every listing and read, as a store that lost its
// connection does.
type brokenStore struct{ *tracingtest.MemStore }

func (brokenStore) List(context.Context, string, string) ([]string, error) {
	return nil, errors.New(storeDetail)
}

func (brokenStore) Get(_ context.Context, coll, key string) (io.ReadCloser, error) {
	return nil, fmt.Errorf("get /var/lib/rlm/%s/%s: %s", coll, key, storeDetail)
}

// TestAPIStoreDown checks that a failing store gives a 500 in the OpenAI
// error shape, with a generic message: the store's error, which names
// paths and addresses, goes to the log (with the trace id) and never to
// the client.
func TestAPIStoreDown(t *testing.T) {
	var logs bytes.Buffer
	svc := tracing.NewService(tracing.Config{Store: brokenStore{tracingtest.NewMemStore()}})
	api := traceapi.New(svc, traceapi.Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	srv := httptest.NewServer(api.Handler(ownerOf))
	defer srv.Close()
	tests := []struct {
		name, method, path, body string
		logged                   []string // besides storeDetail
	}{
		{"list", "GET", "/v1/traces", "", []string{"path=/v1/traces"}},
		{"export", "GET", "/v1/traces/export?format=sft", "", []string{"path=/v1/traces/export"}},
		{"get", "GET", "/v1/traces/tr-42", "", []string{"trace=tr-42", "/var/lib/rlm/"}},
		{"events", "GET", "/v1/traces/tr-43/events", "", []string{"trace=tr-43"}},
		{"feedback", "POST", "/v1/traces/tr-44/feedback", `{"score":1}`, []string{"trace=tr-44"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs.Reset()
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			req.Header.Set("Authorization", "Bearer k-alice")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 500 || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
			}
			var e struct {
				Error struct{ Message, Type, Code string }
			}
			if err := json.Unmarshal(b, &e); err != nil {
				t.Fatalf("not error JSON: %v: %s", err, b)
			}
			want := "internal error; details are in the server log"
			if e.Error.Message != want || e.Error.Type != "server_error" || e.Error.Code != "internal_error" {
				t.Errorf("error %+v, want message %q, type server_error, code internal_error", e.Error, want)
			}
			for _, leak := range []string{"10.0.0.5", "connection refused", "/var/lib"} {
				if strings.Contains(string(b), leak) {
					t.Errorf("response leaks %q: %s", leak, b)
				}
			}
			for _, w := range append(tt.logged, "trace API request failed", storeDetail) {
				if !strings.Contains(logs.String(), w) {
					t.Errorf("log lacks %q:\n%s", w, logs.String())
				}
			}
		})
	}
}

// slowStore is a MemStore whose Puts wait until open is closed: a store
// that takes its time.
type slowStore struct {
	*tracingtest.MemStore
	open chan struct{}
}

func (s slowStore) Put(ctx context.Context, coll, key string, v io.Reader) (int64, error) {
	select {
	case <-s.open:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	return s.MemStore.Put(ctx, coll, key, v)
}

// TestFeedbackWaitsForSave: feedback sent right after a run finished, while
// its record is still being saved in the background, lands on the saved
// record instead of being refused as "still running".
func TestFeedbackWaitsForSave(t *testing.T) {
	st := slowStore{MemStore: tracingtest.NewMemStore(), open: make(chan struct{})}
	e := newAPIEnv(t, st)
	run, err := e.svc.StartRun(t.Context(), tracing.RunInfo{TraceID: "tr_fb", Owner: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	run.FinishInBackground(t.Context(), tracingtest.Emit(run.Observer(), tracingtest.Shape{Turns: 1}), nil)
	time.AfterFunc(100*time.Millisecond, func() { close(st.open) })
	if status, b := e.do(t, "POST", "/v1/traces/tr_fb/feedback", "k-alice", `{"score":1}`); status != 200 {
		t.Fatalf("feedback on a run being saved: %d %s", status, b)
	}
	tr, err := e.svc.Archive().Load(t.Context(), "alice", "tr_fb")
	if err != nil || tr.Reward == nil || tr.Reward.Score != 1 {
		t.Errorf("stored record: %+v, %v", tr, err)
	}
}
