package cuda_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/backend/cuda"
)

// qwen3_0p6B is Qwen/Qwen3-0.6B's config.json (random weights here).
const qwen3_0p6B = `{"hidden_size":1024,"intermediate_size":3072,"num_hidden_layers":28,
	"num_attention_heads":16,"num_key_value_heads":8,"head_dim":128,"rms_norm_eps":1e-6,
	"rope_theta":1000000,"vocab_size":151936,"max_position_embeddings":40960,"tie_word_embeddings":true}`

// stepFLOPs counts the floating-point operations of one training step per
// token the usual way: 6 per weight of every matrix product (forward 2,
// backward 4; the tied LM head counts as a product, the embedding lookup
// does not), plus causal attention's 6·L·H·D·T (QKᵀ and PV, forward and
// backward, over T/2 keys on average).
func stepFLOPs(cfg model.Config, T int) float64 {
	C, F, L := float64(cfg.HiddenSize), float64(cfg.IntermediateSize), float64(cfg.NumHiddenLayers)
	HD, KD := float64(cfg.NumAttentionHeads*cfg.HeadDim), float64(cfg.NumKeyValueHeads*cfg.HeadDim)
	perLayer := C*HD + 2*C*KD + HD*C + 3*C*F
	weights := L*perLayer + float64(cfg.VocabSize)*C
	return 6*weights + 6*L*HD*float64(T)
}

// BenchmarkTrainStep times one SFT optimizer step of a Qwen3-0.6B-shaped
// model on the GPU: forward, loss (LM head and cross-entropy in chunks),
// backward, the global gradient norm and AdamW over every parameter. It
// reports tokens/s and the model TFLOP/s the step achieves; MFU is that
// over the card's measured bf16 peak (bench/cuda/run.sh measures it in the
// same run).
func BenchmarkTrainStep(b *testing.B) {
	var (
		m            *model.Model
		adamM, adamV backend.Buffer
		mB           int
	)
	for _, c := range []struct {
		B, T  int
		prec  cuda.Precision
		fused bool // the one-kernel attention backward
	}{{1, 4096, cuda.BF16, false}, {1, 4096, cuda.BF16, true}, {4, 4096, cuda.BF16, false}, {4, 4096, cuda.BF16, true}} {
		// One model per batch shape, whatever the number of times the
		// benchmark function runs: device memory goes back only when the
		// garbage collector finds a model unreachable, so a model per run
		// would count several in the peak.
		if c.B != mB {
			m, adamM, adamV, mB = nil, nil, nil, c.B
			runtime.GC()
			runtime.GC()
		}
		name := fmt.Sprintf("qwen3-0.6B/B=%d/T=%d/%s", c.B, c.T, c.prec)
		if c.fused {
			name += "/fused-attention-backward"
		}
		b.Run(name, func(b *testing.B) {
			g := gpu(b, c.prec)
			if g.Emulated() {
				b.Skip("the CPU emulator's timings mean nothing (TestTrainStepMemory predicts the step's memory)")
			}
			g.SetFusedAttentionBackward(c.fused)
			defer g.SetFusedAttentionBackward(false)
			cfg, err := model.ParseConfig([]byte(qwen3_0p6B))
			if err != nil {
				b.Fatal(err)
			}
			if m == nil {
				g.ResetPeakMemory()
				if m, err = model.New(g, cfg); err != nil {
					b.Fatal(err)
				}
				m.InitRandom(1, 0.02)
				adamM, adamV = g.Alloc(m.NumParams()), g.Alloc(m.NumParams())
			}
			n := c.B * c.T
			batch := trainBatch(cfg, c.B, c.T, false)
			ctx := context.Background()
			step := func(k int) float64 {
				if err := m.Forward(ctx, batch); err != nil {
					b.Fatal(err)
				}
				loss, err := m.Loss()
				if err != nil {
					b.Fatal(err)
				}
				if err := m.Backward(ctx); err != nil {
					b.Fatal(err)
				}
				gn := m.GradNorm()
				g.AdamW(m.Params, m.Grads, adamM, adamV, backend.AdamWParams{LR: 1e-5, Beta1: 0.9, Beta2: 0.95,
					Eps: 1e-8, WeightDecay: 0.1, Step: k, GradScale: min(1, 1/gn)})
				m.ZeroGrads()
				return loss
			}
			loss0 := step(1)
			step(2)
			g.Synchronize()
			// One profiled step first: the GPU time of each operation.
			if c.B == 1 && !c.fused {
				g.StartProfile()
				step(3)
				var sb strings.Builder
				cuda.WriteProfile(&sb, g.StopProfile())
				b.Logf("profile of one step:\n%s", sb.String())
			}
			b.ResetTimer()
			start := time.Now()
			for i := range b.N {
				step(3 + i)
			}
			g.Synchronize()
			el := time.Since(start).Seconds()
			tps := float64(n*b.N) / el
			b.ReportMetric(tps, "tokens/s")
			b.ReportMetric(tps*stepFLOPs(cfg, c.T)/1e12, "TFLOP/s")
			b.ReportMetric(el/float64(b.N)*1e3, "ms/step")
			mem := g.MemoryStats()
			free, total := g.MemoryInfo()
			b.Logf("%s: first loss %.4f; peak %.2f GiB in use, %.2f GiB held (%d reclaims); device %.1f of %.1f GiB in use",
				g.Device(), loss0, gib(mem.PeakInUse), gib(mem.PeakHeld), mem.Reclaims, gib(total-free), gib(total))
		})
	}
}

