package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/store"
)

// fakeRunner is a test double for the RLM engine: it emits a scripted set
// of events and returns a scripted result, or blocks until released or
// cancelled. It records what it was asked.
type fakeRunner struct {
	mu       sync.Mutex
	reqs     []recursion.Request
	docs     []string // contents of the documents of every request, read during the run
	result   recursion.Result
	err      error
	events   []recursion.Event
	block    chan struct{} // when set, runs wait for it to close (or cancellation)
	started  chan struct{} // when set, receives one value as each run starts
	finished chan error    // when set, receives the run's ctx.Err() as it ends
}

func (f *fakeRunner) Run(ctx context.Context, req recursion.Request) (recursion.Result, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	for _, d := range req.Documents {
		b, err := readFile(d.Path)
		if err != nil {
			b = "ERROR: " + err.Error()
		}
		f.docs = append(f.docs, b)
	}
	res, err, events, block := f.result, f.err, f.events, f.block
	f.mu.Unlock()
	if f.started != nil {
		f.started <- struct{}{}
	}
	for _, ev := range events {
		if req.Observer != nil {
			req.Observer.Observe(ev)
		}
	}
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			if f.finished != nil {
				f.finished <- ctx.Err()
			}
			return recursion.Result{TraceID: req.TraceID, StopReason: recursion.StopCancelled, Error: ctx.Err().Error()}, nil
		}
	}
	if f.finished != nil {
		f.finished <- ctx.Err()
	}
	if res.TraceID == "" {
		res.TraceID = req.TraceID
	}
	return res, err
}

func (f *fakeRunner) requests() []recursion.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recursion.Request(nil), f.reqs...)
}

func finalResult(answer string) recursion.Result {
	return recursion.Result{Answer: answer, StopReason: recursion.StopFinal,
		Usage:      llm.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120},
		Iterations: 3, LLMCalls: 7, MaxDepth: 1, Duration: 1500 * time.Millisecond}
}

// scriptEvents is a small run: a turn, a cell with a sub-call, the end.
func scriptEvents() []recursion.Event {
	return []recursion.Event{
		{Kind: recursion.EventNodeStart, NodeID: "0"},
		{Kind: recursion.EventTurnStart, NodeID: "0", Turn: 1},
		{Kind: recursion.EventCellStart, NodeID: "0", Turn: 1, Cell: 1, CellRun: &recursion.CellEvent{Code: "print(len(context))"}},
		{Kind: recursion.EventSubCallStart, NodeID: "0", Turn: 1, Cell: 1, SubCall: &recursion.SubCallEvent{ID: "s1", Kind: "llm", Prompt: "summarize"}},
		{Kind: recursion.EventSubCallEnd, NodeID: "0", Turn: 1, Cell: 1, SubCall: &recursion.SubCallEvent{ID: "s1", Kind: "llm", Response: "ok"}},
		{Kind: recursion.EventCellEnd, NodeID: "0", Turn: 1, Cell: 1, CellRun: &recursion.CellEvent{Output: "12345", OutputBytes: 5}},
		{Kind: recursion.EventNodeEnd, NodeID: "0", End: &recursion.NodeEndEvent{StopReason: recursion.StopFinal}},
	}
}

type testServer struct {
	*Server
	URL string
}

// fillSlotAndQueue sends two chat requests to a server with one run slot
// and one queue place: the first runs (blocked in fr) and the second waits
// in the queue, both until fr.block is closed. It returns their answers.
func fillSlotAndQueue(t *testing.T, ts *testServer, fr *fakeRunner) (running, queued chan response) {
	t.Helper()
	running, queued = make(chan response, 1), make(chan response, 1)
	go func() { running <- do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody("")) }()
	<-fr.started
	go func() { queued <- do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody("")) }()
	for deadline := time.Now().Add(5 * time.Second); len(ts.queued) < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second request never queued")
		}
	}
	return running, queued
}

// startServer runs a Server on a loopback port with a disk store in a temp
// dir (unless st is given) and shuts it down when the test ends.
func startServer(t testing.TB, cfg Config, st store.Store, r Runner) *testServer {
	t.Helper()
	if st == nil {
		d, err := store.OpenDisk(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		st = d
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if r == nil && cfg.NotConfigured == "" {
		r = &fakeRunner{result: finalResult("42")}
	}
	if cfg.Documents.CacheDir == "" {
		cfg.Documents.CacheDir = pdfCache
	}
	var runner Runner
	if r != nil {
		runner = r
	}
	s, err := New(cfg, st, runner)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return &testServer{Server: s, URL: "http://" + ln.Addr().String()}
}

type response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response is not JSON (%v): %s", err, r.Body)
	}
	return m
}

func do(t *testing.T, method, url, key string, body io.Reader, header ...string) response {
	t.Helper()
	return doCtx(t, context.Background(), method, url, key, body, header...)
}

func doCtx(t *testing.T, ctx context.Context, method, url, key string, body io.Reader, header ...string) response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, b}
}

func chatBody(extra string) io.Reader {
	s := `{"model":"rlm","messages":[{"role":"user","content":"hello"}]`
	if extra != "" {
		s += "," + extra
	}
	return strings.NewReader(s + "}")
}

// sseEvents splits an SSE body into its data payloads and counts comments.
func sseEvents(t *testing.T, body []byte) (data []string, comments int) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		case strings.HasPrefix(line, ":"):
			comments++
		case line == "":
		default:
			t.Errorf("unexpected SSE line %q", line)
		}
	}
	return data, comments
}

func readFile(p string) (string, error) {
	b, err := readAllFile(p)
	return string(b), err
}

func readAllFile(p string) ([]byte, error) { return os.ReadFile(p) }
func ptr[T any](v T) *T                    { return &v }

// decodeChatRequest decodes a chat request body under the default caps, as
// the handler does.
func decodeChatRequest(r io.Reader) (*api.ChatCompletionRequest, error) {
	return decodeChatRequestSized(r, -1, Config{}.withDefaults())
}

// decodeChatRequestSized decodes a body of known length (-1: unknown)
// under cfg's caps, as the handler does.
func decodeChatRequestSized(r io.Reader, length int64, cfg Config) (*api.ChatCompletionRequest, error) {
	body, err := api.ReadBody(r, length)
	if err != nil {
		return nil, err
	}
	return api.DecodeChatCompletionRequest(body, cfg.limits())
}

// decodeResponsesRequest decodes a Responses request body under cfg's
// caps, as the handler does.
func decodeResponsesRequest(body []byte, cfg Config) (*api.ResponseRequest, []api.Item, error) {
	rr, items, err := api.DecodeResponseRequest(body, cfg.limits())
	if err != nil {
		return nil, nil, err
	}
	return rr, items, checkResponseRequest(rr)
}
