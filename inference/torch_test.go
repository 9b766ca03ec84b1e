package inference

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/safetensors"
)

// TestGreedyMatchesPyTorch: the greedy continuation of a tiny random
// checkpoint is identical to tests/python/qwen3_generate.py's, a plain
// PyTorch decode loop with a K/V cache as Hugging Face's generate runs it.
func TestGreedyMatchesPyTorch(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import torch, numpy").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but /usr/bin/python3 cannot import torch and numpy: %v", err)
		}
		t.Skipf("no PyTorch: %v", err)
	}
	for _, tied := range []bool{false, true} {
		m, tok := testModel(t, 5)
		if tied {
			cfg := m.Cfg
			cfg.TieWordEmbeddings = true
			var err error
			if m, err = model.New(m.Backend(), cfg); err != nil {
				t.Fatal(err)
			}
			m.InitRandom(6, 0.2)
		}
		dir := t.TempDir()
		if err := m.Save(dir, model.SaveOptions{DType: safetensors.F32}); err != nil {
			t.Fatal(err)
		}
		e, err := New(m, tok, Config{BlockSize: 16, MaxBatchTokens: 32})
		if err != nil {
			t.Fatal(err)
		}
		p := prompt(t, e, "Find the needle in the context and print where it is.")
		const n = 48
		r := generate(t, e, Request{Prompt: p, MaxTokens: n, IgnoreEOS: true})
		e.Close()
		idsPath := filepath.Join(dir, "ids.json")
		raw, _ := json.Marshal(p)
		os.WriteFile(idsPath, raw, 0o644)
		out, err := exec.Command("/usr/bin/python3", "../tests/python/qwen3_generate.py", "greedy", dir, idsPath, "48").Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("qwen3_generate.py: %v\n%s", err, stderr)
		}
		var ref struct {
			Tokens []int32 `json:"tokens"`
			MinGap float64 `json:"min_gap"`
		}
		if err := json.Unmarshal(out, &ref); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(r), ref.Tokens) {
			t.Fatalf("tied=%v: engine %v\nPyTorch %v (smallest top-2 logit gap %.3g)", tied, ids(r), ref.Tokens, ref.MinGap)
		}
		t.Logf("tied=%v: %d greedy tokens after a %d-token prompt (chunked prefill of 32) identical to PyTorch; smallest top-2 gap %.3g",
			tied, n, len(p), ref.MinGap)
	}
}
