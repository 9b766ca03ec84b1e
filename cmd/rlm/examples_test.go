package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// lookupUpstream is a scripted fake upstream (not a model) whose root
// writes the Go a model would to find the ticket in examples/curl.sh's
// log, and answers the ticket, or its time for the follow-up.
func lookupUpstream(req fakellm.Request) fakellm.Reply {
	followUp := false
	for _, m := range req.Messages {
		followUp = followUp || strings.Contains(m.Content, "At what time")
	}
	if m := ticketRE.FindStringSubmatch(req.LastUser()); m != nil {
		if followUp {
			return fakellm.Reply{Content: "FINAL(" + m[2] + ")"}
		}
		return fakellm.Reply{Content: "FINAL(" + m[1] + ")"}
	}
	return fakellm.Reply{Content: fakellm.Code(`import (
	"fmt"
	"strings"
)
for _, l := range strings.Split(context, "\n") {
	if strings.Contains(l, "ticket of the disk-full alert is") {
		f := strings.Fields(l)
		fmt.Println("ticket:", f[len(f)-1], "time:", f[0])
	}
}`)}
}

var ticketRE = regexp.MustCompile(`ticket: (\S+) time: (\S+)`)

func TestExampleCurl(t *testing.T) {
	requireTool(t, "curl")
	up := fakellm.New(lookupUpstream)
	defer up.Close()
	s := startServe(t, append(upstreamArgs(up.URL), "--api-key", "secret")...)
	out, _ := runExample(t, filepath.Join("..", ".."), []string{"RLM_URL=" + s.URL, "RLM_API_KEY=secret"}, "sh", "examples/curl.sh")
	for _, want := range []string{
		`"object":"list"`, `"filename":"app.log"`,
		`"content":"OPS-7719"`, `"status":"completed"`, // the stored completion
		`"delta":{"content":"OPS-7719"}`, `"rlm":{"event":"cell_start"`, "data: [DONE]",
		`"code":"model_not_found"`, `"deleted":true`,
		`"object":"response"`, `"text":"OPS-7719"`, `"previous_response_id":"resp_`, `"session":"continued"`, `"text":"2026-11-28T10:20:34Z"`, // Responses
	} {
		if !strings.Contains(out, want) {
			t.Errorf("curl walkthrough output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "note: the server answers with its built-in") {
		t.Errorf("a note about the built-in model from a server with an upstream:\n%s", out)
	}
}

// TestExamplesDefaultSetup runs examples/curl.sh and examples/goclient as
// a new user would first: against `rlm serve` with nothing configured,
// whose built-in demo model answers. Each gives the right answer, or says
// that the question needs a real model.
func TestExamplesDefaultSetup(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built-in model over the examples")
	}
	requireTool(t, "curl")
	goBin := requireTool(t, "go")
	s := startServe(t)
	root := filepath.Join("..", "..")
	out, _ := runExample(t, root, []string{"RLM_URL=" + s.URL}, "sh", "examples/curl.sh")
	for _, want := range []string{`"content":"OPS-7719"`, `"delta":{"content":"OPS-7719"}`, `"text":"OPS-7719"`,
		"note: the server answers with its built-in demo model"} {
		if !strings.Contains(out, want) {
			t.Errorf("curl walkthrough output lacks %q:\n%s", want, out)
		}
	}
	if _, followUp, _ := strings.Cut(out, "== a follow-up"); !strings.Contains(followUp, `"text":"2026-11-28T10:20:34Z"`) &&
		!strings.Contains(followUp, "This needs a real model") {
		t.Errorf("the follow-up neither answers the time nor says it needs a real model:\n%s", followUp)
	}
	bin := filepath.Join(t.TempDir(), "goclient")
	build := exec.Command(goBin, "build", "-o", bin, "./examples/goclient")
	build.Dir = root
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	// From the repository root, as its doc comment runs it.
	cmd := exec.Command(bin)
	cmd.Dir, cmd.Env = root, append(os.Environ(), "RLM_URL="+s.URL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.String() != "OPS-7719\nOPS-7719\n" ||
		!strings.Contains(stderr.String(), "note: the server answers with its built-in demo model") {
		t.Errorf("goclient: %v, stdout %q, stderr:\n%s", err, stdout.String(), stderr.String())
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
	out, progress := runExample(t, dir, []string{"RLM_URL=" + s.URL, "RLM_API_KEY=secret"}, node, "chat.mjs", "app.log", "How many lines say FAIL?")
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
	out, info := runExample(t, filepath.Join("..", ".."), []string{"RLM_URL=" + s.URL, "RLM_API_KEY=secret"},
		goBin, "run", "./examples/goclient", file, "How many failures are there?")
	if out != "42 failures\n42 failures\n" {
		t.Errorf("output %q", out)
	}
	if !strings.Contains(info, "finish_reason stop") || !strings.Contains(info, "trace trace-") {
		t.Errorf("stderr %q", info)
	}
}
