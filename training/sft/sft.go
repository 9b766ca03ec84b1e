// Package sft fine-tunes a model on packed, tokenized sequences with AdamW:
// warmup then cosine learning rate, global-norm gradient clipping, gradient
// accumulation, loss averaged over the trained tokens of each optimizer
// step, periodic checkpoints that resume exactly, and a loss chart.
//
// Training is deterministic given the seed: the data order of each epoch is
// a permutation drawn from (seed, epoch), so resuming needs only the step.
package sft

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/safetensors"
	"github.com/rlm-project/rlm/training/loop"
)

// Sequence is one packed row of training data. All sequences of a run have
// the same length T.
type Sequence struct {
	IDs     []int32 // input tokens
	Targets []int32 // the token to predict at each position
	Train   []bool  // whether the prediction at each position is trained
	Pos     []int32 // position ids, restarting for each packed sample
	Seg     []int32 // segment ids; attention stays inside a segment
}

// Config holds the hyperparameters and bookkeeping of a run. Zero fields take
// the defaults of DefaultConfig via withDefaults.
type Config struct {
	LR          float64 // peak learning rate
	MinLRRatio  float64 // final learning rate as a fraction of LR
	WarmupSteps int
	Steps       int // optimizer steps of the schedule; 0 means Epochs over the data
	Epochs      int
	// ExtendSteps trains this many steps past the schedule's last step at
	// its final learning rate, LR·MinLRRatio. With Resume it continues a
	// finished run from the checkpoint of its final step.
	ExtendSteps int
	BatchSize   int // sequences per micro-batch
	GradAccum   int // micro-batches per optimizer step
	WeightDecay float64
	Beta1       float64
	Beta2       float64
	Eps         float64
	ClipNorm    float64 // global gradient norm limit; 0 disables clipping
	Seed        uint64

	// CheckpointActivations recomputes each block's forward in backward
	// instead of keeping its activations (see model.SetCheckpointActivations).
	CheckpointActivations bool

	// LoRA, when set, trains low-rank adapters with the base weights frozen
	// (see model.EnableLoRA); checkpoints and the final save hold the
	// adapters in the PEFT layout instead of the whole model. A model that
	// has them already (model.LoadLoRA, which lays the frozen base out to
	// take half the memory on a GPU) must have these.
	LoRA *model.LoRAConfig
	// BaseModel is written as the adapters' base_model_name_or_path.
	BaseModel string

	// Validation holds sequences of held-out samples: every ValEvery steps
	// and at the end the mean loss over their trained tokens is computed
	// (no gradient), printed, charted and saved. Empty: no validation.
	Validation []Sequence
	ValEvery   int // 0: every tenth of the run

	OutDir          string
	CheckpointEvery int               // steps between checkpoints; 0 saves only at the end
	KeepCheckpoints int               // how many checkpoint-N directories to keep
	SaveDType       safetensors.DType // dtype of the final model (checkpoints are F32)
	TokenizerFrom   string            // directory whose tokenizer files are copied into saves
	LogEvery        int               // steps between progress lines
	Resume          bool              // continue from the newest checkpoint in OutDir
	// StopAfter, when positive, ends the run after that step with a
	// checkpoint, as if interrupted there: to split a run into jobs, or to
	// take an early checkpoint of a schedule without training the rest.
	StopAfter int
}

// DefaultConfig returns the defaults documented in docs/training.md.
func DefaultConfig() Config {
	return Config{
		LR: 1e-5, MinLRRatio: 0.1, WarmupSteps: 10, Epochs: 1, BatchSize: 1, GradAccum: 8,
		WeightDecay: 0.1, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, ClipNorm: 1, Seed: 1,
		KeepCheckpoints: 2, SaveDType: safetensors.BF16, LogEvery: 1,
	}
}

