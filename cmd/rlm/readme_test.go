package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// TestREADMEWalkthrough runs the README's document-QA walkthrough, command
// for command, in an empty directory against fakellm, a scripted fake
// upstream (a test double, not a model) whose "root model" writes the Go a
// model would write to count 401s per address in the real REPL. Only two
// lines are swapped: the two go commands, which need the module's
// checkout, run here beforehand with the same packages; and the gateway's
// address is a free port instead of 8080.
func TestREADMEWalkthrough(t *testing.T) {
	t.Parallel()
	sh := requireTool(t, "sh")
	dir := t.TempDir()
	script, addr := walkthroughScript(t)
	topRE := regexp.MustCompile(`top: (\S+) (\d+)`)
	up := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if m := topRE.FindStringSubmatch(req.LastUser()); m != nil {
			return fakellm.Reply{Content: "FINAL(" + m[1] + ", with " + m[2] + " responses of 401)"}
		}
		if req.Turn() > 1 {
			return fakellm.Reply{Content: "FINAL(lost)"}
		}
		return fakellm.Reply{Content: fakellm.Code(`import (
	"fmt"
	"strings"
)
counts := map[string]int{}
for _, line := range strings.Split(context, "\n") {
	f := strings.Fields(line)
	if len(f) > 4 && f[4] == "401" {
		counts[f[1]]++
	}
}
best, n := "", 0
for ip, c := range counts {
	if c > n {
		best, n = ip, c
	}
}
fmt.Println("top:", best, n)`)}
	})
	defer up.Close()
	env := []string{"RLM_UPSTREAM=" + up.URL, "OPENAI_API_KEY=unused", "RLM_ROOT_MODEL=root-model", "RLM_LISTEN=" + addr,
		"RLM_CONFIG=", "RLM_API_KEY="}
	stdout, stderr := runExample(t, dir, env, sh, "-eu", "-c", script)
	const answer = "203.0.113.77, with 1337 responses of 401"
	if !strings.HasPrefix(stdout, answer+"\n") {
		t.Errorf("rlm query did not print the answer first:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if !strings.Contains(stdout, `"content":"`+answer+`"`) || !strings.Contains(stdout, `"finish_reason":"stop"`) {
		t.Errorf("the gateway's completion lacks the answer:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if !strings.Contains(stderr, "stop=final") {
		t.Errorf("rlm query's summary is missing:\n%s", stderr)
	}
}

// TestREADMEOffline runs the README's offline block, command for command,
// in an empty directory: it writes a 10 MB document and asks `rlm query`,
// with nothing configured, a question the built-in model must answer from
// it. Only `go run ./cmd/rlm` is swapped for the same package built
// beforehand.
func TestREADMEOffline(t *testing.T) {
	t.Parallel()
	sh := requireTool(t, "sh")
	script := readmeBlock(t, "offline")
	if !strings.Contains(script, "go run ./cmd/rlm query") {
		t.Fatalf("the offline block does not run rlm query:\n%s", script)
	}
	script = strings.ReplaceAll(script, "go run ./cmd/rlm", rlmBinary(t))
	cmd := exec.Command(sh, "-eu", "-c", script)
	cmd.Dir = t.TempDir()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("offline block: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "KX-4471") {
		t.Fatalf("the built-in model did not answer KX-4471:\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "rlm-tiny-demo") {
		t.Errorf("the log does not name the built-in model:\n%s", stderr.String())
	}
}

// readmeBlock returns the sh block of README.md between the markers
// <!-- NAME: begin ...--> and <!-- NAME: end -->.
func readmeBlock(t *testing.T, name string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- " + name + ": begin[^>]*-->\n```sh\n(.*?)```\n<!-- " + name + ": end -->")
	m := re.FindSubmatch(readme)
	if m == nil {
		t.Fatalf("README.md has no %s block", name)
	}
	return string(m[1])
}

// walkthroughScript is the README's walkthrough ready to run here: its
// two go commands swapped for the packages built beforehand, and the
// gateway on a free port, addr, instead of 8080.
func walkthroughScript(t *testing.T) (script, addr string) {
	t.Helper()
	requireTool(t, "curl")
	goTool := requireTool(t, "go")
	script = readmeBlock(t, "walkthrough")
	tools := t.TempDir()
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	for _, b := range []struct{ line, pkg, bin string }{
		{"go build -o bin/rlm ./cmd/rlm", "./cmd/rlm", "rlm"},
		{"go run ./examples/docqa/gendoc", "./examples/docqa/gendoc", "gendoc"},
	} {
		if !strings.Contains(script, b.line) {
			t.Fatalf("the walkthrough lacks %q:\n%s", b.line, script)
		}
		if b.bin == "rlm" {
			script = strings.Replace(script, b.line, "mkdir -p bin && cp "+rlmBinary(t)+" bin/rlm", 1)
			continue
		}
		build := exec.Command(goTool, "build", "-o", filepath.Join(tools, b.bin), b.pkg)
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b.pkg, err, out)
		}
		script = strings.Replace(script, b.line, filepath.Join(tools, b.bin), 1)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	ln.Close()
	return strings.ReplaceAll(script, "localhost:8080", addr), addr
}

// TestREADMEWalkthroughDefaultSetup runs the walkthrough as a new user
// who skipped "set your upstream" would: with nothing configured, the
// built-in demo model answers, from the terminal and through the gateway,
// and either finds the answer or says that the question needs a real
// model; it never answers wrong in silence.
func TestREADMEWalkthroughDefaultSetup(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built-in model over a 14 MB log")
	}
	sh := requireTool(t, "sh")
	script, addr := walkthroughScript(t)
	// Not -e: a query without an answer exits 1, and the walkthrough goes on.
	env := []string{"RLM_LISTEN=" + addr, "RLM_UPSTREAM=", "OPENAI_BASE_URL=", "RLM_ROOT_MODEL=", "RLM_LOCAL_MODEL=", "RLM_CONFIG=", "RLM_API_KEY="}
	stdout, stderr := runExample(t, t.TempDir(), env, sh, "-u", "-c", script)
	query, gateway, _ := strings.Cut(stdout, "{")
	for what, out := range map[string]string{"rlm query": query + stderr, "the gateway": gateway} {
		if !strings.Contains(out, "203.0.113.77") && !strings.Contains(out, "This needs a real model") {
			t.Errorf("%s neither answers 203.0.113.77 nor says the question needs a real model:\n%s\nstderr:\n%s", what, out, stderr)
		}
	}
}
