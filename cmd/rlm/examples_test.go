package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// The examples run against `rlm serve` with the real engine and REPL and a
// fake upstream (fakellm, a scripted test double whose "root model" counts
// FAIL lines with code), so that they stay true.

func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required in CI: %v", name, err)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

func runExample(t *testing.T, dir string, env []string, name string, args ...string) (string, string) {
	t.Helper()
	return runExampleFor(t, 3*time.Minute, dir, env, name, args...)
}

func runExampleFor(t *testing.T, timeout time.Duration, dir string, env []string, name string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\nstdout:\n%s\nstderr:\n%s", name, args, err, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

func TestExampleCurl(t *testing.T) {
	requireTool(t, "curl")
	up := fakellm.New(countingUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--api-key", "secret")...)
	out, _ := runExample(t, filepath.Join("..", ".."), []string{"RLM_URL=" + s.URL, "RLM_KEY=secret"}, "sh", "examples/curl.sh")
	for _, want := range []string{
		`"object":"list"`, `"filename":"app.log"`,
		`"content":"40 failures"`, `"status":"completed"`, // the stored completion
		`"delta":{"content":"40 failures"}`, `"choices":[],"rlm":{"event":"subcall_start"`, "data: [DONE]",
		`"code":"model_not_found"`, `"deleted":true`,
		`"object":"response"`, `"text":"40 failures"`, `"previous_response_id":"resp_`, `"session":"continued"`, // Responses
	} {
		if !strings.Contains(out, want) {
			t.Errorf("curl walkthrough output lacks %q:\n%s", want, out)
		}
	}
}

func TestExampleNode(t *testing.T) {
	node := requireTool(t, "node")
	modules, _ := filepath.Abs(filepath.Join("..", "..", "tests", "node", "node_modules"))
	if _, err := os.Stat(filepath.Join(modules, "openai")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tests/node/node_modules/openai is required in CI")
		}
		t.Skip("run: cd tests/node && npm ci")
	}
	// The example as a user would run it: next to its own node_modules.
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "node", "chat.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "chat.mjs"), src, 0o600)
	os.Symlink(modules, filepath.Join(dir, "node_modules"))
	os.WriteFile(filepath.Join(dir, "app.log"), []byte(logText), 0o600)

	up := fakellm.New(countingUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--api-key", "secret")...)
	out, progress := runExample(t, dir, []string{"RLM_URL=" + s.URL, "RLM_KEY=secret"}, node, "chat.mjs", "app.log", "How many lines say FAIL?")
	if strings.TrimSpace(out) != "42 failures" {
		t.Errorf("answer %q", out)
	}
	for _, want := range []string{"uploaded app.log as file-", "[0] turn 1", "[0] running cell 1.1", "[0] llm_query …", "[0] llm_query done", "[0] finished: final", "finish_reason: stop", "tokens: "} {
		if !strings.Contains(progress, want) {
			t.Errorf("progress display lacks %q:\n%s", want, progress)
		}
	}
}

func TestExampleGoClient(t *testing.T) {
	goBin := requireTool(t, "go")
	file := filepath.Join(t.TempDir(), "app.log")
	os.WriteFile(file, []byte(logText), 0o600)
	up := fakellm.New(countingUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--api-key", "secret")...)
	out, info := runExample(t, filepath.Join("..", ".."), []string{"RLM_URL=" + s.URL, "RLM_KEY=secret"},
		goBin, "run", "./examples/goclient", file, "How many failures are there?")
	if out != "42 failures\n42 failures\n" {
		t.Errorf("output %q", out)
	}
	if !strings.Contains(info, "finish_reason stop") || !strings.Contains(info, "trace trace-") {
		t.Errorf("stderr %q", info)
	}
}
