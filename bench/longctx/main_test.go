package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rlm-project/rlm/repl"
)

func TestMain(m *testing.M) {
	// As in main: this test binary is also the REPL worker and, for
	// -mode gateway, the gateway process.
	repl.MaybeRunWorker()
	if addr := os.Getenv("LONGCTX_GATEWAY_ADDR"); addr != "" {
		if err := runGateway(context.Background(), addr, os.Getenv("LONGCTX_GATEWAY_DATA")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSmall runs the benchmark program at small sizes in both in-repo modes
// against the fake upstream: every answer must be right and every number
// the tables report must have been measured.
func TestSmall(t *testing.T) {
	for _, mode := range []string{"gateway", "engine"} {
		t.Run(mode, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "m.json")
			err := run(context.Background(), []string{"-mode", mode, "-cases", "sniah:8k,oolong:8k", "-repeat", "1",
				"-workdir", t.TempDir(), "-json", out})
			if err != nil {
				t.Fatal(err)
			}
			var ms []measurement
			b, _ := os.ReadFile(out)
			if err := json.Unmarshal(b, &ms); err != nil || len(ms) != 2 {
				t.Fatalf("%d measurements, %v", len(ms), err)
			}
			for _, m := range ms {
				if m.Score != 1 || m.TotalSec <= 0 || m.FirstRootSec <= 0 || m.FirstRootSec > m.TotalSec ||
					m.ServerPeakMB <= 0 || m.WorkerPeakMB <= 0 || m.LLMCalls < 1 || m.Bytes < 30000 {
					t.Errorf("%+v", m)
				}
				if (mode == "gateway") != (m.UploadSec > 0) {
					t.Errorf("%s: upload %v", m.Case, m.UploadSec)
				}
			}
		})
	}
}

// TestServeMode runs the measured path itself: the real `rlm serve` binary
// over HTTP, the document uploaded with /v1/files. Skipped with -short (it
// links the binary).
func TestServeMode(t *testing.T) {
	if testing.Short() {
		t.Skip("links cmd/rlm")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "rlm")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/rlm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/rlm: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "m.json")
	if err := run(context.Background(), []string{"-mode", "serve", "-rlm", bin, "-cases", "sniah:8k,oolong:8k",
		"-repeat", "1", "-workdir", t.TempDir(), "-json", out}); err != nil {
		t.Fatal(err)
	}
	var ms []measurement
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &ms); err != nil || len(ms) != 2 {
		t.Fatalf("%d measurements, %v", len(ms), err)
	}
	for _, m := range ms {
		if m.Score != 1 || m.UploadSec <= 0 || m.TotalSec <= 0 || m.FirstRootSec <= 0 || m.FirstRootSec > m.TotalSec ||
			m.ServerPeakMB <= 0 || m.WorkerPeakMB <= 0 || m.LLMCalls < 1 {
			t.Errorf("%+v", m)
		}
	}
}
