package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/cmd/rlm/internal/traincmd"
	"github.com/rlm-project/rlm/internal/datasetschema"
	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/training/data"
)

// TestFeedbackRewardsTrainSFT is rejection-sampling SFT on production
// trajectories, end to end: runs recorded by `rlm serve` (upstream: the
// fakellm test double, not a model), scores posted to
// /v1/traces/{id}/feedback, `rlm traces export` from the gateway, then
// `rlm train sft --min-reward 1`, which must keep the samples of the
// approved runs and only those.
func TestFeedbackRewardsTrainSFT(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	t.Parallel()
	up := fakellm.New(countingUpstream)
	defer up.Close()
	s := startServe(t, upstreamArgs(up.URL)...)
	var ids []string
	for i := range 4 {
		log := strings.Repeat("ok line\n", 3+i) + strings.Repeat("FAIL line\n", i+1)
		body := `{"model": "rlm", "messages": [{"role": "user", "content": ` + jsonString(fmt.Sprintf("Run %d. How many failures?\n%s", i, log)) + `}]}`
		resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("run %d: status %d", i, resp.StatusCode)
		}
		ids = append(ids, resp.Header.Get("X-RLM-Trace-Id"))
	}
	approved := map[string]bool{ids[0]: true, ids[2]: true}
	for _, id := range ids {
		score := 0.0
		if approved[id] {
			score = 1
		}
		// The run is saved just after its answer; feedback waits for that
		// (or says 409 while it is still going).
		for deadline := time.Now().Add(10 * time.Second); ; {
			resp, err := http.Post(s.URL+"/v1/traces/"+id+"/feedback", "application/json",
				strings.NewReader(fmt.Sprintf(`{"score": %g, "label": "reviewed"}`, score)))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("feedback %s: status %d", id, resp.StatusCode)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	dir := t.TempDir()
	export := filepath.Join(dir, "runs.jsonl")
	if _, stderr, err := runTraces(t.Context(), "export", "--url", s.URL, "--format", "sft", "--out", export); err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	raw, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	all, _, err := data.Read(t.Context(), bytes.NewReader(raw), data.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	perRun := map[string]int{}
	for _, x := range all {
		if x.Reward == nil {
			t.Fatalf("sample %s has no reward after feedback", x.ID)
		}
		if want := map[bool]float64{true: 1, false: 0}[approved[x.TraceID]]; *x.Reward != want {
			t.Errorf("sample %s: reward %v, want the feedback's %v", x.ID, *x.Reward, want)
		}
		perRun[x.TraceID]++
	}
	if len(perRun) != len(ids) {
		t.Fatalf("export holds runs %v, want all of %v", perRun, ids)
	}
	keep := perRun[ids[0]] + perRun[ids[2]]
	if keep == 0 || keep == len(all) {
		t.Fatalf("approved runs have %d of %d samples: nothing to tell apart", keep, len(all))
	}

	// The trainer's reader, with the trainer's filter, keeps exactly the
	// approved runs.
	one := 1.0
	kept, _, err := data.Read(t.Context(), bytes.NewReader(raw), data.Filter{MinReward: &one})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range kept {
		if !approved[x.TraceID] {
			t.Errorf("kept sample %s of unapproved run %s", x.ID, x.TraceID)
		}
	}
	if len(kept) != keep {
		t.Errorf("filter kept %d samples, want %d", len(kept), keep)
	}

	// And `rlm train sft --min-reward 1` trains on those.
	cfgPath := filepath.Join(dir, "tiny.json")
	os.WriteFile(cfgPath, []byte(`{"hidden_size":32,"intermediate_size":64,"num_hidden_layers":1,
		"num_attention_heads":2,"num_key_value_heads":1,"head_dim":16,"rms_norm_eps":1e-6,
		"rope_theta":10000,"max_position_embeddings":8192,"tie_word_embeddings":true,"vocab_size":269}`), 0o644)
	base, out := filepath.Join(dir, "base"), filepath.Join(dir, "out")
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	if err := traincmd.Run(ctx, cli.Env{}, []string{"init", "-model-config", cfgPath, "-out", base, "-tokenizer", sftTestdata}, &stdout, &stderr); err != nil {
		t.Fatalf("train init: %v\n%s", err, stderr.String())
	}
	stdout.Reset()
	if err := traincmd.Run(ctx, cli.Env{}, []string{"sft", "-model", base, "-data", export, "-out", out, "-min-reward", "1",
		"-seq-len", "8192", "-steps", "1", "-batch-size", "1", "-dtype", "f32"}, &stdout, &stderr); err != nil {
		t.Fatalf("train sft: %v\n%s", err, stderr.String())
	}
	t.Log(stdout.String())
	want := fmt.Sprintf("data: %d samples read, %d kept;", len(all), keep)
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("train sft output lacks %q:\n%s", want, stdout.String())
	}

	// The same runs in the formats for other trainers carry the feedback
	// too: a verifiers export of the approved runs fits its schema with a
	// float reward on every line.
	vf := filepath.Join(dir, "verifiers.jsonl")
	if _, stderr, err := runTraces(t.Context(), "export", "--url", s.URL, "--format", "verifiers", "--min-reward", "1", "--out", vf); err != nil {
		t.Fatalf("export verifiers: %v\n%s", err, stderr)
	}
	b, err := os.ReadFile(vf)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := datasetschema.CheckJSONL(bytes.NewReader(b), datasetschema.VerifiersRollout, datasetschema.Options{}); err != nil || n != len(approved) {
		t.Errorf("verifiers export: %d lines, %v; want %d", n, err, len(approved))
	}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var v struct {
			Info map[string]string `json:"info"`
		}
		json.Unmarshal(line, &v)
		if !approved[v.Info["trace_id"]] {
			t.Errorf("verifiers export holds run %q", v.Info["trace_id"])
		}
	}
}
