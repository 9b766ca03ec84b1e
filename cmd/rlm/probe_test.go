package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// TestServeProbesUpstream starts `rlm serve` against fakellm (a scripted
// fake upstream, not a model) that lists its models behind a key: the
// start log says whether the upstream is fine, refuses the key or lacks a
// model, and with --ready-upstream /readyz follows the upstream's health.
func TestServeProbesUpstream(t *testing.T) {
	reply := func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: "FINAL(hi)"} }
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"ok", []string{"--upstream-key", "k"}, `msg="upstream ok"`},
		{"key refused", []string{"--upstream-key", "wrong"}, "UPSTREAM REFUSED THE KEY"},
		{"model not listed", []string{"--upstream-key", "k", "--sub-model", "gpt-missing"}, "UPSTREAM DOES NOT LIST A CONFIGURED MODEL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := fakellm.New(reply, fakellm.WithModels("k", "root-model", "small-model"))
			defer up.Close()
			s := startServe(t, append(upstreamArgs(up.URL), tt.args...)...)
			waitFor(t, func() bool { return strings.Contains(s.Stderr.String(), tt.want) }, "start log with "+tt.want+":\n"+s.Stderr.String())
			if code, _ := get(t, s.URL+"/readyz"); code != http.StatusOK {
				t.Errorf("/readyz %d without --ready-upstream", code)
			}
		})
	}

	t.Run("readyz follows the upstream", func(t *testing.T) {
		up := fakellm.New(reply, fakellm.WithModels("k", "root-model", "small-model"))
		s := startServe(t, append(upstreamArgs(up.URL), "--upstream-key", "k", "--ready-upstream", "--upstream-probe-interval", "50ms")...)
		waitFor(t, func() bool { code, _ := get(t, s.URL+"/readyz"); return code == http.StatusOK }, "ready with the upstream up")
		up.Close()
		var body string
		waitFor(t, func() bool {
			var code int
			code, body = get(t, s.URL+"/readyz")
			return code == http.StatusServiceUnavailable
		}, "not ready with the upstream down")
		if !strings.Contains(body, "upstream unreachable") || strings.Contains(body, "127.0.0.1") {
			t.Errorf("/readyz body %s", body)
		}
		waitFor(t, func() bool { return strings.Contains(s.Stderr.String(), "UPSTREAM UNREACHABLE") }, "a log line when it went down")
	})
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func waitFor(t *testing.T, ok func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestQueryWarnsAboutUpstream: `rlm query` probes too, and warns on stderr
// when the upstream does not list its model; the run goes on.
func TestQueryWarnsAboutUpstream(t *testing.T) {
	up := fakellm.New(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: "FINAL(hi)"} }, fakellm.WithModels("", "other-model"))
	defer up.Close()
	t.Setenv("RLM_ROOT_MODEL", "root-model")
	var stdout, stderr strings.Builder
	status := run(t.Context(), []string{"query", "--upstream", up.URL, "--quiet", "q"}, &stdout, &stderr)
	if status != 0 || stdout.String() != "hi\n" || !strings.Contains(stderr.String(), "warning: upstream "+up.URL+": model_not_listed: root-model not among") {
		t.Fatalf("status %d, stdout %q, stderr:\n%s", status, stdout.String(), stderr.String())
	}
}
