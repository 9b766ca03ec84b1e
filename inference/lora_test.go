package inference

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rlm-project/rlm/inference/inferencetest"
	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/safetensors"
)

// TestLoadMergesLoRA serves a checkpoint with a LoRA adapter (Config.LoRA,
// `rlm model serve --lora`): the engine's greedy completion is the one the
// unmerged adapted model computes with its full forward, and differs from
// the base model's.
func TestLoadMergesLoRA(t *testing.T) {
	m, _ := inferencetest.Model(t, 1)
	dir, adir := t.TempDir(), t.TempDir()
	if err := m.Save(dir, model.SaveOptions{DType: safetensors.F32, CopyFrom: inferencetest.TokenizerDir()}); err != nil {
		t.Fatal(err)
	}
	if err := m.EnableLoRA(model.LoRAConfig{Rank: 4, Alpha: 8, Targets: []string{"q_proj", "v_proj", "o_proj", "down_proj"}}); err != nil {
		t.Fatal(err)
	}
	params, _, _ := m.Trainable()
	host := make([]float32, params.Len())
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range host {
		host[i] = float32(rng.NormFloat64() * 0.3)
	}
	m.Backend().Upload(params, host)
	if err := m.SaveLoRA(adir, dir); err != nil {
		t.Fatal(err)
	}

	serve := func(lora string) []int32 {
		e, err := Load(backend.CPU{}, dir, Config{BlockSize: 4, LoRA: lora})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		r := generate(t, e, Request{Prompt: prompt(t, e, "Count the lines."), MaxTokens: 20, IgnoreEOS: true})
		return ids(r)
	}
	withLoRA, base := serve(adir), serve("")
	e, err := Load(backend.CPU{}, dir, Config{})
	if err != nil {
		t.Fatal(err)
	}
	p := prompt(t, e, "Count the lines.")
	e.Close()
	want, err := m.Greedy(context.Background(), p, 20, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(withLoRA, want) {
		t.Errorf("served with --lora: %v\nadapted model's full forward: %v", withLoRA, want)
	}
	if slices.Equal(withLoRA, base) {
		t.Errorf("the adapter does not change the completion %v", base)
	}
	if _, err := Load(backend.CPU{}, dir, Config{LoRA: t.TempDir()}); err == nil {
		t.Errorf("loaded with an empty adapter directory")
	}
}
