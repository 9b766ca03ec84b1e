package model

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/safetensors"
)

const goldenDir = "testdata/tiny-qwen3"

// TestTransformersGolden compares the Go model's logits on a committed tiny
// checkpoint with those of transformers' own Qwen3ForCausalLM, recorded by
// tests/python/transformers_golden.py on a machine that has transformers.
// Set RLM_WRITE_FIXTURE=1 to rewrite the checkpoint (then rerun the script).
func TestTransformersGolden(t *testing.T) {
	if os.Getenv("RLM_WRITE_FIXTURE") == "1" {
		m := newRandomModel(t, tinyConfig(false), 2024)
		if err := m.Save(goldenDir, SaveOptions{DType: safetensors.F32}); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(goldenDir, "transformers_logits.json"))
	}
	m, err := Load(backend.CPU{}, goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(goldenDir, "transformers_logits.json"))
	if os.IsNotExist(err) {
		t.Skip("no transformers_logits.json yet: run tests/python/transformers_golden.py " + goldenDir + " where transformers is installed")
	}
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Version string    `json:"transformers_version"`
		IDs     [][]int32 `json:"ids"`
		Logits  []float64 `json:"logits"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	ids := g.IDs[0]
	b := &Batch{B: 1, T: len(ids), IDs: ids, Pos: make([]int32, len(ids)), Seg: make([]int32, len(ids))}
	for i := range b.Pos {
		b.Pos[i] = int32(i)
	}
	if err := m.Forward(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	got := logitsOf(t, m, b)
	rel := compare(t, "logits vs transformers "+g.Version, g.Logits, got, 1e-4)
	t.Logf("logits match transformers %s: relative error %.2g", g.Version, rel)
}

// TestGoldenFixtureMatchesPyTorch keeps the committed fixture honest where
// transformers is missing: the plain-torch reference must agree with it.
func TestGoldenFixtureMatchesPyTorch(t *testing.T) {
	if !torchAvailable(t) {
		t.Skip("no torch")
	}
	m, err := Load(backend.CPU{}, goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	ids := []int32{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3}
	b := &Batch{B: 1, T: len(ids), IDs: ids, Pos: make([]int32, len(ids)), Seg: make([]int32, len(ids))}
	for i := range b.Pos {
		b.Pos[i] = int32(i)
	}
	got := logitsOf(t, m, b)
	ref := runTorch(t, goldenDir, b, "float64")
	compare(t, "fixture logits vs torch", ref.Logits, got, 1e-5)
}
