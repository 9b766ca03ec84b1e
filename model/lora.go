package model

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/safetensors"
)

// LoRA adds low-rank adapters to chosen linear layers: y = x·Wᵀ + s·x·Aᵀ·Bᵀ
// with A r×in, B out×r and s = alpha/r. With adapters on, only A and B
// train: the base weights get no gradient buffer (and so no optimizer
// state). Adapters are saved in the layout of Hugging Face PEFT, which
// transformers, PEFT and vLLM load; MergeLoRA folds a saved adapter into the
// base weights for inference.

// LoRAConfig chooses the adapters.
type LoRAConfig struct {
	Rank  int
	Alpha float64 // the update is scaled by Alpha/Rank
	// Targets are module names: q_proj, k_proj, v_proj, o_proj, gate_proj,
	// up_proj, down_proj. Empty means DefaultLoRATargets.
	Targets []string
	Seed    uint64 // of A's initialization (B starts at zero)
}

// DefaultLoRATargets are the attention projections.
var DefaultLoRATargets = []string{"q_proj", "k_proj", "v_proj", "o_proj"}

// loraTarget names one linear layer of a block.
type loraTarget int

const (
	tgQ loraTarget = iota
	tgK
	tgV
	tgO
	tgGate
	tgUp
	tgDown
	numTargets
)

// targetModules are the targets' module paths inside a block, in the
// Hugging Face names.
var targetModules = [numTargets]string{"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
	"self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"}

func targetByName(name string) (loraTarget, bool) {
	for t, mod := range targetModules {
		if mod[strings.IndexByte(mod, '.')+1:] == name {
			return loraTarget(t), true
		}
	}
	return 0, false
}

// dims returns a target's output and input sizes.
func (c Config) dims(t loraTarget) (out, in int) {
	C, F, HD, KD := c.HiddenSize, c.IntermediateSize, c.NumAttentionHeads*c.HeadDim, c.NumKeyValueHeads*c.HeadDim
	switch t {
	case tgQ:
		return HD, C
	case tgK, tgV:
		return KD, C
	case tgO:
		return C, HD
	case tgGate, tgUp:
		return F, C
	default:
		return C, F
	}
}

// adapter holds one layer's A and B and their gradients.
type adapter struct {
	a, b, ga, gb backend.Buffer
}

type loraState struct {
	cfg     LoRAConfig
	on      [numTargets]bool
	params  []Param // PEFT names, in buffer order
	nParam  int
	Params  backend.Buffer
	Grads   backend.Buffer
	layers  [][numTargets]*adapter
	scaleRR backend.Buffer // s·I, r×r: multiplying by it scales by s on any backend
}

// peftKey is the PEFT name of an adapter matrix ("A" or "B").
func peftKey(layer int, t loraTarget, ab string) string {
	return fmt.Sprintf("base_model.model.model.layers.%d.%s.lora_%s.weight", layer, targetModules[t], ab)
}

func (c *LoRAConfig) normalize() error {
	if c.Rank <= 0 {
		return fmt.Errorf("lora: rank %d must be positive", c.Rank)
	}
	if c.Alpha <= 0 {
		return fmt.Errorf("lora: alpha %g must be positive", c.Alpha)
	}
	if len(c.Targets) == 0 {
		c.Targets = DefaultLoRATargets
	}
	for _, name := range c.Targets {
		if _, ok := targetByName(name); !ok {
			return fmt.Errorf("lora: unknown target %q (want q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj or down_proj)", name)
		}
	}
	return nil
}

