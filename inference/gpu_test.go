package inference_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"sync"
	"testing"

	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/inference/inferencetest"
	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/backend/cuda"
	"github.com/rlm-project/rlm/model/backend/cuda/cudaemu"
	"github.com/rlm-project/rlm/model/tokenizer"
	"github.com/rlm-project/rlm/models/tinydemo"
)

// TestMain runs the GPU tests on the CUDA emulator where there is no GPU
// (see package cudaemu); on a machine with neither they skip.
func TestMain(m *testing.M) {
	if msg, err := cudaemu.Use(); err != nil {
		fmt.Fprintln(os.Stderr, "GPU tests will skip:", err)
	} else if msg != "" {
		fmt.Fprintln(os.Stderr, msg)
	}
	os.Exit(m.Run())
}

func openGPU(t testing.TB, p cuda.Precision) *cuda.Backend {
	t.Helper()
	be, err := cuda.Open(cuda.Options{Precision: p})
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	return be
}

// gpuModel is a model the GPU tests serve on both backends with the same
// weights.
type gpuModel struct {
	name string
	load func(t testing.TB, be backend.Backend, cfg inference.Config) *inference.Engine
	// prompts are the token ids of the test's concurrent requests; short
	// ones (-short on the emulator) for a test that must spare the
	// emulator's attention kernel long prefills, which it runs as a fiber
	// switch per warp reduction.
	prompts func(e *inference.Engine, short bool) [][]int32
	bigOnly bool // too slow for the emulator
}

