// Package loop holds what every trainer of training/ shares: the learning
// rate schedule, AdamW over a model's parameters with gradient clipping, the
// optimizer moments in checkpoints, checkpoint directories written
// atomically, the progress bar and line charts.
package loop

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/safetensors"
)

// Schedule is linear warmup to LR over Warmup steps, then cosine decay to
// LR·MinLRRatio at the last step.
type Schedule struct {
	LR         float64
	MinLRRatio float64
	Warmup     int
}

// At returns the learning rate of 1-based step of total: linear warmup to
// LR over Warmup steps, then cosine decay from LR at the first step after
// warmup to LR·MinLRRatio at the last step.
func (s Schedule) At(step, total int) float64 {
	if step <= s.Warmup {
		return s.LR * float64(step) / float64(max(s.Warmup, 1))
	}
	minLR := s.LR * s.MinLRRatio
	span := total - s.Warmup - 1
	if span <= 0 {
		return s.LR
	}
	frac := min(float64(step-s.Warmup-1)/float64(span), 1)
	return minLR + 0.5*(s.LR-minLR)*(1+math.Cos(math.Pi*frac))
}

// AdamW is the optimizer state of one model: the first and second moments.
// Weight decay applies to matrices only, not to norms' gains.
type AdamW struct {
	Beta1, Beta2, Eps, WeightDecay float64
	ClipNorm                       float64 // global gradient norm limit; 0 disables clipping
	m                              *model.Model
	M, V                           backend.Buffer
}

// NewAdamW allocates zero moments for m's parameters.
func NewAdamW(m *model.Model, beta1, beta2, eps, weightDecay, clipNorm float64) *AdamW {
	be := m.Backend()
	params, _, _ := m.Trainable()
	return &AdamW{Beta1: beta1, Beta2: beta2, Eps: eps, WeightDecay: weightDecay, ClipNorm: clipNorm,
		m: m, M: be.Alloc(params.Len()), V: be.Alloc(params.Len())}
}

// Update applies one AdamW step (1-based step, learning rate lr) from the
// model's accumulated gradients, clipped to ClipNorm, and returns the
// gradient norm before clipping.
func (o *AdamW) Update(step int, lr float64) float64 {
	m := o.m
	norm := m.GradNorm()
	scale := 1.0
	if o.ClipNorm > 0 && norm > o.ClipNorm {
		scale = o.ClipNorm / norm
	}
	be := m.Backend()
	params, grads, list := m.Trainable()
	for _, p := range list {
		wd := 0.0
		if p.Matrix() {
			wd = o.WeightDecay
		}
		sl := func(b backend.Buffer) backend.Buffer { return be.Slice(b, p.Offset, p.Size()) }
		be.AdamW(sl(params), sl(grads), sl(o.M), sl(o.V), backend.AdamWParams{
			LR: lr, Beta1: o.Beta1, Beta2: o.Beta2, Eps: o.Eps, WeightDecay: wd, Step: step, GradScale: scale})
	}
	return norm
}

// OptimizerFile is the name of the moments' file in a checkpoint.
const OptimizerFile = "optimizer.safetensors"

// Save writes the moments to dir/OptimizerFile.
func (o *AdamW) Save(dir string) error {
	be := o.m.Backend()
	n := o.M.Len()
	mv := make([]float32, 2*n)
	be.Download(mv[:n], o.M)
	be.Download(mv[n:], o.V)
	opt := []safetensors.Tensor{
		{Name: "exp_avg", Shape: []int{n}, Data: mv[:n]},
		{Name: "exp_avg_sq", Shape: []int{n}, Data: mv[n:]},
	}
	return safetensors.WriteFile(filepath.Join(dir, OptimizerFile), opt, safetensors.F32, nil)
}

// Load reads the moments from dir/OptimizerFile.
func (o *AdamW) Load(dir string) error {
	f, err := safetensors.Open(filepath.Join(dir, OptimizerFile))
	if err != nil {
		return err
	}
	defer f.Close()
	host := make([]float32, o.M.Len())
	be := o.m.Backend()
	for _, tc := range []struct {
		name string
		dst  backend.Buffer
	}{{"exp_avg", o.M}, {"exp_avg_sq", o.V}} {
		if err := f.ReadFloat32(tc.name, host); err != nil {
			return err
		}
		be.Upload(tc.dst, host)
	}
	return nil
}

// LoadWeights copies the weights of the checkpoint directory dir into m.
func LoadWeights(m *model.Model, dir string) error {
	if m.Params == nil {
		return fmt.Errorf("load weights from %s: the model's base is frozen (LoRA); load its adapters", dir)
	}
	saved, err := model.Load(m.Backend(), dir)
	if err != nil {
		return err
	}
	if saved.NumParams() != m.NumParams() {
		return fmt.Errorf("checkpoint %s has %d parameters, model %d", dir, saved.NumParams(), m.NumParams())
	}
	m.Backend().Copy(m.Params, saved.Params)
	return nil
}

// CheckpointStem prefixes checkpoint directory names: checkpoint-000030.
const CheckpointStem = "checkpoint-"

// WriteCheckpoint creates out/checkpoint-<step> by calling write on a
// temporary directory and renaming it, so a crash mid-save leaves the
// previous checkpoint as the newest complete one, then removes the oldest
// checkpoints beyond keep. complete names a file whose presence marks a
// checkpoint complete (see Checkpoints).
func WriteCheckpoint(out string, step, keep int, complete string, write func(dir string) error) error {
	final := filepath.Join(out, fmt.Sprintf("%s%06d", CheckpointStem, step))
	tmp := final + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := write(tmp); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("checkpoint: %w", err)
	}
	os.RemoveAll(final)
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("checkpoint: %w", err)
	}
	cps, _ := Checkpoints(out, complete)
	for len(cps) > max(keep, 1) {
		os.RemoveAll(cps[0])
		cps = cps[1:]
	}
	return nil
}

// Checkpoints lists the complete checkpoint directories of out (those
// holding the file complete), oldest first.
func Checkpoints(out, complete string) ([]string, error) {
	entries, err := os.ReadDir(out)
	if err != nil {
		return nil, err
	}
	type cp struct {
		step int
		path string
	}
	var cps []cp
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, CheckpointStem) {
			continue
		}
		step, err := strconv.Atoi(strings.TrimPrefix(name, CheckpointStem))
		if err != nil {
			continue // includes .tmp leftovers
		}
		if _, err := os.Stat(filepath.Join(out, name, complete)); err != nil {
			continue
		}
		cps = append(cps, cp{step, filepath.Join(out, name)})
	}
	sort.Slice(cps, func(i, j int) bool { return cps[i].step < cps[j].step })
	paths := make([]string, len(cps))
	for i, c := range cps {
		paths[i] = c.path
	}
	return paths, nil
}

// Bar draws a progress bar of width characters.
func Bar(done, total, width int) string {
	n := done * width / max(total, 1)
	b := make([]byte, width+2)
	b[0], b[width+1] = '[', ']'
	for i := 1; i <= width; i++ {
		if i <= n {
			b[i] = '='
		} else {
			b[i] = ' '
		}
	}
	return string(b)
}
