package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sample is one unpacked training example: inputs and next-token targets.
type sample struct{ ids, targets []int32 }

func randomSample(rng *rand.Rand, V, n int) sample {
	s := sample{make([]int32, n), make([]int32, n)}
	for i := range n {
		s.ids[i], s.targets[i] = int32(rng.IntN(V)), int32(rng.IntN(V))
	}
	return s
}

// packRow lays samples out in one row the way training/data.Pack does:
// positions restart at 0 and each sample gets its own segment. Only the
// positions of sample `train` carry loss (weight 1 each).
func packRow(samples []sample, train int) *Batch {
	b := &Batch{B: 1}
	for k, s := range samples {
		for i := range s.ids {
			b.IDs = append(b.IDs, s.ids[i])
			b.Targets = append(b.Targets, s.targets[i])
			b.Pos = append(b.Pos, int32(i))
			b.Seg = append(b.Seg, int32(k+1))
			w := float32(0)
			if k == train {
				w = 1
			}
			b.Weights = append(b.Weights, w)
		}
	}
	b.T = len(b.IDs)
	return b
}

// TestPackedPairEqualsAlone is the packing contract end to end: in a row
// that packs samples A and B, the loss and every parameter gradient of
// either sample are those of the sample trained alone. It fails if
// attention crosses the segment boundary. (RoPE scores depend only on
// relative positions, so within a segment the restart of positions changes
// results by rounding only; the restart itself is checked by
// training/data's TestPackLayout and RoPE's use of positions by
// backend.TestRoPE.)
func TestPackedPairEqualsAlone(t *testing.T) {
	for _, tied := range []bool{false, true} {
		cfg := tinyConfig(tied)
		m := newRandomModel(t, cfg, 21)
		rng := rand.New(rand.NewPCG(8, 8))
		pair := []sample{randomSample(rng, cfg.VocabSize, 5), randomSample(rng, cfg.VocabSize, 7)}
		for k := range pair {
			lossPacked, gPacked := lossAndGrads(t, m, packRow(pair, k))
			lossAlone, gAlone := lossAndGrads(t, m, packRow(pair[k:k+1], 0))
			if rel := math.Abs(lossPacked-lossAlone) / lossAlone; rel > 1e-6 {
				t.Errorf("tied=%v sample %d: loss packed %.9g, alone %.9g (rel %.2g)", tied, k, lossPacked, lossAlone, rel)
			}
			want := make([]float64, len(gAlone))
			for i, g := range gAlone {
				want[i] = float64(g)
			}
			compare(t, "packed gradient", want, gPacked, 1e-5)
		}

		// The test can fail: without segments sample B sees sample A.
		leaky := packRow(pair, 1)
		for i := range leaky.Seg {
			leaky.Seg[i] = 1
		}
		lossLeaky, _ := lossAndGrads(t, m, leaky)
		lossAlone, _ := lossAndGrads(t, m, packRow(pair[1:], 0))
		if math.Abs(lossLeaky-lossAlone) < 1e-4*lossAlone {
			t.Errorf("tied=%v: one segment for both samples gave B its solo loss %g; the check is blind", tied, lossAlone)
		}
	}
}
