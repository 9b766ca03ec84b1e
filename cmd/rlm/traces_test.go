package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/cmd/rlm/internal/tracecmd"
	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/traceapi"
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
		question := []string{"Which port\nanswers first?", "How many users?"}[i]
		run, err := svc.StartRun(t.Context(), tracing.RunInfo{TraceID: id, Owner: owner, Model: "fake-root", Started: s.Start, Question: question})
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
	svc := tracing.NewService(tracing.Config{Store: d})
	recordRuns(t, svc, "alice")
	api := traceapi.New(svc, traceapi.Config{}).Handler(func(r *http.Request) (string, error) {
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
	err := tracecmd.Run(ctx, cli.Env{}, args, &out, &errb)
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
			// Each run's question on its own line, newlines folded.
			for _, want := range []string{"QUESTION", "Which port answers first?", "How many users?"} {
				if !strings.Contains(out, want) {
					t.Errorf("list lacks %q:\n%s", want, out)
				}
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
			// Flags may follow the ID (issue 26).
			out, _, err = runTraces(t.Context(), with("show", "tr_one", "--json")...)
			var tr struct {
				ID string `json:"id"`
			}
			if err != nil || json.Unmarshal([]byte(out), &tr) != nil || !strings.Contains(out, "tr_one") {
				t.Errorf("show ID --json: %v\n%.300s", err, out)
			}
			if _, _, err := runTraces(t.Context(), with("show", "tr_missing")...); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Errorf("show of a missing run: %v", err)
			}
			out, _, err = runTraces(t.Context(), with("feedback", "--score", "1", "--label", "good", "tr_one")...)
			if err != nil || out != "recorded reward 1 (label \"good\") for run tr_one\n" {
				t.Fatalf("feedback: %v, printed %q", err, out)
			}
			if _, _, err := runTraces(t.Context(), with("feedback", "--score", "NaN", "tr_one")...); err == nil {
				t.Error("feedback --score NaN accepted")
			}
			if _, _, err := runTraces(t.Context(), with("feedback", "--score", "1", "tr_missing")...); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Errorf("feedback on a missing run: %v", err)
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
		{[]string{}, cli.ErrUsage, ""},
		{[]string{"frobnicate"}, cli.ErrUsage, ""},
		{[]string{"show"}, cli.ErrUsage, ""},
		{[]string{"show", "a", "b"}, cli.ErrUsage, ""},
		{[]string{"list", "extra"}, cli.ErrUsage, ""},
		{[]string{"export", "--format", "sft"}, cli.ErrUsage, ""},
		{[]string{"feedback", "tr_x"}, cli.ErrUsage, ""},
		{[]string{"list", "--bogus"}, cli.ErrUsage, ""},
		{[]string{"open", "--url", "gw", "tr_x"}, errors.New("not an absolute URL"), ""},
		{[]string{"owners"}, errors.New("--dir is required"), ""},
		{[]string{"list", "--owner", "alice"}, errors.New("--owner needs --dir"), ""},
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

// TestTracesDirReadOnly: the reading commands never create or change
// anything, and a directory that does not exist, or holds no runs, is an
// error that says so.
func TestTracesDirReadOnly(t *testing.T) {
	parent := t.TempDir()
	typo := filepath.Join(parent, "data-dri")
	empty := filepath.Join(parent, "empty")
	os.Mkdir(empty, 0o755)
	out := filepath.Join(parent, "out.jsonl")
	for _, args := range [][]string{
		{"list"}, {"show", "tr_one"}, {"open", "tr_one"}, {"export", "--out", out}, {"owners"},
		{"feedback", "--score", "1", "tr_one"},
	} {
		for _, dir := range []string{typo, empty} {
			full := append([]string{args[0], "--dir", dir}, args[1:]...)
			stdout, _, err := runTraces(t.Context(), full...)
			want := "no such file or directory"
			if dir == empty {
				want = "holds no recorded runs"
			}
			if err == nil || !strings.Contains(err.Error(), want) || stdout != "" {
				t.Errorf("%q: %v (printed %q), want an error saying %q", full, err, stdout, want)
			}
		}
	}
	if _, err := os.Stat(typo); !os.IsNotExist(err) {
		t.Errorf("a command created the mistyped directory: %v", err)
	}
	if es, _ := os.ReadDir(empty); len(es) != 0 {
		t.Errorf("commands wrote into the empty directory: %v", es)
	}
	if es, _ := os.ReadDir(parent); len(es) != 1 {
		t.Errorf("commands left files beside the directories: %v", es)
	}
}

// TestTracesOwners: a data directory of a gateway with API keys keeps each
// key's runs under an owner id derived from the key. --api-key finds them,
// and whatever owner is asked for, the command says which others exist.
func TestTracesOwners(t *testing.T) {
	dir := t.TempDir()
	d, err := store.OpenDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	svc := tracing.NewService(tracing.Config{Store: d})
	alice := store.OwnerOfKey("k-alice")
	recordRuns(t, svc, alice)
	recordRuns(t, svc, "open")

	out, stderr, err := runTraces(t.Context(), "list", "--dir", dir, "--api-key", "k-alice")
	if err != nil || strings.Count(out, "tr_") != 2 || !strings.Contains(stderr, "also holds the runs of open (2 runs)") {
		t.Errorf("list --api-key: %v\n%s%s", err, out, stderr)
	}
	t.Setenv("RLM_API_KEY", "k-alice")
	if out, _, err := runTraces(t.Context(), "list", "--dir", dir); err != nil || strings.Count(out, "tr_") != 2 {
		t.Errorf("list with RLM_API_KEY: %v\n%s", err, out)
	}
	t.Setenv("RLM_API_KEY", "")
	_, stderr, err = runTraces(t.Context(), "list", "--dir", dir)
	if err != nil || !strings.Contains(stderr, alice+" (2 runs)") {
		t.Errorf("list of owner open does not name the other owner: %v\n%s", err, stderr)
	}
	_, _, err = runTraces(t.Context(), "list", "--dir", dir, "--owner", "bob")
	if err == nil || !strings.Contains(err.Error(), "no runs of owner bob") || !strings.Contains(err.Error(), alice+" (2 runs), open (2 runs)") {
		t.Errorf("list of an owner without runs: %v", err)
	}
	if _, _, err := runTraces(t.Context(), "list", "--dir", dir, "--owner", "open", "--api-key", "k-alice"); err == nil || !strings.Contains(err.Error(), "disagree") {
		t.Errorf("--owner and --api-key of another owner: %v", err)
	}
	out, _, err = runTraces(t.Context(), "owners", "--dir", dir, "--api-key", "k-alice")
	if err != nil || !regexp.MustCompile(alice+` +2 +<- derived from the API key\n`).MatchString(out) || !strings.Contains(out, "open") {
		t.Errorf("owners: %v\n%s", err, out)
	}
}

// TestTracesOpen: open checks the run exists, prints its URL, and starts
// the desktop's opener (xdg-open) when there is a display; a fake xdg-open
// on PATH records what it was asked to open.
func TestTracesOpen(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("uses xdg-open")
	}
	srcs := tracesSetup(t)
	bin := t.TempDir()
	opened := filepath.Join(bin, "opened")
	script := "#!/bin/sh\necho \"$1\" >> " + opened + "\n"
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("WAYLAND_DISPLAY", "")

	t.Setenv("DISPLAY", ":0")
	http := append([]string{"open"}, srcs["http"]...)
	out, stderr, err := runTraces(t.Context(), append(http, "tr_one")...)
	want := srcs["http"][1] + "/ui/#/runs/tr_one"
	if err != nil || out != want+"\n" || !strings.Contains(stderr, "opened in your browser (xdg-open)") {
		t.Fatalf("open: %v, stdout %q, stderr %q", err, out, stderr)
	}
	if b, _ := os.ReadFile(opened); string(b) != want+"\n" {
		t.Errorf("xdg-open was given %q, want %q", b, want)
	}
	// A run that does not exist: an error, and no browser.
	if _, _, err := runTraces(t.Context(), append(http, "tr_nope")...); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("open of a missing run: %v", err)
	}
	dir := append(append([]string{"open"}, srcs["dir"]...), "--url", "http://gw:8080", "tr_nope")
	if _, _, err := runTraces(t.Context(), dir...); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("open --dir of a missing run: %v", err)
	}
	if b, _ := os.ReadFile(opened); strings.Count(string(b), "\n") != 1 {
		t.Errorf("a browser was opened for a missing run: %q", b)
	}
	// No display (SSH, a container): the URL only.
	t.Setenv("DISPLAY", "")
	dir[len(dir)-1] = "tr_two"
	out, stderr, err = runTraces(t.Context(), dir...)
	if err != nil || out != "http://gw:8080/ui/#/runs/tr_two\n" || strings.Contains(stderr, "opened") {
		t.Errorf("open without a display: %v, stdout %q, stderr %q", err, out, stderr)
	}
	if b, _ := os.ReadFile(opened); strings.Count(string(b), "\n") != 1 {
		t.Errorf("a browser was opened without a display: %q", b)
	}
}

