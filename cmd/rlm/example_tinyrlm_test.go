package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/eval"
)

// TestExampleTinyRLMData runs examples/tiny-rlm/data.sh, small: the expert
// policy's trajectories, recorded by rlm eval through the real engine and
// REPL, exported as SFT samples of every task family.
var lookupKeyRE = regexp.MustCompile(eval.DocKeyRE)

func TestExampleTinyRLMData(t *testing.T) {
	t.Parallel()
	sh := requireTool(t, "sh")
	requireTool(t, "go")
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", "tiny-rlm", "data.sh"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// RLM: the rlm the other tests run, not a build of its own.
	const shapes = 6 // LOOKUPS: training lookups of examples/tiny-rlm/lookups
	runExample(t, dir, []string{"N=2", "LENGTHS=8k", "SEEDS=1", fmt.Sprintf("LOOKUPS=%d", shapes), "RLM=" + rlmBinary(t)}, sh, script, "out")
	out := filepath.Join(dir, "out")

	runs, lookups, shapeRuns := 0, 0, 0
	dirs, _ := filepath.Glob(filepath.Join(out, "eval", "*"))
	for _, d := range dirs {
		res, err := eval.ReadResults(filepath.Join(d, eval.ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if strings.HasPrefix(r.Task, "custom:lookups") {
				// The expert's lookup is one call of the REPL's helper,
				// which misses some of these shapes: data.sh keeps only
				// the rewarded runs (checked on the samples below).
				shapeRuns++
				continue
			}
			runs++
			if strings.HasPrefix(r.Task, "sniah") || strings.HasPrefix(r.Task, "docs") {
				lookups++
			}
			if r.Score != 1 || r.StopReason != "final" {
				t.Errorf("%s: expert scored %v (stop %s, answer %q, gold %q)", r.Key(), r.Score, r.StopReason, r.Answer, r.Gold)
			}
		}
	}
	if runs != 11*2 || shapeRuns != shapes {
		t.Fatalf("%d runs, want 11 task variants (sniah 4, records, label-count, docs 5) x 2 instances; %d lookups of every shape, want %d", runs, shapeRuns, shapes)
	}

	f, err := os.Open(filepath.Join(out, "samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	samples := 0
	families := map[string]bool{}
	for sc.Scan() {
		var s struct {
			Reward   *float64 `json:"reward"`
			Messages []struct {
				Role, Content string
			} `json:"messages"`
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		samples++
		last := s.Messages[len(s.Messages)-1]
		if s.Reward == nil || *s.Reward != 1 || last.Role != "assistant" || !strings.Contains(last.Content, "```go") {
			t.Fatalf("sample %d: reward %v, last message %+v", samples, s.Reward, last)
		}
		q := s.Messages[1].Content
		switch {
		case lookupKeyRE.MatchString(q):
			families["lookup"] = true // sniah and docs
		case strings.Contains(q, "sentiment"):
			families["label-count"] = true
			if strings.Contains(last.Content, "llm_query_batched") {
				families["sub-calls"] = true
			}
		case strings.Contains(q, "record"):
			families["records"] = true
		}
	}
	// A lookup is one turn (the general cell, which ends with FINAL); the
	// other families look first, so they give a sample per turn, two or
	// more.
	if want := lookups + 2*(runs-lookups); samples < want || len(families) != 4 {
		t.Errorf("%d samples from %d runs (%d lookups), want at least %d; families %v", samples, runs, lookups, want, families)
	}
}
