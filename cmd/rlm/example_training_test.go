package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/eval"
)

// TestExampleTraining runs examples/training/run.sh as a user would, in an
// empty directory: trajectories collected by `rlm eval` from a fake upstream
// (eval/fakemodel, a scripted test double, not a model), exported as SFT
// samples, and a tiny random Qwen3 trained on them. Each stage must have
// produced what the next one and the user rely on.
func TestExampleTraining(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	t.Parallel()
	sh := requireTool(t, "sh")
	requireTool(t, "go") // the script builds the fake upstream
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", "training", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	// RLM: the rlm the other tests run, not a build of its own.
	stdout, stderr := runExampleFor(t, 8*time.Minute, dir, []string{"RLM=" + rlmBinary(t)}, sh, script, "out")
	t.Log(stdout)
	// The sequence length holds every sample whole: a truncated one would
	// train the answer without the system prompt and task it answers.
	if m := regexp.MustCompile(`data: (\d+) samples read, \d+ kept; \d+ sequences of \d+ tokens, \d+ trained tokens, (\d+) truncated, (\d+) dropped`).FindStringSubmatch(stdout); m == nil {
		t.Errorf("rlm train sft printed no data summary:\n%s", stdout)
	} else if m[1] == "0" || m[2] != "0" || m[3] != "0" {
		t.Errorf("the example's -seq-len does not fit its samples: %s", m[0])
	}
	if !strings.Contains(stdout, "TEST DOUBLE, not a model") {
		t.Errorf("the script does not say that its upstream is a test double:\n%s", stdout)
	}

	// 1. Every eval run reached FINAL and left its trajectory in the store.
	res, err := eval.ReadResults(filepath.Join(out, "eval", eval.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 6 {
		t.Fatalf("%d eval results, want 2 tasks x 3 instances", len(res))
	}
	for _, r := range res {
		if r.StopReason != "final" || r.TraceID == "" {
			t.Errorf("%s: stop %q trace %q error %q", r.Key(), r.StopReason, r.TraceID, r.Error)
			continue
		}
		if _, err := os.Stat(filepath.Join(out, "eval", "traces", "traces", "open", "t", r.TraceID+".blob")); err != nil {
			t.Errorf("%s: no trajectory file: %v", r.Key(), err)
		}
	}

	// 2. One SFT sample per root turn, each ending in a trained assistant turn.
	f, err := os.Open(filepath.Join(out, "samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	samples := 0
	for sc.Scan() {
		var s struct {
			StopReason string `json:"stop_reason"`
			Messages   []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
				Train   *bool  `json:"train"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("sample %d: %v", samples+1, err)
		}
		samples++
		if s.StopReason != "final" || len(s.Messages) < 3 {
			t.Errorf("sample %d: stop %q, %d messages", samples, s.StopReason, len(s.Messages))
			continue
		}
		last := s.Messages[len(s.Messages)-1]
		if last.Role != "assistant" || (last.Train != nil && !*last.Train) || !strings.Contains(last.Content, "```go") {
			t.Errorf("sample %d: last message is not a trained assistant turn with code: %+v", samples, last)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if samples < len(res) {
		t.Errorf("%d samples from %d runs", samples, len(res))
	}

	// 3 and 4. The random model and the trained one are Hugging Face checkpoints.
	for _, name := range []string{"base/model.safetensors", "base/config.json", "base/tokenizer.json",
		"sft/model.safetensors", "sft/config.json", "sft/tokenizer.json", "sft/loss.svg"} {
		if fi, err := os.Stat(filepath.Join(out, name)); err != nil || fi.Size() == 0 {
			t.Errorf("output lacks %s (%v)", name, err)
		}
	}
	var state struct {
		Step   int       `json:"step"`
		Losses []float64 `json:"losses"`
	}
	b, err := os.ReadFile(filepath.Join(out, "sft", "trainer_state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &state); err != nil {
		t.Fatal(err)
	}
	if n := len(state.Losses); n < 2 || n != state.Step || !(state.Losses[n-1] < state.Losses[0]) {
		t.Errorf("losses %v after %d steps: want one per step, the last below the first", state.Losses, state.Step)
	}
	if !strings.Contains(stderr, "test double") {
		t.Errorf("the fake upstream does not call itself a test double:\n%s", stderr)
	}
}