// EnableLoRA adds adapters to the model and freezes its base weights: from
// now on Backward computes gradients only for the adapters, Trainable
// returns them, and the base weights' gradient buffer is dropped. A starts
// uniform in ±1/√in (PEFT's Kaiming init), B at zero, so the model computes
// what it did before.
func (m *Model) EnableLoRA(cfg LoRAConfig) error {
	if m.lora != nil {
		return fmt.Errorf("lora: adapters already enabled")
	}
	if err := cfg.normalize(); err != nil {
		return err
	}
	ls := &loraState{cfg: cfg}
	for _, name := range cfg.Targets {
		t, _ := targetByName(name)
		ls.on[t] = true
	}
	r := cfg.Rank
	for l := range m.Cfg.NumHiddenLayers {
		for t := range numTargets {
			if !ls.on[t] {
				continue
			}
			out, in := m.Cfg.dims(t)
			for _, p := range []Param{{Name: peftKey(l, t, "A"), Shape: []int{r, in}}, {Name: peftKey(l, t, "B"), Shape: []int{out, r}}} {
				p.Offset = ls.nParam
				ls.params = append(ls.params, p)
				ls.nParam += p.Size()
			}
		}
	}
	be := m.be
	ls.Params, ls.Grads = be.Alloc(ls.nParam), be.Alloc(ls.nParam)
	ls.layers = make([][numTargets]*adapter, m.Cfg.NumHiddenLayers)
	host := make([]float32, ls.nParam)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x10a))
	k := 0
	for l := range ls.layers {
		for t := range numTargets {
			if !ls.on[t] {
				continue
			}
			pa, pb := ls.params[k], ls.params[k+1]
			k += 2
			bound := 1 / math.Sqrt(float64(pa.Shape[1]))
			for i := pa.Offset; i < pa.Offset+pa.Size(); i++ {
				host[i] = float32((2*rng.Float64() - 1) * bound)
			}
			sl := func(b backend.Buffer, p Param) backend.Buffer { return be.Slice(b, p.Offset, p.Size()) }
			ls.layers[l][t] = &adapter{a: sl(ls.Params, pa), b: sl(ls.Params, pb), ga: sl(ls.Grads, pa), gb: sl(ls.Grads, pb)}
		}
	}
	be.Upload(ls.Params, host)
	diag := make([]float32, r*r)
	for i := range r {
		diag[i*r+i] = float32(cfg.Alpha / float64(r))
	}
	ls.scaleRR = be.Alloc(r * r)
	be.Upload(ls.scaleRR, diag)
	m.lora = ls
	m.Grads, m.g = nil, weights{}
	m.acts = nil // the activations gain the adapters' buffers
	return nil
}

// LoRAConfig returns the adapters' settings (defaults filled in), and false
// when the model has none.
func (m *Model) LoRAConfig() (LoRAConfig, bool) {
	if m.lora == nil {
		return LoRAConfig{}, false
	}
	return m.lora.cfg, true
}

// Trainable returns what an optimizer updates: every parameter, or with
// LoRA on only the adapters, as a parameter buffer, its gradient buffer
// (same layout) and the list of named tensors in it.
func (m *Model) Trainable() (params, grads backend.Buffer, list []Param) {
	if m.lora != nil {
		return m.lora.Params, m.lora.Grads, m.lora.params
	}
	m.ensureGrads()
	return m.Params, m.Grads, m.params
}

// linear computes out = in·Wᵀ + beta·out for target t of block l (out N×outDim,
// in N×inDim), plus s·(in·Aᵀ)·Bᵀ when the target has an adapter; it keeps
// s·in·Aᵀ in la.lora[t] for the backward pass.
func (m *Model) linear(out, in, w backend.Buffer, l int, t loraTarget, la *layerActs, N, outDim, inDim int, beta float32) {
	be := m.be
	be.MatMul(out, in, w, N, outDim, inDim, false, true, beta)
	if m.lora == nil || !m.lora.on[t] {
		return
	}
	m.adapterInput(in, l, t, la, N, inDim)
	be.MatMul(out, la.lora[t], m.lora.layers[l][t].b, N, outDim, m.lora.cfg.Rank, false, true, 1)
}

// adapterInput computes s·in·Aᵀ into la.lora[t] when target t of block l has
// an adapter: the low-rank activation its backward reads.
func (m *Model) adapterInput(in backend.Buffer, l int, t loraTarget, la *layerActs, N, inDim int) {
	if m.lora == nil || !m.lora.on[t] {
		return
	}
	be, r := m.be, m.lora.cfg.Rank
	tmp := be.Slice(m.acts.loraTmp, 0, N*r)
	be.MatMul(tmp, in, m.lora.layers[l][t].a, N, r, inDim, false, true, 0)
	be.MatMul(la.lora[t], tmp, m.lora.scaleRR, N, r, r, false, false, 0)
}

// linearBackward is linear's backward: din = dout·W + beta·din, W's
// gradient += doutᵀ·in when the base weights train (gw not nil), and the
// adapter's gradients.
func (m *Model) linearBackward(din, dout, in, w, gw backend.Buffer, l int, t loraTarget, la *layerActs, N, outDim, inDim int, beta float32) {
	be := m.be
	be.MatMul(din, dout, w, N, inDim, outDim, false, false, beta)
	if gw != nil {
		be.MatMul(gw, dout, in, outDim, inDim, N, true, false, 1)
	}
	if m.lora == nil || !m.lora.on[t] {
		return
	}
	a := m.acts
	ad, r := m.lora.layers[l][t], m.lora.cfg.Rank
	dts, dt := be.Slice(a.loraTmp, 0, N*r), be.Slice(a.loraTmp2, 0, N*r)
	be.MatMul(dts, dout, ad.b, N, r, outDim, false, false, 0)        // d(s·t) = dout·B
	be.MatMul(ad.gb, dout, la.lora[t], outDim, r, N, true, false, 1) // dB += doutᵀ·(s·t)
	be.MatMul(dt, dts, m.lora.scaleRR, N, r, r, false, false, 0)     // dt = s·d(s·t)
	be.MatMul(ad.ga, dt, in, r, inDim, N, true, false, 1)            // dA += dtᵀ·in
	be.MatMul(din, dt, ad.a, N, inDim, r, false, false, 1)           // din += dt·A
}

