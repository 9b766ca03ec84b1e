package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/tracingtest"
	"github.com/rlm-project/rlm/training/data"
)

// recordRuns stores synthetic runs (the engine's test double) for owner.
func recordRuns(t *testing.T, svc *tracing.Service, owner string) {
	t.Helper()
	t0 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	for i, s := range []tracingtest.Shape{
		{Start: t0, Turns: 2, Depth: 1, Fanout: 2, LLMPerCell: 3},
		{Start: t0.Add(time.Minute), Turns: 3, LLMPerCell: 2, Stop: recursion.StopMaxIterations},
	} {
		id := []string{"tr_one", "tr_two"}[i]
		run, err := svc.StartRun(t.Context(), tracing.RunInfo{TraceID: id, Owner: owner, Model: "fake-root", Started: s.Start})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := run.Finish(t.Context(), tracingtest.Emit(run.Observer(), s), nil); err != nil {
			t.Fatal(err)
		}
	}
}

// tracesSetup returns flag sets that reach the same runs through a gateway
// (HTTP, with an API key) and through its data directory.
func tracesSetup(t *testing.T) map[string][]string {
	dir := t.TempDir()
	d, err := store.OpenDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	svc := tracing.NewService(tracing.Config{Store: d, IsNotFound: func(err error) bool { return errors.Is(err, store.ErrNotFound) }})
	recordRuns(t, svc, "alice")
	api := tracing.NewAPI(svc, tracing.APIConfig{}).Handler(func(r *http.Request) (string, error) {
		if r.Header.Get("Authorization") == "Bearer k-alice" {
			return "alice", nil
		}
		return "", errors.New("incorrect API key provided")
	})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return map[string][]string{
		"http": {"--url", srv.URL, "--api-key", "k-alice"},
		"dir":  {"--dir", dir, "--owner", "alice"},
	}
}

func runTraces(ctx context.Context, args ...string) (string, string, error) {
	var out, errb bytes.Buffer
	err := tracesCmd(ctx, args, &out, &errb)
	return out.String(), errb.String(), err
}

func TestTracesCommand(t *testing.T) {
	for name, src := range tracesSetup(t) {
		t.Run(name, func(t *testing.T) {
			with := func(sub string, rest ...string) []string {
				return append(append([]string{sub}, src...), rest...)
			}
			out, _, err := runTraces(t.Context(), with("list")...)
			if err != nil || !strings.Contains(out, "tr_one") || !strings.Contains(out, "tr_two") || strings.Index(out, "tr_two") > strings.Index(out, "tr_one") {
				t.Errorf("list: %v\n%s", err, out)
			}
			out, _, err = runTraces(t.Context(), with("list", "--stop-reason", "final")...)
			if err != nil || !strings.Contains(out, "tr_one") || strings.Contains(out, "tr_two") {
				t.Errorf("list --stop-reason final: %v\n%s", err, out)
			}
			out, _, err = runTraces(t.Context(), with("show", "tr_one")...)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"tr_one  completed (final)", "node 0  depth 0  completed/final  2 turns", "├─ node 0.1  depth 1", "└─ node 0.4", "llm_query ×3", "answer: 42"} {
				if !strings.Contains(out, want) {
					t.Errorf("show lacks %q:\n%s", want, out)
				}
			}
			if n := strings.Count(out, "node "); n != 5 {
				t.Errorf("show draws %d nodes, want 5:\n%s", n, out)
			}
			if _, _, err := runTraces(t.Context(), with("show", "tr_missing")...); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Errorf("show of a missing run: %v", err)
			}
			if _, _, err := runTraces(t.Context(), with("feedback", "--score", "1", "--label", "good", "tr_one")...); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "out.jsonl")
			_, stderr, err := runTraces(t.Context(), with("export", "--format", "sft", "--min-reward", "0.5", "--out", file)...)
			if err != nil {
				t.Fatal(err)
			}
			samples, _, err := data.ReadFile(t.Context(), file, data.Filter{})
			if err != nil || len(samples) != 2 || samples[0].TraceID != "tr_one" || *samples[0].Reward != 1 {
				t.Errorf("export: %v, %d samples (%s)", err, len(samples), stderr)
			}
			out, _, err = runTraces(t.Context(), with("export", "--format", "chat", "--out", "-")...)
			if err != nil || strings.Count(out, "\n") != 2 || strings.Contains(out, "trace_id") {
				t.Errorf("chat export: %v\n%s", err, out)
			}
			if _, _, err := runTraces(t.Context(), with("export", "--format", "xml", "--out", file)...); err == nil {
				t.Error("export --format xml succeeded")
			}
			if b, _ := os.ReadFile(file); !bytes.Contains(b, []byte("tr_one/turn-1")) {
				t.Error("a failed export replaced the earlier file")
			}
		})
	}
}

func TestTracesUsage(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr error
		stdout  string
	}{
		{[]string{}, errUsage, ""},
		{[]string{"frobnicate"}, errUsage, ""},
		{[]string{"show"}, errUsage, ""},
		{[]string{"show", "a", "b"}, errUsage, ""},
		{[]string{"list", "extra"}, errUsage, ""},
		{[]string{"export", "--format", "sft"}, errUsage, ""},
		{[]string{"feedback", "tr_x"}, errUsage, ""},
		{[]string{"list", "--bogus"}, errUsage, ""},
		{[]string{"open", "--url", "http://gw:8080/", "tr_x"}, nil, "http://gw:8080/ui/#/runs/tr_x\n"},
		{[]string{"open", "--url", "gw", "tr_x"}, errors.New("not an absolute URL"), ""},
	}
	for _, tc := range tests {
		out, _, err := runTraces(t.Context(), tc.args...)
		if (err == nil) != (tc.wantErr == nil) || err != nil && !errors.Is(err, tc.wantErr) && !strings.Contains(err.Error(), tc.wantErr.Error()) {
			t.Errorf("%q: err %v, want %v", tc.args, err, tc.wantErr)
		}
		if out != tc.stdout {
			t.Errorf("%q: stdout %q, want %q", tc.args, out, tc.stdout)
		}
	}
	if _, _, err := runTraces(t.Context(), "list", "--url", "http://127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("unreachable gateway: %v", err)
	}
}
