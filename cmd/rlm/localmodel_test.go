package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/cmd/rlm/internal/modelcmd"
	"github.com/rlm-project/rlm/cmd/rlm/internal/traincmd"
	"github.com/rlm-project/rlm/internal/fakellm"
)

// sixTimesSeven is a fakellm script (a test double, not a model) for the
// trajectory the local model is trained on: the root computes 6*7 in the
// REPL, then answers FINAL with what the REPL printed.
func sixTimesSeven(req fakellm.Request) fakellm.Reply {
	if req.Turn() == 1 {
		return fakellm.Reply{Content: fakellm.Code(`fmt.Println(6 * 7)`)}
	}
	return fakellm.Reply{Content: "FINAL(42)"}
}

type rlmChat struct {
	Choices []struct {
		Message struct{ Content string } `json:"message"`
	} `json:"choices"`
	RLM struct {
		TraceID    string `json:"trace_id"`
		StopReason string `json:"stop_reason"`
		Iterations int    `json:"iterations"`
	} `json:"rlm"`
}

func chatOnce(t *testing.T, url string) rlmChat {
	t.Helper()
	body := `{"model":"rlm","temperature":0,"max_tokens":60,"messages":[{"role":"user","content":"What is six times seven? Use the REPL."}]}`
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, raw)
	}
	var out rlmChat
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLocalModelReproducesTrajectory: a trajectory is recorded through the
// gateway, engine and real REPL (from a scripted fake upstream), a tiny
// Qwen3 is trained on its root turns with `rlm train sft`, and then
// `rlm serve --local-model` with that model in-process, through the same
// gateway and REPL, runs the same trajectory again: the same cells, the
// same REPL output, the same answer.
func TestLocalModelReproducesTrajectory(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	ctx := context.Background()
	up := fakellm.New(sixTimesSeven)
	defer up.Close()
	rec := startServe(t, upstreamArgs(up.URL)...)
	recorded := chatOnce(t, rec.URL)
	if recorded.Choices[0].Message.Content != "42" || recorded.RLM.Iterations != 2 {
		t.Fatalf("recording: %+v", recorded)
	}
	// The root turns as the upstream saw them become SFT samples, one per
	// turn, the last assistant message trained (the export's format).
	var samples bytes.Buffer
	var roots []fakellm.Request
	for _, r := range up.Requests() {
		if strings.Contains(r.System(), "FINAL") {
			roots = append(roots, r)
		}
	}
	if len(roots) != 2 {
		t.Fatalf("%d root turns recorded", len(roots))
	}
	for _, r := range roots {
		var msgs []map[string]any
		for _, m := range r.Messages {
			msg := map[string]any{"role": m.Role, "content": m.Content}
			if m.Role == "assistant" {
				msg["train"] = false
			}
			msgs = append(msgs, msg)
		}
		msgs = append(msgs, map[string]any{"role": "assistant", "content": sixTimesSeven(r).Content})
		line, _ := json.Marshal(map[string]any{"id": "turn", "reward": 1, "messages": msgs})
		samples.Write(append(line, '\n'))
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "samples.jsonl")
	os.WriteFile(data, samples.Bytes(), 0o644)
	cfgPath := filepath.Join(dir, "tiny.json")
	os.WriteFile(cfgPath, []byte(`{"hidden_size":48,"intermediate_size":96,"num_hidden_layers":2,
		"num_attention_heads":2,"num_key_value_heads":1,"head_dim":16,"rms_norm_eps":1e-6,
		"rope_theta":10000,"max_position_embeddings":8192,"tie_word_embeddings":true,"vocab_size":269}`), 0o644)
	base, out := filepath.Join(dir, "base"), filepath.Join(dir, "local")
	var stdout, stderr bytes.Buffer
	if err := traincmd.Run(ctx, cli.Env{}, []string{"init", "-model-config", cfgPath, "-out", base, "-tokenizer", sftTestdata}, &stdout, &stderr); err != nil {
		t.Fatalf("train init: %v\n%s", err, stderr.String())
	}
	args := []string{"sft", "-model", base, "-data", data, "-out", out, "-seq-len", "4608", "-lr", "3e-2", "-warmup", "5",
		"-steps", "120", "-batch-size", "1", "-grad-accum", "2", "-weight-decay", "0", "-log-every", "10", "-checkpoint-every", "0", "-dtype", "f32"}
	stdout.Reset()
	if err := traincmd.Run(ctx, cli.Env{}, args, &stdout, &stderr); err != nil {
		t.Fatalf("train sft: %v\n%s", err, stderr.String())
	}
	t.Log(stdout.String())

	local := startServe(t, "--local-model", out, "--models", "rlm", "--kv-cache", "16384tokens")
	got := chatOnce(t, local.URL)
	if got.Choices[0].Message.Content != "42" || got.RLM.Iterations != 2 || got.RLM.StopReason != "final" {
		t.Fatalf("local model run: %+v\nlog:\n%s", got, local.Stderr.String())
	}
	// The recorded trace of the local run holds the same root turns.
	resp, err := http.Get(local.URL + "/v1/traces/" + got.RLM.TraceID)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"fmt.Println(6 * 7)", "FINAL(42)"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("trace of the local run lacks %q", want)
		}
	}
}

