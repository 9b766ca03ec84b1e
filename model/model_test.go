package model

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/safetensors"
)

// tinyConfig is a small Qwen3 with GQA (4 query heads on 2 KV heads), a
// head_dim that differs from hidden/heads, and the given head tying.
func tinyConfig(tied bool) Config {
	c, err := ParseConfig([]byte(`{"hidden_size":16,"intermediate_size":24,"num_hidden_layers":2,
		"num_attention_heads":4,"num_key_value_heads":2,"head_dim":6,"rms_norm_eps":1e-6,
		"rope_theta":10000,"vocab_size":19,"max_position_embeddings":64}`))
	if err != nil {
		panic(err)
	}
	c.TieWordEmbeddings = tied
	return c
}

// packedBatch has two rows; the first packs two samples (positions restart,
// segments differ), and some positions carry no loss.
func packedBatch(rng *rand.Rand, V int) *Batch {
	const B, T = 2, 7
	b := &Batch{B: B, T: T}
	segs := []int32{0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2}
	var trained int
	for n := range B * T {
		b.IDs = append(b.IDs, int32(rng.IntN(V)))
		b.Targets = append(b.Targets, int32(rng.IntN(V)))
		b.Seg = append(b.Seg, segs[n])
		pos := int32(0)
		if n > 0 && segs[n-1] == segs[n] {
			pos = b.Pos[n-1] + 1
		}
		b.Pos = append(b.Pos, pos)
		w := float32(0)
		if n%3 != 0 {
			w = 1
			trained++
		}
		b.Weights = append(b.Weights, w)
	}
	for i := range b.Weights {
		b.Weights[i] /= float32(trained)
	}
	return b
}

// longBatch is one row of T tokens packing samples of segLen tokens, every
// position trained.
func longBatch(rng *rand.Rand, V, T, segLen int) *Batch {
	b := &Batch{B: 1, T: T}
	for n := range T {
		b.IDs = append(b.IDs, int32(rng.IntN(V)))
		b.Targets = append(b.Targets, int32(rng.IntN(V)))
		b.Seg = append(b.Seg, int32(n/segLen))
		b.Pos = append(b.Pos, int32(n%segLen))
		b.Weights = append(b.Weights, 1/float32(T))
	}
	return b
}

