// Package training post-trains Qwen3-architecture models on collected RLM
// trajectories. Its subpackages hold the tokenizer, the safetensors format,
// the model with explicit forward and backward passes, and the trainers.
package training
