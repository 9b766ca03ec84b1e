package cuda_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/backend/cuda"
	"github.com/rlm-project/rlm/model/safetensors"
)

// smallConfig has head_dim 64 so the tensor-core attention runs in BF16,
// and two KV heads shared by four query heads.
func smallConfig(t testing.TB, tied bool) model.Config {
	t.Helper()
	c, err := model.ParseConfig([]byte(`{"hidden_size":128,"intermediate_size":320,"num_hidden_layers":2,
		"num_attention_heads":4,"num_key_value_heads":2,"head_dim":64,"rms_norm_eps":1e-6,
		"rope_theta":1000000,"vocab_size":515,"max_position_embeddings":512}`))
	if err != nil {
		t.Fatal(err)
	}
	c.TieWordEmbeddings = tied
	return c
}

// trainBatch is B rows of T positions; packed says whether row 0 holds two
// samples (segment ids and restarted positions) or one.
func trainBatch(cfg model.Config, B, T int, packed bool) *model.Batch {
	n := B * T
	b := &model.Batch{B: B, T: T, IDs: make([]int32, n), Targets: make([]int32, n), Weights: make([]float32, n),
		Pos: make([]int32, n), Seg: make([]int32, n)}
	for i := range n {
		b.IDs[i] = int32((i*7919 + 13) % cfg.VocabSize)
		b.Targets[i] = int32((i*104729 + 5) % cfg.VocabSize)
		if i%5 != 0 {
			b.Weights[i] = 1.0 / float32(n)
		}
		t := i % T
		b.Pos[i] = int32(t)
		if packed && i < T && t >= T/3 {
			b.Seg[i] = 1
			b.Pos[i] = int32(t - T/3)
		}
	}
	return b
}

// stepT is the row length of TestModelStepMatchesCPU: 150, two of the
// tensor-core attention kernels' 128-row query blocks and three 64-row key
// tiles, with the packed sample's boundary at 50. Under -short, FP32 rows
// are 70 long (still past a key tile and the boundary, at 23): its
// attention kernel does a warp reduction for every query and key, which
// the emulator runs as fiber switches, so that a step at 150 costs it ten
// seconds of CPU. TestAttention checks that kernel at every length.
func stepT(p cuda.Precision) int {
	if p == cuda.FP32 && testing.Short() {
		return 70
	}
	return 150
}

// TestModelStepMatchesCPU runs a whole forward, loss and backward of a
// small Qwen3 on both backends: loss and every gradient tensor.
func TestModelStepMatchesCPU(t *testing.T) {
	for _, p := range []cuda.Precision{cuda.FP32, cuda.BF16} {
		for _, tied := range []bool{true, false} {
			g := gpu(t, p)
			cfg := smallConfig(t, tied)
			b := trainBatch(cfg, 2, stepT(p), true)
			wantLoss, wantGrads, params := trainSteps(t, backend.CPU{}, cfg, b, 1)
			gotLoss, gotGrads, _ := trainSteps(t, g, cfg, b, 1)
			want, got := wantLoss[0], gotLoss[0]
			tol := map[cuda.Precision]float64{cuda.FP32: 1e-4, cuda.BF16: 5e-2}[p]
			lossErr := math.Abs(got-want) / math.Abs(want)
			if lossErr > tol/5 {
				t.Errorf("%s tied=%v: loss %.8g, CPU %.8g (relative error %.2g)", p, tied, got, want, lossErr)
			}
			worst := 0.0
			for _, prm := range params {
				w := wantGrads[prm.Offset : prm.Offset+prm.Size()]
				gg := gotGrads[prm.Offset : prm.Offset+prm.Size()]
				e := relErr(w, gg)
				worst = max(worst, e)
				if e > tol {
					t.Errorf("%s tied=%v: grad %s relative error %.3g > %.3g", p, tied, prm.Name, e, tol)
				}
			}
			t.Logf("%s tied=%v: loss %.6f vs CPU %.6f (rel %.2g), worst gradient relative error %.2g", p, tied, got, want, lossErr, worst)
		}
	}
}