func newRandomModel(t testing.TB, cfg Config, seed uint64) *Model {
	t.Helper()
	m, err := New(backend.CPU{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// A larger std than the usual 0.02 makes every path matter to the loss.
	m.InitRandom(seed, 0.3)
	// Perturb the norm weights away from 1 so their gradients are exercised.
	host := m.DownloadParams()
	rng := rand.New(rand.NewPCG(seed, 1))
	for _, p := range m.params {
		if !p.Matrix() {
			for i := p.Offset; i < p.Offset+p.Size(); i++ {
				host[i] = 1 + float32(rng.NormFloat64()*0.2)
			}
		}
	}
	m.be.Upload(m.Params, host)
	return m
}

func lossAndGrads(t testing.TB, m *Model, b *Batch) (float64, []float32) {
	t.Helper()
	ctx := context.Background()
	m.ZeroGrads()
	if err := m.Forward(ctx, b); err != nil {
		t.Fatal(err)
	}
	loss, err := m.Loss()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Backward(ctx); err != nil {
		t.Fatal(err)
	}
	return loss, m.DownloadGrads()
}

// TestDirectionalDerivative checks the whole model's gradient without any
// external tool: along a random direction d, (L(θ+hd) − L(θ−hd))/2h must
// match g·d. float32 limits this to about 1e-3; the PyTorch comparison below
// is the tight check.
func TestDirectionalDerivative(t *testing.T) {
	for _, tied := range []bool{false, true} {
		cfg := tinyConfig(tied)
		m := newRandomModel(t, cfg, 7)
		rng := rand.New(rand.NewPCG(3, 3))
		b := packedBatch(rng, cfg.VocabSize)
		_, g := lossAndGrads(t, m, b)
		theta := m.DownloadParams()
		// A unit direction keeps the step small enough for curvature not to matter.
		d := make([]float32, len(theta))
		scale := 1 / math.Sqrt(float64(len(d)))
		var gd float64
		for i := range d {
			d[i] = float32(rng.NormFloat64() * scale)
			gd += float64(d[i]) * float64(g[i])
		}
		at := func(s float32) float64 {
			p := make([]float32, len(theta))
			for i := range p {
				p[i] = theta[i] + s*d[i]
			}
			m.be.Upload(m.Params, p)
			l, _ := lossAndGrads(t, m, b)
			return l
		}
		const h = 1e-2
		num := (at(h) - at(-h)) / (2 * h)
		if rel := math.Abs(num-gd) / math.Abs(gd); rel > 2e-3 {
			t.Errorf("tied=%v: directional derivative %g, g·d %g (rel %g)", tied, num, gd, rel)
		}
	}
}

func TestSegmentsIsolatePackedSamples(t *testing.T) {
	// Logits of a packed sample must equal those of the sample alone.
	cfg := tinyConfig(false)
	m := newRandomModel(t, cfg, 11)
	ctx := context.Background()
	packed := &Batch{B: 1, T: 6, IDs: []int32{3, 4, 5, 6, 7, 8}, Pos: []int32{0, 1, 2, 0, 1, 2}, Seg: []int32{0, 0, 0, 1, 1, 1}}
	alone := &Batch{B: 1, T: 3, IDs: []int32{6, 7, 8}, Pos: []int32{0, 1, 2}, Seg: []int32{5, 5, 5}}
	V := cfg.VocabSize
	get := func(b *Batch, rows ...int) []float32 {
		if err := m.Forward(ctx, b); err != nil {
			t.Fatal(err)
		}
		var out []float32
		for _, r := range rows {
			row := make([]float32, V)
			m.Logits(r, row)
			out = append(out, row...)
		}
		return out
	}
	p := get(packed, 3, 4, 5)
	a := get(alone, 0, 1, 2)
	for i := range p {
		if math.Abs(float64(p[i]-a[i])) > 1e-5 {
			t.Fatalf("logit %d: packed %g, alone %g", i, p[i], a[i])
		}
	}
}

func TestBadInput(t *testing.T) {
	cfg := tinyConfig(false)
	m := newRandomModel(t, cfg, 1)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		b    *Batch
	}{
		{"id out of range", &Batch{B: 1, T: 1, IDs: []int32{99}, Pos: []int32{0}, Seg: []int32{0}}},
		{"short", &Batch{B: 1, T: 2, IDs: []int32{1}, Pos: []int32{0}, Seg: []int32{0}}},
		{"empty", &Batch{}},
	} {
		if err := m.Forward(ctx, tc.b); err == nil {
			t.Errorf("%s: Forward accepted it", tc.name)
		}
	}
	if _, err := m.Loss(); err == nil {
		t.Error("Loss without forward succeeded")
	}
	if _, err := ParseConfig([]byte(`{"hidden_size":8,"intermediate_size":8,"num_hidden_layers":1,"num_attention_heads":3,"num_key_value_heads":2,"vocab_size":5}`)); err == nil {
		t.Error("heads not a multiple of kv heads accepted")
	}
	const dims = `"hidden_size":8,"intermediate_size":8,"num_hidden_layers":1,"num_attention_heads":2,"vocab_size":5`
	for _, extra := range []string{`"attention_bias":true`, `"hidden_act":"gelu"`,
		`"rope_scaling":{"rope_type":"yarn","factor":4.0}`, `"use_sliding_window":true`} {
		if _, err := ParseConfig([]byte(`{` + dims + `,` + extra + `}`)); err == nil || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("config with %s: err = %v, want not supported", extra, err)
		}
	}
	// What Qwen3's own config.json files say passes.
	if _, err := ParseConfig([]byte(`{` + dims + `,"attention_bias":false,"hidden_act":"silu","rope_scaling":null,"use_sliding_window":false,"sliding_window":null}`)); err != nil {
		t.Errorf("Qwen3-style config refused: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.Forward(cctx, &Batch{B: 1, T: 1, IDs: []int32{1}, Pos: []int32{0}, Seg: []int32{0}}); err == nil {
		t.Error("Forward ignored a cancelled context")
	}
}

func TestCheckpointRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		tied  bool
		dtype safetensors.DType
	}{{false, safetensors.F32}, {true, safetensors.F32}, {false, safetensors.BF16}} {
		cfg := tinyConfig(tc.tied)
		m := newRandomModel(t, cfg, 5)
		if tc.dtype == safetensors.BF16 {
			// Round the weights to bf16 first so logits must match exactly.
			host := m.DownloadParams()
			for i, x := range host {
				var b [2]byte
				v := safetensors.Float32ToBF16(x)
				b[0], b[1] = byte(v), byte(v>>8)
				out := make([]float32, 1)
				safetensors.Decode(out, safetensors.BF16, b[:])
				host[i] = out[0]
			}
			m.be.Upload(m.Params, host)
		}
		src := t.TempDir()
		os.WriteFile(filepath.Join(src, "tokenizer.json"), []byte(`{"model":{}}`), 0o644)
		dir := filepath.Join(t.TempDir(), "ckpt")
		if err := m.Save(dir, SaveOptions{DType: tc.dtype, CopyFrom: src}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
			t.Errorf("tokenizer not copied: %v", err)
		}
		var cj map[string]any
		raw, _ := os.ReadFile(filepath.Join(dir, "config.json"))
		json.Unmarshal(raw, &cj)
		if cj["model_type"] != "qwen3" || cj["tie_word_embeddings"] != tc.tied {
			t.Errorf("config.json = %s", raw)
		}
		f, err := safetensors.Open(filepath.Join(dir, "model.safetensors"))
		if err != nil {
			t.Fatal(err)
		}
		_, hasHead := f.Tensors["lm_head.weight"]
		if hasHead == tc.tied {
			t.Errorf("tied=%v but lm_head.weight present=%v", tc.tied, hasHead)
		}
		f.Close()
		m2, err := Load(backend.CPU{}, dir)
		if err != nil {
			t.Fatal(err)
		}
		b := packedBatch(rand.New(rand.NewPCG(1, 1)), cfg.VocabSize)
		l1 := logitsOf(t, m, b)
		l2 := logitsOf(t, m2, b)
		for i := range l1 {
			if l1[i] != l2[i] {
				t.Fatalf("%+v: logit %d differs after round trip: %g vs %g", tc, i, l1[i], l2[i])
			}
		}
		// PyTorch reads the shipping dtype (bf16) back; F32 files are read by
		// TestMatchesPyTorch already.
		if tc.dtype == safetensors.BF16 && torchAvailable(t) {
			ref := runTorch(t, dir, b, "float32")
			compare(t, "torch logits", ref.Logits, l1, 1e-4)
		}
	}
}

