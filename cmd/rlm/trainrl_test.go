package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/cmd/rlm/internal/traincmd"
	"github.com/rlm-project/rlm/internal/datasetschema"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/tracing"
)

// TestTrainRL runs `rlm train init` and `rlm train rl` end to end on a tiny
// random model through the real engine and REPL, with settings from a
// -config file and flags, and checks the outputs: progress lines, model,
// chart, checkpoint, and one stored trajectory with a reward per rollout.
func TestTrainRL(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "tiny.json")
	os.WriteFile(cfgPath, []byte(`{"hidden_size":48,"intermediate_size":96,"num_hidden_layers":2,
		"num_attention_heads":2,"num_key_value_heads":1,"head_dim":16,"rms_norm_eps":1e-6,
		"rope_theta":10000,"max_position_embeddings":8192,"tie_word_embeddings":true,"vocab_size":269}`), 0o644)
	task := filepath.Join(dir, "letters.jsonl")
	os.WriteFile(task, []byte(`{"context": "abcdefghij", "question": "Which letters?", "answer": ["a","b","c","d","e","f","g","h","i","j"], "scorer": "contains"}`+"\n"), 0o644)
	rlCfg := filepath.Join(dir, "rl.json")
	os.WriteFile(rlCfg, []byte(`{"group": 4, "lr": 0.02, "max_completion_tokens": 16, "loss": "ppo", "steps": 99}`), 0o644)
	base, out := filepath.Join(dir, "base"), filepath.Join(dir, "out")
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	if err := traincmd.Run(ctx, cli.Env{}, []string{"init", "-model-config", cfgPath, "-out", base, "-tokenizer", sftTestdata}, &stdout, &stderr); err != nil {
		t.Fatalf("train init: %v\n%s", err, stderr.String())
	}
	args := []string{"rl", "-model", base, "-out", out, "-task", "custom:" + task, "-tasks-per-step", "1",
		"-steps", "2", "-seq-len", "4096", "-max-iterations", "1", "-max-depth", "0", "-config", rlCfg,
		"-dtype", "f32", "-checkpoint-every", "1", "-device", "cpu", "-export", "verifiers"}
	stdout.Reset()
	if err := traincmd.Run(ctx, cli.Env{}, args, &stdout, &stderr); err != nil {
		t.Fatalf("train rl: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	t.Log(stdout.String())
	for _, want := range []string{"step 1/2 reward", "step 2/2 reward", "staleness 1", "done: 2 steps"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, name := range []string{"model.safetensors", "config.json", "tokenizer.json", "reward.svg", "trainer_state.json",
		"checkpoint-000001/optimizer.safetensors", "checkpoint-000001/pending_rollouts.json"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("output lacks %s", name)
		}
	}
	st, err := store.OpenDisk(filepath.Join(out, "traces"))
	if err != nil {
		t.Fatal(err)
	}
	svc := tracing.NewService(tracing.Config{Store: st})
	page, err := svc.List(ctx, "open", tracing.Filter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 8 {
		t.Errorf("%d trajectories stored, want 8 (2 steps of one group of 4)", len(page.Data))
	}
	stored := map[string]float64{}
	for _, s := range page.Data {
		if s.Reward == nil || !strings.HasPrefix(s.Reward.Label, "rl custom:letters") {
			t.Errorf("trajectory %s: reward %+v", s.ID, s.Reward)
			continue
		}
		stored[s.ID] = s.Reward.Score
	}
	// -export: every rollout's samples, each naming its stored trajectory
	// and carrying the reward that trajectory has.
	exp, err := os.ReadFile(filepath.Join(out, "rollouts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := datasetschema.CheckJSONL(bytes.NewReader(exp), datasetschema.VerifiersProcessed, datasetschema.Options{}); err != nil {
		t.Errorf("rollouts.jsonl: %v", err)
	}
	exported := map[string]bool{}
	for _, line := range bytes.Split(bytes.TrimSpace(exp), []byte("\n")) {
		var l struct {
			TraceID string  `json:"trace_id"`
			Reward  float64 `json:"reward"`
		}
		json.Unmarshal(line, &l)
		if r, ok := stored[l.TraceID]; !ok || r != l.Reward {
			t.Errorf("exported rollout %q: reward %g; stored: %g, %v", l.TraceID, l.Reward, r, ok)
		}
		exported[l.TraceID] = true
	}
	if len(exported) != 8 {
		t.Errorf("%d rollouts exported, want 8", len(exported))
	}
	// The same command again finds the run complete.
	stdout.Reset()
	if err := traincmd.Run(ctx, cli.Env{}, args, &stdout, &stderr); err != nil || !strings.Contains(stdout.String(), "already complete") {
		t.Errorf("second run: %v\n%s", err, stdout.String())
	}
}

// TestTrainRLBadConfig: a --config file (YAML, so JSON too) of train rl's
// settings is checked like every command's.
func TestTrainRLBadConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	tests := []struct {
		name, config, want string
	}{
		{"unknown key", `{"grup": 4}`, `unknown key "grup" (did you mean group?)`},
		{"flag name as key", "tasks-per-step: 4\n", `unknown key "tasks-per-step" (did you mean tasks_per_step?)`},
		{"not an object", `[1]`, "cannot unmarshal"},
		{"bad value", `{"group": "many"}`, "config file key group"},
		{"missing file", "", "no such file"},
		{"unknown export format", `{"export": "parquet"}`, "--export"},
		{"unknown phrasing set", "phrasings: held-out\n", `phrasings "held-out"`},
		{"an argument", "out: /tmp/x\n", "--out is an argument of one invocation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "absent.yaml")
			if tt.config != "" {
				path = write(tt.name+".yaml", tt.config)
			}
			var stdout, stderr bytes.Buffer
			err := traincmd.Run(context.Background(), cli.Env{}, []string{"rl", "--model", dir, "--out", dir, "--config", path}, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to mention %q", err, tt.want)
			}
		})
	}
}
