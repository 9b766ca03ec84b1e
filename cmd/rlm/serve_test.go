package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	openai "github.com/sashabaranov/go-openai"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/store/storetest"
)

// syncBuffer is a bytes.Buffer safe for the server's logger and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type served struct {
	URL    string      // http://host:port
	Stdout *syncBuffer // after the "listening on" line
	Stderr *syncBuffer
	stop   func() error
}

// startServe runs `rlm serve` in-process (the test binary doubles as the
// REPL worker through TestMain) and stops it when the test ends.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	args = append([]string{"--listen", "127.0.0.1:0", "--data-dir", t.TempDir()}, args...)
	go func() {
		err := runServe(ctx, cli.Env{}, args, pw, stderr)
		pw.CloseWithError(fmt.Errorf("serve ended: %v", err))
		done <- err
	}()
	br := bufio.NewReader(pr)
	line, err := br.ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("rlm serve did not start: %v\n%s", err, stderr.String())
	}
	stdout := &syncBuffer{}
	go io.Copy(stdout, br)
	url := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	var once sync.Once
	var stopErr error
	s := &served{URL: url, Stdout: stdout, Stderr: stderr, stop: func() error {
		once.Do(func() { cancel(); stopErr = <-done })
		return stopErr
	}}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("rlm serve: %v", err)
		}
	})
	return s
}

// logText is a log with 42 FAIL lines, long enough (54 KB) to be
// offloaded into the REPL; failRE finds the count the fake
// root model's code printed.
var (
	logText = strings.Repeat("ok line\n", 3000) + strings.Repeat("FAIL line\n", 42) + strings.Repeat("ok line\n", 3000)
	failRE  = regexp.MustCompile(`sub says: ack (\d+)`)
)

// countingUpstream is a fakellm script (a test double for a model): the
// root writes Go that counts FAIL in the context and asks llm_query to
// confirm; the sub-model acknowledges; the root then answers FINAL.
func countingUpstream(req fakellm.Request) fakellm.Reply {
	if !strings.Contains(req.System(), "FINAL") {
		// A sub-call: echo the number back.
		return fakellm.Reply{Content: "ack " + strings.TrimPrefix(req.LastUser(), "count=")}
	}
	if m := failRE.FindStringSubmatch(req.LastUser()); m != nil {
		return fakellm.Reply{Content: "FINAL(" + m[1] + " failures)"}
	}
	if req.Turn() > 1 {
		return fakellm.Reply{Content: "FINAL(lost)"}
	}
	return fakellm.Reply{Content: fakellm.Code(`import (
	"fmt"
	"strings"
)
n := strings.Count(context, "FAIL")
fmt.Println("sub says:", llm_query(fmt.Sprintf("count=%d", n)))`)}
}

func upstreamArgs(url string) []string {
	return []string{"--upstream", url, "--root-model", "root-model", "--models", "rlm,small=small-model", "--upstream-retries", "0"}
}