func logitsOf(t testing.TB, m *Model, b *Batch) []float32 {
	t.Helper()
	if err := m.Forward(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	V := m.Cfg.VocabSize
	out := make([]float32, b.B*b.T*V)
	for n := range b.B * b.T {
		m.Logits(n, out[n*V:(n+1)*V])
	}
	return out
}

// torchAvailable reports whether Debian's python3 with torch can run the
// reference script. Missing torch skips locally and fails under CI=true.
func torchAvailable(t *testing.T) bool {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import torch, numpy").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but /usr/bin/python3 cannot import torch and numpy: %v", err)
		}
		t.Logf("skipping PyTorch comparison: /usr/bin/python3 cannot import torch: %v", err)
		return false
	}
	return true
}

type torchResult struct {
	Logits []float64            `json:"logits"`
	Loss   float64              `json:"loss"`
	Grads  map[string][]float64 `json:"grads"`
}

func runTorch(t *testing.T, dir string, b *Batch, dtype string) torchResult {
	t.Helper()
	bj, _ := json.Marshal(map[string]any{"B": b.B, "T": b.T, "ids": b.IDs, "pos": b.Pos, "seg": b.Seg, "targets": b.Targets, "weights": b.Weights})
	bp := filepath.Join(t.TempDir(), "batch.json")
	os.WriteFile(bp, bj, 0o644)
	cmd := exec.Command("/usr/bin/python3", "../tests/python/qwen3_ref.py", dir, bp, "--dtype", dtype)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("qwen3_ref.py: %v\n%s", err, stderr)
	}
	var r torchResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("qwen3_ref.py output: %v", err)
	}
	return r
}

