package inference

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rlm-project/rlm/inference/inferencetest"
	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
)

// memFS copies a checkpoint directory into memory, so that LoadFS is shown
// to read nothing from disk.
func memFS(t *testing.T, dir string) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = &fstest.MapFile{Data: b}
	}
	return out
}

// TestLoadFS: a checkpoint loaded from a file system (here in memory, as an
// embedded one is) is the checkpoint Load reads from its directory: same
// greedy completion, same end-of-sequence tokens from config.json.
func TestLoadFS(t *testing.T) {
	m, _ := inferencetest.Model(t, 3)
	dir := t.TempDir()
	if err := m.Save(dir, model.SaveOptions{CopyFrom: inferencetest.TokenizerDir()}); err != nil {
		t.Fatal(err)
	}
	// An extra end token, as a trained model's config.json may name.
	if err := os.WriteFile(filepath.Join(dir, "generation_config.json"), []byte(`{"eos_token_id": [7, 9]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fromDir, err := Load(backend.CPU{}, dir, Config{Name: "ckpt", KVCacheTokens: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer fromDir.Close()
	mem := memFS(t, dir)
	fromFS, err := LoadFS(backend.CPU{}, mem, Config{Name: "ckpt", KVCacheTokens: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer fromFS.Close()
	if !fromFS.eos[7] || !fromFS.eos[9] || len(fromFS.eos) != len(fromDir.eos) {
		t.Errorf("end tokens: from FS %v, from dir %v", fromFS.eos, fromDir.eos)
	}
	req := Request{Prompt: prompt(t, fromDir, "the needle is"), MaxTokens: 24, IgnoreEOS: true}
	a, b := generate(t, fromDir, req), generate(t, fromFS, req)
	if !slices.Equal(ids(a), ids(b)) {
		t.Errorf("greedy completions differ:\ndir %v\nfs  %v", ids(a), ids(b))
	}

	// Broken checkpoints fail with an error naming what is wrong.
	for _, tt := range []struct {
		name  string
		edit  func(fstest.MapFS)
		cfg   Config
		error string
	}{
		{"no name", func(fstest.MapFS) {}, Config{}, "needs a model name"},
		{"lora", func(fstest.MapFS) {}, Config{Name: "x", LoRA: "adapter"}, "LoRA"},
		{"no tokenizer", func(f fstest.MapFS) { delete(f, "tokenizer.json") }, Config{Name: "x"}, "tokenizer.json"},
		{"no weights", func(f fstest.MapFS) { delete(f, "model.safetensors") }, Config{Name: "x"}, "model.safetensors"},
		{"no config", func(f fstest.MapFS) { delete(f, "config.json") }, Config{Name: "x"}, "config"},
		{"truncated weights", func(f fstest.MapFS) {
			w := f["model.safetensors"]
			f["model.safetensors"] = &fstest.MapFile{Data: w.Data[:len(w.Data)/2]}
		}, Config{Name: "x"}, "outside data"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := memFS(t, dir)
			tt.edit(f)
			e, err := LoadFS(backend.CPU{}, fs.FS(f), tt.cfg)
			if err == nil {
				e.Close()
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), tt.error) {
				t.Errorf("error %q does not mention %q", err, tt.error)
			}
		})
	}
}
