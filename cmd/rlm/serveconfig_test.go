package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/recursion/upstream"
	"github.com/rlm-project/rlm/repl"
)

func TestServeConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "rlm.yaml")
	os.WriteFile(file, []byte(`
listen: 0.0.0.0:9000
max_concurrent: 3
queue_wait: 5s
max_queued: 3
api_key: [a, b]
models: {rlm: gpt-x, small: gpt-mini}
max_upload_bytes: 1GiB
repl_stack_bytes: 8MiB
max_final_bytes: 1MiB
`), 0o600)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("listne: x\n"), 0o600)
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(c *config) bool
		wantErr string
	}{
		{"defaults", nil, nil, func(c *config) bool {
			return c.Listen == "127.0.0.1:8080" && c.Store == "disk" && c.DataDir == "./data" && c.MaxUploadBytes == 512<<20 &&
				c.MaxRequestBytes == 64<<20 && c.MaxConcurrent == 16 && c.QueueWait == 2*time.Second && c.MaxQueued == 64 && len(c.APIKeys) == 0 &&
				strings.Join(c.Models, ",") == "rlm" && c.ShutdownGrace == 30*time.Second
		}, ""},
		{"file", []string{"--config", file}, nil, func(c *config) bool {
			return c.Listen == "0.0.0.0:9000" && c.MaxConcurrent == 3 && c.QueueWait == 5*time.Second &&
				c.MaxQueued == 3 && strings.Join(c.APIKeys, ",") == "a,b" && strings.Join(c.Models, ",") == "rlm=gpt-x,small=gpt-mini" && c.MaxUploadBytes == 1<<30
		}, ""},
		{"env over file", []string{"--config", file}, map[string]string{"RLM_MAX_CONCURRENT": "7", "RLM_LISTEN": "127.0.0.1:1"}, func(c *config) bool {
			return c.MaxConcurrent == 7 && c.Listen == "127.0.0.1:1" && c.QueueWait == 5*time.Second
		}, ""},
		{"flag over env", []string{"--config", file, "--max-concurrent", "9"}, map[string]string{"RLM_MAX_CONCURRENT": "7"}, func(c *config) bool {
			return c.MaxConcurrent == 9
		}, ""},
		{"max queued", []string{"--config", file}, map[string]string{"RLM_MAX_QUEUED": "5"}, func(c *config) bool { return c.MaxQueued == 5 }, ""},
		{"config from env", nil, map[string]string{"RLM_CONFIG": file}, func(c *config) bool { return c.MaxConcurrent == 3 }, ""},
		{"sizes", []string{"--max-request-bytes", "10MB", "--max-upload-bytes", "2048"}, nil, func(c *config) bool {
			return c.MaxRequestBytes == 10e6 && c.MaxUploadBytes == 2048
		}, ""},
		{"repl defaults", nil, nil, func(c *config) bool {
			return c.REPL == repl.DefaultLimits() && c.REPLWorkers == 2 && c.REPLRefillDelay == 25*time.Millisecond
		}, ""},
		{"repl refill delay", []string{"--repl-refill-delay", "0"}, nil, func(c *config) bool { return c.REPLRefillDelay == 0 }, ""},
		{"repl limits", []string{"--config", file, "--repl-memory-bytes", "1GiB", "--max-goroutines", "50", "--repl-workers", "0"},
			map[string]string{"RLM_KILL_GRACE": "5s", "RLM_MAX_OUTPUT": "300"}, func(c *config) bool {
				want := repl.DefaultLimits()
				want.MemoryBytes, want.MaxGoroutines, want.KillGrace, want.MaxOutput, want.StackBytes = 1<<30, 50, 5*time.Second, 300, 8<<20
				want.MaxFinalBytes = 1 << 20
				return c.REPL == want && c.REPLWorkers == 0
			}, ""},
		{"size caps", []string{"--config", file, "--max-prompt-bytes", "1MiB", "--max-batch", "50", "--max-error-bytes", "4KiB", "--max-trace-bytes", "8MiB"},
			map[string]string{"RLM_MAX_CALL_BYTES": "2MiB", "RLM_MAX_HOST_CALLS": "8", "RLM_MAX_TRACE_FIELD_BYTES": "1MiB", "RLM_MAX_FINAL_BYTES": "2MiB"}, func(c *config) bool {
				l := c.REPL
				return l.MaxPromptBytes == 1<<20 && l.MaxCallBytes == 2<<20 && l.MaxBatch == 50 && l.MaxErrorBytes == 4<<10 &&
					l.MaxHostCalls == 8 && l.MaxFinalBytes == 2<<20 && c.TraceBytes == 8<<20 && c.TraceFieldBytes == 1<<20 && c.checkServe() == nil
			}, ""},
		{"cap defaults", nil, nil, func(c *config) bool {
			return c.TraceBytes == 64<<20 && c.TraceFieldBytes == 4<<20 && c.REPL.MaxBatch == 10000 && c.checkServe() == nil
		}, ""},
		{"upstream stream defaults", nil, nil, func(c *config) bool {
			return !c.UpstreamStream && c.UpstreamMaxBody == upstream.DefaultMaxResponseBytes
		}, ""},
		{"upstream stream", []string{"--upstream-stream"}, map[string]string{"RLM_UPSTREAM_MAX_RESPONSE_BYTES": "1MiB"}, func(c *config) bool {
			return c.UpstreamStream && c.UpstreamMaxBody == 1<<20
		}, ""},
		{"bad prompt cap", []string{"--max-prompt-bytes", "0"}, nil, nil, `invalid value "0" for flag --max-prompt-bytes: not a positive size`},
		{"repl ids", nil, nil, func(c *config) bool { return c.REPLUID == 65534 && c.REPLGID == 65534 && c.checkREPL() == nil }, ""},
		{"repl ids set", []string{"--repl-gid", "-1"}, map[string]string{"RLM_REPL_UID": "1000"}, func(c *config) bool {
			return c.REPLUID == 1000 && c.REPLGID == -1 && c.checkREPL() == nil
		}, ""},
		// Root is not asked for with 0, which the REPL would read as its
		// default: checkREPL refuses it.
		{"repl uid 0", []string{"--repl-uid", "0"}, nil, func(c *config) bool {
			err := c.checkREPL()
			return err != nil && strings.Contains(err.Error(), "repl-uid 0: must be an unprivileged id")
		}, ""},
		{"bad repl size", []string{"--repl-heap-bytes", "0"}, nil, nil, `invalid value "0" for flag --repl-heap-bytes: not a positive size`},
		{"bad env", nil, map[string]string{"RLM_QUEUE_WAIT": "soon"}, nil, "environment variable RLM_QUEUE_WAIT"},
		{"bad size", []string{"--max-upload-bytes", "lots"}, nil, nil, "flag --max-upload-bytes"},
		{"bad env size", nil, map[string]string{"RLM_MAX_UPLOAD_BYTES": "lots"}, nil, `environment variable RLM_MAX_UPLOAD_BYTES: not a positive size like 512MiB: "lots"`},
		{"unknown key", []string{"--config", bad}, nil, nil, `unknown key "listne"`},
		{"missing file", []string{"--config", filepath.Join(dir, "none.yaml")}, nil, nil, "no such file"},
		{"bad flag", []string{"--nope"}, nil, nil, "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			var stderr bytes.Buffer
			c, err := loadServeConfig(tt.args, cli.Env{Getenv: getenv}, &stderr)
			if tt.wantErr != "" {
				// A bad flag is one line on stderr (and exit status 2).
				if err == nil || !strings.Contains(err.Error()+stderr.String(), tt.wantErr) {
					t.Fatalf("err %v, stderr %q, want %q", err, stderr.String(), tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(c) {
				t.Errorf("config %+v", c)
			}
		})
	}
}

func TestServeCapsChecked(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-batch", "0"}, "max-batch 0"},
		{[]string{"--max-host-calls", "0"}, "max-host-calls 0"},
		{[]string{"--max-trace-bytes", "4MiB", "--max-trace-field-bytes", "2MiB"}, "max-trace-field-bytes"},
	} {
		c, err := loadServeConfig(tc.args, cli.Env{Getenv: func(string) string { return "" }}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.checkServe(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error about %s", tc.args, err, tc.want)
		}
	}
}

// TestUpstreamStreamReachesClient: --upstream-stream makes the engine's
// client stream, and --upstream-max-response-bytes bounds what it reads. The
// upstream is an HTTP test double answering one event stream, not a model.
func TestUpstreamStreamReachesClient(t *testing.T) {
	var asked atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream bool `json:"stream"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		asked.Store(req.Stream)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"model":"m","choices":[{"index":0,"delta":{"content":"FINAL(1)"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	for _, max := range []int64{1 << 20, 16} {
		ec := engineConfig{Upstream: srv.URL, UpstreamStream: true, UpstreamMaxBody: max}
		c, err := upstream.New(ec.upstream())
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: "q"}}})
		c.CloseIdleConnections()
		if max == 16 {
			if err == nil || !strings.Contains(err.Error(), "more than 16 bytes") {
				t.Errorf("cap of 16 bytes: got %q, %v", got.Content, err)
			}
			continue
		}
		if err != nil || got.Content != "FINAL(1)" || !asked.Load() {
			t.Errorf("got %q, %v; stream asked: %v", got.Content, err, asked.Load())
		}
	}
}
