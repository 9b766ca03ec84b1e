package inference

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/backend/cuda"
	"github.com/rlm-project/rlm/model/tokenizer"
)

// BenchmarkGenerate measures prefill and decode throughput of the engine
// on random weights, the way bench/inference.sh (CPU) and bench/cuda/run.sh
// (GPU) compare it with PyTorch: RLM_BENCH_CONFIG (a config.json; default a
// small Qwen3), RLM_BENCH_BATCH sequences of RLM_BENCH_PROMPT random prompt
// tokens, then RLM_BENCH_DECODE greedy tokens each, on RLM_BENCH_DEVICE
// (cpu, the default, or cuda, in RLM_BENCH_PRECISION, default bf16).
// Prefill is the time until every sequence has its first token; decode the
// rest. One untimed run of the same shape comes first (a GPU makes its
// matrix-product plans then).
func BenchmarkGenerate(b *testing.B) {
	env := func(k string, def int) int {
		if v, err := strconv.Atoi(os.Getenv(k)); err == nil {
			return v
		}
		return def
	}
	batch, promptLen, decode := env("RLM_BENCH_BATCH", 1), env("RLM_BENCH_PROMPT", 128), env("RLM_BENCH_DECODE", 32)
	cfg, err := model.ParseConfig([]byte(`{"hidden_size":256,"intermediate_size":768,"num_hidden_layers":4,
		"num_attention_heads":4,"num_key_value_heads":2,"head_dim":64,"vocab_size":4096,"max_position_embeddings":4096}`))
	if p := os.Getenv("RLM_BENCH_CONFIG"); p != "" {
		cfg, err = model.LoadConfig(p)
	}
	if err != nil {
		b.Fatal(err)
	}
	var be backend.Backend = backend.CPU{}
	if os.Getenv("RLM_BENCH_DEVICE") == "cuda" {
		prec := cuda.BF16
		if p := os.Getenv("RLM_BENCH_PRECISION"); p != "" {
			if prec, err = cuda.ParsePrecision(p); err != nil {
				b.Fatal(err)
			}
		}
		g, err := cuda.Open(cuda.Options{Precision: prec})
		if err != nil {
			b.Skipf("no CUDA device: %v", err)
		}
		be = g
	}
	m, err := model.New(backend.ForInference(be), cfg)
	if err != nil {
		b.Fatal(err)
	}
	m.InitRandom(1, 0.02)
	tok, err := tokenizer.Load("../training/sft/testdata")
	if err != nil {
		b.Fatal(err)
	}
	e, err := New(m, tok, Config{Name: "bench", KVCacheTokens: batch * (promptLen + decode + 16), MaxSeqs: batch,
		MaxBatchTokens: batch * promptLen, NoPrefixCache: true})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	var prefill, dec time.Duration
	for i := -1; i < b.N; i++ {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var lastFirst time.Time
		start := time.Now()
		for s := range batch {
			p := make([]int32, promptLen)
			for j := range p {
				p[j] = int32(((i+1)*7919 + s*104729 + j*31) % cfg.VocabSize) // distinct prompts: no prefix reuse
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				first := true
				_, err := e.Generate(context.Background(), Request{Prompt: p, MaxTokens: decode + 1, IgnoreEOS: true}, func(d Delta) error {
					if first {
						first = false
						mu.Lock()
						if now := time.Now(); now.After(lastFirst) {
							lastFirst = now
						}
						mu.Unlock()
					}
					return nil
				})
				if err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
		end := time.Now()
		if i < 0 {
			continue // the warm-up
		}
		prefill += lastFirst.Sub(start)
		dec += end.Sub(lastFirst)
	}
	b.ReportMetric(float64(b.N*batch*promptLen)/prefill.Seconds(), "prefill_tok/s")
	b.ReportMetric(float64(b.N*batch*decode)/dec.Seconds(), "decode_tok/s")
}
