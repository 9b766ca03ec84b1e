// Package inference serves a Qwen3 model of model: prefill and
// decode steps over a paged KV cache, continuous batching of concurrent
// requests, prefix reuse across requests, and sampling with logprobs.
//
// It is the serving half of the model stack: `rlm serve --local-model`,
// `rlm model serve` and RL rollouts use it, and it runs the same model,
// backend and tokenizer packages (model, model/backend, model/tokenizer)
// the trainer does, so a faster backend (CUDA) speeds both halves.
//
// The pieces, each in its own file:
//   - blocks.go: the KV cache's block pool, with prefix caching by chained
//     block hashes and LRU eviction of unreferenced blocks;
//   - engine.go: requests, the scheduler (continuous batching, chunked
//     prefill, preemption when the cache is full) and the step loop;
//   - sample.go: temperature, top-k, top-p, seeds, logprobs;
//   - text.go: incremental detokenization and stop strings.
//
// Its OpenAI-compatible HTTP server is package inference/modelserver.
package inference
