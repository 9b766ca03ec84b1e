// Package inference serves a Qwen3 model of model: prefill and
// decode steps over a paged KV cache, continuous batching of concurrent
// requests, prefix reuse across requests, and sampling with logprobs.
//
// It lives beside training rather than inside it because it is the serving
// half: `rlm serve --local-model`, `rlm model serve` and RL rollouts use it,
// while it uses training's model, backend and tokenizer unchanged, so a
// faster backend (CUDA) speeds both halves.
//
// The pieces, each in its own file:
//   - blocks.go: the KV cache's block pool, with prefix caching by chained
//     block hashes and LRU eviction of unreferenced blocks;
//   - engine.go: requests, the scheduler (continuous batching, chunked
//     prefill, preemption when the cache is full) and the step loop;
//   - sample.go: temperature, top-k, top-p, seeds, logprobs;
//   - text.go: incremental detokenization and stop strings.
//
// The OpenAI-compatible HTTP surface is package inference/openai.
package inference
