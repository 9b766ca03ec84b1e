package model

import (
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/safetensors"
)

// Load reads a Hugging Face Qwen3 checkpoint directory (config.json and
// model.safetensors or a sharded index) onto the backend. F32, F16 and BF16
// weights are converted to float32. Every expected tensor must be present
// with the expected shape.
func Load(be backend.Backend, dir string) (*Model, error) { return loadDir(be, dir, nil) }

// LoadLoRA is Load and EnableLoRA(lora) with the base laid out frozen, as
// NewLoRA lays it out: on a GPU in bf16 the base's matrices take half the
// memory.
func LoadLoRA(be backend.Backend, dir string, lora LoRAConfig) (*Model, error) {
	return loadDir(be, dir, &lora)
}

func loadDir(be backend.Backend, dir string, lora *LoRAConfig) (*Model, error) {
	cfg, err := LoadConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", dir, err)
	}
	st, err := safetensors.OpenDir(dir)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", dir, err)
	}
	defer st.Close()
	m, err := load(be, cfg, st, dir, lora != nil)
	if err != nil || lora == nil {
		return m, err
	}
	if err := m.EnableLoRA(*lora); err != nil {
		return nil, fmt.Errorf("load %s: %w", dir, err)
	}
	return m, nil
}

// LoadFS is Load of a checkpoint in a file system (an embedded one), read
// into memory; name says which checkpoint in errors.
func LoadFS(be backend.Backend, fsys iofs.FS, name string) (*Model, error) {
	raw, err := iofs.ReadFile(fsys, "config.json")
	if err != nil {
		return nil, fmt.Errorf("load %s: config: %w", name, err)
	}
	cfg, err := ParseConfig(raw)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	st, err := safetensors.OpenFS(fsys)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	defer st.Close()
	return load(be, cfg, st, name, false)
}

// load builds the model of cfg, its base laid out frozen or not (see
// NewLoRA), and uploads its weights from st.
func load(be backend.Backend, cfg Config, st *safetensors.Dir, name string, frozen bool) (*Model, error) {
	m, err := newModel(be, cfg, frozen)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	// One tensor at a time through a reused host buffer, so loading needs
	// the model's memory plus its largest tensor, not twice the model.
	var host []float32
	for i, p := range m.params {
		ti, ok := st.Info(p.Name)
		if !ok {
			return nil, fmt.Errorf("load %s: missing tensor %s", name, p.Name)
		}
		if !slices.Equal(ti.Shape, p.Shape) {
			return nil, fmt.Errorf("load %s: tensor %s has shape %v, config wants %v", name, p.Name, ti.Shape, p.Shape)
		}
		if cap(host) < p.Size() {
			host = make([]float32, p.Size())
		}
		host = host[:p.Size()]
		if err := st.ReadFloat32(p.Name, host); err != nil {
			return nil, fmt.Errorf("load %s: %w", name, err)
		}
		be.Upload(m.param(i), host)
		m.keepFrozen(i)
	}
	return m, nil
}

// TokenizerFiles are copied from the source checkpoint into a saved one so
// the result loads in transformers and vLLM on its own.
var tokenizerFiles = []string{
	"tokenizer.json", "tokenizer_config.json", "vocab.json", "merges.txt",
	"special_tokens_map.json", "added_tokens.json", "generation_config.json", "chat_template.jinja",
}

// SaveOptions controls Save.
type SaveOptions struct {
	// DType is safetensors.F32 or safetensors.BF16 (the default, what Qwen3
	// checkpoints ship in).
	DType safetensors.DType
	// CopyFrom is a checkpoint directory whose tokenizer and generation
	// files are copied alongside, when present.
	CopyFrom string
}

// Save writes the model as a Hugging Face checkpoint directory:
// model.safetensors with the standard tensor names (lm_head.weight left out
// when tied, as transformers does), config.json, and the tokenizer files.
func (m *Model) Save(dir string, opt SaveOptions) error {
	if opt.DType == "" {
		opt.DType = safetensors.BF16
	}
	torchDType := map[safetensors.DType]string{safetensors.F32: "float32", safetensors.BF16: "bfloat16"}[opt.DType]
	if torchDType == "" {
		return fmt.Errorf("save %s: unsupported dtype %s", dir, opt.DType)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save: %w", err)
	}
	host := m.DownloadParams()
	tensors := make([]safetensors.Tensor, 0, len(m.params))
	for _, p := range m.params {
		tensors = append(tensors, safetensors.Tensor{Name: p.Name, Shape: p.Shape, Data: host[p.Offset : p.Offset+p.Size()]})
	}
	if err := safetensors.WriteFile(filepath.Join(dir, "model.safetensors"), tensors, opt.DType, map[string]string{"format": "pt"}); err != nil {
		return fmt.Errorf("save %s: %w", dir, err)
	}
	// A stale shard index from an earlier save would shadow the new file.
	os.Remove(filepath.Join(dir, safetensors.IndexFile))
	cj, err := m.Cfg.JSON(torchDType)
	if err != nil {
		return fmt.Errorf("save %s: %w", dir, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), append(cj, '\n'), 0o644); err != nil {
		return fmt.Errorf("save %s: %w", dir, err)
	}
	if opt.CopyFrom != "" {
		if err := CopyTokenizerFiles(opt.CopyFrom, dir); err != nil {
			return fmt.Errorf("save %s: %w", dir, err)
		}
	}
	return nil
}

// CopyTokenizerFiles copies whichever tokenizer and generation files exist
// in src into dst.
func CopyTokenizerFiles(src, dst string) error {
	if abs1, _ := filepath.Abs(src); abs1 != "" {
		if abs2, _ := filepath.Abs(dst); abs1 == abs2 {
			return nil
		}
	}
	for _, name := range tokenizerFiles {
		if err := copyFile(filepath.Join(src, name), filepath.Join(dst, name)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return nil
}
