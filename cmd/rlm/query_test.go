package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/repl"
)

// TestMain lets the test binary serve as the REPL worker, as rlm itself does,
// and runs the tests in the environment of a fresh machine: an RLM_ or
// OPENAI_ variable of the shell that runs them (a developer's upstream, CI's
// RLM_ARTIFACTS) would otherwise change what rlm does and prints. Tests set
// the variables they mean with t.Setenv or cmd.Env. It removes the rlm
// binary the tests built (rlmBinary) at the end.
func TestMain(m *testing.M) {
	repl.MaybeRunWorker()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "RLM_") || strings.HasPrefix(k, "OPENAI_") {
			os.Unsetenv(k)
		}
	}
	code := m.Run()
	removeBinary()
	os.Exit(code)
}

// TestQuery runs `rlm query` against fakellm, a scripted fake upstream (not
// a model) whose root writes Go that counts lines in the context file.
func TestQuery(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "log.txt")
	text := strings.Repeat("ok line\n", 500) + strings.Repeat("FAIL line\n", 42) + strings.Repeat("ok line\n", 3000)
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	countRE := regexp.MustCompile(`fails: (\d+)`)
	srv := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if req.Turn() == 1 {
			return fakellm.Reply{Content: fakellm.Code("import (\n\"fmt\"\n\"strings\"\n)\nfmt.Println(\"fails:\", strings.Count(context, \"FAIL\"))")}
		}
		if m := countRE.FindStringSubmatch(req.LastUser()); m != nil {
			return fakellm.Reply{Content: "FINAL(" + m[1] + " failures)"}
		}
		return fakellm.Reply{Content: "FINAL(lost)"}
	})
	defer srv.Close()
	t.Setenv("RLM_ROOT_MODEL", "root-model")
	t.Setenv("OPENAI_API_KEY", "test-key")

	tests := []struct {
		name      string
		args      []string
		stdin     string
		wantOut   string
		wantErr   []string
		wantTemp0 bool
		status    int
	}{
		{"file context", []string{"query", "--upstream", srv.URL, "--context", file, "--temperature", "0", "--seed", "7", "How many failures?"},
			"", "42 failures\n", []string{"rlm: turn 2 (0 sub-calls so far", "iterations=2 llm_calls=2 depth=0", "stop=final"}, true, 0},
		{"stdin context, verbose, flags after the question", []string{"query", "--upstream", srv.URL, "How many", "failures?", "--context", "-", "--verbose"},
			text, "42 failures\n", []string{"[0] turn 1", "[0] cell 1.1 done", "fails: 42", "[0] node end: final"}, false, 0},
		{"no question", []string{"query", "--upstream", srv.URL, "--context", file}, "", "", []string{"a question is required"}, false, 2},
		{"missing file", []string{"query", "--upstream", srv.URL, "--context", filepath.Join(dir, "nope"), "q"}, "", "", []string{"no such file"}, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.stdin != "" {
				in := filepath.Join(t.TempDir(), "stdin")
				os.WriteFile(in, []byte(tt.stdin), 0o600)
				f, err := os.Open(in)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				old := os.Stdin
				os.Stdin = f
				defer func() { os.Stdin = old }()
			}
			before := len(srv.Requests())
			var stdout, stderr bytes.Buffer
			status := run(t.Context(), tt.args, &stdout, &stderr)
			if status != tt.status || stdout.String() != tt.wantOut {
				t.Fatalf("status %d, stdout %q, stderr:\n%s", status, stdout.String(), stderr.String())
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
			if tt.wantTemp0 {
				req := srv.Requests()[before]
				if string(req.Fields["temperature"]) != "0" {
					t.Errorf("temperature not sent as 0: %s", req.Body)
				}
				if string(req.Fields["seed"]) != "7" {
					t.Errorf("--seed 7 not sent as seed: %s", req.Body)
				}
			}
		})
	}
}

