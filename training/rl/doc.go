// Package rl post-trains a model to use the RLM harness with reinforcement
// learning of the GRPO family: groups of rollouts of one task run through
// the real RLM engine and REPL with the current policy served in-process by
// the inference engine, are scored by the eval scorers, and push the policy
// towards the better ones. See docs/training.md for the algorithm and the
// trainers it follows.
package rl
