// Package training post-trains Qwen3-architecture models on collected RLM
// trajectories: data turns exported trajectories into token sequences,
// loop holds what every trainer shares (optimizer, schedule, checkpoints),
// sft and rl are the trainers, and expert is the programmatic policy that
// writes the built-in model's training data. The model they train lives in
// package model (with its backends, tokenizer and safetensors), which the
// inference engine serves too: training stands on model and inference,
// never the other way round.
package training
