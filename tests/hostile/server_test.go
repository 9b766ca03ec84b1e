// Package hostile runs the attacks of issue 10, the ones the gateway
// already withstands, and a kill with stored runs in progress (issue 24),
// against the real `rlm serve` binary: built once by
// TestMain, started per test as a separate process with its real REPL
// workers. The upstream is internal/fakellm, a scripted test double (not a
// model): its "root model" writes the attack's code and its "sub-model"
// answers sub-calls, refusing prompts over 1 MB as a real upstream refuses
// a prompt beyond its context window.
package hostile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// rlmBinary is the rlm binary under test: $RLM_HOSTILE_BINARY when set (the
// benchmark compares builds that way), else one built by TestMain.
var rlmBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rlm-hostile-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rlmBinary = os.Getenv("RLM_HOSTILE_BINARY")
	if rlmBinary == "" {
		rlmBinary = filepath.Join(dir, "rlm")
		build := exec.Command("go", "build", "-o", rlmBinary, "github.com/rlm-project/rlm/cmd/rlm")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build rlm:", err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Two tenants: a trace of one must be invisible to the other.
const (
	keyA = "key-tenant-a"
	keyB = "key-tenant-b"
)

// attackMarker starts the visible user message that names the scripted
// attack: "ATTACK name".
const attackMarker = "ATTACK "

// attacks maps an attack's name to the replies of the fake root model, one
// per turn; the last repeats.
var attacks = map[string][]string{
	"trivial": {"FINAL(hi)"},
	// Issue 10: a loop of 16 MiB prompts drove the gateway to 8 GB.
	"loop": {"```go\nfor i := 0; i < 100; i++ {\n\tr := llm_query(strings.Repeat(\"a\", 16<<20))\n\tif i == 0 {\n\t\tfmt.Println(r)\n\t}\n}\n```", "FINAL(looped)"},
	// Issue 10: a 200 MiB FINAL was held three times and written to the trace.
	"final": {"```go\nFINAL(strings.Repeat(\"A\", 200<<20))\n```", "FINAL(short)"},
	// Issue 10: yaegi's error quoted the whole context.
	"assign": {"```go\ncontext = \"x\"\n```", "FINAL(assigned)"},
	// Issue 10: every prompt of a refused batch cost an event and a record.
	"batch": {"```go\nr := llm_query_batched(make([]string, 1000000))\nfmt.Println(len(r), r[0])\n```\n```go\nr2 := llm_query_batched(make([]string, 5000))\nfmt.Println(len(r2), r2[0])\n```", "FINAL(batched)"},
}

// rootScript is the fake upstream: root turns follow the attack named in the
// request, sub-calls answer "ok" and refuse prompts over 1 MB with 400.
func rootScript(req fakellm.Request) fakellm.Reply {
	if req.Model == "sub" {
		if len(req.LastUser()) > 1<<20 {
			return fakellm.Reply{Status: http.StatusBadRequest}
		}
		return fakellm.Reply{Content: "ok"}
	}
	name := ""
	for _, m := range req.Messages {
		if i := strings.Index(m.Content, attackMarker); i >= 0 && m.Role == "user" {
			name = strings.Fields(m.Content[i+len(attackMarker):])[0]
			break
		}
	}
	turns := attacks[name]
	if turns == nil {
		return fakellm.Reply{Content: "FINAL(unknown attack " + name + ")"}
	}
	return fakellm.Reply{Content: turns[min(req.Turn(), len(turns))-1]}
}

// server is one `rlm serve` process.
type server struct {
	url  string
	cmd  *exec.Cmd
	data string
	done chan struct{}
	mu   sync.Mutex
	logs bytes.Buffer
}

// startServer starts rlm serve against upstream with extra flags.
func startServer(t testing.TB, upstream string, extra ...string) *server {
	t.Helper()
	return startServerIn(t, t.TempDir(), upstream, extra...)
}

// startServerIn is startServer on the data directory data, which another
// server may have used before.
func startServerIn(t testing.TB, data, upstream string, extra ...string) *server {
	t.Helper()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--upstream", upstream, "--root-model", "root",
		"--sub-model", "sub", "--models", "rlm", "--data-dir", data, "--api-key", keyA + "," + keyB,
		"--repl-workers", "2", "--upstream-retries", "0", "--log-level", "warn"}, extra...)
	s := startRLM(t, args...)
	s.data = data
	return s
}

// startRLM runs the rlm binary with args (a command that prints
// "listening on URL" once it serves) and stops it when the test ends.
func startRLM(t testing.TB, args ...string) *server {
	t.Helper()
	s := &server{done: make(chan struct{})}
	s.cmd = exec.Command(rlmBinary, args...)
	// The server's temp files (contexts, workers' empty directories) in a
	// directory of the test's, which workers running as another uid (a
	// server started as root confines them so) must be able to enter.
	tmp, err := os.MkdirTemp("", "rlm-hostile-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o711); err != nil {
		t.Fatal(err)
	}
	s.cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stderr = &lockedWriter{s: s}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				addr <- a
			}
		}
	}()
	go func() {
		s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() { s.stop(t) })
	select {
	case s.url = <-addr:
	case <-s.done:
		t.Fatalf("rlm %s exited at start: %s", args[0], s.stderr())
	case <-time.After(60 * time.Second):
		t.Fatalf("rlm %s did not start: %s", args[0], s.stderr())
	}
	return s
}