// TestLocalModelPrefixReuse20Turns runs a 20-turn RLM through the gateway,
// the engine and the real REPL on an untrained local model (its turns are
// gibberish, so the run goes the whole 20 turns) and reports how much of
// the prefill the prefix cache saved: each root turn's transcript extends
// the last one.
func TestLocalModelPrefixReuse20Turns(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "tiny.json")
	os.WriteFile(cfgPath, []byte(`{"hidden_size":48,"intermediate_size":96,"num_hidden_layers":2,
		"num_attention_heads":2,"num_key_value_heads":1,"head_dim":16,"rope_theta":10000,
		"max_position_embeddings":32768,"tie_word_embeddings":true,"vocab_size":269}`), 0o644)
	base := filepath.Join(dir, "base")
	var stdout, stderr bytes.Buffer
	if err := traincmd.Run(context.Background(), cli.Env{}, []string{"init", "-model-config", cfgPath, "-out", base, "-tokenizer", sftTestdata}, &stdout, &stderr); err != nil {
		t.Fatalf("train init: %v\n%s", err, stderr.String())
	}
	// A random model's cells all fail: --max-failed-turns keeps it going
	// for the 20 turns whose prefixes this test checks.
	s := startServe(t, "--local-model", base, "--models", "rlm", "--max-iterations", "20", "--max-failed-turns", "100",
		"--kv-cache", "32768tokens")
	body := `{"model":"rlm","temperature":0,"max_tokens":32,"messages":[{"role":"user","content":"Summarize the context."}]}`
	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var out rlmChat
	json.Unmarshal(raw, &out)
	if out.RLM.Iterations < 20 || out.RLM.StopReason != "max_iterations" {
		t.Fatalf("status %d, %d iterations, want the whole 20 turns: %s", resp.StatusCode, out.RLM.Iterations, raw)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	var stats string
	for _, line := range strings.Split(s.Stderr.String(), "\n") {
		if strings.Contains(line, "local model stats") {
			stats = line
		}
	}
	t.Logf("20-turn RLM run on the local model: %s", stats)
	var prompt, cached int
	for _, f := range strings.Fields(stats) {
		if v, ok := strings.CutPrefix(f, "prompt_tokens="); ok {
			prompt = atoi(v)
		}
		if v, ok := strings.CutPrefix(f, "prefix_cached_tokens="); ok {
			cached = atoi(v)
		}
	}
	if prompt == 0 || float64(cached) < 0.8*float64(prompt) {
		t.Errorf("prefix cache saved %d of %d prompt tokens, want at least 80%%", cached, prompt)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// TestModelServeNodeSDK runs tests/node/inference_sdk.mjs, the official npm
// openai client, against `rlm model serve` on a tiny random checkpoint.
func TestModelServeNodeSDK(t *testing.T) {
	node, err := exec.LookPath("node")
	sdk := filepath.Join("..", "..", "tests", "node", "node_modules", "openai")
	if _, serr := os.Stat(sdk); err != nil || serr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node and tests/node/node_modules/openai are required in CI (cd tests/node && npm ci): %v %v", err, serr)
		}
		t.Skip("node or the npm openai package is missing; run: cd tests/node && npm ci")
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "tiny.json")
	os.WriteFile(cfgPath, []byte(`{"hidden_size":32,"intermediate_size":64,"num_hidden_layers":2,
		"num_attention_heads":2,"num_key_value_heads":1,"head_dim":16,"rope_theta":10000,
		"max_position_embeddings":4096,"tie_word_embeddings":true,"vocab_size":269}`), 0o644)
	ckpt := filepath.Join(dir, "tiny-qwen3")
	var stdout, stderr bytes.Buffer
	if err := traincmd.Run(context.Background(), cli.Env{}, []string{"init", "-model-config", cfgPath, "-out", ckpt, "-tokenizer", sftTestdata}, &stdout, &stderr); err != nil {
		t.Fatalf("train init: %v\n%s", err, stderr.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	var serverLog syncBuffer
	go func() {
		err := modelcmd.Run(ctx, cli.Env{}, []string{"serve", "--listen", "127.0.0.1:0", "--api-key", "node-key", ckpt}, pw, &serverLog)
		pw.CloseWithError(fmt.Errorf("model serve ended: %v", err))
		done <- err
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("rlm model serve: %v", err)
		}
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("rlm model serve did not start: %v\n%s", err, serverLog.String())
	}
	go io.Copy(io.Discard, pr)
	url := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	nctx, ncancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer ncancel()
	cmd := exec.CommandContext(nctx, node, "inference_sdk.mjs")
	cmd.Dir = filepath.Join("..", "..", "tests", "node")
	cmd.Env = append(os.Environ(), "RLM_BASE_URL="+url+"/v1", "RLM_KEY=node-key", "RLM_MODEL=tiny-qwen3")
	var nout, nerr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &nout, &nerr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\n%s\nserver log:\n%s", err, nerr.String(), serverLog.String())
	}
	var res map[string]any
	if err := json.Unmarshal(nout.Bytes(), &res); err != nil {
		t.Fatalf("node output %q: %v", nout.String(), err)
	}
	for _, k := range []string{"plain", "stream", "token_ids", "bad_model", "bad_temperature", "too_long", "bad_key"} {
		if res[k] == nil {
			t.Errorf("node results lack %s: %s", k, nout.String())
		}
	}
}
