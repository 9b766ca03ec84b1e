package sft

import (
	"context"
	"math"
	"testing"

	"github.com/rlm-project/rlm/model/backend"
)

// TestStepClipsAndDecaysMatricesOnly recomputes the first optimizer step by
// hand from the model's own gradients: the global norm (over every
// parameter, before clipping) scales the gradient to ClipNorm, as
// torch.nn.utils.clip_grad_norm_ does, and weight decay applies to weight
// matrices (embedding and LM head included) but not to norm weights.
func TestStepClipsAndDecaysMatricesOnly(t *testing.T) {
	tok := loadTokenizer(t)
	data := sequences(t, tok, readTrajectories(t), 224)
	for _, tc := range []struct {
		name string
		clip float64
	}{{"clipped", 1e-3}, {"unclipped", 1e9}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.LR, cfg.WarmupSteps, cfg.Steps, cfg.GradAccum = 1e-2, 0, 3, 2
			cfg.WeightDecay, cfg.ClipNorm, cfg.OutDir = 0.3, tc.clip, t.TempDir()

			// The same step's gradient on an identical model.
			ref := tinyModel(t, tok.VocabSize(), 5)
			tr0, err := New(ref, data, cfg)
			if err != nil {
				t.Fatal(err)
			}
			batches, _, err := tr0.microBatches(1)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			ref.ZeroGrads()
			for _, b := range batches {
				if err := ref.Forward(ctx, b); err != nil {
					t.Fatal(err)
				}
				if _, err := ref.Loss(); err != nil {
					t.Fatal(err)
				}
				if err := ref.Backward(ctx); err != nil {
					t.Fatal(err)
				}
			}
			g, theta := ref.DownloadGrads(), ref.DownloadParams()
			var ss float64
			for _, x := range g {
				ss += float64(x) * float64(x)
			}
			norm := math.Sqrt(ss)
			scale := 1.0
			if norm > tc.clip {
				scale = tc.clip / norm
			}

			m := tinyModel(t, tok.VocabSize(), 5)
			tr, err := New(m, data, cfg)
			if err != nil {
				t.Fatal(err)
			}
			st, err := tr.TrainStep(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(st.GradNorm-norm) > 1e-6*norm {
				t.Errorf("reported gradient norm %g, want %g", st.GradNorm, norm)
			}
			got := m.DownloadParams()
			lr := cfg.LRAt(1, tr.TotalSteps())
			for _, p := range m.ParamList() {
				wd := 0.0
				if p.Matrix() {
					wd = cfg.WeightDecay
				}
				n := p.Size()
				want := make([]float64, n)
				gp := make([]float64, n)
				for i := range n {
					want[i], gp[i] = float64(theta[p.Offset+i]), float64(g[p.Offset+i])
				}
				backend.AdamW(want, gp, make([]float64, n), make([]float64, n), backend.AdamWParams{
					LR: lr, Beta1: cfg.Beta1, Beta2: cfg.Beta2, Eps: cfg.Eps, WeightDecay: wd, Step: 1, GradScale: scale})
				for i := range n {
					// Adam's first step is ±lr where |g·scale| ≫ eps; the
					// tolerance is far below lr·wd·|θ| for a norm weight of 1.
					if d := math.Abs(float64(got[p.Offset+i]) - want[i]); d > 1e-6 {
						t.Fatalf("%s[%d] = %.9g, want %.9g (wd %g, clip scale %g)", p.Name, i, got[p.Offset+i], want[i], wd, scale)
					}
				}
			}
		})
	}
}
