package model

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/safetensors"
)

func loadTiny(t *testing.T) *Model {
	t.Helper()
	m, err := Load(backend.CPU{}, "testdata/tiny-qwen3")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func allLogits(t *testing.T, m *Model, b *Batch) []float32 {
	t.Helper()
	if err := m.Forward(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	V := m.Cfg.VocabSize
	out := make([]float32, b.B*b.T*V)
	for n := range b.B * b.T {
		if err := m.Logits(n, out[n*V:(n+1)*V]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// randomizeB gives the adapters nonzero B, so they change the output and
// A's gradient is not zero.
func randomizeB(m *Model, seed uint64) {
	host := make([]float32, m.lora.nParam)
	m.be.Download(host, m.lora.Params)
	rng := rand.New(rand.NewPCG(seed, 2))
	for _, p := range m.lora.params {
		if p.Shape[1] == m.lora.cfg.Rank { // B is out×r
			for i := p.Offset; i < p.Offset+p.Size(); i++ {
				host[i] = float32(rng.NormFloat64() * 0.3)
			}
		}
	}
	m.be.Upload(m.lora.Params, host)
}

var allTargets = []string{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}

// TestLoRAStartsAtBase: with B = 0 the adapted model computes the base
// model's logits and loss exactly; with B ≠ 0 it does not.
func TestLoRAStartsAtBase(t *testing.T) {
	m := loadTiny(t)
	b := packedBatch(rand.New(rand.NewPCG(1, 1)), m.Cfg.VocabSize)
	base := allLogits(t, m, b)
	lossBase, _ := lossAndGrads(t, m, b)
	if err := m.EnableLoRA(LoRAConfig{Rank: 4, Alpha: 8, Targets: allTargets, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if got := allLogits(t, m, b); !slices.Equal(got, base) {
		t.Fatalf("logits with fresh adapters differ from the base model's")
	}
	if l, _ := lossAndGrads(t, m, b); l != lossBase {
		t.Fatalf("loss with fresh adapters %v, base %v", l, lossBase)
	}
	if m.Grads != nil {
		t.Fatalf("frozen base weights got a gradient buffer of %d", m.Grads.Len())
	}
	randomizeB(m, 5)
	if got := allLogits(t, m, b); slices.Equal(got, base) {
		t.Fatalf("adapters with nonzero B leave the logits unchanged")
	}
}

// TestLoRAGradients checks the adapters' gradients by central finite
// differences, element by element on a sample of A and B entries of every
// target, and along a random direction over all of them; with and without
// activation checkpointing.
func TestLoRAGradients(t *testing.T) {
	for _, ckpt := range []bool{false, true} {
		m := loadTiny(t)
		m.SetCheckpointActivations(ckpt)
		if err := m.EnableLoRA(LoRAConfig{Rank: 3, Alpha: 6, Targets: allTargets, Seed: 9}); err != nil {
			t.Fatal(err)
		}
		randomizeB(m, 11)
		rng := rand.New(rand.NewPCG(4, 4))
		b := packedBatch(rng, m.Cfg.VocabSize)
		_, g := lossAndGrads(t, m, b)
		theta := make([]float32, m.lora.nParam)
		m.be.Download(theta, m.lora.Params)
		lossAt := func(p []float32) float64 {
			m.be.Upload(m.lora.Params, p)
			l, _ := lossAndGrads(t, m, b)
			return l
		}
		// Element-wise, in float32: the step must be large enough for the
		// loss difference to stand above rounding.
		const h = 1e-2
		checked := 0
		for _, p := range m.lora.params {
			for range 3 {
				i := p.Offset + rng.IntN(p.Size())
				plus, minus := slices.Clone(theta), slices.Clone(theta)
				plus[i] += h
				minus[i] -= h
				num := (lossAt(plus) - lossAt(minus)) / (2 * h)
				if diff := math.Abs(num - float64(g[i])); diff > 2e-3*math.Max(1, math.Abs(num))+3e-4 {
					t.Errorf("ckpt=%v %s[%d]: gradient %g, finite difference %g", ckpt, p.Name, i-p.Offset, g[i], num)
				}
				checked++
			}
		}
		d := make([]float32, len(theta))
		var gd float64
		for i := range d {
			d[i] = float32(rng.NormFloat64() / math.Sqrt(float64(len(d))))
			gd += float64(d[i]) * float64(g[i])
		}
		step := func(s float32) []float32 {
			p := slices.Clone(theta)
			for i := range p {
				p[i] += s * d[i]
			}
			return p
		}
		num := (lossAt(step(h)) - lossAt(step(-h))) / (2 * h)
		if rel := math.Abs(num-gd) / math.Abs(gd); rel > 2e-3 {
			t.Errorf("ckpt=%v: directional derivative %g, g·d %g (rel %g)", ckpt, num, gd, rel)
		}
		if checked != 3*len(m.lora.params) || len(m.lora.params) != 2*7*m.Cfg.NumHiddenLayers {
			t.Fatalf("checked %d entries of %d adapter matrices", checked, len(m.lora.params))
		}
	}
}

// TestLoRASavePEFTLayout saves adapters and checks the files against what
// PEFT writes and loads: adapter_config.json fields and the tensor names
// and shapes of adapter_model.safetensors.
func TestLoRASavePEFTLayout(t *testing.T) {
	m := loadTiny(t)
	if err := m.EnableLoRA(LoRAConfig{Rank: 4, Alpha: 16, Targets: []string{"q_proj", "v_proj", "down_proj"}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := m.SaveLoRA(dir, "Qwen/Qwen3-0.6B"); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "adapter_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"peft_type": "LORA", "r": 4.0, "lora_alpha": 16.0, "base_model_name_or_path": "Qwen/Qwen3-0.6B",
		"task_type": "CAUSAL_LM", "lora_dropout": 0.0, "bias": "none"} {
		if cfg[k] != want {
			t.Errorf("adapter_config.json %s = %v, want %v", k, cfg[k], want)
		}
	}
	if tm, _ := json.Marshal(cfg["target_modules"]); string(tm) != `["q_proj","v_proj","down_proj"]` {
		t.Errorf("target_modules %s", tm)
	}
	f, err := safetensors.Open(filepath.Join(dir, "adapter_model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	C, F, KD, HD := 16, 24, 2*6, 4*6
	want := map[string][]int{}
	for l := range 2 {
		for _, tc := range []struct {
			mod     string
			out, in int
		}{{"self_attn.q_proj", HD, C}, {"self_attn.v_proj", KD, C}, {"mlp.down_proj", C, F}} {
			pre := "base_model.model.model.layers." + string(rune('0'+l)) + "." + tc.mod
			want[pre+".lora_A.weight"] = []int{4, tc.in}
			want[pre+".lora_B.weight"] = []int{tc.out, 4}
		}
	}
	if len(f.Tensors) != len(want) {
		t.Errorf("%d tensors, want %d: %v", len(f.Tensors), len(want), f.Names())
	}
	for name, shape := range want {
		ti, ok := f.Tensors[name]
		if !ok || !slices.Equal(ti.Shape, shape) || ti.DType != safetensors.F32 {
			t.Errorf("%s: %+v (present %v), want F32 %v", name, ti, ok, shape)
		}
	}
}

// TestLoRAMerge merges a saved adapter (random, nonzero B) into the base
// weights: the merged model's logits equal the unmerged adapted model's, and
// the merged weights equal W + (alpha/r)·B·A computed by torch from the
// saved files (tests/python/lora_merge.py).
func TestLoRAMerge(t *testing.T) {
	adapted := loadTiny(t)
	if err := adapted.EnableLoRA(LoRAConfig{Rank: 4, Alpha: 8, Targets: []string{"q_proj", "k_proj", "o_proj", "up_proj", "down_proj"}, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	randomizeB(adapted, 6)
	dir := t.TempDir()
	if err := adapted.SaveLoRA(dir, "testdata/tiny-qwen3"); err != nil {
		t.Fatal(err)
	}
	b := packedBatch(rand.New(rand.NewPCG(8, 8)), adapted.Cfg.VocabSize)
	want := allLogits(t, adapted, b)

	merged := loadTiny(t)
	if err := merged.MergeLoRA(dir); err != nil {
		t.Fatal(err)
	}
	got := allLogits(t, merged, b)
	for i := range want {
		if d := math.Abs(float64(got[i] - want[i])); d > 1e-5*math.Max(1, math.Abs(float64(want[i]))) {
			t.Fatalf("logit %d: merged %g, adapted %g", i, got[i], want[i])
		}
	}

	if !torchAvailable(t) {
		return
	}
	out, err := exec.Command("/usr/bin/python3", "../tests/python/lora_merge.py", "testdata/tiny-qwen3", dir).Output()
	if err != nil {
		t.Fatalf("lora_merge.py: %v", err)
	}
	var ref map[string][]float64
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref) != 5*merged.Cfg.NumHiddenLayers {
		t.Fatalf("torch merged %d weights, want %d", len(ref), 5*merged.Cfg.NumHiddenLayers)
	}
	params := merged.DownloadParams()
	for _, p := range merged.params {
		w, ok := ref[p.Name]
		if !ok {
			continue
		}
		for i, v := range w {
			if d := math.Abs(float64(params[p.Offset+i]) - v); d > 1e-6*math.Max(1, math.Abs(v)) {
				t.Fatalf("%s[%d]: ours %g, torch %g", p.Name, i, params[p.Offset+i], v)
			}
		}
	}
}

func TestLoRABadInput(t *testing.T) {
	m := loadTiny(t)
	for _, c := range []LoRAConfig{{Rank: 0, Alpha: 1}, {Rank: 2, Alpha: 0}, {Rank: 2, Alpha: 1, Targets: []string{"qkv"}}} {
		if err := m.EnableLoRA(c); err == nil {
			t.Errorf("EnableLoRA(%+v) accepted", c)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "adapter_config.json"), []byte(`{"peft_type":"PREFIX_TUNING","r":4}`), 0o644)
	if err := m.MergeLoRA(dir); err == nil {
		t.Errorf("merged a PREFIX_TUNING adapter")
	}
	os.WriteFile(filepath.Join(dir, "adapter_config.json"), []byte(`{"peft_type":"LORA","r":4,"lora_alpha":8}`), 0o644)
	safetensors.WriteFile(filepath.Join(dir, "adapter_model.safetensors"), []safetensors.Tensor{
		{Name: "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", Shape: []int{4, 5}, Data: make([]float32, 20)},
		{Name: "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", Shape: []int{24, 4}, Data: make([]float32, 96)},
	}, safetensors.F32, nil)
	if err := m.MergeLoRA(dir); err == nil {
		t.Errorf("merged an adapter whose A does not fit q_proj")
	}
}

// TestLoadLoRA: a model loaded with its base laid out frozen (LoadLoRA,
// each parameter in a buffer of its own) computes, differentiates and
// saves exactly what Load followed by EnableLoRA does, and refuses what
// needs the one parameter buffer.
func TestLoadLoRA(t *testing.T) {
	cfg := LoRAConfig{Rank: 4, Alpha: 8, Targets: allTargets, Seed: 5}
	want := loadTiny(t)
	if err := want.EnableLoRA(cfg); err != nil {
		t.Fatal(err)
	}
	got, err := LoadLoRA(backend.CPU{}, "testdata/tiny-qwen3", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got.Params != nil {
		t.Fatal("LoadLoRA kept the one parameter buffer")
	}
	randomizeB(want, 4)
	randomizeB(got, 4)
	b := packedBatch(rand.New(rand.NewPCG(3, 3)), want.Cfg.VocabSize)
	lossW, gradW := lossAndGrads(t, want, b)
	lossG, gradG := lossAndGrads(t, got, b)
	if lossW != lossG || !slices.Equal(gradW, gradG) {
		t.Errorf("loss %v and adapter gradients differ from Load+EnableLoRA's (loss %v)", lossG, lossW)
	}
	if !slices.Equal(want.DownloadParams(), got.DownloadParams()) {
		t.Error("DownloadParams differs from Load+EnableLoRA's")
	}
	if err := got.MergeLoRA(t.TempDir()); err == nil {
		t.Error("MergeLoRA into a model with adapters of its own was accepted")
	}
	// NewLoRA and InitRandom: the same values as New and InitRandom.
	plain, err := New(backend.CPU{}, want.Cfg)
	if err != nil {
		t.Fatal(err)
	}
	plain.InitRandom(9, 0.02)
	frozen, err := NewLoRA(backend.CPU{}, want.Cfg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	frozen.InitRandom(9, 0.02)
	if !slices.Equal(plain.DownloadParams(), frozen.DownloadParams()) {
		t.Error("NewLoRA+InitRandom's parameters differ from New+InitRandom's")
	}
}
