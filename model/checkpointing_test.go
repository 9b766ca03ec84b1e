package model

import (
	"math/rand/v2"
	"testing"

	"github.com/rlm-project/rlm/model/backend"
)

// TestCheckpointedGradientsMatch runs the committed tiny Qwen3 with and
// without activation checkpointing on the same packed batch: the loss and
// every gradient must be the same bits, since the recomputed forward runs
// the same kernels on the same inputs.
func TestCheckpointedGradientsMatch(t *testing.T) {
	m, err := Load(backend.CPU{}, "testdata/tiny-qwen3")
	if err != nil {
		t.Fatal(err)
	}
	b := packedBatch(rand.New(rand.NewPCG(7, 7)), m.Cfg.VocabSize)
	lossFull, gFull := lossAndGrads(t, m, b)
	bytesFull := m.ActivationBytes()
	m.SetCheckpointActivations(true)
	lossCkpt, gCkpt := lossAndGrads(t, m, b)
	bytesCkpt := m.ActivationBytes()
	if lossFull != lossCkpt {
		t.Errorf("loss %v with checkpointing, %v without", lossCkpt, lossFull)
	}
	nonzero := 0
	for i := range gFull {
		if gFull[i] != gCkpt[i] {
			t.Fatalf("gradient %d: %v with checkpointing, %v without", i, gCkpt[i], gFull[i])
		}
		if gFull[i] != 0 {
			nonzero++
		}
	}
	if nonzero < len(gFull)/2 {
		t.Fatalf("only %d of %d gradients are nonzero; the comparison proves little", nonzero, len(gFull))
	}
	if bytesCkpt >= bytesFull {
		t.Errorf("checkpointing allocates %d bytes of activations, not less than %d without", bytesCkpt, bytesFull)
	}
	for _, ck := range []bool{false, true} {
		want := map[bool]int64{false: bytesFull, true: bytesCkpt}[ck]
		if got := ActivationBytes(m.Cfg, b.B, b.T, ck); got != want {
			t.Errorf("ActivationBytes(checkpoint=%v) = %d, the model allocated %d", ck, got, want)
		}
	}
	// Switching back gives the full set again and the same gradients.
	m.SetCheckpointActivations(false)
	if _, g := lossAndGrads(t, m, b); g[0] != gFull[0] || m.ActivationBytes() != bytesFull {
		t.Errorf("after turning checkpointing off: grad[0] %v (want %v), %d bytes (want %d)", g[0], gFull[0], m.ActivationBytes(), bytesFull)
	}
}

// qwen3_0_6B is the shape of Qwen/Qwen3-0.6B's config.json.
func qwen3_0_6B(t testing.TB) Config {
	t.Helper()
	c, err := ParseConfig([]byte(`{"hidden_size":1024,"intermediate_size":3072,"num_hidden_layers":28,
		"num_attention_heads":16,"num_key_value_heads":8,"head_dim":128,"rms_norm_eps":1e-6,
		"rope_theta":1000000,"vocab_size":151936,"tie_word_embeddings":true,"max_position_embeddings":40960}`))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestActivationMemoryQwen3 computes (does not allocate) the activation
// memory of a Qwen3-0.6B-shaped SFT step of one 4096-token sequence, the
// numbers docs/training.md and BENCHMARKS.md quote.
func TestActivationMemoryQwen3(t *testing.T) {
	cfg := qwen3_0_6B(t)
	full := ActivationBytes(cfg, 1, 4096, false)
	ckpt := ActivationBytes(cfg, 1, 4096, true)
	t.Logf("Qwen3-0.6B, B=1 T=4096: activations %.2f GiB, with checkpointing %.2f GiB (%.1fx less)",
		float64(full)/(1<<30), float64(ckpt)/(1<<30), float64(full)/float64(ckpt))
	// Per block the full set keeps ~22k floats per token (the block's
	// inputs, projections, attention output, norms and the three MLP
	// vectors); checkpointing keeps one C-float input per block.
	if ckpt*5 > full {
		t.Errorf("checkpointing saves too little: %d vs %d bytes", ckpt, full)
	}
}