// TestServeGoOpenAI drives the server with go-openai as the client, against
// the real engine and REPL, with a fake upstream.
func TestServeGoOpenAI(t *testing.T) {
	up := fakellm.New(countingUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--api-key", "k1,k2", "--metrics-key", "mk")...)
	cfg := openai.DefaultConfig("k1")
	cfg.BaseURL = s.URL + "/v1"
	client := openai.NewClientWithConfig(cfg)
	ctx := context.Background()

	resp, err := client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model:    "rlm",
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "How many failures?\n" + logText}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Message.Content; got != "42 failures" || resp.Choices[0].FinishReason != "stop" || resp.Usage.TotalTokens == 0 {
		t.Errorf("answer %q finish %q usage %+v", got, resp.Choices[0].FinishReason, resp.Usage)
	}
	tid := resp.Header().Get("X-RLM-Trace-Id")
	if tid == "" {
		t.Error("no X-RLM-Trace-Id")
	}
	// The run was recorded as a trace that only its key can read.
	for key, want := range map[string]int{"k1": 200, "k2": 404} {
		req, _ := http.NewRequest("GET", s.URL+"/v1/traces/"+tid, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != want || (want == 200 && !strings.Contains(string(b), "42 failures")) {
			t.Errorf("GET trace with %s: %d %.200s", key, r.StatusCode, b)
		}
	}
	if r, err := http.Get(s.URL + "/ui/"); err != nil || r.StatusCode != 200 {
		t.Errorf("viewer: %v %v", r, err)
	} else {
		r.Body.Close()
	}

	stream, err := client.CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{
		Model: "rlm", Stream: true, StreamOptions: &openai.StreamOptions{IncludeUsage: true},
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "How many failures?\n" + logText}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var content strings.Builder
	var finish openai.FinishReason
	var usage *openai.Usage
	for {
		ch, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ch.Usage != nil {
			usage = ch.Usage
		}
		for _, c := range ch.Choices {
			content.WriteString(c.Delta.Content)
			if c.FinishReason != "" {
				finish = c.FinishReason
			}
		}
	}
	stream.Close()
	if content.String() != "42 failures" || finish != "stop" || usage == nil || usage.TotalTokens == 0 {
		t.Errorf("stream: %q finish %q usage %+v", content.String(), finish, usage)
	}

	_, err = client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "nope",
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "x"}}})
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 404 || apiErr.Param == nil || *apiErr.Param != "model" {
		t.Errorf("unknown model: %v", err)
	}
	models, err := client.ListModels(ctx)
	if err != nil || len(models.Models) != 2 || models.Models[0].ID != "rlm" {
		t.Errorf("models %+v, %v", models, err)
	}
	// The runs are over: their REPL workers are gone from the pool's count.
	req, _ := http.NewRequest("GET", s.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer mk")
	if r, err := http.DefaultClient.Do(req); err != nil {
		t.Error(err)
	} else {
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if !strings.Contains(string(b), `rlm_repl_workers{state="busy"} 0`+"\n") || !strings.Contains(string(b), `rlm_repl_workers{state="idle"} `) {
			t.Errorf("metrics lack rlm_repl_workers:\n%s", b)
		}
	}
}

// nodeSDK returns the node binary, skipping the test (failing it in CI)
// when node or the npm openai package is missing.
func nodeSDK(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	sdk := filepath.Join("..", "..", "tests", "node", "node_modules", "openai")
	if _, serr := os.Stat(sdk); err != nil || serr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node and tests/node/node_modules/openai are required in CI (cd tests/node && npm ci): %v %v", err, serr)
		}
		t.Skip("node or the npm openai package is missing; run: cd tests/node && npm ci")
	}
	return node
}

