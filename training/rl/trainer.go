package rl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/rlm-project/rlm/eval"
	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/safetensors"
	"github.com/rlm-project/rlm/model/tokenizer"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/repl"
	"github.com/rlm-project/rlm/training/loop"
)

// Config holds the settings of a run; DefaultConfig documents the defaults
// (see docs/training.md).
type Config struct {
	// Tasks are eval generators (or custom JSONL tasks); each step runs
	// TasksPerStep instances, tasks round-robin, at Lengths (tokens) in
	// turn, with Group rollouts of each.
	Tasks        []eval.Task
	Lengths      []int
	TasksPerStep int
	Group        int
	Steps        int
	Seed         uint64

	// Optimizer: AdamW, linear warmup then cosine decay (as rlm train sft).
	LR, MinLRRatio            float64
	WarmupSteps               int
	WeightDecay, Beta1, Beta2 float64
	Eps, ClipNorm             float64

	Loss LossConfig
	// Temperature is the rollouts' sampling temperature. The sampler's
	// logprobs and the loss are both of the tempered distribution
	// softmax(logits/Temperature), the one the rollouts come from, so the
	// importance ratios stay those of the sampled policy. Below 1 a weak
	// policy finds more correct runs, so more groups carry a signal.
	Temperature float64
	// ScaleByStd divides advantages by their group's standard deviation
	// (GRPO's original normalization; Dr. GRPO leaves it out).
	ScaleByStd bool
	// MaxStaleness is how many optimizer steps the policy that samples a
	// step's rollouts may lag behind: rollouts of step n are sampled by
	// the policy after step n−1−MaxStaleness (or the first), while steps
	// in between train. 0 is synchronous, on-policy training.
	MaxStaleness int
	// RootOnly trains only on the root node's turns; otherwise child RLM
	// nodes and llm_query calls, which the same policy answers, are
	// trained with the rollout's reward too.
	RootOnly bool

	// Rewards: the eval scorer's score, minus NoFinalPenalty when the
	// rollout did not end with FINAL and minus BudgetPenalty when it ran
	// out of turns, calls, tokens, time or context window. PassScore is
	// the score that counts as a pass.
	NoFinalPenalty, BudgetPenalty float64
	PassScore                     float64

	// Rollouts: completion tokens per model call, the context window of a
	// call (prompt plus completion; also the packed training row's
	// length), and the inference engine's KV cache in tokens or bytes
	// (both 0: enough for every rollout of a step at full length, at most
	// 1 GiB).
	MaxTokens     int
	SeqLen        int
	KVCacheTokens int
	KVCacheBytes  int64
	Limits        recursion.Limits
	Sandbox       recursion.Sandbox
	REPLLimits    repl.Limits
	Tracer        Tracer // nil: rollouts are not stored
	// Export, when set, appends every rollout's samples (token ids, loss
	// masks, sampler logprobs, reward, advantage) to OutDir/rollouts.jsonl
	// in that format (ExportFormats), for other trainers.
	Export string

	OutDir          string
	WorkDir         string // contexts of running rollouts; empty: a temporary directory
	CheckpointEvery int
	KeepCheckpoints int
	SaveDType       safetensors.DType
	TokenizerFrom   string
	LogEvery        int
	Resume          bool
	// StopAfter, when positive, ends the run after that step with a
	// checkpoint, to split a long run into jobs that resume each other.
	StopAfter int
}

// DefaultConfig returns the defaults documented in docs/training.md.
func DefaultConfig() Config {
	return Config{
		Lengths: []int{1024}, TasksPerStep: 4, Group: 8, Steps: 100, Seed: 1,
		LR: 1e-6, MinLRRatio: 1, WarmupSteps: 0, WeightDecay: 0, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8, ClipNorm: 1,
		Loss: DefaultLossConfig(), Temperature: 1, MaxStaleness: 1, PassScore: 1,
		MaxTokens: 1024, SeqLen: 8192, Limits: recursion.Limits{MaxIterations: 8, MaxDepth: 1},
		CheckpointEvery: 10, KeepCheckpoints: 2, SaveDType: safetensors.BF16, LogEvery: 1,
	}
}

