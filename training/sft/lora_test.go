package sft

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/model"
)

// TestLoRATraining trains adapters on the recorded trajectories with
// activation checkpointing on: the loss falls, the base weights do not
// change by one bit, the output directory holds a PEFT adapter (and no full
// model), and the saved adapter merged into the base model gives the loss
// the trained model has.
func TestLoRATraining(t *testing.T) {
	tok := loadTokenizer(t)
	data := sequences(t, tok, readTrajectories(t), 224)
	// With the LM head frozen, a base initialized at std 0.02 cannot
	// produce logits far from uniform (head rows of norm 0.16 against a
	// normalized hidden state of norm 8); a larger std leaves the adapters
	// room to fit the data.
	newBase := func() *model.Model {
		m := tinyModel(t, tok.VocabSize(), 1)
		m.InitRandom(1, 0.2)
		return m
	}
	m := newBase()
	base := m.DownloadParams()
	cfg := DefaultConfig()
	cfg.LR, cfg.WarmupSteps, cfg.Steps, cfg.BatchSize, cfg.GradAccum = 1e-2, 3, 25, 2, 2
	cfg.LogEvery, cfg.OutDir, cfg.CheckpointEvery = 100, t.TempDir(), 10
	cfg.CheckpointActivations = true
	cfg.LoRA = &model.LoRAConfig{Rank: 8, Alpha: 16, Targets: []string{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}}
	cfg.BaseModel = "tiny-base"
	tr, err := New(m, data, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run(context.Background(), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("LoRA: loss %.3f -> %.3f in %d steps", res.Losses[0], res.FinalLoss, res.Steps)
	if res.FinalLoss > 0.6*res.Losses[0] {
		t.Errorf("loss fell only from %.3f to %.3f", res.Losses[0], res.FinalLoss)
	}
	if !slices.Equal(m.DownloadParams(), base) {
		t.Errorf("training adapters changed the base weights")
	}
	if m.Grads != nil {
		t.Errorf("the frozen base model holds a gradient buffer")
	}
	if n := tr.opt.M.Len(); n != len(m.DownloadGrads()) || n >= m.NumParams()/4 {
		t.Errorf("optimizer state of %d floats for a model of %d parameters", n, m.NumParams())
	}
	for _, f := range []string{model.AdapterConfigFile, model.AdapterModelFile, "checkpoint-000020/" + model.AdapterModelFile} {
		if _, err := os.Stat(filepath.Join(cfg.OutDir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(cfg.OutDir, "model.safetensors")); err == nil {
		t.Errorf("a LoRA run wrote a full model")
	}
	if raw, _ := os.ReadFile(filepath.Join(cfg.OutDir, model.AdapterConfigFile)); !strings.Contains(string(raw), `"base_model_name_or_path": "tiny-base"`) {
		t.Errorf("adapter_config.json lacks the base model:\n%s", raw)
	}

	// The trained model's loss on the first step's batches, and the same
	// with the saved adapter merged into a fresh base model.
	batches, _, err := tr.microBatches(1)
	if err != nil {
		t.Fatal(err)
	}
	lossOf := func(mm *model.Model) float64 {
		var sum float64
		for _, b := range batches {
			if err := mm.Forward(context.Background(), b); err != nil {
				t.Fatal(err)
			}
			l, err := mm.Loss()
			if err != nil {
				t.Fatal(err)
			}
			sum += l
			if err := mm.Backward(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		return sum
	}
	trained := lossOf(m)
	merged := newBase()
	if err := merged.MergeLoRA(cfg.OutDir); err != nil {
		t.Fatal(err)
	}
	if got := lossOf(merged); got-trained > 1e-4 || trained-got > 1e-4 {
		t.Errorf("loss with the merged adapter %.6f, with the trained adapters %.6f", got, trained)
	}

	// A resume that asks for other adapters is refused.
	c := cfg
	c.Resume, c.LoRA = true, &model.LoRAConfig{Rank: 4, Alpha: 8}
	if _, err := New(tinyModel(t, tok.VocabSize(), 1), data, c); err == nil || !strings.Contains(err.Error(), "adapters") {
		t.Errorf("resume with other adapters: err = %v", err)
	}
}