// BenchmarkAttention times the tensor-core attention forward and backward
// alone at the 0.6B shape (16 heads, 8 KV heads, head size 128).
func BenchmarkAttention(b *testing.B) {
	g := gpu(b, cuda.BF16)
	for _, T := range []int{4096, 16384} {
		sh := backend.AttnShape{B: 1, T: T, H: 16, KV: 8, D: 128}
		N := sh.B * sh.T
		q, k, v := g.Alloc(N*sh.H*sh.D), g.Alloc(N*sh.KV*sh.D), g.Alloc(N*sh.KV*sh.D)
		for _, x := range []backend.Buffer{q, k, v} {
			g.Upload(x, randFloats(newRng(uint64(T)), x.Len(), 1))
		}
		seg := g.AllocInts(N)
		out, lse := g.Alloc(N*sh.H*sh.D), g.Alloc(sh.B*sh.H*sh.T)
		dq, dk, dv := g.Alloc(q.Len()), g.Alloc(k.Len()), g.Alloc(v.Len())
		flops := 4 * float64(sh.B*sh.H*sh.D) * float64(T) * float64(T) / 2 // QKᵀ and PV, causal
		b.Run(fmt.Sprintf("forward/T=%d", T), func(b *testing.B) {
			g.Attention(out, lse, q, k, v, seg, sh)
			g.Synchronize()
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				g.Attention(out, lse, q, k, v, seg, sh)
			}
			g.Synchronize()
			b.ReportMetric(flops*float64(b.N)/time.Since(start).Seconds()/1e12, "TFLOP/s")
		})
		for _, fused := range []bool{false, true} {
			name := "backward"
			if fused {
				name = "backward-fused"
			}
			b.Run(fmt.Sprintf("%s/T=%d", name, T), func(b *testing.B) {
				g.SetFusedAttentionBackward(fused)
				defer g.SetFusedAttentionBackward(false)
				g.AttentionBackward(dq, dk, dv, out, out, lse, q, k, v, seg, sh)
				g.Synchronize()
				b.ResetTimer()
				start := time.Now()
				for range b.N {
					g.AttentionBackward(dq, dk, dv, out, out, lse, q, k, v, seg, sh)
				}
				g.Synchronize()
				b.ReportMetric(2.5*flops*float64(b.N)/time.Since(start).Seconds()/1e12, "TFLOP/s")
			})
		}
	}
}
