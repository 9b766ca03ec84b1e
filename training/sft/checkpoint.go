package sft

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlm-project/rlm/model/safetensors"
	"github.com/rlm-project/rlm/training/loop"
)

const (
	stateFile = "trainer_state.json"
)

// state is what a checkpoint needs besides weights and optimizer moments to
// continue exactly: the step (which fixes the data position and the learning
// rate) and the settings that must not change across a resume. The
// optimizer settings are pointers because states written before they were
// recorded lack them; those are not compared.
type state struct {
	Step          int        `json:"step"`
	TotalSteps    int        `json:"total_steps"`              // the schedule's steps plus the extension
	ScheduleSteps int        `json:"schedule_steps,omitempty"` // warmup and cosine; 0 in old states: TotalSteps
	ExtendSteps   int        `json:"extend_steps,omitempty"`
	Seed          uint64     `json:"seed"`
	BatchSize     int        `json:"batch_size"`
	GradAccum     int        `json:"grad_accum"`
	SeqLen        int        `json:"seq_len"`
	NumSequences  int        `json:"num_sequences"`
	RowsSeen      int        `json:"rows_seen"`      // data position: sequences consumed
	LoRA          string     `json:"lora,omitempty"` // adapters trained, empty for a full fine-tune
	LR            *float64   `json:"lr,omitempty"`
	MinLRRatio    *float64   `json:"min_lr_ratio,omitempty"`
	WarmupSteps   *int       `json:"warmup_steps,omitempty"`
	WeightDecay   *float64   `json:"weight_decay,omitempty"`
	Beta1         *float64   `json:"beta1,omitempty"`
	Beta2         *float64   `json:"beta2,omitempty"`
	Eps           *float64   `json:"adam_eps,omitempty"`
	ClipNorm      *float64   `json:"clip,omitempty"`
	Losses        []float64  `json:"losses"`
	ValSequences  int        `json:"val_sequences,omitempty"`
	ValLosses     []ValPoint `json:"val_losses,omitempty"`
}

func (t *Trainer) state() state {
	c := t.cfg
	return state{Step: t.step, TotalSteps: t.total, ScheduleSteps: t.sched, ExtendSteps: c.ExtendSteps,
		Seed: c.Seed, BatchSize: c.BatchSize, GradAccum: c.GradAccum, SeqLen: t.T, NumSequences: len(t.data),
		RowsSeen: t.step * c.BatchSize * c.GradAccum, Losses: t.losses, LoRA: t.loraDesc(),
		LR: &c.LR, MinLRRatio: &c.MinLRRatio, WarmupSteps: &c.WarmupSteps, WeightDecay: &c.WeightDecay,
		Beta1: &c.Beta1, Beta2: &c.Beta2, Eps: &c.Eps, ClipNorm: &c.ClipNorm,
		ValSequences: len(c.Validation), ValLosses: t.valLosses}
}

// loraDesc names the adapters of the run, so a resume with other ones (or a
// full fine-tune) is refused.
func (t *Trainer) loraDesc() string {
	if l := t.cfg.LoRA; l != nil {
		return fmt.Sprintf("r=%d alpha=%g targets=%s", l.Rank, l.Alpha, strings.Join(l.Targets, ","))
	}
	return ""
}

func writeState(path string, s state) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("sft: state: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("sft: state: %w", err)
	}
	return nil
}

// SaveCheckpoint writes OutDir/checkpoint-<step>: the model in F32 (a
// loadable Hugging Face directory), the AdamW moments and the trainer state,
// atomically (see loop.WriteCheckpoint).
func (t *Trainer) SaveCheckpoint() error {
	return loop.WriteCheckpoint(t.cfg.OutDir, t.step, t.cfg.KeepCheckpoints, stateFile, func(dir string) error {
		if err := t.saveWeights(dir, safetensors.F32); err != nil {
			return err
		}
		if err := t.opt.Save(dir); err != nil {
			return err
		}
		return writeState(filepath.Join(dir, stateFile), t.state())
	})
}

func checkpoints(out string) ([]string, error) { return loop.Checkpoints(out, stateFile) }

