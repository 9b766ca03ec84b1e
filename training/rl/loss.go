package rl

import (
	"context"
	"fmt"
	"math"

	"github.com/rlm-project/rlm/model"
)

// Sample is one training sequence: a prompt and what the policy sampled
// after it, possibly several turns of one node merged (see buildSamples).
// The tokens are exactly those the inference engine saw and sampled, never
// re-tokenized text.
type Sample struct {
	Tokens []int32 `json:"tokens"`
	// Sampled marks the tokens the policy sampled; only they carry loss.
	// System prompt, user input, REPL output and sub-call answers are
	// context.
	Sampled []bool `json:"sampled"`
	// Logprobs holds the sampler's log probability of each sampled token
	// (0 elsewhere).
	Logprobs  []float64 `json:"logprobs"`
	Advantage float64   `json:"advantage"`
}

// Loss modes.
const (
	// ModeDPPO masks tokens whose probability moved by more than
	// TVHigh (up, with a positive advantage) or TVLow (down, with a
	// negative one) since sampling: the binary total-variation trust
	// region of DPPO.
	ModeDPPO = "dppo"
	// ModePPO is PPO's clipped surrogate with separate bounds
	// 1−ClipLow and 1+ClipHigh on the ratio (DAPO's clip-higher).
	ModePPO = "ppo"
)

// LossConfig configures the policy loss. Per sampled token t with advantage
// A, sampler log probability q and current log probability p, the ratio is
// r = exp(p−q); the loss is
//
//	dppo: −A·r·m, where m = 0 for tokens outside the trust region
//	ppo:  −min(A·r, A·clip(r, 1−ClipLow, 1+ClipHigh))
//
// plus LogRatioPenalty·(p−q)² on every sampled token, summed over the
// batch and divided by the number of sampled tokens in it. There is no
// reference-model KL term.
type LossConfig struct {
	Mode            string
	TVLow, TVHigh   float64
	ClipLow         float64
	ClipHigh        float64
	LogRatioPenalty float64
}

// DefaultLossConfig returns the defaults documented in docs/training.md.
func DefaultLossConfig() LossConfig {
	return LossConfig{Mode: ModeDPPO, TVLow: 0.2, TVHigh: 0.2, ClipLow: 0.2, ClipHigh: 0.28}
}

func (c LossConfig) validate() error {
	switch {
	case c.Mode != ModeDPPO && c.Mode != ModePPO:
		return fmt.Errorf("rl: loss mode %q: want %s or %s", c.Mode, ModeDPPO, ModePPO)
	case c.TVLow <= 0 || c.TVHigh <= 0 || c.ClipLow <= 0 || c.ClipLow >= 1 || c.ClipHigh <= 0:
		return fmt.Errorf("rl: trust region bounds must be positive (tv %g/%g, clip %g/%g, clip low below 1)", c.TVLow, c.TVHigh, c.ClipLow, c.ClipHigh)
	case c.LogRatioPenalty < 0:
		return fmt.Errorf("rl: log-ratio penalty %g must not be negative", c.LogRatioPenalty)
	}
	return nil
}

// tokenTerm returns one sampled token's loss (before the division by the
// batch's token count), its derivative with respect to the current log
// probability p, and whether the trust region masked it.
func (c LossConfig) tokenTerm(p, q, adv float64) (loss, grad float64, masked bool) {
	r := math.Exp(p - q)
	switch c.Mode {
	case ModePPO:
		masked = (adv > 0 && r > 1+c.ClipHigh) || (adv < 0 && r < 1-c.ClipLow)
		if masked {
			loss = -adv * min(max(r, 1-c.ClipLow), 1+c.ClipHigh)
		} else {
			loss, grad = -adv*r, -adv*r
		}
	default:
		d := math.Exp(p) - math.Exp(q)
		masked = (adv > 0 && d > c.TVHigh) || (adv < 0 && d < -c.TVLow)
		if !masked {
			loss, grad = -adv*r, -adv*r
		}
	}
	if c.LogRatioPenalty > 0 {
		lr := p - q
		loss += c.LogRatioPenalty * lr * lr
		grad += 2 * c.LogRatioPenalty * lr
	}
	return loss, grad, masked
}