// adapterConfig is PEFT's adapter_config.json, the fields we write and read.
type adapterConfig struct {
	PeftType          string   `json:"peft_type"`
	TaskType          string   `json:"task_type"`
	R                 int      `json:"r"`
	LoraAlpha         float64  `json:"lora_alpha"`
	LoraDropout       float64  `json:"lora_dropout"`
	TargetModules     []string `json:"target_modules"`
	BaseModel         string   `json:"base_model_name_or_path"`
	Bias              string   `json:"bias"`
	FanInFanOut       bool     `json:"fan_in_fan_out"`
	InferenceMode     bool     `json:"inference_mode"`
	UseRSLoRA         bool     `json:"use_rslora"`
	UseDoRA           bool     `json:"use_dora"`
	InitLoraWeights   bool     `json:"init_lora_weights"`
	ModulesToSave     []string `json:"modules_to_save"`
	LayersToTransform []int    `json:"layers_to_transform"`
}

// Adapter file names of PEFT.
const (
	AdapterConfigFile = "adapter_config.json"
	AdapterModelFile  = "adapter_model.safetensors"
)

// SaveLoRA writes the adapters to dir in the PEFT layout: adapter_config.json
// and adapter_model.safetensors (F32), with base naming the base model
// (a Hub id or directory, written as base_model_name_or_path).
func (m *Model) SaveLoRA(dir, base string) error {
	ls := m.lora
	if ls == nil {
		return fmt.Errorf("save lora %s: the model has no adapters", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save lora: %w", err)
	}
	host := make([]float32, ls.nParam)
	m.be.Download(host, ls.Params)
	tensors := make([]safetensors.Tensor, 0, len(ls.params))
	for _, p := range ls.params {
		tensors = append(tensors, safetensors.Tensor{Name: p.Name, Shape: p.Shape, Data: host[p.Offset : p.Offset+p.Size()]})
	}
	if err := safetensors.WriteFile(filepath.Join(dir, AdapterModelFile), tensors, safetensors.F32, map[string]string{"format": "pt"}); err != nil {
		return fmt.Errorf("save lora %s: %w", dir, err)
	}
	cfg := adapterConfig{PeftType: "LORA", TaskType: "CAUSAL_LM", R: ls.cfg.Rank, LoraAlpha: ls.cfg.Alpha,
		TargetModules: ls.cfg.Targets, BaseModel: base, Bias: "none", InferenceMode: true, InitLoraWeights: true}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, AdapterConfigFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("save lora %s: %w", dir, err)
	}
	return nil
}

// LoadLoRAWeights reads the adapter matrices saved in dir into the model's
// adapters (to resume training); the adapters' shapes must match.
func (m *Model) LoadLoRAWeights(dir string) error {
	ls := m.lora
	if ls == nil {
		return fmt.Errorf("load lora %s: the model has no adapters", dir)
	}
	f, err := safetensors.Open(filepath.Join(dir, AdapterModelFile))
	if err != nil {
		return fmt.Errorf("load lora: %w", err)
	}
	defer f.Close()
	for _, p := range ls.params {
		ti, ok := f.Tensors[p.Name]
		if !ok || !slices.Equal(ti.Shape, p.Shape) {
			return fmt.Errorf("load lora %s: tensor %s missing or not of shape %v", dir, p.Name, p.Shape)
		}
		host := make([]float32, p.Size())
		if err := f.ReadFloat32(p.Name, host); err != nil {
			return fmt.Errorf("load lora %s: %w", dir, err)
		}
		m.be.Upload(m.be.Slice(ls.Params, p.Offset, p.Size()), host)
	}
	return nil
}

var peftKeyRE = regexp.MustCompile(`^base_model\.model\.model\.layers\.(\d+)\.(self_attn\.[qkvo]_proj|mlp\.(?:gate|up|down)_proj)\.lora_A(?:\.[A-Za-z0-9_]+)?\.weight$`)

