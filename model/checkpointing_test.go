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

// TestQwen3MemoryTable computes (allocates nothing) the device memory of an
// SFT step of one 4096-token row for the Qwen3 sizes, as this trainer keeps
// it: float32 weights, gradients and two AdamW moments (16 bytes per
// parameter) for a full fine-tune; float32 base weights plus adapters with
// their gradients and moments for LoRA (rank 16 on q,k,v,o); activations
// as the model lays them out. docs/training.md quotes the table.
func TestQwen3MemoryTable(t *testing.T) {
	const T = 4096
	const budget = 78 << 30 // an 80 GB card shows 79.2 GiB; keep ~1 GiB for the CUDA context and cuBLAS workspace
	sizes := []struct {
		name, json string
	}{
		{"0.6B", `"hidden_size":1024,"intermediate_size":3072,"num_hidden_layers":28,"num_attention_heads":16,"tie_word_embeddings":true`},
		{"1.7B", `"hidden_size":2048,"intermediate_size":6144,"num_hidden_layers":28,"num_attention_heads":16,"tie_word_embeddings":true`},
		{"4B", `"hidden_size":2560,"intermediate_size":9728,"num_hidden_layers":36,"num_attention_heads":32,"tie_word_embeddings":true`},
		{"8B", `"hidden_size":4096,"intermediate_size":12288,"num_hidden_layers":36,"num_attention_heads":32,"tie_word_embeddings":false`},
		{"14B", `"hidden_size":5120,"intermediate_size":17408,"num_hidden_layers":40,"num_attention_heads":40,"tie_word_embeddings":false`},
		{"32B", `"hidden_size":5120,"intermediate_size":25600,"num_hidden_layers":64,"num_attention_heads":64,"tie_word_embeddings":false`},
	}
	gib := func(b int64) float64 { return float64(b) / (1 << 30) }
	fits := func(b int64) string {
		if b <= budget {
			return "yes"
		}
		return "no"
	}
	largestFull := ""
	t.Logf("| Qwen3 | parameters | weights+grads+AdamW | activations | activations, checkpointed | full FT fits | full FT, checkpointed, fits | LoRA r=16 (checkpointed) | LoRA fits |")
	for _, s := range sizes {
		cfg, err := ParseConfig([]byte(`{` + s.json + `,"num_key_value_heads":8,"head_dim":128,"vocab_size":151936,"rope_theta":1000000}`))
		if err != nil {
			t.Fatal(err)
		}
		m := &Model{Cfg: cfg}
		// Count parameters the way New lays them out, without allocating.
		P := int64(cfg.VocabSize) * int64(cfg.HiddenSize)
		if !cfg.TieWordEmbeddings {
			P *= 2
		}
		P += int64(cfg.HiddenSize)
		for tg := range numTargets {
			out, in := cfg.dims(tg)
			P += int64(cfg.NumHiddenLayers) * int64(out) * int64(in)
		}
		P += int64(cfg.NumHiddenLayers) * int64(2*cfg.HiddenSize+2*cfg.HeadDim)
		state := 16 * P
		act, actCkpt := ActivationBytes(cfg, 1, T, false), ActivationBytes(cfg, 1, T, true)
		ls := &loraState{cfg: LoRAConfig{Rank: 16}}
		var adapterP int64
		for _, name := range DefaultLoRATargets {
			tg, _ := targetByName(name)
			ls.on[tg] = true
			out, in := cfg.dims(tg)
			adapterP += int64(cfg.NumHiddenLayers) * 16 * int64(out+in)
		}
		loraBytes := 4*P + 16*adapterP + layoutActs(nil, m.Cfg, ls, 1, T, true).bytes
		if state+actCkpt <= budget {
			largestFull = s.name
		}
		t.Logf("| %s | %.2fB | %.1f GiB | %.1f GiB | %.1f GiB | %s (%.1f GiB) | %s (%.1f GiB) | %.1f GiB | %s |", s.name, float64(P)/1e9,
			gib(state), gib(act), gib(actCkpt), fits(state+act), gib(state+act), fits(state+actCkpt), gib(state+actCkpt), gib(loraBytes), fits(loraBytes))
	}
	t.Logf("largest full fine-tune in 78 GiB at T=%d: Qwen3-%s", T, largestFull)
	if largestFull == "" {
		t.Fatal("no size fits")
	}
}