// compare fails when ‖got − want‖ / ‖want‖ exceeds tol.
func compare(t *testing.T, name string, want []float64, got []float32, tol float64) float64 {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d values, reference has %d", name, len(got), len(want))
	}
	var num, den float64
	for i := range want {
		d := float64(got[i]) - want[i]
		num += d * d
		den += want[i] * want[i]
	}
	rel := math.Sqrt(num / math.Max(den, 1e-300))
	if rel > tol {
		t.Errorf("%s: relative error %.3g > %g", name, rel, tol)
	}
	return rel
}

// TestMatchesPyTorch compares loss and every parameter gradient of the Go
// model (float32) with PyTorch autograd in float64 on the same weights.
func TestMatchesPyTorch(t *testing.T) {
	if !torchAvailable(t) {
		t.Skip("no torch")
	}
	for _, tc := range []struct {
		tied bool
		long bool // one row of 300 tokens: several attention tiles, samples packed across tile edges
	}{{false, false}, {true, false}, {false, true}} {
		tied := tc.tied
		cfg := tinyConfig(tied)
		m := newRandomModel(t, cfg, 9)
		dir := t.TempDir()
		if err := m.Save(dir, SaveOptions{DType: safetensors.F32}); err != nil {
			t.Fatal(err)
		}
		b := packedBatch(rand.New(rand.NewPCG(4, 4)), cfg.VocabSize)
		if tc.long {
			b = longBatch(rand.New(rand.NewPCG(6, 6)), cfg.VocabSize, 300, 110)
		}
		loss, grads := lossAndGrads(t, m, b)
		ref := runTorch(t, dir, b, "float64")
		if rel := math.Abs(loss-ref.Loss) / math.Abs(ref.Loss); rel > 1e-4 {
			t.Errorf("tied=%v: loss %g, torch %g (rel %g)", tied, loss, ref.Loss, rel)
		}
		var worst float64
		for _, p := range m.params {
			want, ok := ref.Grads[p.Name]
			if !ok {
				t.Fatalf("torch has no gradient for %s", p.Name)
			}
			worst = max(worst, compare(t, "grad "+p.Name, want, grads[p.Offset:p.Offset+p.Size()], 1e-4))
		}
		t.Logf("tied=%v long=%v: loss %.8g (torch %.8g), %d gradients, worst relative error %.2g", tied, tc.long, loss, ref.Loss, len(m.params), worst)
	}
}

func TestLoadRejectsMismatchedCheckpoints(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(cfg map[string]any)
		remove bool
		want   string
	}{
		{"untied config, tied weights", func(c map[string]any) { c["tie_word_embeddings"] = false }, false, "missing tensor lm_head.weight"},
		{"other size", func(c map[string]any) { c["intermediate_size"] = 32 }, false, "shape"},
		{"bad config", func(c map[string]any) { c["num_key_value_heads"] = 3 }, false, "multiple"},
		{"no weights", func(map[string]any) {}, true, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			m := newRandomModel(t, tinyConfig(true), 1)
			if err := m.Save(dir, SaveOptions{DType: safetensors.F32}); err != nil {
				t.Fatal(err)
			}
			var cfg map[string]any
			raw, _ := os.ReadFile(filepath.Join(dir, "config.json"))
			json.Unmarshal(raw, &cfg)
			tc.edit(cfg)
			raw, _ = json.Marshal(cfg)
			os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o644)
			if tc.remove {
				os.Remove(filepath.Join(dir, "model.safetensors"))
			}
			_, err := Load(backend.CPU{}, dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load: err = %v, want mention of %q", err, tc.want)
			}
		})
	}
}
