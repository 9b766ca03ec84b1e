package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/gateway"
	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/internal/proctest"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/recursion/upstream"
	"github.com/rlm-project/rlm/repl"
)

func TestMain(m *testing.M) {
	// The test binary is also the REPL worker of the gateways it starts.
	repl.MaybeRunWorker()
	os.Exit(m.Run())
}

// printed finds what the fake root model's cell printed, in the feedback
// the engine sends back.
var printed = regexp.MustCompile(`answer: (\d+)`)

// rootScript plays the root model for these tests: it runs one cell in the
// REPL, then answers with what the cell printed. It is a fake, not a
// model: these tests check the gateway's assembly, not answers.
func rootScript(lastUser string) string {
	if m := printed.FindStringSubmatch(lastUser); m != nil {
		return "FINAL(" + m[1] + ")"
	}
	return fakellm.Code("import \"fmt\"\nfmt.Println(\"answer:\", 6*7)")
}

// fakeUpstream serves rootScript as an OpenAI-compatible upstream.
func fakeUpstream() *fakellm.Server {
	return fakellm.New(func(r fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: rootScript(r.LastUser())} })
}

// scriptClient is rootScript as an in-process model client, the way a
// local model answers without an upstream.
type scriptClient struct{}

func (scriptClient) Complete(_ context.Context, req llm.Request) (llm.Completion, error) {
	last := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			last = m.Content
		}
	}
	return llm.Completion{Content: rootScript(last), FinishReason: "stop"}, nil
}

// baseConfig is a gateway on a disk store in a fresh directory, with one
// model alias and no idle REPL workers.
func baseConfig(t *testing.T) gateway.Config {
	return gateway.Config{
		Logger: slog.New(slog.NewTextHandler(t.Output(), nil)),
		Store:  gateway.StoreConfig{Kind: gateway.StoreDisk, Dir: t.TempDir()},
		Models: []gateway.Model{{Alias: "rlm", Upstream: "root-model"}},
		Engine: gateway.EngineConfig{
			Upstream: upstream.Config{MaxRetries: -1},
			Pool:     repl.PoolConfig{Size: 1},
		},
		Probe:     gateway.ProbeConfig{Timeout: 5 * time.Second, Ready: true, Interval: 20 * time.Millisecond},
		Retention: gateway.RetentionConfig{Interval: time.Hour, TraceMaxAge: time.Hour},
	}
}

// TestGateway starts gateways in-process, asks each for a chat completion
// over HTTP, and checks that closing one leaves no goroutine or REPL
// worker behind.
func TestGateway(t *testing.T) {
	up := fakeUpstream()
	defer up.Close()
	tests := []struct {
		name   string
		config func(*gateway.Config)
		status int
		want   string // in the body
	}{
		{"upstream", func(c *gateway.Config) { c.Engine.Upstream.BaseURL = up.URL }, http.StatusOK, `"content":"42"`},
		{"in-process model", func(c *gateway.Config) { c.Engine.Recursion.Root = scriptClient{} }, http.StatusOK, `"content":"42"`},
		{"not configured", func(c *gateway.Config) { c.NotConfigured = "set an upstream" }, http.StatusServiceUnavailable, "set an upstream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			goroutines, workers := runtime.NumGoroutine(), childProcesses(t)
			cfg := baseConfig(t)
			tt.config(&cfg)
			g, err := gateway.New(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			served := make(chan error, 1)
			go func() { served <- g.Serve(ln) }()
			client := &http.Client{Transport: &http.Transport{}}
			status, body := chat(t, client, "http://"+ln.Addr().String())
			if status != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("chat: %d %s; want %d with %s", status, body, tt.status, tt.want)
			}
			client.CloseIdleConnections()
			if err := g.Shutdown(t.Context()); err != nil {
				t.Errorf("Shutdown: %v", err)
			}
			if err := <-served; err != nil {
				t.Errorf("Serve: %v", err)
			}
			if err := g.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			settled(t, goroutines, workers)
		})
	}
}

// TestNewFails checks that New refuses what it cannot assemble, with an
// error that says what, and that a New that fails half-way (the store and
// the trace service already open) leaves nothing running.
func TestNewFails(t *testing.T) {
	tests := []struct {
		name   string
		config func(*gateway.Config)
		want   string
	}{
		{"unknown store", func(c *gateway.Config) { c.Store.Kind = "tape" }, `unknown store "tape"`},
		{"no store directory", func(c *gateway.Config) { c.Store.Dir = "" }, "disk store: no directory"},
		{"no models", func(c *gateway.Config) { c.Models = nil }, "no model alias"},
		{"repeated alias", func(c *gateway.Config) { c.Models = append(c.Models, c.Models[0]) }, `alias "rlm": empty or repeated`},
		{"stream without redis", func(c *gateway.Config) { c.Tracing.Stream = "s" }, "needs the redis store"},
		{"no probe timeout", func(c *gateway.Config) { c.Probe.Timeout = 0 }, "probe timeout 0s: must be positive"},
		{"no upstream", func(*gateway.Config) {}, "engine: no model client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			goroutines, workers := runtime.NumGoroutine(), childProcesses(t)
			cfg := baseConfig(t)
			tt.config(&cfg)
			g, err := gateway.New(t.Context(), cfg)
			if err == nil {
				g.Close()
				t.Fatalf("New succeeded, want an error with %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want an error with %q", err, tt.want)
			}
			settled(t, goroutines, workers)
		})
	}
}

// TestCloseWithoutShutdown: Close alone shuts a serving gateway down, and
// Serve afterwards refuses.
func TestCloseWithoutShutdown(t *testing.T) {
	up := fakeUpstream()
	defer up.Close()
	goroutines, workers := runtime.NumGoroutine(), childProcesses(t)
	cfg := baseConfig(t)
	cfg.Engine.Upstream.BaseURL = up.URL
	g, err := gateway.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- g.Serve(ln) }()
	// Ready: the upstream probe has answered, which also shows it ran.
	client := &http.Client{Transport: &http.Transport{}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := client.Get("http://" + ln.Addr().String() + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready after 10s: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	client.CloseIdleConnections()
	if err := g.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if err := g.Serve(ln); err != http.ErrServerClosed {
		t.Errorf("Serve after Close: %v, want http.ErrServerClosed", err)
	}
	settled(t, goroutines, workers)
}

// chat asks the gateway at base one question and returns the status and
// body of its answer.
func chat(t *testing.T, client *http.Client, base string) (int, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "rlm",
		"messages": []map[string]string{{"role": "user", "content": "What is six times seven?"}}})
	resp, err := client.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// settled waits for the goroutines and child processes to come back to
// what they were before the gateway: some end a moment after Close (a
// connection's reader sees its peer go).
func settled(t *testing.T, goroutines, workers int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g, w := runtime.NumGoroutine(), childProcesses(t)
		if g <= goroutines && w <= workers {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("leak: %d goroutines (%d before), %d child processes (%d before)\n%s", g, goroutines, w, workers, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// childProcesses counts this process's live children: REPL workers.
func childProcesses(t *testing.T) int {
	t.Helper()
	pids, err := proctest.Children()
	if err != nil {
		t.Skip(err)
	}
	return len(pids)
}
