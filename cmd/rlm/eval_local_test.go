package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/cmd/rlm/internal/traincmd"
	"github.com/rlm-project/rlm/eval"
)

// TestEvalLocalModel runs `rlm eval --local-model` on a random tiny Qwen3:
// every run goes through the engine and REPL with the model in-process, is
// scored (a random model scores 0, but runs without failing), and
// --max-completion-tokens bounds what it writes.
func TestEvalLocalModel(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "tiny.json")
	// A window of 8192: with the test tokenizer's 269 tokens (bytes and a
	// few merges) the system prompt alone is about 4,200.
	os.WriteFile(cfgPath, []byte(`{"hidden_size":32,"intermediate_size":64,"num_hidden_layers":1,
		"num_attention_heads":2,"num_key_value_heads":1,"head_dim":16,"rms_norm_eps":1e-6,
		"rope_theta":10000,"max_position_embeddings":8192,"tie_word_embeddings":true,"vocab_size":269}`), 0o644)
	base := filepath.Join(dir, "base")
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	if err := traincmd.Run(ctx, cli.Env{}, []string{"init", "-model-config", cfgPath, "-out", base, "-tokenizer", sftTestdata}, &stdout, &stderr); err != nil {
		t.Fatalf("train init: %v\n%s", err, stderr.String())
	}
	out := filepath.Join(dir, "eval")
	stdout.Reset()
	stderr.Reset()
	err := runEval(ctx, cli.Env{}, []string{"--local-model", base, "--kv-cache", "16384tokens", "--task", "sniah", "--phrasings", "out",
		"--lengths", "2k", "--n", "2", "--temperature", "0", "--max-iterations", "2", "--max-completion-tokens", "16",
		"--out", out, "--traces", "none"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr.String())
	}
	res, err := eval.ReadResults(filepath.Join(out, eval.ResultsFile))
	if err != nil || len(res) != 2 {
		t.Fatalf("%d results, %v", len(res), err)
	}
	for _, r := range res {
		if r.Error != "" || r.StopReason == "" || r.Task != "sniah[phrasings=out]" {
			t.Errorf("%s: error %q, stop %q", r.Key(), r.Error, r.StopReason)
		}
		// Two turns and the answer-now call, each at most 16 tokens.
		if r.Usage.CompletionTokens > 3*16 {
			t.Errorf("%s: %d completion tokens, more than --max-completion-tokens allows", r.Key(), r.Usage.CompletionTokens)
		}
	}
	if !strings.Contains(stdout.String(), "sniah[phrasings=out]") {
		t.Errorf("table:\n%s", stdout.String())
	}
	if err := runEval(ctx, cli.Env{}, []string{"--local-model", base, "--max-completion-tokens", "-1", "--out", out}, &stdout, &stderr); err == nil {
		t.Error("a negative --max-completion-tokens was accepted")
	}
}

// TestEvalBuiltinFallback: with no upstream, rlm eval runs the built-in
// model in-process, as serve and query do, and says so (issue 26).
func TestEvalBuiltinFallback(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := runEval(context.Background(), cli.Env{}, []string{"--task", "sniah", "--lengths", "2k", "--n", "1", "--max-iterations", "5",
		"--out", out, "--traces", "none"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr.String())
	}
	if notices(stderr.String()) != 1 {
		t.Errorf("stderr does not say the built-in model runs:\n%s", stderr.String())
	}
	res, err := eval.ReadResults(filepath.Join(out, eval.ResultsFile))
	if err != nil || len(res) != 1 || res[0].Error != "" {
		t.Fatalf("results %+v, %v", res, err)
	}
}