// MergeLoRA reads a PEFT LoRA adapter directory and adds (alpha/r)·B·A
// (alpha/√r with use_rslora) to each adapted base weight, so the model then
// computes what base plus adapter compute, at the base model's cost. It
// accepts what PEFT writes for a Qwen3 LoRA on the linear layers of the
// blocks, and refuses adapters it would apply wrongly (DoRA, biases,
// fan_in_fan_out, extra trained modules).
func (m *Model) MergeLoRA(dir string) error {
	if m.lora != nil {
		return fmt.Errorf("merge lora %s: the model trains adapters of its own; merge into a model without them", dir)
	}
	raw, err := os.ReadFile(filepath.Join(dir, AdapterConfigFile))
	if err != nil {
		return fmt.Errorf("merge lora: %w", err)
	}
	var ac adapterConfig
	if err := json.Unmarshal(raw, &ac); err != nil {
		return fmt.Errorf("merge lora %s: %s: %w", dir, AdapterConfigFile, err)
	}
	switch {
	case ac.PeftType != "LORA":
		return fmt.Errorf("merge lora %s: peft_type %q, want LORA", dir, ac.PeftType)
	case ac.R <= 0:
		return fmt.Errorf("merge lora %s: r %d must be positive", dir, ac.R)
	case ac.UseDoRA || ac.FanInFanOut || (ac.Bias != "" && ac.Bias != "none") || len(ac.ModulesToSave) > 0:
		return fmt.Errorf("merge lora %s: DoRA, fan_in_fan_out, biases and modules_to_save are not supported", dir)
	}
	scale := ac.LoraAlpha / float64(ac.R)
	if ac.UseRSLoRA {
		scale = ac.LoraAlpha / math.Sqrt(float64(ac.R))
	}
	f, err := safetensors.Open(filepath.Join(dir, AdapterModelFile))
	if err != nil {
		return fmt.Errorf("merge lora: %w", err)
	}
	defer f.Close()
	byName := map[string]Param{}
	for _, p := range m.params {
		byName[p.Name] = p
	}
	merged := 0
	for _, name := range f.Names() {
		if strings.Contains(name, ".lora_B") {
			continue // read with its A
		}
		sm := peftKeyRE.FindStringSubmatch(name)
		if sm == nil {
			return fmt.Errorf("merge lora %s: tensor %s is not a LoRA A matrix of a block's linear layer", dir, name)
		}
		layer, _ := strconv.Atoi(sm[1])
		p, ok := byName[fmt.Sprintf("model.layers.%d.%s.weight", layer, sm[2])]
		if !ok {
			return fmt.Errorf("merge lora %s: %s names a layer the model lacks", dir, name)
		}
		bName := strings.Replace(name, ".lora_A", ".lora_B", 1)
		out, in := p.Shape[0], p.Shape[1]
		ai := f.Tensors[name]
		bi, ok := f.Tensors[bName]
		if !ok {
			return fmt.Errorf("merge lora %s: %s has no %s", dir, name, bName)
		}
		if !slices.Equal(ai.Shape, []int{ac.R, in}) || !slices.Equal(bi.Shape, []int{out, ac.R}) {
			return fmt.Errorf("merge lora %s: %s is %v and its B %v; the base weight %v and r=%d want [%d %d] and [%d %d]",
				dir, name, ai.Shape, bi.Shape, p.Shape, ac.R, ac.R, in, out, ac.R)
		}
		A, B := make([]float32, ac.R*in), make([]float32, out*ac.R)
		if err := f.ReadFloat32(name, A); err != nil {
			return fmt.Errorf("merge lora %s: %w", dir, err)
		}
		if err := f.ReadFloat32(bName, B); err != nil {
			return fmt.Errorf("merge lora %s: %w", dir, err)
		}
		// On the host, in float64: a backend's reduced-precision product
		// must not round the base weights.
		wbuf := m.be.Slice(m.Params, p.Offset, p.Size())
		W := make([]float32, p.Size())
		m.be.Download(W, wbuf)
		row := make([]float64, in)
		for o := range out {
			clear(row)
			for k := range ac.R {
				bk := float64(B[o*ac.R+k])
				for i, av := range A[k*in : (k+1)*in] {
					row[i] += bk * float64(av)
				}
			}
			for i := range in {
				W[o*in+i] = float32(float64(W[o*in+i]) + scale*row[i])
			}
		}
		m.be.Upload(wbuf, W)
		merged++
	}
	if merged == 0 {
		return fmt.Errorf("merge lora %s: no LoRA matrices in %s", dir, AdapterModelFile)
	}
	return nil
}