type lockedWriter struct{ s *server }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	if w.s.logs.Len() < 1<<20 {
		w.s.logs.Write(p)
	}
	return len(p), nil
}

func (s *server) stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// stop sends SIGTERM and waits; the server must shut down cleanly.
func (s *server) stop(t testing.TB) {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
		t.Errorf("rlm serve did not stop on SIGINT; killed")
	}
}

// kill ends the server with SIGKILL, as the OOM killer or a crash would:
// no shutdown, nothing written on the way out.
func (s *server) kill(t testing.TB) {
	t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatalf("kill rlm serve: %v", err)
	}
	<-s.done
}

// alive fails the test when the server process exited.
func (s *server) alive(t testing.TB) {
	t.Helper()
	select {
	case <-s.done:
		t.Fatalf("rlm serve exited: %s", s.stderr())
	default:
	}
}

// peakRSS is the server's high-water resident set (VmHWM) in bytes.
func (s *server) peakRSS(t testing.TB) int64 {
	t.Helper()
	return procStatus(t, s.cmd.Process.Pid, "VmHWM")
}

func procStatus(t testing.TB, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read status of %d: %v", pid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("parse %s %q: %v", field, v, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// dataBytes is the size of every file under the server's data directory.
func (s *server) dataBytes(t testing.TB) int64 {
	t.Helper()
	var n int64
	filepath.WalkDir(s.data, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// largestFile is the largest file under the data directory.
func (s *server) largestFile(t testing.TB) (string, int64) {
	t.Helper()
	var name string
	var size int64
	filepath.WalkDir(s.data, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil && fi.Size() > size {
				name, size = path, fi.Size()
			}
		}
		return nil
	})
	return name, size
}

// do sends a request with key and returns the status and body.
func (s *server) do(t testing.TB, method, path, key string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return resp.StatusCode, b
}

// completion is the part of a chat completion the tests read.
type completion struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	RLM struct {
		TraceID    string `json:"trace_id"`
		StopReason string `json:"stop_reason"`
	} `json:"rlm"`
}

func (c completion) answer() string {
	if len(c.Choices) == 0 {
		return ""
	}
	return c.Choices[0].Message.Content
}

// chat runs the named attack, with an optional offloaded context before
// the marker, and returns the completion and the raw body size.
func (s *server) chat(t testing.TB, key, attack string, context string) (completion, int) {
	t.Helper()
	var msgs []map[string]string
	if context != "" {
		msgs = append(msgs, map[string]string{"role": "user", "content": context})
	}
	msgs = append(msgs, map[string]string{"role": "user", "content": attackMarker + attack})
	body, err := json.Marshal(map[string]any{"model": "rlm", "messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	status, b := s.do(t, "POST", "/v1/chat/completions", key, body)
	if status != http.StatusOK {
		t.Fatalf("attack %s: status %d: %.500s", attack, status, b)
	}
	var c completion
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("attack %s: decode completion: %v: %.300s", attack, err, b)
	}
	return c, len(b)
}

// trajectory is the part of a trace the tests read.
type trajectory struct {
	Answer    string          `json:"answer"`
	Truncated json.RawMessage `json:"truncated"`
	Used      struct {
		SubCalls int `json:"sub_calls"`
	} `json:"used"`
	Nodes []struct {
		Turns []struct {
			Cells []struct {
				Code     string  `json:"code"`
				Output   string  `json:"output"`
				Error    string  `json:"error"`
				Final    *string `json:"final"`
				SubCalls []struct {
					Batch  int    `json:"batch"`
					Prompt string `json:"prompt"`
					Error  string `json:"error"`
				} `json:"sub_calls"`
			} `json:"cells"`
		} `json:"turns"`
	} `json:"nodes"`
}

// trace fetches a finished run's trajectory (saving is in the background:
// it is retried until stored) and its size.
func (s *server) trace(t testing.TB, key, id string) (trajectory, int) {
	t.Helper()
	var b []byte
	for deadline := time.Now().Add(30 * time.Second); ; {
		var status int
		status, b = s.do(t, "GET", "/v1/traces/"+id, key, nil)
		if status == http.StatusOK && !bytes.Contains(b, []byte(`"status":"running"`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("trace %s: status %d: %.300s", id, status, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var tr trajectory
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("decode trace: %v", err)
	}
	return tr, len(b)
}

func itoa(n int) string { return strconv.Itoa(n) }

// postJSON posts v as JSON with key; a transport failure is status 0.
func postJSON(url, key string, v any) (int, string) {
	body, err := json.Marshal(v)
	if err != nil {
		return 0, err.Error()
	}
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 10 * time.Minute}).Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
