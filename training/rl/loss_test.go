package rl

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/safetensors"
)

func tinyRandomModel(t testing.TB, vocab int, seed uint64, std float64) *model.Model {
	t.Helper()
	cfg, err := model.ParseConfig([]byte(`{"hidden_size":16,"intermediate_size":24,"num_hidden_layers":2,
		"num_attention_heads":4,"num_key_value_heads":2,"head_dim":6,"rms_norm_eps":1e-6,
		"rope_theta":10000,"max_position_embeddings":64,"tie_word_embeddings":false,"vocab_size":19}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(backend.CPU{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.InitRandom(seed, std)
	return m
}

func TestTokenTerm(t *testing.T) {
	ln := math.Log
	tests := []struct {
		name       string
		cfg        LossConfig
		p, q, adv  float64
		wantMasked bool
		wantGrad   float64
	}{
		{"dppo inside", DefaultLossConfig(), ln(0.5), ln(0.4), 1, false, -1.25},
		{"dppo up too far with A>0", DefaultLossConfig(), ln(0.7), ln(0.4), 1, true, 0},
		{"dppo up too far with A<0 is kept", DefaultLossConfig(), ln(0.7), ln(0.4), -1, false, 1.75},
		{"dppo down too far with A<0", DefaultLossConfig(), ln(0.1), ln(0.4), -2, true, 0},
		{"dppo ratio large on a rare token stays", DefaultLossConfig(), ln(0.01), ln(0.001), 1, false, -10},
		{"ppo rare token clipped", LossConfig{Mode: ModePPO, ClipLow: 0.2, ClipHigh: 0.28, TVLow: 1, TVHigh: 1}, ln(0.01), ln(0.001), 1, true, 0},
		{"ppo below 1-low with A<0", LossConfig{Mode: ModePPO, ClipLow: 0.2, ClipHigh: 0.28, TVLow: 1, TVHigh: 1}, ln(0.3), ln(0.4), -1, true, 0},
		{"ppo inside", LossConfig{Mode: ModePPO, ClipLow: 0.2, ClipHigh: 0.28, TVLow: 1, TVHigh: 1}, ln(0.44), ln(0.4), -1, false, 1.1},
		{"penalty on a masked token", LossConfig{Mode: ModeDPPO, TVLow: 0.2, TVHigh: 0.2, ClipLow: 0.2, ClipHigh: 0.2, LogRatioPenalty: 0.5}, ln(0.7), ln(0.4), 1, true, ln(0.7 / 0.4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, g, m := tt.cfg.tokenTerm(tt.p, tt.q, tt.adv)
			if m != tt.wantMasked || math.Abs(g-tt.wantGrad) > 1e-9 {
				t.Errorf("grad %g masked %v, want %g %v", g, m, tt.wantGrad, tt.wantMasked)
			}
		})
	}
}

// gradSamples are samples over the tiny model's vocabulary whose sampler
// logprobs are the current ones shifted, so ratios differ from 1 and some
// tokens fall outside the trust region, far from its edges.
func gradSamples(t *testing.T, m *model.Model, c LossConfig) []Sample {
	rng := rand.New(rand.NewPCG(3, 4))
	var samples []Sample
	for i := range 3 {
		n := 9 + 4*i
		s := Sample{Tokens: make([]int32, n), Sampled: make([]bool, n), Logprobs: make([]float64, n), Advantage: []float64{1, -0.5, 0.7}[i]}
		for j := range s.Tokens {
			s.Tokens[j] = int32(rng.IntN(19))
			s.Sampled[j] = j >= 4
		}
		samples = append(samples, s)
	}
	rows, err := pack(samples, 40)
	if err != nil {
		t.Fatal(err)
	}
	// Read the current logprobs, then set the sampler's 0.1–0.6 nats away.
	if err := m.Forward(context.Background(), &rows[0].batch); err != nil {
		t.Fatal(err)
	}
	lps, err := m.TargetLogprobs()
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for si := range samples {
		s := &samples[si]
		for j := 1; j < len(s.Tokens); j++ {
			if s.Sampled[j] {
				shift := (0.1 + 0.5*rng.Float64()) * float64(1-2*rng.IntN(2))
				s.Logprobs[j] = float64(lps[k]) + shift
			}
			k++
		}
	}
	return samples
}

// TestLossGradientMatchesFiniteDifferences checks the gradient the trainer
// accumulates against central differences of the loss it reports, for
// both trust regions, with the log-ratio penalty on.
func TestLossGradientMatchesFiniteDifferences(t *testing.T) {
	for _, c := range []LossConfig{
		{Mode: ModeDPPO, TVLow: 0.05, TVHigh: 0.05, ClipLow: 0.2, ClipHigh: 0.28, LogRatioPenalty: 0.3},
		{Mode: ModePPO, TVLow: 0.2, TVHigh: 0.2, ClipLow: 0.2, ClipHigh: 0.28, LogRatioPenalty: 0.3},
	} {
		t.Run(c.Mode, func(t *testing.T) {
			ctx := context.Background()
			m := tinyRandomModel(t, 19, 5, 0.5)
			samples := gradSamples(t, m, c)
			rows, err := pack(samples, 40)
			if err != nil {
				t.Fatal(err)
			}
			m.ZeroGrads()
			st, err := accumulate(ctx, m, rows, c)
			if err != nil {
				t.Fatal(err)
			}
			if st.Masked == 0 || st.Masked == st.Tokens {
				t.Fatalf("%d of %d tokens masked: the test needs both kinds", st.Masked, st.Tokens)
			}
			t.Logf("%d of %d sampled tokens masked, loss %.4f", st.Masked, st.Tokens, st.Loss)
			grads := m.DownloadGrads()
			params := m.DownloadParams()
			lossAt := func(p []float32) float64 {
				m.Backend().Upload(m.Params, p)
				var s lossStats
				s.Tokens = st.Tokens
				for _, r := range rows {
					if _, err := rowLoss(ctx, m, r, c, float64(st.Tokens), &s); err != nil {
						t.Fatal(err)
					}
					m.SetWeights(make([]float32, r.batch.T))
					m.Loss()
					m.Backward(ctx)
				}
				return s.Loss
			}
			// The largest gradients, where finite differences are the most
			// accurate, and a spread of others.
			rng := rand.New(rand.NewPCG(9, 9))
			var idx []int
			for range 400 {
				i := rng.IntN(len(grads))
				if math.Abs(float64(grads[i])) > 1e-3 {
					idx = append(idx, i)
				}
				if len(idx) == 12 {
					break
				}
			}
			if len(idx) < 6 {
				t.Fatalf("only %d parameters with a sizeable gradient", len(idx))
			}
			const h = 1e-2
			for _, i := range idx {
				p := append([]float32(nil), params...)
				p[i] += h
				up := lossAt(p)
				p[i] -= 2 * h
				down := lossAt(p)
				fd := (up - down) / (2 * h)
				g := float64(grads[i])
				if rel := math.Abs(fd-g) / max(math.Abs(g), 1e-3); rel > 2e-2 {
					t.Errorf("param %d: gradient %.6g, finite differences %.6g (rel. err %.3g)", i, g, fd, rel)
				}
			}
			m.Backend().Upload(m.Params, params)
		})
	}
}

// TestLossMatchesPyTorch compares the loss and every parameter gradient of
// one packed row with tests/python/rl_loss_ref.py, the same objective in
// PyTorch autograd (float64) on the same weights.
func TestLossMatchesPyTorch(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import torch, numpy").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but /usr/bin/python3 cannot import torch and numpy: %v", err)
		}
		t.Skipf("no PyTorch: %v", err)
	}
	for _, tc := range []struct {
		c    LossConfig
		temp float64 // of the rollouts, and so of the loss
	}{
		{LossConfig{Mode: ModeDPPO, TVLow: 0.05, TVHigh: 0.05, ClipLow: 0.2, ClipHigh: 0.28, LogRatioPenalty: 0.3}, 1},
		{LossConfig{Mode: ModePPO, TVLow: 0.2, TVHigh: 0.2, ClipLow: 0.2, ClipHigh: 0.28}, 1},
		{LossConfig{Mode: ModeDPPO, TVLow: 0.05, TVHigh: 0.05, ClipLow: 0.2, ClipHigh: 0.28, LogRatioPenalty: 0.3}, 0.6},
	} {
		c := tc.c
		t.Run(fmt.Sprintf("%s temperature %g", c.Mode, tc.temp), func(t *testing.T) {
			ctx := context.Background()
			m := tinyRandomModel(t, 19, 5, 0.5)
			if err := m.SetLossTemperature(tc.temp); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := m.Save(dir, model.SaveOptions{DType: safetensors.F32}); err != nil {
				t.Fatal(err)
			}
			rows, err := pack(gradSamples(t, m, c), 40)
			if err != nil || len(rows) != 1 {
				t.Fatalf("%d rows, %v", len(rows), err)
			}
			m.ZeroGrads()
			st, err := accumulate(ctx, m, rows, c)
			if err != nil {
				t.Fatal(err)
			}
			r := rows[0]
			lossMask := make([]int, len(r.loss))
			for i, l := range r.loss {
				if l {
					lossMask[i] = 1
				}
			}
			bj, _ := json.Marshal(map[string]any{"B": 1, "T": r.batch.T, "ids": r.batch.IDs, "pos": r.batch.Pos, "seg": r.batch.Seg,
				"targets": r.batch.Targets, "loss": lossMask, "old_logprobs": r.oldLP, "advantages": r.adv, "norm": st.Tokens,
				"mode": c.Mode, "tv_low": c.TVLow, "tv_high": c.TVHigh, "clip_low": c.ClipLow, "clip_high": c.ClipHigh,
				"log_ratio_penalty": c.LogRatioPenalty, "temperature": tc.temp})
			bp := filepath.Join(dir, "batch.json")
			os.WriteFile(bp, bj, 0o644)
			out, err := exec.Command("/usr/bin/python3", "../../tests/python/rl_loss_ref.py", dir, bp).Output()
			if err != nil {
				var stderr []byte
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				t.Fatalf("rl_loss_ref.py: %v\n%s", err, stderr)
			}
			var ref struct {
				Loss  float64              `json:"loss"`
				Grads map[string][]float64 `json:"grads"`
			}
			if err := json.Unmarshal(out, &ref); err != nil {
				t.Fatal(err)
			}
			if rel := math.Abs(st.Loss-ref.Loss) / math.Abs(ref.Loss); rel > 1e-4 {
				t.Errorf("loss %.8g, PyTorch %.8g (rel. err %.3g)", st.Loss, ref.Loss, rel)
			}
			grads := m.DownloadGrads()
			var num, den float64
			for _, p := range m.ParamList() {
				want := ref.Grads[p.Name]
				if len(want) != p.Size() {
					t.Fatalf("%s: PyTorch has %d gradients, want %d", p.Name, len(want), p.Size())
				}
				for i, w := range want {
					d := float64(grads[p.Offset+i]) - w
					num += d * d
					den += w * w
				}
			}
			rel := math.Sqrt(num / den)
			t.Logf("%d of %d tokens masked; loss %.6g vs %.6g; gradient rel. err %.3g", st.Masked, st.Tokens, st.Loss, ref.Loss, rel)
			if rel > 1e-4 {
				t.Errorf("gradient relative error %.3g > 1e-4", rel)
			}
		})
	}
}