func (c *Config) validate() error {
	switch {
	case len(c.Tasks) == 0:
		return errors.New("rl: no tasks")
	case len(c.Lengths) == 0:
		return errors.New("rl: no task lengths")
	case c.TasksPerStep <= 0 || c.Group < 2:
		return fmt.Errorf("rl: %d tasks per step and groups of %d: need at least one task and two rollouts per group", c.TasksPerStep, c.Group)
	case c.Steps <= 0:
		return fmt.Errorf("rl: steps %d must be positive", c.Steps)
	case c.LR <= 0:
		return fmt.Errorf("rl: learning rate %g must be positive", c.LR)
	case !(c.Temperature >= 0.05 && c.Temperature <= 10):
		return fmt.Errorf("rl: temperature %g: want 0.05 to 10 (greedy rollouts all sample the same run)", c.Temperature)
	case c.MaxStaleness < 0:
		return fmt.Errorf("rl: max staleness %d must not be negative", c.MaxStaleness)
	case c.MaxTokens <= 0 || c.SeqLen <= c.MaxTokens:
		return fmt.Errorf("rl: max tokens %d must be positive and below the sequence length %d", c.MaxTokens, c.SeqLen)
	case c.Sandbox == nil:
		return errors.New("rl: no REPL sandbox")
	case c.OutDir == "":
		return errors.New("rl: no output directory")
	case c.Beta1 < 0 || c.Beta1 >= 1 || c.Beta2 < 0 || c.Beta2 >= 1:
		return fmt.Errorf("rl: betas %g, %g must be in [0,1)", c.Beta1, c.Beta2)
	case c.Export != "" && !slices.Contains(ExportFormats, c.Export):
		return fmt.Errorf("rl: unknown export format %q (want one of %v)", c.Export, ExportFormats)
	case c.CheckpointEvery < 0 || c.WarmupSteps < 0:
		return errors.New("rl: checkpoint interval and warmup must not be negative")
	}
	if err := c.Loss.validate(); err != nil {
		return err
	}
	c.LogEvery = max(c.LogEvery, 1)
	c.KeepCheckpoints = max(c.KeepCheckpoints, 1)
	if c.SaveDType == "" {
		c.SaveDType = safetensors.BF16
	}
	return nil
}

// StepStats describe one step.
type StepStats struct {
	Step         int     `json:"step"`
	Version      int     `json:"policy_version"` // optimizer steps of the policy that sampled the rollouts
	Staleness    int     `json:"staleness"`
	RewardMean   float64 `json:"reward_mean"`
	PassRate     float64 `json:"pass_rate"`
	Rollouts     int     `json:"rollouts"`
	Dropped      int     `json:"dropped_groups"`
	Samples      int     `json:"samples"`
	Loss         float64 `json:"loss"`
	LossTokens   int     `json:"loss_tokens"`
	Masked       int     `json:"masked_tokens"`
	MeanRatio    float64 `json:"mean_ratio"`
	GradNorm     float64 `json:"grad_norm"`
	LR           float64 `json:"lr"`
	Generated    int     `json:"generated_tokens"`
	RolloutSec   float64 `json:"rollout_s"`
	TrainSec     float64 `json:"train_s"`
	TrainedPos   int     `json:"train_positions"`
	TrainSkipped bool    `json:"no_update,omitempty"` // every group was dropped
	TraceErrors  int     `json:"trace_errors,omitempty"`
	TraceError   string  `json:"first_trace_error,omitempty"`
}

// Result is what a finished run reports.
type Result struct {
	Steps    []StepStats
	Duration time.Duration
}

// Trainer runs RL on a model. The policy's rollouts run on a copy of the
// weights inside an inference engine, which SetWeights updates between
// steps, in memory.
type Trainer struct {
	cfg     Config
	m       *model.Model
	opt     *loop.AdamW
	sched   loop.Schedule
	tok     *tokenizer.Tokenizer
	infer   *inference.Engine
	engine  *recursion.Engine
	workDir string
	tmpWork bool

	step    int
	history []StepStats
	pending []*Batch // rollouts of the next steps, made before a checkpoint
	export  *exporter
	done    bool // resumed a finished run
}

