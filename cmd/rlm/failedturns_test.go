package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
)

// fixingModel is a scripted upstream (fakellm, not a model) that behaves
// as a capable model does with a compile error: it reads the error and
// tries again, and its code works after the given number of failed turns
// (at most four), then it answers.
func fixingModel(failures int) fakellm.Script {
	attempts := []string{
		// Calls a function the package does not have.
		"import (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfmt.Println(\"fails:\", strings.CountAll(context, \"FAIL\"))",
		// Misnames its variable.
		"import (\n\t\"fmt\"\n\t\"strings\"\n)\n\nn := strings.Count(context, \"FAIL\")\nfmt.Println(\"fails:\", count)",
		// Adds an int to a string.
		"import (\n\t\"fmt\"\n\t\"strings\"\n)\n\nn := strings.Count(context, \"FAIL\")\nfmt.Println(\"fails: \" + n)",
		// Drops a parenthesis.
		"import (\n\t\"fmt\"\n\t\"strings\"\n)\n\nn := strings.Count(context, \"FAIL\")\nfmt.Println(\"fails:\", n",
	}
	works := "import (\n\t\"fmt\"\n\t\"strings\"\n)\n\nn := strings.Count(context, \"FAIL\")\nfmt.Println(\"fails:\", n)"
	countRE := regexp.MustCompile(`fails: (\d+)`)
	return func(req fakellm.Request) fakellm.Reply {
		if m := countRE.FindStringSubmatch(req.LastUser()); m != nil {
			return fakellm.Reply{Content: "FINAL(" + m[1] + " failures)"}
		}
		turn := req.Turn()
		if turn <= failures {
			return fakellm.Reply{Content: fakellm.Code(attempts[turn-1+len(attempts)-failures])}
		}
		return fakellm.Reply{Content: fakellm.Code(works)}
	}
}

// durationRE matches the durations a verbose transcript shows.
var durationRE = regexp.MustCompile(`(in |time=)[0-9.]+(ns|µs|ms|s|m)`)

// TestFailedTurnsByKindOfModel: --max-failed-turns auto is 6 for an
// upstream, so a capable model that fixes a compile error over three or
// four turns answers, where 3 (the built-in model's default) stops it
// with "No answer". The transcript of four failed turns at the default is
// docs/transcripts/failed-turns-upstream.txt (-update rewrites it);
// docs/engine.md shows why the built-in model keeps 3.
func TestFailedTurnsByKindOfModel(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "app.log")
	os.WriteFile(file, []byte(strings.Repeat("ok line\n", 300)+strings.Repeat("FAIL line\n", 42)+strings.Repeat("ok line\n", 300)), 0o600)
	for _, tc := range []struct {
		failures int
		args     []string
		want     string // answer on stdout, or the stop on stderr
	}{
		{3, nil, "42 failures\n"},
		{4, nil, "42 failures\n"},
		{3, []string{"--max-failed-turns", "3"}, "stop=failed_turns"},
		{4, []string{"--max-failed-turns", "3"}, "stop=failed_turns"},
	} {
		up := fakellm.New(fixingModel(tc.failures))
		var stdout, stderr bytes.Buffer
		args := append([]string{"query", "--upstream", up.URL, "--root-model", "capable-model", "--verbose", "--context", file}, tc.args...)
		status := run(t.Context(), append(args, "How many lines say FAIL?"), &stdout, &stderr)
		up.Close()
		got := stdout.String()
		if strings.HasPrefix(tc.want, "stop=") {
			got = stderr.String()
			if status != 1 || !strings.Contains(got, "No answer") {
				t.Errorf("%d failures, %q: status %d, want 1 and No answer", tc.failures, tc.args, status)
			}
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%d failures, %q: status %d, want %q; stderr:\n%s", tc.failures, tc.args, status, tc.want, stderr.String())
		}
		if tc.failures == 4 && tc.args == nil {
			checkTranscript(t, "failed-turns-upstream.txt", stderr.String())
		}
	}
}

// checkTranscript compares a verbose transcript, its durations blanked,
// with docs/transcripts/name; -update rewrites the file.
func checkTranscript(t *testing.T, name, transcript string) {
	t.Helper()
	path := filepath.Join("..", "..", "docs", "transcripts", name)
	transcript = durationRE.ReplaceAllString(transcript, "${1}…")
	if *updateDocs {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(transcript), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != transcript {
		t.Errorf("%s differs from this run (%v); go test ./cmd/rlm -run TestFailedTurnsByKindOfModel -update rewrites it:\n%s", path, err, transcript)
	}
}

// TestFailedTurnsDefaultFollowsModel: auto resolves to the local default
// with a local model and to the upstream one without; a number given is
// kept.
func TestFailedTurnsDefaultFollowsModel(t *testing.T) {
	t.Parallel()
	load := func(args ...string) *config {
		s, c := newSettings("query", flag.NewFlagSet("query", flag.ContinueOnError), cli.Env{Getenv: func(string) string { return "" }})
		if err := s.Parse(args, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		return c
	}
	var local llm.Client = localStub{}
	for _, tc := range []struct {
		args  []string
		local bool
		want  int
	}{
		{nil, false, recursion.UpstreamMaxFailedTurns},
		{nil, true, recursion.LocalMaxFailedTurns},
		{[]string{"--max-failed-turns", "9"}, true, 9},
		{[]string{"--max-failed-turns", "auto"}, true, recursion.LocalMaxFailedTurns},
	} {
		c := load(tc.args...)
		if tc.local {
			c.Local = local
		}
		if got := c.runLimits().MaxFailedTurns; got != tc.want {
			t.Errorf("%q, local %v: %d failed turns, want %d", tc.args, tc.local, got, tc.want)
		}
	}
}

// localStub stands for a local model in a config; it is never called.
type localStub struct{}

func (localStub) Complete(context.Context, llm.Request) (llm.Completion, error) {
	return llm.Completion{}, errors.New("not a model")
}
