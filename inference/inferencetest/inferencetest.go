// Package inferencetest builds the small random Qwen3 models the inference
// tests serve: real model code on the CPU with the tiny Qwen-format
// tokenizer of the trainer's test data (byte-level BPE with the chat
// special tokens). A random model writes gibberish; tests use it for what
// does not depend on the words (caching, batching, sampling, the API).
package inferencetest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/tokenizer"
)

// TokenizerDir is the directory of the tiny tokenizer: beside this
// source file, or, for a test binary built with -trimpath and run on
// another machine (bench/cuda/run.sh), found from the working directory up.
func TokenizerDir() string {
	rel := filepath.Join("training", "sft", "testdata")
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", rel)
	if _, err := os.Stat(dir); err == nil {
		return dir
	}
	for up := "."; ; up = filepath.Join(up, "..") {
		d := filepath.Join(up, rel)
		if _, err := os.Stat(d); err == nil {
			return d
		}
		if abs, _ := filepath.Abs(up); abs == "/" {
			return dir
		}
	}
}

// Model returns a random 2-layer Qwen3 (GQA, 8192 positions) over the tiny
// tokenizer, with weights drawn from seed.
func Model(t testing.TB, seed uint64) (*model.Model, *tokenizer.Tokenizer) {
	t.Helper()
	tok, err := tokenizer.Load(TokenizerDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := model.ParseConfig([]byte(fmt.Sprintf(`{"hidden_size":32,"intermediate_size":48,"num_hidden_layers":2,
		"num_attention_heads":4,"num_key_value_heads":2,"head_dim":8,"rope_theta":10000,
		"max_position_embeddings":8192,"vocab_size":%d}`, tok.VocabSize())))
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(backend.ForInference(backend.CPU{}), cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.InitRandom(seed, 0.2)
	return m, tok
}