// New prepares a run of m (with its tokenizer) under cfg. With cfg.Resume
// it continues from the newest checkpoint in cfg.OutDir.
func New(m *model.Model, tok *tokenizer.Tokenizer, cfg Config) (*Trainer, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := m.SetLossTemperature(cfg.Temperature); err != nil {
		return nil, fmt.Errorf("rl: %w", err)
	}
	be := m.Backend()
	policy, err := model.New(backend.ForInference(be), m.Cfg)
	if err != nil {
		return nil, err
	}
	be.Copy(policy.Params, m.Params)
	kv := cfg.KVCacheTokens
	if kv <= 0 && cfg.KVCacheBytes > 0 {
		kv = int(cfg.KVCacheBytes / int64(m.Cfg.KVBytesPerToken()))
	}
	if kv <= 0 {
		kv = min(cfg.TasksPerStep*cfg.Group*cfg.SeqLen, int((1<<30)/int64(m.Cfg.KVBytesPerToken())))
	}
	infer, err := inference.New(policy, tok, inference.Config{Name: "policy", KVCacheTokens: kv, MaxModelLen: cfg.SeqLen,
		MaxSeqs: max(64, cfg.TasksPerStep*cfg.Group)})
	if err != nil {
		return nil, fmt.Errorf("rl: inference engine: %w", err)
	}
	t := &Trainer{cfg: cfg, m: m, tok: tok, infer: infer,
		opt:   loop.NewAdamW(m, cfg.Beta1, cfg.Beta2, cfg.Eps, cfg.WeightDecay, cfg.ClipNorm),
		sched: loop.Schedule{LR: cfg.LR, MinLRRatio: cfg.MinLRRatio, Warmup: cfg.WarmupSteps}}
	t.engine, err = recursion.New(recursion.Config{Root: policyClient(infer, cfg.MaxTokens, cfg.Temperature), RootModel: "policy",
		Sandbox: cfg.Sandbox, REPLLimits: cfg.REPLLimits, Defaults: cfg.Limits, CompletionReserve: cfg.MaxTokens})
	if err != nil {
		infer.Close()
		return nil, err
	}
	t.workDir = cfg.WorkDir
	if t.workDir == "" {
		if t.workDir, err = os.MkdirTemp("", "rlm-rl-"); err != nil {
			infer.Close()
			return nil, fmt.Errorf("rl: %w", err)
		}
		t.tmpWork = true
	} else if err := os.MkdirAll(t.workDir, 0o755); err != nil {
		infer.Close()
		return nil, fmt.Errorf("rl: %w", err)
	}
	if cfg.Resume {
		if err := t.resume(); err != nil {
			t.Close()
			return nil, err
		}
	}
	return t, nil
}

// Close stops the inference engine and removes temporary files.
func (t *Trainer) Close() error {
	t.infer.Close()
	if t.tmpWork {
		os.RemoveAll(t.workDir)
	}
	return nil
}

// Step is the number of optimizer steps done.
func (t *Trainer) Step() int { return t.step }

// Inference is the engine serving the policy.
func (t *Trainer) Inference() *inference.Engine { return t.infer }

// versions hands published policy weights to the rollout producer.
type versions struct {
	mu      sync.Mutex
	snaps   map[int]backend.Buffer
	spare   []backend.Buffer
	changed chan struct{}
}

func (v *versions) publish(be backend.Backend, version int, params backend.Buffer, keepFrom int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for k, b := range v.snaps {
		if k < keepFrom {
			v.spare = append(v.spare, b)
			delete(v.snaps, k)
		}
	}
	var buf backend.Buffer
	if n := len(v.spare); n > 0 {
		buf, v.spare = v.spare[n-1], v.spare[:n-1]
	} else {
		buf = be.Alloc(params.Len())
	}
	be.Copy(buf, params)
	v.snaps[version] = buf
	close(v.changed)
	v.changed = make(chan struct{})
}