func (c *Config) validate(nData int) error {
	switch {
	case nData == 0:
		return errors.New("sft: no training sequences")
	case c.LR <= 0:
		return fmt.Errorf("sft: learning rate %g must be positive", c.LR)
	case c.BatchSize <= 0 || c.GradAccum <= 0:
		return fmt.Errorf("sft: batch size %d and gradient accumulation %d must be positive", c.BatchSize, c.GradAccum)
	case c.Steps < 0 || c.Epochs < 0 || c.WarmupSteps < 0 || c.CheckpointEvery < 0 || c.ExtendSteps < 0 || c.ValEvery < 0 || c.StopAfter < 0:
		return errors.New("sft: steps, epochs, warmup, extension and checkpoint interval must not be negative")
	case c.Steps == 0 && c.Epochs == 0:
		return errors.New("sft: set steps or epochs")
	case c.OutDir == "":
		return errors.New("sft: no output directory")
	case c.Beta1 < 0 || c.Beta1 >= 1 || c.Beta2 < 0 || c.Beta2 >= 1:
		return fmt.Errorf("sft: betas %g, %g must be in [0,1)", c.Beta1, c.Beta2)
	}
	if c.LogEvery <= 0 {
		c.LogEvery = 1
	}
	if c.KeepCheckpoints <= 0 {
		c.KeepCheckpoints = 1
	}
	if c.SaveDType == "" {
		c.SaveDType = safetensors.BF16
	}
	return nil
}

// ScheduleSteps is the number of optimizer steps of the warmup and cosine
// schedule over nData sequences.
func (c Config) ScheduleSteps(nData int) int {
	if c.Steps > 0 {
		return c.Steps
	}
	perStep := c.BatchSize * c.GradAccum
	return c.Epochs * ((nData + perStep - 1) / perStep)
}

// TotalSteps is the number of optimizer steps the run makes over nData
// sequences: the schedule's and the extension's.
func (c Config) TotalSteps(nData int) int { return c.ScheduleSteps(nData) + c.ExtendSteps }

// LRAt returns the learning rate of 1-based step of a schedule of total
// steps (see loop.Schedule); past total, the extension, it is the final
// learning rate LR·MinLRRatio.
func (c Config) LRAt(step, total int) float64 {
	if step > total {
		return c.LR * c.MinLRRatio
	}
	return loop.Schedule{LR: c.LR, MinLRRatio: c.MinLRRatio, Warmup: c.WarmupSteps}.At(step, total)
}

// StepStats describes one optimizer step.
type StepStats struct {
	Step     int
	Loss     float64 // mean cross-entropy over the trained tokens of the step
	LR       float64
	GradNorm float64 // before clipping
	Tokens   int     // positions processed (trained or not)
	Trained  int     // trained tokens
}

// ValPoint is the validation loss after a step.
type ValPoint struct {
	Step int     `json:"step"`
	Loss float64 `json:"loss"`
}

// Result is what a finished run reports.
type Result struct {
	Steps     int
	Losses    []float64 // per step, from the first step of the run (resumed ones included)
	FinalLoss float64
	ValLosses []ValPoint // validation losses, resumed ones included
	// FinalValLoss is the validation loss of the final model; NaN without
	// validation data.
	FinalValLoss float64
	Duration     time.Duration
}

// order returns the data permutation of an epoch.
func order(seed uint64, epoch, n int) []int {
	rng := rand.New(rand.NewPCG(seed, uint64(epoch)))
	return rng.Perm(n)
}

// Trainer holds the optimizer state of a run.
type Trainer struct {
	cfg   Config
	m     *model.Model
	data  []Sequence
	sched int // steps of the warmup and cosine schedule
	total int // sched plus the extension
	T     int

	opt       *loop.AdamW
	step      int // optimizer steps done
	losses    []float64
	valLosses []ValPoint
	valEvery  int
	perm      []int
	permEpoch int
	complete  bool // resumed a run that had already finished
}

