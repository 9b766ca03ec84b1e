package cli

import (
	"fmt"
	"io"

	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/models/tinydemo"
)

// Values of --local-model other than a checkpoint directory.
const (
	// ModelBuiltin is the model built into the binary (models/tinydemo),
	// which serve and query fall back to when no upstream is configured.
	ModelBuiltin = "builtin"
	// ModelNone turns that fallback off: with no upstream, serve answers
	// chats with 503 and query refuses to run, naming what to set.
	ModelNone = "none"
	// BuiltinKVCache is the built-in model's KV cache pool when
	// --kv-cache is left at its default.
	BuiltinKVCache = "65536tokens"
)

// LoadModel loads a checkpoint directory, or with ModelBuiltin the
// built-in model after checking its checksums, into an inference engine on
// the device dev (a GPU it picks is named on log).
func LoadModel(dir string, cfg inference.Config, dev Device, log io.Writer) (*inference.Engine, error) {
	be, desc, err := dev.Open()
	if err != nil {
		return nil, fmt.Errorf("local model: %w", err)
	}
	if be.Name() != "cpu" || dev.Kind == "cpu" {
		fmt.Fprintf(log, "rlm: local model on %s\n", desc)
	}
	if dir == ModelBuiltin {
		if err := tinydemo.Verify(); err != nil {
			return nil, fmt.Errorf("built-in model: %w", err)
		}
		cfg.Name = tinydemo.Name
		e, err := inference.LoadFS(be, tinydemo.FS(), cfg)
		if err != nil {
			return nil, fmt.Errorf("built-in model: %w", err)
		}
		return e, nil
	}
	e, err := inference.Load(be, dir, cfg)
	if err != nil {
		return nil, fmt.Errorf("local model: %w", err)
	}
	return e, nil
}