// use calls f with the weights of version once they are published, holding
// them so that no publish recycles them meanwhile.
func (v *versions) use(ctx context.Context, version int, f func(backend.Buffer) error) error {
	for {
		v.mu.Lock()
		if b, ok := v.snaps[version]; ok {
			defer v.mu.Unlock()
			return f(b)
		}
		ch := v.changed
		v.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

type produced struct {
	b   *Batch
	err error
}

// Run trains to the last step. Rollouts of later steps are generated while
// a step trains (see Config.MaxStaleness); a progress line follows each
// step, checkpoints every CheckpointEvery steps, and at the end the model,
// the history and the reward chart are written into OutDir.
func (t *Trainer) Run(ctx context.Context, progress io.Writer) (Result, error) {
	cfg := t.cfg
	if t.done {
		fmt.Fprintf(progress, "run in %s already complete (%d steps); nothing to do\n", cfg.OutDir, t.step)
		return Result{Steps: append([]StepStats(nil), t.history...)}, nil
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return Result{}, fmt.Errorf("rl: %w", err)
	}
	if cfg.Export != "" {
		keep := t.step
		for _, b := range t.pending {
			keep = max(keep, b.Step)
		}
		e, err := openExporter(cfg.OutDir, cfg.Export, t.tok, keep)
		if err != nil {
			return Result{}, err
		}
		// Deferred before the producer's wait, so it runs after it.
		// Every step's lines were flushed, and their errors returned, by
		// generate: what close could add is the descriptor's.
		defer func() { e.close(); t.export = nil }()
		t.export = e
	}
	start := time.Now()
	first := t.step
	be := t.m.Backend()
	vs := &versions{snaps: map[int]backend.Buffer{}, changed: make(chan struct{})}
	vs.publish(be, first, t.m.Params, first)

	// The producer is cancelled, then waited for, however Run returns.
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make(chan produced, cfg.MaxStaleness+1)
	// The first step to sample is fixed before the producer starts: next
	// takes pending batches away while it runs.
	from := first + len(t.pending) + 1
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(out)
		for k := from; k <= cfg.Steps; k++ {
			version := max(k-1-cfg.MaxStaleness, first)
			err := vs.use(ctx, version, t.infer.SetWeights)
			var b *Batch
			if err == nil {
				b, err = t.generate(ctx, k, version)
			}
			select {
			case out <- produced{b, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	next := func() (*Batch, error) {
		if len(t.pending) > 0 {
			b := t.pending[0]
			t.pending = t.pending[1:]
			return b, nil
		}
		p, ok := <-out
		if !ok {
			return nil, ctx.Err()
		}
		return p.b, p.err
	}
	// fail ends the run. When it was interrupted, the steps done since the
	// last checkpoint are saved with the rollouts already complete for the
	// next steps; a resume samples the missing ones from the saved
	// weights, so only an interrupted run can differ from one made in one
	// go.
	fail := func(cause error) (Result, error) {
		res := Result{Steps: append([]StepStats(nil), t.history...)}
		if ctx.Err() == nil {
			return res, fmt.Errorf("rl: step %d: %w", t.step+1, cause)
		}
		cancel()
		wg.Wait()
		for p := range out {
			if p.err != nil || p.b.Step != t.step+len(t.pending)+1 {
				break
			}
			t.pending = append(t.pending, p.b)
		}
		saved := ""
		if _, err := os.Stat(filepath.Join(cfg.OutDir, fmt.Sprintf("%s%06d", loop.CheckpointStem, t.step))); t.step > first && err != nil {
			if err := t.SaveCheckpoint(); err != nil {
				return res, fmt.Errorf("rl: interrupted after step %d (%w), and saving a checkpoint failed: %v", t.step, cause, err)
			}
			saved = " (checkpoint saved)"
		}
		return res, fmt.Errorf("rl: interrupted after step %d%s; resume with the same out directory: %w", t.step, saved, cause)
	}
	for t.step < cfg.Steps {
		b, err := next()
		if err != nil {
			return fail(err)
		}
		st, err := t.trainStep(ctx, b)
		if err != nil {
			return fail(err)
		}
		vs.publish(be, t.step, t.m.Params, t.step-cfg.MaxStaleness)
		if st.Step%cfg.LogEvery == 0 || st.Step == cfg.Steps {
			elapsed := time.Since(start)
			eta := time.Duration(float64(elapsed) / float64(st.Step-first) * float64(cfg.Steps-st.Step))
			fmt.Fprintf(progress, "%s step %d/%d reward %.3f pass %.2f loss %.4g masked %d/%d groups %d/%d samples %d gen tok/s %.0f train tok/s %.0f rollout %.1fs train %.1fs staleness %d eta %s\n",
				loop.Bar(st.Step, cfg.Steps, 20), st.Step, cfg.Steps, st.RewardMean, st.PassRate, st.Loss, st.Masked, st.LossTokens,
				cfg.TasksPerStep-st.Dropped, cfg.TasksPerStep, st.Samples, float64(st.Generated)/math.Max(st.RolloutSec, 1e-9),
				float64(st.TrainedPos)/math.Max(st.TrainSec, 1e-9), st.RolloutSec, st.TrainSec, st.Staleness, eta.Round(time.Second))
		}
		if st.TraceErrors > 0 {
			fmt.Fprintf(progress, "step %d: %d trajectories not stored (first: %s)\n", st.Step, st.TraceErrors, st.TraceError)
		}
		stop := cfg.StopAfter > 0 && t.step >= cfg.StopAfter && t.step < cfg.Steps
		if stop || cfg.CheckpointEvery > 0 && t.step%cfg.CheckpointEvery == 0 && t.step < cfg.Steps {
			// A checkpoint carries the rollouts already sampled for the
			// next steps, so that resuming trains on exactly them.
			for len(t.pending) < min(cfg.MaxStaleness, cfg.Steps-t.step) {
				p, ok := <-out
				if !ok {
					return fail(ctx.Err())
				}
				if p.err != nil {
					return fail(p.err)
				}
				t.pending = append(t.pending, p.b)
			}
			if err := t.SaveCheckpoint(); err != nil {
				return Result{}, err
			}
		}
		if stop {
			fmt.Fprintf(progress, "stopped after step %d (-stop-after); resume with the same out directory\n", t.step)
			return Result{Steps: append([]StepStats(nil), t.history...), Duration: time.Since(start)}, nil
		}
	}
	if err := t.saveFinal(); err != nil {
		return Result{}, err
	}
	return Result{Steps: append([]StepStats(nil), t.history...), Duration: time.Since(start)}, nil
}

// trainStep makes one optimizer step on a batch of rollouts.
func (t *Trainer) trainStep(ctx context.Context, b *Batch) (StepStats, error) {
	start := time.Now()
	step := t.step + 1
	if b.Step != step {
		return StepStats{}, fmt.Errorf("rl: rollouts of step %d arrived for step %d", b.Step, step)
	}
	st := StepStats{Step: step, Version: b.Version, Staleness: step - 1 - b.Version, Rollouts: len(b.Rollouts),
		Dropped: b.Dropped, Samples: len(b.Samples), RolloutSec: b.Seconds, LR: t.sched.At(step, t.cfg.Steps)}
	for _, r := range b.Rollouts {
		st.RewardMean += r.Reward
		if r.Pass {
			st.PassRate++
		}
		st.Generated += r.Generated
		if r.TraceError != "" {
			if st.TraceErrors == 0 {
				st.TraceError = r.TraceError
			}
			st.TraceErrors++
		}
	}
	st.RewardMean /= float64(max(len(b.Rollouts), 1))
	st.PassRate /= float64(max(len(b.Rollouts), 1))
	rows, err := pack(b.Samples, rowLen(b.Samples, t.cfg.SeqLen))
	if err != nil {
		return StepStats{}, err
	}
	t.m.ZeroGrads()
	ls, err := accumulate(ctx, t.m, rows, t.cfg.Loss)
	if err != nil {
		return StepStats{}, err
	}
	st.Loss, st.LossTokens, st.Masked, st.MeanRatio, st.TrainedPos = ls.Loss, ls.Tokens, ls.Masked, ls.MeanRatio, ls.Positions
	if math.IsNaN(st.Loss) || math.IsInf(st.Loss, 0) {
		return StepStats{}, fmt.Errorf("loss is %g", st.Loss)
	}
	if ls.Tokens > 0 {
		st.GradNorm = t.opt.Update(step, st.LR)
	} else {
		st.TrainSkipped = true
	}
	st.TrainSec = time.Since(start).Seconds()
	t.step = step
	t.history = append(t.history, st)
	return st, nil
}

// rowLen is the length of a step's packed rows: the longest sample's,
// rounded up to a multiple of 128 so that steps of similar samples share
// one set of activation buffers, and at most seqLen.
func rowLen(samples []Sample, seqLen int) int {
	n := 1
	for _, s := range samples {
		n = max(n, len(s.Tokens)-1)
	}
	return min(seqLen, (n+127)/128*128)
}