// TestQueryREPLLimits checks that the REPL flags of `rlm query` reach the
// sessions the run starts: fakellm, a scripted fake upstream (not a model),
// runs a cell that a small limit visibly cuts short, and answers with what
// it was shown. The default rows show the same cells pass without the flag.
func TestQueryREPLLimits(t *testing.T) {
	cells := map[string]string{
		"output":     "import \"strings\"\nprintln(strings.Repeat(\"x\", 1000))",
		"goroutines": "import \"time\"\nch := make(chan int)\nfor i := 0; i < 100; i++ {\n\tgo func() { <-ch }()\n}\ntime.Sleep(300 * time.Millisecond)\nclose(ch)\nprintln(\"all started\")",
	}
	srv := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if req.Turn() == 1 {
			q := req.LastUser()
			for name, code := range cells {
				if strings.Contains(q, "cell "+name) {
					return fakellm.Reply{Content: fakellm.Code(code)}
				}
			}
			return fakellm.Reply{Content: "FINAL(unknown cell)"}
		}
		seen := req.LastUser()
		switch {
		case strings.Contains(seen, "[output truncated: showed the first 40 of"):
			return fakellm.Reply{Content: "FINAL(truncated)"}
		case strings.Contains(seen, "goroutine limit: more than 20 goroutines"):
			return fakellm.Reply{Content: "FINAL(goroutine limit)"}
		case strings.Contains(seen, "all started") || strings.Contains(seen, strings.Repeat("x", 1000)):
			return fakellm.Reply{Content: "FINAL(unlimited)"}
		}
		return fakellm.Reply{Content: "FINAL(unexpected)"}
	})
	defer srv.Close()
	t.Setenv("RLM_ROOT_MODEL", "root-model")
	t.Setenv("OPENAI_API_KEY", "test-key")
	tests := []struct {
		cell  string
		flags []string
		want  string
	}{
		{"output", []string{"--max-output", "40"}, "truncated"},
		{"output", nil, "unlimited"},
		{"goroutines", []string{"--max-goroutines", "20", "--repl-workers", "0"}, "goroutine limit"},
		{"goroutines", []string{"--repl-workers", "0"}, "unlimited"},
	}
	for _, tt := range tests {
		name := tt.cell + " " + strings.Join(tt.flags, " ")
		if len(tt.flags) == 0 {
			name = tt.cell + " default"
		}
		t.Run(name, func(t *testing.T) {
			args := append([]string{"query", "--upstream", srv.URL, "--quiet"}, tt.flags...)
			args = append(args, "run cell "+tt.cell)
			var stdout, stderr bytes.Buffer
			status := run(t.Context(), args, &stdout, &stderr)
			if got := strings.TrimSpace(stdout.String()); status != 0 || got != tt.want {
				t.Fatalf("status %d, answer %q, want %q; stderr:\n%s", status, got, tt.want, stderr.String())
			}
		})
	}
}

// TestQueryInterruptedPrintsNoCode interrupts `rlm query` (as Ctrl-C does:
// the context is cancelled) while fakellm, a scripted fake upstream (not a
// model), only ever writes code: what is printed is a statement of what
// stopped the run and what the last cell printed, never the code.
func TestQueryInterruptedPrintsNoCode(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "log.txt")
	if err := os.WriteFile(file, []byte(strings.Repeat("line\n", 5000)), 0o600); err != nil {
		t.Fatal(err)
	}
	printed := make(chan struct{}, 100)
	srv := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if strings.Contains(req.LastUser(), "lines: 5000") {
			printed <- struct{}{}
		}
		return fakellm.Reply{Content: fakellm.Code("import (\n\"fmt\"\n\"strings\"\n\"time\"\n)\nfmt.Println(\"lines:\", strings.Count(context, \"\\n\"))\ntime.Sleep(50 * time.Millisecond)")}
	})
	defer srv.Close()
	t.Setenv("RLM_ROOT_MODEL", "root-model")
	t.Setenv("OPENAI_API_KEY", "test-key")
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-printed; cancel() }()
	var stdout, stderr bytes.Buffer
	status := run(ctx, []string{"query", "--upstream", srv.URL, "--quiet", "--context", file, "How many lines?"}, &stdout, &stderr)
	// Standard output holds answers only; the statement goes to stderr.
	errText := stderr.String()
	if status != 1 || stdout.Len() != 0 || strings.Contains(errText, "```") || strings.Contains(errText, "fmt.Println") ||
		!strings.Contains(errText, "rlm: query: No answer: the run stopped (cancelled: ") || !strings.Contains(errText, "before FINAL; the last cell printed: lines: 5000") {
		t.Fatalf("status %d, stdout %q, stderr:\n%s", status, stdout.String(), errText)
	}
	if !strings.Contains(stderr.String(), "stop=cancelled") {
		t.Errorf("stderr lacks the stop reason:\n%s", stderr.String())
	}
}