var gpuModels = []gpuModel{
	{
		name: "rlm-tiny-demo",
		load: func(t testing.TB, be backend.Backend, cfg inference.Config) *inference.Engine {
			cfg.Name = "rlm-tiny-demo"
			e, err := inference.LoadFS(be, tinydemo.FS(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
		prompts: func(e *inference.Engine, short bool) [][]int32 {
			// 24 to 213 tokens long; short, 24 to 87.
			repeat := 3
			if short {
				repeat = 1
			}
			var out [][]int32
			for i := range 8 {
				text := fmt.Sprintf("Context %d: the grass is green. ", i)
				for range i * repeat {
					text += "Here we go, there and back again. "
				}
				ids, _ := e.EncodeChat([]tokenizer.Message{{Role: "user", Content: text + "What is the context about?"}})
				out = append(out, ids)
			}
			return out
		},
	},
	{
		name:    "qwen3-0.6B-shaped-random",
		bigOnly: true,
		load: func(t testing.TB, be backend.Backend, cfg inference.Config) *inference.Engine {
			_, tok := inferencetest.Model(t, 1)
			mc, err := model.ParseConfig([]byte(Qwen3_0p6B))
			if err != nil {
				t.Fatal(err)
			}
			m, err := model.New(backend.ForInference(be), mc)
			if err != nil {
				t.Fatal(err)
			}
			m.InitRandom(7, 0.02)
			cfg.Name = "qwen3-0.6B-random"
			e, err := inference.New(m, tok, cfg)
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
		prompts: func(e *inference.Engine, _ bool) [][]int32 {
			var out [][]int32
			for i := range 8 {
				p := make([]int32, 16+23*i)
				for j := range p {
					// Two pairs share a prefix (the prefix cache's route).
					p[j] = int32((j*7919 + (i/2)*104729*min(j/8, 1)) % 151936)
				}
				out = append(out, p)
			}
			return out
		},
	},
}

// Qwen3_0p6B is Qwen/Qwen3-0.6B's config.json (random weights here).
const Qwen3_0p6B = `{"hidden_size":1024,"intermediate_size":3072,"num_hidden_layers":28,
	"num_attention_heads":16,"num_key_value_heads":8,"head_dim":128,"rms_norm_eps":1e-6,
	"rope_theta":1000000,"vocab_size":151936,"max_position_embeddings":40960,"tie_word_embeddings":true}`

// runAll generates every prompt at once (greedy, with logprobs and the two
// most likely alternatives; 24 tokens, 12 on the emulator) and returns the
// results in prompt order.
func runAll(t testing.TB, e *inference.Engine, prompts [][]int32, maxTokens int) []inference.Result {
	t.Helper()
	out := make([]inference.Result, len(prompts))
	errs := make([]error, len(prompts))
	var wg sync.WaitGroup
	for i, p := range prompts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = e.Generate(context.Background(), inference.Request{Prompt: p, MaxTokens: maxTokens,
				IgnoreEOS: true, Sampling: inference.Sampling{Logprobs: true, TopLogprobs: 2}}, nil)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// tieGap is the largest gap between the two best logprobs that counts as a
// tie: float32 rounding in another order of summation can flip it.
const tieGap = 1e-4

// compare checks got's tokens against want's, each sequence up to its
// first difference, which is allowed only at a tie in want (the greedy
// choice is then decided by rounding). It returns the tokens compared, the
// number equal, and the largest logprob difference over equal prefixes.
func compare(t *testing.T, what string, want, got []inference.Result, lpTol float64) (n, same int, worst float64) {
	for i := range want {
		for j, w := range want[i].Tokens {
			n++
			g := got[i].Tokens[j]
			if g.ID != w.ID {
				gap := w.Top[0].Logprob - w.Top[1].Logprob
				if gap > tieGap && lpTol > 0 {
					t.Errorf("%s: prompt %d token %d: %d, want %d (logprob gap %.3g is no tie)", what, i, j, g.ID, w.ID, gap)
				} else {
					t.Logf("%s: prompt %d token %d: %d, want %d at a gap of %.3g; the rest of the sequence is not compared", what, i, j, g.ID, w.ID, gap)
				}
				n += len(want[i].Tokens) - j - 1
				break
			}
			same++
			worst = max(worst, math.Abs(g.Logprob-w.Logprob))
		}
	}
	if lpTol > 0 && worst > lpTol {
		t.Errorf("%s: logprobs differ by up to %.3g (tolerance %.g)", what, worst, lpTol)
	}
	return n, same, worst
}

// TestGPUMatchesCPU serves the built-in model and a random
// Qwen3-0.6B-shaped one on the CPU and on the GPU: 8 concurrent greedy
// requests give the same tokens in FP32 with logprobs within 1e-4; BF16's
// agreement is measured; and on a KV cache too small for all of them
// (preemption, recomputation) the GPU gives the tokens of an unpressured
// run.
func TestGPUMatchesCPU(t *testing.T) {
	for _, gm := range gpuModels {
		t.Run(gm.name, func(t *testing.T) {
			g32 := openGPU(t, cuda.FP32)
			if gm.bigOnly && g32.Emulated() {
				t.Skip("too large for the CUDA emulator")
			}
			maxTokens := 24
			if g32.Emulated() {
				maxTokens = 12
			}
			cfg := inference.Config{KVCacheTokens: 8 * 512, MaxBatchTokens: 2048}
			cpuE := gm.load(t, backend.CPU{}, cfg)
			defer cpuE.Close()
			prompts := gm.prompts(cpuE, g32.Emulated() && testing.Short())
			want := runAll(t, cpuE, prompts, maxTokens)

			gpuE := gm.load(t, g32, cfg)
			defer gpuE.Close()
			n, same, worst := compare(t, "fp32", want, runAll(t, gpuE, prompts, maxTokens), 1e-4)
			t.Logf("fp32: %d of %d tokens as on the CPU, logprobs within %.2g", same, n, worst)

			// Eight copies of the shortest prompt (no prefix sharing) on a
			// cache with room for the prompts of two but not for two whole
			// sequences: whatever order the requests arrive in, two start
			// together and one is preempted as they grow.
			p := prompts[0]
			const bs = 4
			capTokens := 2*(len(p)+1) + maxTokens + bs
			small := gm.load(t, g32, inference.Config{KVCacheTokens: capTokens, BlockSize: bs, NoPrefixCache: true})
			defer small.Close()
			same8 := make([][]int32, 8)
			want8 := make([]inference.Result, 8)
			for i := range same8 {
				same8[i], want8[i] = p, want[0]
			}
			n, same, _ = compare(t, "fp32, KV cache under pressure", want8, runAll(t, small, same8, maxTokens), 1e-4)
			st := small.Stats()
			t.Logf("fp32 under pressure: %d of %d tokens as on the CPU, %d preemptions", same, n, st.Preemptions)
			if st.Preemptions == 0 {
				t.Error("no preemption: the cache was not small enough")
			}

			g16 := openGPU(t, cuda.BF16)
			bfE := gm.load(t, g16, cfg)
			defer bfE.Close()
			n, same, worst = compare(t, "bf16", want, runAll(t, bfE, prompts, maxTokens), 0)
			t.Logf("bf16: %d of %d tokens as on the CPU (each sequence up to its first difference), logprobs within %.2g there", same, n, worst)
		})
	}
}