// runNodeScript runs a script of tests/node against s and returns what it
// printed on stdout; it fails the test, with both sides' logs, if the
// script exits non-zero.
func runNodeScript(t *testing.T, node, script string, s *served, env ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = filepath.Join("..", "..", "tests", "node")
	cmd.Env = append(append(os.Environ(), "RLM_BASE_URL="+s.URL+"/v1"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\n%s\nserver log:\n%s", script, err, stderr.String(), s.Stderr.String())
	}
	return stdout.Bytes()
}

// TestNodeSDK runs tests/node/server_sdk.mjs, the official npm openai
// client against `rlm serve`, real engine and REPL, fake upstream.
func TestNodeSDK(t *testing.T) {
	node := nodeSDK(t)
	up := fakellm.New(countingUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--api-key", "node-key")...)
	stdout := runNodeScript(t, node, "server_sdk.mjs", s, "RLM_KEY=node-key", "RLM_LOG_TEXT="+logText)
	var res struct {
		Plain struct {
			Content string
			RLM     struct {
				TraceID    string `json:"trace_id"`
				Iterations int
				LLMCalls   int `json:"llm_calls"`
			}
		}
		Stream struct {
			Content  string
			Progress int
		}
		File   struct{ Content string }
		BadKey struct {
			Status int
		} `json:"bad_key"`
	}
	if err := json.Unmarshal(stdout, &res); err != nil {
		t.Fatalf("node output %q: %v", stdout, err)
	}
	if res.Plain.Content != "42 failures" || res.Plain.RLM.TraceID == "" || res.Plain.RLM.Iterations != 2 || res.Plain.RLM.LLMCalls != 3 {
		t.Errorf("plain: %+v", res.Plain)
	}
	if res.Stream.Content != "42 failures" || res.Stream.Progress < 5 {
		t.Errorf("stream: %+v (want the answer and progress chunks)", res.Stream)
	}
	if res.File.Content != "42 failures" {
		t.Errorf("file: %+v", res.File)
	}
	if res.BadKey.Status != 401 {
		t.Errorf("bad key: %+v", res.BadKey)
	}
}

// TestNodeSDKStored runs tests/node/stored_sdk.mjs: the official npm
// openai client's chat.completions.list/retrieve/update/delete and
// messages.list against `rlm serve` with two API keys, real engine and
// REPL, fake upstream.
func TestNodeSDKStored(t *testing.T) {
	node := nodeSDK(t)
	up := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Content: "FINAL(stored answer)"}
	})
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--api-key", "key-one,key-two")...)
	stdout := runNodeScript(t, node, "stored_sdk.mjs", s, "RLM_KEY=key-one", "RLM_OTHER_KEY=key-two")
	var res struct {
		List struct {
			IDs   []string `json:"ids"`
			Desc  int
			Even  int
			Small int
		}
		Retrieve struct {
			Status   string
			Content  string
			Metadata map[string]string
		}
		Delete struct {
			Deleted bool
		}
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(stdout, &res); err != nil {
		t.Fatalf("node output %q: %v", stdout, err)
	}
	if len(res.List.IDs) != 5 || res.List.Desc != 5 || res.List.Even != 3 || res.List.Small != 1 {
		t.Errorf("list: %+v", res.List)
	}
	if res.Retrieve.Status != "completed" || res.Retrieve.Content != "stored answer" || res.Retrieve.Metadata["n"] != "1" {
		t.Errorf("retrieve: %+v", res.Retrieve)
	}
	if !res.Delete.Deleted || len(res.Messages) != 2 || res.Messages[1].Content != "question 2" {
		t.Errorf("delete %+v, messages %+v", res.Delete, res.Messages)
	}
}

// TestServeUnconfigured: with no upstream and the built-in model turned
// off (--local-model none; without it the built-in model answers, see
// TestBuiltinServe), serve starts on localhost, says loudly what is
// missing, and a chat request gets an error naming what to configure.
func TestServeUnconfigured(t *testing.T) {
	for _, k := range []string{"RLM_UPSTREAM", "OPENAI_BASE_URL", "RLM_ROOT_MODEL", "RLM_API_KEY", "RLM_CONFIG", "RLM_LOCAL_MODEL"} {
		t.Setenv(k, "")
	}
	s := startServe(t, "--local-model", "none")
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Errorf("listening on %s", s.URL)
	}
	log := s.Stderr.String()
	for _, want := range []string{"NOT CONFIGURED", "no upstream configured: set --upstream", "NO API KEYS", "viewer=" + s.URL + "/ui/"} {
		if !strings.Contains(log, want) {
			t.Errorf("startup log lacks %q:\n%s", want, log)
		}
	}
	// The viewer's address is printed at start, and / leads to it.
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(s.Stdout.String(), "trace viewer on "+s.URL+"/ui/\n") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if out := s.Stdout.String(); !strings.Contains(out, "trace viewer on "+s.URL+"/ui/\n") {
		t.Errorf("stdout lacks the viewer's address: %q", out)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	root, err := noFollow.Get(s.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	root.Body.Close()
	if root.StatusCode != http.StatusFound || root.Header.Get("Location") != "/ui/" {
		t.Errorf("GET /: %d, Location %q; want a redirect to /ui/", root.StatusCode, root.Header.Get("Location"))
	}
	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"rlm","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 503 || !strings.Contains(string(b), "--upstream") {
		t.Errorf("chat without upstream: %d %s", resp.StatusCode, b)
	}
}

