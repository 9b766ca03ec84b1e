// Package model is the Qwen3 dense transformer with an explicit forward and
// backward pass, written against the small backend.Backend interface so the
// same code runs on the CPU and on CUDA (backend/cuda). It is the bottom of
// the model stack: the inference engine serves it and the trainers
// (package training) train it. Its subpackages are the backends, the
// tokenizer and the safetensors format; the built-in weights are in
// models/.
//
// The structure follows llm.c: all parameters live in one buffer (and their
// gradients in another of the same layout), activations for one batch shape
// are allocated once, and each layer's forward and backward are a straight
// sequence of kernel calls.
package model

import (
	"encoding/json"
	"fmt"
	"os"
)

// Config holds the fields of a Hugging Face Qwen3 config.json that shape the
// model. Every dimension comes from here; nothing is fixed for one size.
type Config struct {
	HiddenSize            int     `json:"hidden_size"`
	IntermediateSize      int     `json:"intermediate_size"`
	NumHiddenLayers       int     `json:"num_hidden_layers"`
	NumAttentionHeads     int     `json:"num_attention_heads"`
	NumKeyValueHeads      int     `json:"num_key_value_heads"`
	HeadDim               int     `json:"head_dim"`
	RMSNormEps            float64 `json:"rms_norm_eps"`
	RopeTheta             float64 `json:"rope_theta"`
	VocabSize             int     `json:"vocab_size"`
	TieWordEmbeddings     bool    `json:"tie_word_embeddings"`
	MaxPositionEmbeddings int     `json:"max_position_embeddings"`

	// raw keeps every field of the original config.json so a saved
	// checkpoint carries the ones we do not model (token ids, model_type, ...).
	raw map[string]any
}

// ParseConfig decodes a config.json, fills the defaults Qwen3Config uses for
// absent fields, and validates the dimensions.
func ParseConfig(data []byte) (Config, error) {
	c := Config{RMSNormEps: 1e-6, RopeTheta: 10000, MaxPositionEmbeddings: 32768}
	if err := json.Unmarshal(data, &c); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	if err := json.Unmarshal(data, &c.raw); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	if err := c.checkUnsupported(); err != nil {
		return Config{}, err
	}
	if c.NumKeyValueHeads == 0 {
		c.NumKeyValueHeads = c.NumAttentionHeads
	}
	if c.HeadDim == 0 && c.NumAttentionHeads > 0 {
		c.HeadDim = c.HiddenSize / c.NumAttentionHeads
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// checkUnsupported refuses configs that ask for something the model does
// not compute (biases, another activation, scaled RoPE, sliding-window
// attention): loading them would run a different network without a word.
// The values Qwen3's own configs carry (false, "silu", null) pass.
func (c Config) checkUnsupported() error {
	if v, ok := c.raw["attention_bias"]; ok && v != false && v != nil {
		return fmt.Errorf("config: attention_bias %v is not supported (Qwen3 has no biases)", v)
	}
	if v, ok := c.raw["hidden_act"]; ok && v != "silu" && v != nil {
		return fmt.Errorf("config: hidden_act %v is not supported (only silu)", v)
	}
	if v, ok := c.raw["rope_scaling"]; ok && v != nil {
		if m, isMap := v.(map[string]any); !isMap || len(m) > 0 {
			return fmt.Errorf("config: rope_scaling %v is not supported (only plain RoPE)", v)
		}
	}
	if v, ok := c.raw["use_sliding_window"]; ok && v != false && v != nil {
		return fmt.Errorf("config: use_sliding_window %v is not supported", v)
	}
	return nil
}

// LoadConfig reads dir/config.json.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Validate checks that the dimensions are positive and consistent.
func (c Config) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{
		{"hidden_size", c.HiddenSize}, {"intermediate_size", c.IntermediateSize},
		{"num_hidden_layers", c.NumHiddenLayers}, {"num_attention_heads", c.NumAttentionHeads},
		{"num_key_value_heads", c.NumKeyValueHeads}, {"head_dim", c.HeadDim}, {"vocab_size", c.VocabSize},
	} {
		if f.v <= 0 {
			return fmt.Errorf("config: %s must be positive, got %d", f.name, f.v)
		}
	}
	if c.NumAttentionHeads%c.NumKeyValueHeads != 0 {
		return fmt.Errorf("config: num_attention_heads %d is not a multiple of num_key_value_heads %d", c.NumAttentionHeads, c.NumKeyValueHeads)
	}
	if c.HeadDim%2 != 0 {
		return fmt.Errorf("config: head_dim %d must be even for rotary embeddings", c.HeadDim)
	}
	if c.RMSNormEps <= 0 || c.RopeTheta <= 0 {
		return fmt.Errorf("config: rms_norm_eps and rope_theta must be positive")
	}
	return nil
}

// JSON renders the config for a saved checkpoint: the original fields with
// ours written over them, plus the architecture fields transformers needs.
func (c Config) JSON(torchDType string) ([]byte, error) {
	m := map[string]any{}
	for k, v := range c.raw {
		m[k] = v
	}
	var own map[string]any
	b, _ := json.Marshal(c)
	json.Unmarshal(b, &own)
	for k, v := range own {
		m[k] = v
	}
	setDefault := func(k string, v any) {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	setDefault("architectures", []string{"Qwen3ForCausalLM"})
	setDefault("model_type", "qwen3")
	setDefault("hidden_act", "silu")
	setDefault("attention_bias", false)
	setDefault("attention_dropout", 0.0)
	setDefault("initializer_range", 0.02)
	setDefault("use_cache", true)
	m["torch_dtype"] = torchDType
	if _, ok := m["dtype"]; ok { // newer transformers write "dtype"
		m["dtype"] = torchDType
	}
	return json.MarshalIndent(m, "", "  ")
}