// TestTracesOfAKeyedGateway runs `rlm serve` with API keys and a data
// directory, sends one request with a key, and reads the directory as a
// user would: the run is under the owner --api-key derives (the same id the
// gateway computed), listing without a key names that owner, the run's
// model is the alias the client asked for and is also found by the
// upstream model that answered, and its ID has the form rlm eval's runs
// have too.
func TestTracesOfAKeyedGateway(t *testing.T) {
	t.Parallel()
	up := fakellm.New(countingUpstream)
	defer up.Close()
	data := t.TempDir()
	s := startServe(t, append(upstreamArgs(up.URL), "--api-key", "k1,k2", "--data-dir", data)...)
	body := `{"model": "rlm", "messages": [{"role": "user", "content": ` + jsonString("How many failures?\n"+logText) + `}]}`
	req, _ := http.NewRequest("POST", s.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer k1")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	tid := resp.Header.Get("X-RLM-Trace-Id")
	if resp.StatusCode != 200 || !regexp.MustCompile(`^trace-[0-9a-f]{24}$`).MatchString(tid) {
		t.Fatalf("status %d, trace id %q", resp.StatusCode, tid)
	}
	if id := tracing.NewTraceID(); !regexp.MustCompile(`^trace-[0-9a-f]{24}$`).MatchString(id) {
		t.Errorf("tracing.NewTraceID() = %q, not the gateway's form", id)
	}

	// The run is saved when it ends, which may be just after the answer.
	var out string
	for deadline := time.Now().Add(10 * time.Second); ; {
		out, _, err = runTraces(t.Context(), "list", "--dir", data, "--api-key", "k1")
		if err == nil && strings.Contains(out, tid) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil || !strings.Contains(out, tid) || !strings.Contains(out, "rlm (root-model)") {
		t.Fatalf("list --api-key k1: %v\n%s", err, out)
	}
	for _, model := range []string{"rlm", "root-model"} {
		if out, _, err := runTraces(t.Context(), "list", "--dir", data, "--api-key", "k1", "--model", model); err != nil || !strings.Contains(out, tid) {
			t.Errorf("list --model %s: %v\n%s", model, err, out)
		}
	}
	_, _, err = runTraces(t.Context(), "list", "--dir", data)
	if err == nil || !strings.Contains(err.Error(), store.OwnerOfKey("k1")+" (1 run)") {
		t.Errorf("list without a key: %v; want an error naming the key's owner", err)
	}
	if _, _, err := runTraces(t.Context(), "show", "--dir", data, "--api-key", "k2", tid); err == nil {
		t.Error("another key's owner reads the run")
	}
}

// TestTracesOpenDirServesViewer: with --dir, no gateway need hold the
// directory: `rlm traces open` serves the viewer and the trace API over it
// until interrupted, and prints the run's URL there.
func TestTracesOpenDirServesViewer(t *testing.T) {
	t.Setenv("RLM_URL", "")
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	dir := t.TempDir()
	d, err := store.OpenDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	recordRuns(t, tracing.NewService(tracing.Config{Store: d}), "open")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- tracecmd.Run(ctx, cli.Env{}, []string{"open", "--dir", dir, "tr_one"}, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v (%s)", err, stderr.String())
	}
	viewer := strings.TrimSpace(line)
	base, frag, ok := strings.Cut(viewer, "/ui/#/runs/")
	if !ok || frag != "tr_one" {
		t.Fatalf("printed %q, want the run's viewer URL", viewer)
	}
	go io.Copy(io.Discard, pr)
	for path, want := range map[string]string{"/ui/": "<html", "/v1/traces/tr_one": `"tr_one"`, "/v1/traces": "tr_two"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(strings.ToLower(string(body)), strings.ToLower(want)) {
			t.Errorf("GET %s: %d, body lacks %q: %.200s", path, resp.StatusCode, want, body)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("stopped with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the viewer did not stop when interrupted")
	}
	if _, err := http.Get(base + "/ui/"); err == nil {
		t.Error("the viewer still answers after it stopped")
	}
}