// TestServeCancellation: a request that is not stored stops calling the
// upstream when its client leaves; a stored one goes on to its answer.
func TestServeCancellation(t *testing.T) {
	// A root model that never finishes on its own: each turn runs a cell
	// that makes one sub-call; the stored run is allowed to finish at turn 4.
	script := func(req fakellm.Request) fakellm.Reply {
		if !strings.Contains(req.System(), "FINAL") {
			return fakellm.Reply{Content: "sub"}
		}
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "sub") && strings.Contains(req.Messages[1].Content, "finish") && req.Turn() >= 4 {
			return fakellm.Reply{Content: "FINAL(finished)"}
		}
		return fakellm.Reply{Content: fakellm.Code(`import "fmt"
fmt.Println(llm_query("x"))`)}
	}
	up := fakellm.New(script, fakellm.WithLatency(100*time.Millisecond))
	defer up.Close()
	s := startServe(t, upstreamArgs(up.URL)...)

	post := func(ctx context.Context, body string) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		return http.DefaultClient.Do(req)
	}
	waitCalls := func(n int) {
		deadline := time.Now().Add(20 * time.Second)
		for len(up.Requests()) < n {
			if time.Now().After(deadline) {
				t.Fatalf("upstream saw %d calls, waited for %d", len(up.Requests()), n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	go post(ctx, `{"model":"rlm","messages":[{"role":"user","content":"loop"}]}`)
	waitCalls(3)
	cancel()
	time.Sleep(300 * time.Millisecond) // one call may have been in flight
	after := len(up.Requests())
	time.Sleep(600 * time.Millisecond)
	if n := len(up.Requests()); n != after {
		t.Errorf("upstream calls went on after the client left: %d -> %d", after, n)
	}

	before := len(up.Requests())
	ctx2, cancel2 := context.WithCancel(context.Background())
	resp, err := post(ctx2, `{"model":"rlm","store":true,"stream":true,"messages":[{"role":"user","content":"finish"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	// The first chunk carries the id of the stored completion.
	rd := bufio.NewReader(resp.Body)
	line, _ := rd.ReadString('\n')
	var first struct{ ID string }
	json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &first)
	if first.ID == "" {
		t.Fatalf("first stream line %q", line)
	}
	waitCalls(before + 2)
	cancel2()
	resp.Body.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, err := http.Get(s.URL + "/v1/chat/completions/" + first.ID)
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			Status  string
			Choices []struct{ Message struct{ Content string } }
		}
		json.NewDecoder(r.Body).Decode(&c)
		r.Body.Close()
		if c.Status == "completed" {
			if c.Choices[0].Message.Content != "finished" {
				t.Errorf("stored answer %+v", c)
			}
			break
		}
		if c.Status != "in_progress" || time.Now().After(deadline) {
			t.Fatalf("stored completion status %q", c.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServeRedisStore runs the gateway on the Redis store (a real
// redis-server): a file uploaded through one replica is answered from by
// another, which maps it from its own local cache.
func TestServeRedisStore(t *testing.T) {
	url := storetest.StartRedis(t)
	up := fakellm.New(countingUpstream)
	defer up.Close()
	args := append(upstreamArgs(up.URL), "--store", "redis", "--redis-url", url, "--api-key", "k")
	a := startServe(t, append(args, "--redis-cache-dir", t.TempDir())...)
	b := startServe(t, append(args, "--redis-cache-dir", t.TempDir())...)

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "app.log")
	fw.Write([]byte(logText))
	mw.Close()
	req, _ := http.NewRequest("POST", a.URL+"/v1/files", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&f)
	resp.Body.Close()
	if resp.StatusCode != 200 || f.ID == "" {
		t.Fatalf("upload: %d", resp.StatusCode)
	}
	chat := fmt.Sprintf(`{"model":"rlm","store":true,"messages":[{"role":"user","content":[{"type":"text","text":"count"},{"type":"file","file":{"file_id":%q}}]}]}`, f.ID)
	req, _ = http.NewRequest("POST", b.URL+"/v1/chat/completions", strings.NewReader(chat))
	req.Header.Set("Authorization", "Bearer k")
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		ID      string
		Choices []struct{ Message struct{ Content string } }
	}
	json.NewDecoder(resp.Body).Decode(&c)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(c.Choices) != 1 || c.Choices[0].Message.Content != "42 failures" {
		t.Fatalf("chat on the other replica: %d %+v", resp.StatusCode, c)
	}
	// The stored completion is visible from the first replica too.
	req, _ = http.NewRequest("GET", a.URL+"/v1/chat/completions/"+c.ID, nil)
	req.Header.Set("Authorization", "Bearer k")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("stored completion from the other replica: %d", resp.StatusCode)
	}
}

// TestServeGracefulShutdown: a signal (the context's cancellation) lets the
// request in flight finish within --shutdown-grace before serve returns.
func TestServeGracefulShutdown(t *testing.T) {
	up := fakellm.New(countingUpstream, fakellm.WithLatency(200*time.Millisecond))
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--shutdown-grace", "20s")...)
	got := make(chan string, 1)
	go func() {
		resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"rlm","messages":[{"role":"user","content":"How many failures?\n`+strings.ReplaceAll(logText, "\n", `\n`)+`"}]}`))
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		var c struct {
			Choices []struct{ Message struct{ Content string } }
		}
		json.NewDecoder(resp.Body).Decode(&c)
		if len(c.Choices) == 0 {
			got <- fmt.Sprintf("status %d", resp.StatusCode)
			return
		}
		got <- c.Choices[0].Message.Content
	}()
	for len(up.Requests()) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.stop(); err != nil {
		t.Fatalf("serve: %v", err)
	}
	if answer := <-got; answer != "42 failures" {
		t.Errorf("request in flight at shutdown got %q", answer)
	}
	if !strings.Contains(s.Stderr.String(), "shutting down") {
		t.Errorf("no shutdown log:\n%s", s.Stderr.String())
	}
}

// TestServeTraceStream: with the Redis store (a real redis-server), a
// finished chat completion against fakellm (a scripted fake upstream, not a
// model) is appended to the trajectory stream, where a trainer's consumer
// group reads it.
func TestServeTraceStream(t *testing.T) {
	url := storetest.StartRedis(t)
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ctx := t.Context()
	const stream = "test:trajectories"
	// The group exists before the run, reading only what comes after ($).
	if err := rdb.XGroupCreateMkStream(ctx, stream, "trainers", "$").Err(); err != nil {
		t.Fatal(err)
	}
	up := fakellm.New(countingUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--store", "redis", "--redis-url", url,
		"--redis-cache-dir", t.TempDir(), "--trace-stream", stream, "--trace-stream-maxlen", "50")...)
	if !strings.Contains(s.Stderr.String(), "trace_stream="+stream) {
		t.Errorf("startup log does not name the stream:\n%s", s.Stderr.String())
	}

	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"rlm","messages":[{"role":"user","content":`+jsonString("How many failures?\n"+logText)+`}]}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	traceID := resp.Header.Get("X-RLM-Trace-Id")
	if resp.StatusCode != 200 || traceID == "" {
		t.Fatalf("chat: %d, trace id %q", resp.StatusCode, traceID)
	}

	// The run is published when it has been saved, which may be just after
	// the response; the read blocks until then.
	res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "trainers", Consumer: "worker-1",
		Streams: []string{stream, ">"}, Count: 10, Block: 10 * time.Second}).Result()
	if err != nil {
		t.Fatalf("XREADGROUP: %v", err)
	}
	if len(res) != 1 || len(res[0].Messages) != 1 {
		t.Fatalf("read %+v, want one entry", res)
	}
	m := res[0].Messages[0]
	var traj struct {
		ID, Owner, Status, Answer string
	}
	if err := json.Unmarshal([]byte(fmt.Sprint(m.Values["trajectory"])), &traj); err != nil {
		t.Fatalf("trajectory field: %v: %v", err, m.Values)
	}
	if m.Values["id"] != traceID || m.Values["status"] != "completed" || m.Values["stop_reason"] != "final" ||
		traj.ID != traceID || traj.Answer != "42 failures" {
		t.Errorf("entry %v, trajectory %+v; want trace %s completed with 42 failures", m.Values, traj, traceID)
	}
	if err := rdb.XAck(ctx, stream, "trainers", m.ID).Err(); err != nil {
		t.Fatal(err)
	}
	if p, err := rdb.XPending(ctx, stream, "trainers").Result(); err != nil || p.Count != 0 {
		t.Errorf("pending after XACK: %+v, %v", p, err)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestServeMaxDepth checks that --max-depth 0 allows the root alone: a
// request asking for depth 3 gets no child RLM, its rlm_query answered as
// an llm_query; with --max-depth 1 the same request starts a child.
func TestServeMaxDepth(t *testing.T) {
	// The fake upstream: the root asks one rlm_query; a child RLM (which
	// has the system prompt) answers "child", a plain call "plain".
	script := func(req fakellm.Request) fakellm.Reply {
		switch {
		case req.System() == "":
			return fakellm.Reply{Content: "plain"}
		case strings.Contains(req.LastUser(), "What is 2+2?"):
			return fakellm.Reply{Content: "FINAL(child)"}
		}
		return fakellm.Reply{Content: fakellm.Code(`FINAL(rlm_query("What is 2+2?"))`)}
	}
	tests := []struct {
		maxDepth, want string
	}{
		{"0", "plain"},
		{"1", "child"},
	}
	for _, tt := range tests {
		t.Run("max-depth "+tt.maxDepth, func(t *testing.T) {
			up := fakellm.New(script)
			defer up.Close()
			s := startServe(t, append(upstreamArgs(up.URL), "--max-depth", tt.maxDepth)...)
			resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json",
				strings.NewReader(`{"model":"rlm","rlm":{"max_depth":3},"messages":[{"role":"user","content":"q"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Choices []struct {
					Message struct{ Content string }
				}
			}
			b, _ := io.ReadAll(resp.Body)
			if err := json.Unmarshal(b, &body); err != nil || resp.StatusCode != 200 || len(body.Choices) != 1 {
				t.Fatalf("%d %v: %s", resp.StatusCode, err, b)
			}
			if got := body.Choices[0].Message.Content; got != tt.want {
				t.Errorf("answer %q, want %q", got, tt.want)
			}
		})
	}
}

// TestNodeSDKResponses runs tests/node/responses_sdk.mjs: the official npm
// openai client's responses.create (plain, streamed, background),
// retrieve (polled and streamed again), cancel, delete, inputItems.list
// and a follow-up, against `rlm serve` with the real engine and REPL and a
// fake upstream (a scripted test double).
func TestNodeSDKResponses(t *testing.T) {
	node := nodeSDK(t)
	up := fakellm.New(responsesUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--api-key", "key-one,key-two")...)
	stdout := runNodeScript(t, node, "responses_sdk.mjs", s, "RLM_KEY=key-one", "RLM_OTHER_KEY=key-two")
	var res struct {
		Plain struct {
			Status, Text string
			Usage        struct {
				TotalTokens int `json:"total_tokens"`
			}
			Metadata map[string]string
		}
		Stream struct {
			Types []string
			Text  string
		}
		Background struct {
			Status, Text    string
			Replayed, First int
		}
		Helper     struct{ Status, Text string }
		Cancel     struct{ Status string }
		InputItems []struct{ Role, Type, Text string }
		FollowUp   struct{ Status, Text, Previous, Session string }
	}
	if err := json.Unmarshal(stdout, &res); err != nil {
		t.Fatalf("node output %q: %v", stdout, err)
	}
	if res.Plain.Status != "completed" || res.Plain.Text != "Paris" || res.Plain.Usage.TotalTokens == 0 || res.Plain.Metadata["suite"] != "sdk" {
		t.Errorf("plain: %+v", res.Plain)
	}
	want := "response.created response.in_progress response.output_item.added response.content_part.added response.output_text.delta " +
		"response.output_text.done response.content_part.done response.output_item.done response.completed"
	if strings.Join(res.Stream.Types, " ") != want || res.Stream.Text != "Paris" {
		t.Errorf("stream: %+v", res.Stream)
	}
	if res.Background.Status != "completed" || res.Background.Text != "Paris" || res.Background.First != 1 || res.Background.Replayed < 5 {
		t.Errorf("background: %+v", res.Background)
	}
	if res.Helper.Status != "completed" || res.Helper.Text != "Paris" {
		t.Errorf("stream helper: %+v", res.Helper)
	}
	if res.Cancel.Status != "cancelled" {
		t.Errorf("cancel: %+v", res.Cancel)
	}
	if len(res.InputItems) != 1 || res.InputItems[0].Type != "input_text" || res.InputItems[0].Text != "What is the capital of France?" {
		t.Errorf("input items: %+v", res.InputItems)
	}
	if res.FollowUp.Status != "completed" || res.FollowUp.Text != "I said Paris." || res.FollowUp.Previous == "" || res.FollowUp.Session != "continued" {
		t.Errorf("follow-up: %+v", res.FollowUp)
	}
}

// responsesUpstream is the fake upstream (a scripted test double) of the
// Responses tests: it waits long on a prompt that says "slow", defines a
// variable in a cell for the first question and, on a follow-up in the same
// REPL session, writes a cell that reads it; without that session it does
// not remember.
func responsesUpstream(req fakellm.Request) fakellm.Reply {
	last := req.LastUser()
	switch {
	case strings.Contains(last, "slow:"):
		return fakellm.Reply{Content: "FINAL(too late)", Delay: time.Minute}
	case strings.Contains(last, "Follow-up") && strings.Contains(last, "what did you say before"):
		// Only the first turn's REPL session has the variable.
		return fakellm.Reply{Content: "```go\nFINAL(\"I said \" + capital + \".\")\n```"}
	case strings.Contains(last, "what did you say before"), strings.Contains(last, "undefined: capital"):
		return fakellm.Reply{Content: "FINAL(I do not remember.)"}
	case strings.Contains(last, "capital of France"):
		return fakellm.Reply{Content: "```go\ncapital := \"Paris\"\nFINAL(capital)\n```"}
	}
	return fakellm.Reply{Content: "FINAL(Paris)"}
}

// TestResponsesSessionGone: a follow-up whose previous response's REPL
// session is no longer kept (here evicted by --max-sessions 1) runs in a
// new session with the earlier turns as messages, and says so; with
// rlm.require_session it is refused with 409 session_gone instead.
func TestResponsesSessionGone(t *testing.T) {
	up := fakellm.New(responsesUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--max-sessions", "1")...)
	post := func(body string) map[string]any {
		t.Helper()
		resp, err := http.Post(s.URL+"/v1/responses", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != 200 {
			t.Fatalf("POST %s: %d %v %v", body, resp.StatusCode, m, err)
		}
		return m
	}
	first := post(`{"model":"rlm","input":"What is the capital of France?"}`)
	post(`{"model":"rlm","input":"Something else."}`) // its session evicts the first one's
	// A follow-up that requires the session is refused and says why.
	resp, err := http.Post(s.URL+"/v1/responses", "application/json", strings.NewReader(
		`{"model":"rlm","input":"And what did you say before?","previous_response_id":"`+first["id"].(string)+`","rlm":{"require_session":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 409 || !strings.Contains(string(body), `"code":"session_gone"`) || !strings.Contains(string(body), "evicted") {
		t.Errorf("require_session without the session: %d %s", resp.StatusCode, body)
	}
	follow := post(`{"model":"rlm","input":"And what did you say before?","previous_response_id":"` + first["id"].(string) + `"}`)
	info, _ := follow["rlm"].(map[string]any)
	output, _ := json.Marshal(follow["output"])
	if info["session"] != "new" || !strings.Contains(fmt.Sprint(info["session_note"]), "evicted to keep a newer one") ||
		!strings.Contains(string(output), "I do not remember.") {
		t.Errorf("follow-up without its session: rlm %v, output %s", info, output)
	}
}