// TestQueryStopsOnFailingCells: a model whose cells never compile (issue 26:
// the built-in model wrote broken Go for 31 turns over real text) gets
// "No answer: ..." after --max-failed-turns turns (6, an upstream's
// default), not --max-iterations. fakellm is a scripted fake upstream that
// only ever writes broken code.
func TestQueryStopsOnFailingCells(t *testing.T) {
	file := filepath.Join(t.TempDir(), "src.txt")
	if err := os.WriteFile(file, []byte(strings.Repeat("func main() { fmt.Println(`hi`) }\n", 2000)), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Content: fakellm.Code("x := `unterminated\nfmt.Println(context[:10]")}
	})
	defer srv.Close()
	t.Setenv("RLM_ROOT_MODEL", "root-model")
	t.Setenv("OPENAI_API_KEY", "test-key")
	var stdout, stderr bytes.Buffer
	start := time.Now()
	status := run(t.Context(), []string{"query", "--upstream", srv.URL, "--quiet", "--context", file, "What does main print?"}, &stdout, &stderr)
	errText := stderr.String()
	if status != 1 || stdout.Len() != 0 || !strings.Contains(errText, "stop=failed_turns") ||
		!strings.Contains(errText, "rlm: query: No answer: the run stopped (failed_turns: 6 turns in a row") {
		t.Fatalf("status %d, stdout %q, stderr:\n%s", status, stdout.String(), errText)
	}
	if n := srv.Count(); n > 7 {
		t.Errorf("%d model calls, want at most 7", n)
	}
	t.Logf("stopped after %d model calls in %v", srv.Count(), time.Since(start).Round(time.Millisecond))
}

// TestQueryPool checks the REPL pool of a one-request run (rlm query): at
// most one worker started ahead, and never a spare or a replacement; other
// commands keep the pool the settings ask for.
func TestQueryPool(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		workers  int
		oneRun   bool
		wantSize int
	}{
		{workers: 2, oneRun: true, wantSize: 1},
		{workers: 0, oneRun: true, wantSize: -1},
		{workers: 2, oneRun: false, wantSize: 2},
	} {
		ec := &engineConfig{REPLWorkers: c.workers, oneRun: c.oneRun, REPL: repl.DefaultLimits(),
			REPLMemoryTotal: "auto", RequestREPLMemory: "auto", REPLUID: defaultREPLID, REPLGID: defaultREPLID}
		setup, _, err := ec.engineSetup(recursion.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if p := setup.Pool; p.Size != c.wantSize || p.NoRefill != c.oneRun {
			t.Errorf("workers %d, one run %v: pool size %d, no refill %v; want %d, %v", c.workers, c.oneRun, p.Size, p.NoRefill, c.wantSize, c.oneRun)
		}
	}
}

// TestLeaveCoreToWorker checks that a query's run gives up one P and gets
// it back, and leaves alone a GOMAXPROCS the environment set.
func TestLeaveCoreToWorker(t *testing.T) {
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		runtime.GOMAXPROCS(2)
		defer runtime.GOMAXPROCS(n)
		n = 2
	}
	t.Setenv("GOMAXPROCS", "")
	restore := leaveCoreToWorker()
	during := runtime.GOMAXPROCS(0)
	restore()
	if after := runtime.GOMAXPROCS(0); during != n-1 || after != n {
		t.Errorf("GOMAXPROCS %d during the run, %d after; want %d, %d", during, after, n-1, n)
	}
	t.Setenv("GOMAXPROCS", strconv.Itoa(n))
	restore = leaveCoreToWorker()
	during = runtime.GOMAXPROCS(0)
	restore()
	if during != n {
		t.Errorf("GOMAXPROCS set in the environment: %d during the run, want %d", during, n)
	}
}
