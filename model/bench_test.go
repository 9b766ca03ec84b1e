package model

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/rlm-project/rlm/model/backend"
)

// baselineBackend is the CPU backend with its two fast paths swapped for
// the straightforward ones: gonum's SGEMM and the plain-loop attention
// kernels. BenchmarkTrainStep runs it beside the real backend so the speedup
// is measured in the same run.
type baselineBackend struct{ backend.CPU }

func fs(b backend.Buffer) []float32 { return b.(backend.F32) }

func (baselineBackend) MatMul(c, a, b backend.Buffer, m, n, k int, transA, transB bool, beta float32) {
	ta, tb, lda, ldb := blas.NoTrans, blas.NoTrans, k, n
	if transA {
		ta, lda = blas.Trans, m
	}
	if transB {
		tb, ldb = blas.Trans, k
	}
	gonum.Implementation{}.Sgemm(ta, tb, m, n, k, 1, fs(a), lda, fs(b), ldb, beta, fs(c), n)
}

func (baselineBackend) Attention(out, lse, q, k, v backend.Buffer, seg backend.Ints, sh backend.AttnShape) {
	backend.Attention(fs(out), fs(lse), fs(q), fs(k), fs(v), seg.(backend.I32), sh)
}

func (baselineBackend) AttentionBackward(dq, dk, dv, dout, out, lse, q, k, v backend.Buffer, seg backend.Ints, sh backend.AttnShape) {
	backend.AttentionBackward(fs(dq), fs(dk), fs(dv), fs(dout), fs(out), fs(lse), fs(q), fs(k), fs(v), seg.(backend.I32), sh)
}

// BenchmarkTrainStep measures CPU tokens/s of one forward+backward pass on a
// small Qwen3 (hidden 512, 4 layers, GQA 8/4 heads of 64, MLP 1536, vocab
// 8192, tied head; 12.6M parameters) over one packed row of 512 tokens, for
// the CPU backend (ours) and the baseline backend in the same run. The
// GFLOP/s metric counts 6·(matrix parameters)·tokens plus causal attention.
//
// RLM_BENCH_CONFIG (a config.json) and RLM_BENCH_TOKENS replace the model and
// the row length, and RLM_BENCH_BASELINE=0 skips the slow baseline:
// bench/trainstep.sh uses them to compare with PyTorch at the Qwen3-0.6B
// shape.
func BenchmarkTrainStep(b *testing.B) {
	raw := []byte(`{"hidden_size":512,"intermediate_size":1536,"num_hidden_layers":4,
		"num_attention_heads":8,"num_key_value_heads":4,"head_dim":64,"rms_norm_eps":1e-6,
		"rope_theta":1000000,"vocab_size":8192,"tie_word_embeddings":true}`)
	if path := os.Getenv("RLM_BENCH_CONFIG"); path != "" {
		var err error
		if raw, err = os.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	}
	cfg, err := ParseConfig(raw)
	if err != nil {
		b.Fatal(err)
	}
	T := 512
	if s := os.Getenv("RLM_BENCH_TOKENS"); s != "" {
		if T, err = strconv.Atoi(s); err != nil {
			b.Fatalf("RLM_BENCH_TOKENS: %v", err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	batch := &Batch{B: 1, T: T}
	for i := range T {
		batch.IDs = append(batch.IDs, int32(rng.IntN(cfg.VocabSize)))
		batch.Targets = append(batch.Targets, int32(rng.IntN(cfg.VocabSize)))
		batch.Weights = append(batch.Weights, 1/float32(T))
		batch.Pos = append(batch.Pos, int32(i))
		batch.Seg = append(batch.Seg, 0)
	}
	for _, bc := range []struct {
		name string
		be   backend.Backend
	}{{"ours", backend.CPU{}}, {"baseline", baselineBackend{}}} {
		if bc.name == "baseline" && os.Getenv("RLM_BENCH_BASELINE") == "0" {
			continue
		}
		b.Run(bc.name, func(b *testing.B) { benchTrainStep(b, bc.be, cfg, batch) })
	}
}

func benchTrainStep(b *testing.B, be backend.Backend, cfg Config, batch *Batch) {
	m, err := New(be, cfg)
	if err != nil {
		b.Fatal(err)
	}
	m.InitRandom(1, 0.02)
	T := batch.T
	var matParams int
	for _, p := range m.ParamList() {
		if p.Matrix() {
			matParams += p.Size()
		}
	}
	// Attention: QKᵀ and PV, causal (half), forward 2 matmuls, backward 4.
	attn := float64(cfg.NumHiddenLayers) * 6 * float64(T) * float64(T) / 2 * float64(cfg.NumAttentionHeads*cfg.HeadDim) * 2
	// The tied embedding is used once as a matrix (the head); the lookup is free.
	flops := 6*float64(matParams)*float64(T) + attn
	ctx := context.Background()
	step := func() {
		m.ZeroGrads()
		if err := m.Forward(ctx, batch); err != nil {
			b.Fatal(err)
		}
		if _, err := m.Loss(); err != nil {
			b.Fatal(err)
		}
		if err := m.Backward(ctx); err != nil {
			b.Fatal(err)
		}
	}
	// One untimed step first, as the PyTorch side of bench/trainstep.sh
	// does: it allocates the activations and gradients (2.4 GB of page
	// faults at the 0.6B shape).
	step()
	for b.Loop() {
		step()
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(T*b.N)/sec, "tokens/s")
	b.ReportMetric(flops*float64(b.N)/sec/1e9, "GFLOP/s")
}