// TestStepMatchesTransformers compares the GPU's loss and gradients with
// transformers' own Qwen3ForCausalLM (tests/python/transformers_step.py) on
// the same weights: the check that our model is Qwen3, not only that the
// GPU agrees with our CPU.
func TestStepMatchesTransformers(t *testing.T) {
	g := gpu(t, cuda.FP32)
	python := "python3"
	if err := exec.Command(python, "-c", "import transformers, torch").Run(); err != nil {
		t.Skipf("python3 has no transformers: %v", err)
	}
	for _, tied := range []bool{true, false} {
		cfg := smallConfig(t, tied)
		b := trainBatch(cfg, 2, 96, false)
		m, err := model.New(g, cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.InitRandom(7, 0.1)
		dir := t.TempDir()
		if err := m.Save(dir, model.SaveOptions{DType: safetensors.F32}); err != nil {
			t.Fatal(err)
		}
		loss := forwardBackward(t, m, b)
		grads := m.DownloadGrads()

		bj, _ := json.Marshal(map[string]any{"B": b.B, "T": b.T, "ids": b.IDs, "pos": b.Pos, "targets": b.Targets, "weights": b.Weights})
		bp, op := filepath.Join(dir, "batch.json"), filepath.Join(dir, "ref.json")
		os.WriteFile(bp, bj, 0o644)
		out, err := exec.Command(python, "../../../tests/python/transformers_step.py", dir, bp, op).CombinedOutput()
		if err != nil {
			t.Fatalf("transformers_step.py: %v\n%s", err, out)
		}
		raw, err := os.ReadFile(op)
		if err != nil {
			t.Fatal(err)
		}
		var ref struct {
			Loss   float64              `json:"loss"`
			Grads  map[string][]float64 `json:"grads"`
			Device string               `json:"device"`
		}
		if err := json.Unmarshal(raw, &ref); err != nil {
			t.Fatal(err)
		}
		lossErr := math.Abs(loss-ref.Loss) / math.Abs(ref.Loss)
		if lossErr > 1e-5 {
			t.Errorf("tied=%v: loss %.8g, transformers %.8g (rel %.2g)", tied, loss, ref.Loss, lossErr)
		}
		worst := 0.0
		for _, p := range m.ParamList() {
			rg, ok := ref.Grads[p.Name]
			if !ok {
				t.Errorf("transformers has no gradient for %s", p.Name)
				continue
			}
			w := make([]float32, len(rg))
			for i, v := range rg {
				w[i] = float32(v)
			}
			e := relErr(w, grads[p.Offset:p.Offset+p.Size()])
			worst = max(worst, e)
			if e > 1e-4 {
				t.Errorf("tied=%v: grad %s relative error %.3g vs transformers", tied, p.Name, e)
			}
		}
		t.Logf("tied=%v: loss %.8f vs transformers %.8f on %s (rel %.2g); worst gradient relative error %.2g",
			tied, loss, ref.Loss, ref.Device, lossErr, worst)
	}
}

// TestTrainingStepsMatchCPU runs several optimizer steps with a large
// learning rate, so every step changes every weight a lot: a stale cached
// bf16 copy of a weight or activation would show in the next step's loss.
// Under -short it is left out (its steps cost the emulator seconds of
// CPU each); TestModelStepMatchesCPU checks one step there.
func TestTrainingStepsMatchCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("optimizer steps of a model on the emulator (seconds of CPU each): the full suite runs them")
	}
	for _, p := range []cuda.Precision{cuda.FP32, cuda.BF16} {
		g := gpu(t, p)
		cfg := smallConfig(t, true)
		b := trainBatch(cfg, 2, 150, true)
		want, _, _ := trainSteps(t, backend.CPU{}, cfg, b, 4)
		got, _, _ := trainSteps(t, g, cfg, b, 4)
		tol := map[cuda.Precision]float64{cuda.FP32: 1e-5, cuda.BF16: 1e-2}[p]
		for i := range want {
			if e := math.Abs(got[i]-want[i]) / want[i]; e > tol {
				t.Errorf("%s step %d: loss %.6f, CPU %.6f (relative error %.2g)", p, i+1, got[i], want[i], e)
			}
		}
		t.Logf("%s losses %.5f, CPU %.5f", p, got, want)
	}
}

// trainSteps runs steps optimizer steps of a fresh model of cfg on batch b
// at learning rate 1e-2, and returns each step's loss, the last step's
// gradients and the parameters' layout.
func trainSteps(t *testing.T, be backend.Backend, cfg model.Config, b *model.Batch, steps int) (losses []float64, grads []float32, params []model.Param) {
	t.Helper()
	m, err := model.New(be, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.InitRandom(3, 0.1)
	losses, grads = optimize(t, m, b, steps)
	return losses, grads, m.ParamList()
}

// optimize runs steps AdamW steps of m's trainable parameters (all, or its
// adapters) on batch b at learning rate 1e-2, and returns each step's loss
// and the last step's gradients.
func optimize(t *testing.T, m *model.Model, b *model.Batch, steps int) (losses []float64, grads []float32) {
	t.Helper()
	be := m.Backend()
	params, gr, _ := m.Trainable()
	am, av := be.Alloc(params.Len()), be.Alloc(params.Len())
	for step := 1; step <= steps; step++ {
		losses = append(losses, forwardBackward(t, m, b))
		grads = m.DownloadGrads()
		be.AdamW(params, gr, am, av, backend.AdamWParams{LR: 1e-2, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8,
			WeightDecay: 0.1, Step: step, GradScale: 1})
		m.ZeroGrads()
	}
	return losses, grads
}

// forwardBackward runs m's forward pass, loss and backward pass on b and
// returns the loss; the gradients add into m's.
func forwardBackward(t *testing.T, m *model.Model, b *model.Batch) float64 {
	t.Helper()
	ctx := context.Background()
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
	return loss
}