// compatible reports why a saved state cannot continue in this run: the data
// position and the schedule only mean the same thing with the same
// settings, and a silently changed learning rate or step count would make
// the resumed run neither the old one nor the new one. The error names
// every setting that differs with both values.
func (t *Trainer) compatible(where string, s state) error {
	c := t.cfg
	var diffs []string
	check := func(setting string, was, now any) {
		if w, n := fmt.Sprint(was), fmt.Sprint(now); w != n {
			diffs = append(diffs, fmt.Sprintf("%s was %s there, %s now", setting, w, n))
		}
	}
	checkF := func(setting string, was *float64, now float64) {
		if was != nil {
			check(setting, *was, now)
		}
	}
	check("-seed", s.Seed, c.Seed)
	check("-batch-size", s.BatchSize, c.BatchSize)
	check("-grad-accum", s.GradAccum, c.GradAccum)
	check("-seq-len", s.SeqLen, t.T)
	check("training sequences (the data, -val-fraction)", s.NumSequences, len(t.data))
	sched := s.ScheduleSteps
	if sched == 0 {
		sched = s.TotalSteps
	}
	check("steps (-steps, or -epochs over the data)", sched, t.sched)
	checkF("-lr", s.LR, c.LR)
	checkF("-min-lr-ratio", s.MinLRRatio, c.MinLRRatio)
	if s.WarmupSteps != nil {
		check("-warmup", *s.WarmupSteps, c.WarmupSteps)
	}
	checkF("-weight-decay", s.WeightDecay, c.WeightDecay)
	checkF("-beta1", s.Beta1, c.Beta1)
	checkF("-beta2", s.Beta2, c.Beta2)
	checkF("-adam-eps", s.Eps, c.Eps)
	checkF("-clip", s.ClipNorm, c.ClipNorm)
	check("LoRA adapters", fmt.Sprintf("%q", s.LoRA), fmt.Sprintf("%q", t.loraDesc()))
	if len(diffs) == 0 {
		return nil
	}
	hint := "resume with the same settings, or use another -out (or -resume=false) to start afresh"
	if s.Step >= s.TotalSteps {
		hint = "to train this finished run longer, keep its settings and add -extend-steps N; or use another -out to start afresh"
	}
	return fmt.Errorf("sft: cannot resume %s: %s (%s)", where, strings.Join(diffs, "; "), hint)
}

func readState(path string) (state, error) {
	var s state
	raw, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("sft: %s: %w", path, err)
	}
	return s, nil
}

// resume loads the newest checkpoint of OutDir. Having none is not an error:
// the run starts from step 0. A run whose final model is already in OutDir
// is marked complete, so running the same command again changes nothing;
// with ExtendSteps it continues from the checkpoint of its final step.
func (t *Trainer) resume() error {
	finalStep := -1
	final, err := readState(filepath.Join(t.cfg.OutDir, stateFile))
	switch {
	case err == nil:
		if err := t.compatible(t.cfg.OutDir, final); err != nil {
			return err
		}
		if final.Step >= t.total {
			t.step, t.losses, t.valLosses, t.complete = final.Step, final.Losses, final.ValLosses, true
			return nil
		}
		finalStep = final.Step
	case !os.IsNotExist(err):
		return fmt.Errorf("sft: resume: %w", err)
	}
	cps, err := checkpoints(t.cfg.OutDir)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("sft: resume: %w", err)
	}
	var s state
	dir := ""
	if len(cps) > 0 {
		dir = cps[len(cps)-1]
		if s, err = readState(filepath.Join(dir, stateFile)); err != nil {
			return fmt.Errorf("sft: resume: %w", err)
		}
	}
	// Continuing a finished run from an older checkpoint would train over
	// its final model from a state it has already passed.
	if finalStep >= 0 && (dir == "" || s.Step < finalStep) {
		return fmt.Errorf("sft: cannot extend the run in %s: it finished at step %d but has no checkpoint of that step to continue from (the newest is %q); use another -out",
			t.cfg.OutDir, finalStep, dir)
	}
	if dir == "" {
		return nil
	}
	if err := t.compatible(dir, s); err != nil {
		return err
	}
	if t.cfg.LoRA != nil {
		if err := t.m.LoadLoRAWeights(dir); err != nil {
			return fmt.Errorf("sft: resume: %w", err)
		}
	} else if err := loop.LoadWeights(t.m, dir); err != nil {
		return fmt.Errorf("sft: resume: %w", err)
	}
	if err := t.opt.Load(dir); err != nil {
		return fmt.Errorf("sft: resume: %w", err)
	}
	t.step = s.Step
	t.losses = append([]float64(nil), s.Losses...)
	t.valLosses = append([]ValPoint(nil), s.ValLosses...)
	return nil
}
