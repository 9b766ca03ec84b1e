package main

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHelp checks that every subcommand answers `rlm help NAME` and
// `rlm NAME -h` with its usage and exit status 0, and that asked-for help
// goes to stdout.
func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if status := run(t.Context(), []string{"help"}, &stdout, &stderr); status != 0 || !strings.Contains(stdout.String(), "Commands:") {
		t.Fatalf("rlm help: status %d, stdout:\n%s", status, stdout.String())
	}
	for name := range commands() {
		if !strings.Contains(stdout.String(), "\n  "+name+" ") {
			t.Errorf("rlm help does not list %s:\n%s", name, stdout.String())
		}
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if status := run(t.Context(), []string{"help", name}, &stdout, &stderr); status != 0 ||
				!strings.Contains(stdout.String(), "rlm "+name) || stderr.Len() != 0 {
				t.Errorf("rlm help %s: status %d, stdout:\n%s\nstderr:\n%s", name, status, stdout.String(), stderr.String())
			}
			stdout.Reset()
			stderr.Reset()
			if status := run(t.Context(), []string{name, "-h"}, &stdout, &stderr); status != 0 ||
				!strings.Contains(stdout.String()+stderr.String(), "rlm "+name) {
				t.Errorf("rlm %s -h: status %d, output:\n%s%s", name, status, stdout.String(), stderr.String())
			}
		})
	}
}

// TestBadFlags checks that a wrong flag, or a flag value that parses but
// cannot be used, exits 2 with a message that names it, before any work.
func TestBadFlags(t *testing.T) {
	dir := t.TempDir()
	// An upstream from the environment, so that query and eval get as far
	// as the flag under test.
	t.Setenv("RLM_UPSTREAM", "http://127.0.0.1:1/v1")
	tests := []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"nope"}, 2, `unknown command "nope"`},
		{[]string{"query", "--nope"}, 2, "unknown flag --nope"},
		{[]string{"query", "--max-depth", "x", "q"}, 2, `flag --max-depth: not an integer: "x"`},
		{[]string{"query", "--root-model", "m", "--temperature", "hot", "q"}, 2, `--temperature "hot": not a number`},
		{[]string{"query", "--root-model", "m", "--max-output", "0", "q"}, 2, "--max-output 0: must be positive"},
		{[]string{"query", "--root-model", "m", "--repl-heap-bytes", "lots", "q"}, 2, `flag --repl-heap-bytes: not a positive size like 512MiB: "lots"`},
		{[]string{"query", "--root-model", "m", "--max-total-tokens", "-5", "q"}, 2, "--max-total-tokens -5: must not be negative"},
		{[]string{"eval", "--root-model", "m", "--kill-grace", "-1s"}, 2, "--kill-grace -1s: must be positive"},
		{[]string{"serve", "--data-dir", dir, "--max-goroutines", "-1"}, 1, "max-goroutines -1: must be positive"},
		{[]string{"eval", "--nope"}, 2, "unknown flag --nope"},
		{[]string{"eval", "--root-model", "m", "--baseline", "rag"}, 2, "the only baseline is direct"},
		{[]string{"eval", "--root-model", "m", "--lengths", "12q"}, 2, "--lengths"},
		{[]string{"serve", "--nope"}, 2, "unknown flag --nope"},
		{[]string{"serve", "--max-depth", "x"}, 2, `flag --max-depth: not an integer: "x"`},
		{[]string{"serve", "stray"}, 2, `unexpected arguments ["stray"]`},
		// Not a flag error (it may come from the environment or the file),
		// but a clear one instead of a crash.
		{[]string{"serve", "--data-dir", dir, "--upstream", "http://127.0.0.1:1", "--models", ""}, 1, "no model alias"},
		{[]string{"serve", "--data-dir", dir, "--max-depth", "-1"}, 1, "max-depth -1: must not be negative (0: the root alone)"},
		{[]string{"serve", "--data-dir", dir, "--max-queued", "0"}, 1, "max-queued 0: must be positive"},
		{[]string{"serve", "--data-dir", dir, "--max-iterations", "-1"}, 1, "max-iterations -1: must not be negative"},
		{[]string{"serve", "--data-dir", dir, "--repl-refill-delay", "-1s"}, 1, "repl-refill-delay -1s: must not be negative (0: at once)"},
		{[]string{"traces", "list", "--nope"}, 2, "unknown flag --nope"},
		{[]string{"train", "sft", "--nope"}, 2, "unknown flag --nope"},
		{[]string{"train", "sft", "--model", dir, "--data", dir, "--out", dir, "--dtype", "f8"}, 2, "want bf16 or f32"},
		{[]string{"train", "init", "--model-config", dir, "--out", dir, "--dtype", "f8"}, 2, "want bf16 or f32"},
		{[]string{"train", "sft", "--model", dir, "--data", dir, "--out", dir, "--device", "tpu"}, 2, "want auto, cpu, cuda or cuda:N"},
		{[]string{"train", "sft", "--model", dir, "--data", dir, "--out", dir, "--device", "cuda:x"}, 2, "want cuda:N"},
		{[]string{"train", "sft", "--model", dir, "--data", dir, "--out", dir, "--precision", "fp8"}, 2, "want bf16, tf32 or fp32"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := run(t.Context(), tt.args, &stdout, &stderr)
			if status != tt.status || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("status %d (want %d), stderr lacks %q:\n%s", status, tt.status, tt.want, stderr.String())
			}
		})
	}
}

// TestStopOnSignal: the first SIGINT or SIGTERM cancels the context and
// says that another stops at once; the second exits with 130 at once
// (issue 26: a second Ctrl-C did nothing while a server drained).
func TestStopOnSignal(t *testing.T) {
	var log syncBuffer
	exited := make(chan int, 1)
	ctx, stop := stopOnSignal(&log, func(code int) { exited <- code })
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the first signal did not cancel the context")
	}
	select {
	case code := <-exited:
		t.Fatalf("exited (%d) on the first signal", code)
	case <-time.After(100 * time.Millisecond):
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exited:
		if code != 130 {
			t.Errorf("exit status %d, want 130", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second signal did not exit")
	}
	if s := log.String(); !strings.Contains(s, "press Ctrl-C again to stop at once") || !strings.Contains(s, "stopping at once") {
		t.Errorf("stderr: %q", s)
	}
}