// row is one packed micro-batch: whole samples laid end to end in T
// positions, each attending only to itself.
type row struct {
	batch   model.Batch
	loss    []bool // position predicts a sampled token
	oldLP   []float64
	adv     []float64
	samples int
}

// pack lays samples into rows of T positions, in order, starting a new row
// when the next sample does not fit. A sample of n tokens takes n−1
// positions (inputs tokens[:n−1], targets tokens[1:]).
func pack(samples []Sample, T int) ([]*row, error) {
	var rows []*row
	var cur *row
	used := 0
	for i, s := range samples {
		n := len(s.Tokens) - 1
		if n < 1 {
			continue
		}
		if n > T {
			return nil, fmt.Errorf("rl: sample %d has %d tokens, more than the sequence length %d", i, n+1, T)
		}
		if cur == nil || used+n > T {
			cur = &row{batch: model.Batch{B: 1, T: T, IDs: make([]int32, T), Targets: make([]int32, T),
				Weights: make([]float32, T), Pos: make([]int32, T), Seg: make([]int32, T)},
				loss: make([]bool, T), oldLP: make([]float64, T), adv: make([]float64, T)}
			rows = append(rows, cur)
			used = 0
		}
		b := &cur.batch
		seg := int32(cur.samples + 1)
		for j := range n {
			k := used + j
			b.IDs[k], b.Targets[k], b.Pos[k], b.Seg[k] = s.Tokens[j], s.Tokens[j+1], int32(j), seg
			if s.Sampled[j+1] {
				cur.loss[k], cur.oldLP[k], cur.adv[k] = true, s.Logprobs[j+1], s.Advantage
				b.Weights[k] = 1 // nonzero, so TargetLogprobs computes it
			}
		}
		used += n
		cur.samples++
	}
	// The unused tail of each row is its own segment of padding.
	for _, r := range rows {
		last := r.batch.Seg[0]
		for k := range T {
			if r.batch.Seg[k] == 0 {
				r.batch.Seg[k] = last + 1
			} else {
				last = r.batch.Seg[k]
			}
		}
	}
	return rows, nil
}

// lossStats summarize the loss of one step.
type lossStats struct {
	Loss       float64 // the objective, normalized by Tokens
	Tokens     int     // sampled tokens (the normalizer)
	Masked     int     // of which the trust region masked
	MeanRatio  float64 // mean r over sampled tokens
	Positions  int     // positions processed, padding included
	SampleRows int
}

// rowLoss runs the forward of one row and returns its summed loss terms
// and the weights that make the model's weighted cross-entropy backward the
// gradient of loss/norm.
func rowLoss(ctx context.Context, m *model.Model, r *row, c LossConfig, norm float64, st *lossStats) ([]float32, error) {
	if err := m.Forward(ctx, &r.batch); err != nil {
		return nil, err
	}
	lps, err := m.TargetLogprobs()
	if err != nil {
		return nil, err
	}
	w := make([]float32, len(lps))
	for k, isLoss := range r.loss {
		if !isLoss {
			continue
		}
		loss, grad, masked := c.tokenTerm(float64(lps[k]), r.oldLP[k], r.adv[k])
		st.Loss += loss / norm
		st.MeanRatio += math.Exp(float64(lps[k]) - r.oldLP[k])
		if masked {
			st.Masked++
		}
		// The weighted cross-entropy −w·p has derivative −w in p.
		w[k] = float32(-grad / norm)
	}
	return w, nil
}

// accumulate adds the gradient of the loss over rows to m's gradients (the
// caller zeroes them) and returns the step's loss statistics.
func accumulate(ctx context.Context, m *model.Model, rows []*row, c LossConfig) (lossStats, error) {
	var st lossStats
	for _, r := range rows {
		for _, l := range r.loss {
			if l {
				st.Tokens++
			}
		}
	}
	if st.Tokens == 0 {
		return st, nil
	}
	norm := float64(st.Tokens)
	for _, r := range rows {
		w, err := rowLoss(ctx, m, r, c, norm, &st)
		if err != nil {
			return st, err
		}
		if err := m.SetWeights(w); err != nil {
			return st, err
		}
		if _, err := m.Loss(); err != nil {
			return st, err
		}
		if err := m.Backward(ctx); err != nil {
			return st, err
		}
		st.Positions += r.batch.T
	}
	st.SampleRows = len(rows)
	st.MeanRatio /= norm
	return st, nil
}