// New prepares a run of m over data. With cfg.Resume it loads the newest
// checkpoint in cfg.OutDir (weights, optimizer moments, step and losses).
func New(m *model.Model, data []Sequence, cfg Config) (*Trainer, error) {
	if err := cfg.validate(len(data)); err != nil {
		return nil, err
	}
	T := len(data[0].IDs)
	for i, s := range data {
		if len(s.IDs) != T || len(s.Targets) != T || len(s.Train) != T || len(s.Pos) != T || len(s.Seg) != T {
			return nil, fmt.Errorf("sft: sequence %d: all fields must have length %d", i, T)
		}
	}
	for i, s := range cfg.Validation {
		if len(s.IDs) != T || len(s.Targets) != T || len(s.Train) != T || len(s.Pos) != T || len(s.Seg) != T {
			return nil, fmt.Errorf("sft: validation sequence %d: all fields must have length %d", i, T)
		}
	}
	m.SetCheckpointActivations(cfg.CheckpointActivations)
	if cfg.LoRA != nil {
		if have, ok := m.LoRAConfig(); ok {
			want := *cfg.LoRA
			if len(want.Targets) == 0 {
				want.Targets = model.DefaultLoRATargets
			}
			if !reflect.DeepEqual(have, want) {
				return nil, fmt.Errorf("sft: the model's adapters %+v are not the run's %+v", have, want)
			}
		} else if err := m.EnableLoRA(*cfg.LoRA); err != nil {
			return nil, fmt.Errorf("sft: %w", err)
		}
		lc, _ := m.LoRAConfig()
		cfg.LoRA = &lc // defaults filled in, as saved and compared on resume
	} else if _, ok := m.LoRAConfig(); ok {
		return nil, fmt.Errorf("sft: the model has adapters but the run trains the whole model (Config.LoRA is nil)")
	}
	// The optimizer keeps state only for what trains: with LoRA, the adapters.
	t := &Trainer{cfg: cfg, m: m, data: data, sched: cfg.ScheduleSteps(len(data)), total: cfg.TotalSteps(len(data)), T: T,
		opt: loop.NewAdamW(m, cfg.Beta1, cfg.Beta2, cfg.Eps, cfg.WeightDecay, cfg.ClipNorm), permEpoch: -1}
	t.valEvery = cfg.ValEvery
	if t.valEvery == 0 {
		t.valEvery = max(t.total/10, 1)
	}
	if cfg.Resume {
		if err := t.resume(); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Step is the number of optimizer steps done so far.
func (t *Trainer) Step() int { return t.step }

// TotalSteps is the number of optimizer steps of the whole run.
func (t *Trainer) TotalSteps() int { return t.total }

// sequence returns the k-th sequence of the run's stream: epoch k/n in that
// epoch's order.
func (t *Trainer) sequence(k int) *Sequence {
	n := len(t.data)
	if e := k / n; e != t.permEpoch {
		t.perm, t.permEpoch = order(t.cfg.Seed, e, n), e
	}
	return &t.data[t.perm[k%n]]
}

// microBatches assembles the micro-batches of 1-based step, with loss
// weights 1/(trained tokens of the whole step) so the summed loss is the
// mean over trained tokens.
func (t *Trainer) microBatches(step int) ([]*model.Batch, int, error) {
	cfg := t.cfg
	first := (step - 1) * cfg.BatchSize * cfg.GradAccum
	batches := make([]*model.Batch, cfg.GradAccum)
	trained := 0
	for a := range batches {
		b := &model.Batch{B: cfg.BatchSize, T: t.T}
		for r := range cfg.BatchSize {
			trained += appendRow(b, t.sequence(first+a*cfg.BatchSize+r))
		}
		batches[a] = b
	}
	if trained == 0 {
		return nil, 0, fmt.Errorf("sft: step %d has no trained tokens", step)
	}
	for _, b := range batches {
		for i := range b.Weights {
			b.Weights[i] /= float32(trained)
		}
	}
	return batches, trained, nil
}

// TrainStep runs one optimizer step: forward and backward over GradAccum
// micro-batches, clipping, and the AdamW update.
func (t *Trainer) TrainStep(ctx context.Context) (StepStats, error) {
	step := t.step + 1
	batches, trained, err := t.microBatches(step)
	if err != nil {
		return StepStats{}, err
	}
	m := t.m
	m.ZeroGrads()
	var loss float64
	for _, b := range batches {
		if err := m.Forward(ctx, b); err != nil {
			return StepStats{}, fmt.Errorf("step %d: %w", step, err)
		}
		l, err := m.Loss()
		if err != nil {
			return StepStats{}, fmt.Errorf("step %d: %w", step, err)
		}
		loss += l
		if err := m.Backward(ctx); err != nil {
			return StepStats{}, fmt.Errorf("step %d: %w", step, err)
		}
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return StepStats{}, fmt.Errorf("step %d: loss is %g", step, loss)
	}
	lr := t.cfg.LRAt(step, t.sched)
	norm := t.opt.Update(step, lr)
	t.step = step
	t.losses = append(t.losses, loss)
	return StepStats{Step: step, Loss: loss, LR: lr, GradNorm: norm,
		Tokens: len(batches) * t.cfg.BatchSize * t.T, Trained: trained}, nil
}

// appendRow appends sequence s as the next row of b, weight 1 on its
// trained tokens and 0 elsewhere, and returns how many tokens it trains.
func appendRow(b *model.Batch, s *Sequence) int {
	b.IDs = append(b.IDs, s.IDs...)
	b.Targets = append(b.Targets, s.Targets...)
	b.Pos = append(b.Pos, s.Pos...)
	// Segment ids only need to differ within a row.
	b.Seg = append(b.Seg, s.Seg...)
	trained := 0
	for _, tr := range s.Train {
		w := float32(0)
		if tr {
			w = 1
			trained++
		}
		b.Weights = append(b.Weights, w)
	}
	return trained
}

// ValidationLoss is the mean cross-entropy over the trained tokens of the
// validation sequences, computed without gradients (NaN without them).
func (t *Trainer) ValidationLoss(ctx context.Context) (float64, error) {
	val := t.cfg.Validation
	if len(val) == 0 {
		return math.NaN(), nil
	}
	var sum float64
	trained := 0
	for i := 0; i < len(val); i += t.cfg.BatchSize {
		rows := val[i:min(i+t.cfg.BatchSize, len(val))]
		b := &model.Batch{B: len(rows), T: t.T}
		for i := range rows {
			appendRow(b, &rows[i])
		}
		if err := t.m.Forward(ctx, b); err != nil {
			return 0, fmt.Errorf("sft: validation: %w", err)
		}
		lp, err := t.m.TargetLogprobs()
		if err != nil {
			return 0, fmt.Errorf("sft: validation: %w", err)
		}
		for j, w := range b.Weights {
			if w != 0 {
				sum -= float64(lp[j])
				trained++
			}
		}
	}
	if trained == 0 {
		return math.NaN(), nil
	}
	return sum / float64(trained), nil
}

// validate records the validation loss after the current step.
func (t *Trainer) validate(ctx context.Context) error {
	if len(t.cfg.Validation) == 0 {
		return nil
	}
	if n := len(t.valLosses); n > 0 && t.valLosses[n-1].Step == t.step {
		return nil
	}
	l, err := t.ValidationLoss(ctx)
	if err != nil || math.IsNaN(l) {
		return err
	}
	t.valLosses = append(t.valLosses, ValPoint{Step: t.step, Loss: l})
	return nil
}

func (t *Trainer) result(d time.Duration) Result {
	res := Result{Steps: t.step, Losses: append([]float64(nil), t.losses...), Duration: d,
		ValLosses: append([]ValPoint(nil), t.valLosses...), FinalValLoss: math.NaN()}
	if len(t.losses) > 0 {
		res.FinalLoss = t.losses[len(t.losses)-1]
	}
	if n := len(t.valLosses); n > 0 && t.valLosses[n-1].Step == t.step {
		res.FinalValLoss = t.valLosses[n-1].Loss
	}
	return res
}

// Run trains to the last step, writing progress lines to progress,
// checkpoints every CheckpointEvery steps, and at the end the final model,
// trainer state and loss chart into OutDir. On cancellation it saves a
// checkpoint of the last completed step before returning the error.
func (t *Trainer) Run(ctx context.Context, progress io.Writer) (Result, error) {
	if t.complete {
		fmt.Fprintf(progress, "run in %s already complete (%d steps); nothing to do\n", t.cfg.OutDir, t.step)
		return t.result(0), nil
	}
	start := time.Now()
	startStep := t.step
	var tokens int
	if err := os.MkdirAll(t.cfg.OutDir, 0o755); err != nil {
		return Result{}, fmt.Errorf("sft: %w", err)
	}
	for t.step < t.total {
		if err := ctx.Err(); err != nil {
			return t.interrupted(err)
		}
		st, err := t.TrainStep(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return t.interrupted(err)
			}
			return Result{}, err
		}
		tokens += st.Tokens
		if st.Step%t.valEvery == 0 || st.Step == t.total {
			if err := t.validate(ctx); err != nil {
				if ctx.Err() != nil {
					return t.interrupted(err)
				}
				return Result{}, err
			}
		}
		if st.Step%t.cfg.LogEvery == 0 || st.Step == t.total {
			val := ""
			if n := len(t.valLosses); n > 0 {
				val = fmt.Sprintf(" val %.4f", t.valLosses[n-1].Loss)
				if at := t.valLosses[n-1].Step; at != st.Step {
					val += fmt.Sprintf(" (step %d)", at)
				}
			}
			elapsed := time.Since(start)
			done := st.Step - startStep
			eta := time.Duration(float64(elapsed) / float64(done) * float64(t.total-st.Step))
			fmt.Fprintf(progress, "%s step %d/%d loss %.4f%s lr %.3g gnorm %.3g tok/s %.0f eta %s\n",
				loop.Bar(st.Step, t.total, 20), st.Step, t.total, st.Loss, val, st.LR, st.GradNorm,
				float64(tokens)/elapsed.Seconds(), eta.Round(time.Second))
		}
		stop := t.cfg.StopAfter > 0 && st.Step >= t.cfg.StopAfter && st.Step < t.total
		if stop || t.cfg.CheckpointEvery > 0 && st.Step%t.cfg.CheckpointEvery == 0 && st.Step < t.total {
			if err := t.SaveCheckpoint(); err != nil {
				return Result{}, err
			}
		}
		if stop {
			fmt.Fprintf(progress, "stopped after step %d of %d (-stop-after); resume with the same out directory\n", t.step, t.total)
			return t.result(time.Since(start)), nil
		}
	}
	// The checkpoint of the final step is what -extend-steps continues
	// from: the final model alone may be BF16 and has no optimizer moments.
	if err := t.SaveCheckpoint(); err != nil {
		return Result{}, err
	}
	if err := t.saveFinal(); err != nil {
		return Result{}, err
	}
	return t.result(time.Since(start)), nil
}

func (t *Trainer) interrupted(cause error) (Result, error) {
	if t.step > 0 {
		if err := t.SaveCheckpoint(); err != nil {
			return Result{}, fmt.Errorf("sft: interrupted (%w), and saving a checkpoint failed: %v", cause, err)
		}
	}
	return t.result(0), fmt.Errorf("sft: interrupted after step %d (resume with the same out directory): %w", t.step, cause)
}

// saveWeights writes what the run trains into dir: the adapters with LoRA,
// else the whole model.
func (t *Trainer) saveWeights(dir string, dtype safetensors.DType) error {
	if t.cfg.LoRA != nil {
		return t.m.SaveLoRA(dir, t.cfg.BaseModel)
	}
	return t.m.Save(dir, model.SaveOptions{DType: dtype, CopyFrom: t.cfg.TokenizerFrom})
}

func (t *Trainer) saveFinal() error {
	if err := t.saveWeights(t.cfg.OutDir, t.cfg.SaveDType); err != nil {
		return fmt.Errorf("sft: save final model: %w", err)
	}
	if err := writeState(filepath.Join(t.cfg.OutDir, stateFile), t.state()); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(t.cfg.OutDir, "loss.svg"), t.lossChart(), 0o644); err != nil {
		return fmt.Errorf("sft: loss chart: %w", err)
	}
	return nil
}
