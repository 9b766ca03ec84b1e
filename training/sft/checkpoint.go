package sft

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlm-project/rlm/training/loop"
	"github.com/rlm-project/rlm/training/safetensors"
)

const (
	stateFile = "trainer_state.json"
)

// state is what a checkpoint needs besides weights and optimizer moments to
// continue exactly: the step (which fixes the data position and the learning
// rate) and the settings that must not change across a resume.
type state struct {
	Step         int       `json:"step"`
	TotalSteps   int       `json:"total_steps"`
	Seed         uint64    `json:"seed"`
	BatchSize    int       `json:"batch_size"`
	GradAccum    int       `json:"grad_accum"`
	SeqLen       int       `json:"seq_len"`
	NumSequences int       `json:"num_sequences"`
	RowsSeen     int       `json:"rows_seen"`      // data position: sequences consumed
	LoRA         string    `json:"lora,omitempty"` // adapters trained, empty for a full fine-tune
	Losses       []float64 `json:"losses"`
}

func (t *Trainer) state() state {
	return state{Step: t.step, TotalSteps: t.total, Seed: t.cfg.Seed, BatchSize: t.cfg.BatchSize,
		GradAccum: t.cfg.GradAccum, SeqLen: t.T, NumSequences: len(t.data),
		RowsSeen: t.step * t.cfg.BatchSize * t.cfg.GradAccum, Losses: t.losses, LoRA: t.loraDesc()}
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
// position and schedule only mean the same thing with the same settings.
func (t *Trainer) compatible(where string, s state) error {
	if s.Seed != t.cfg.Seed || s.BatchSize != t.cfg.BatchSize || s.GradAccum != t.cfg.GradAccum ||
		s.SeqLen != t.T || s.NumSequences != len(t.data) {
		return fmt.Errorf("sft: resume %s: it was made with seed %d, batch %d, accumulation %d, %d sequences of %d; this run has seed %d, batch %d, accumulation %d, %d sequences of %d (use another -out to start afresh)",
			where, s.Seed, s.BatchSize, s.GradAccum, s.NumSequences, s.SeqLen,
			t.cfg.Seed, t.cfg.BatchSize, t.cfg.GradAccum, len(t.data), t.T)
	}
	if s.LoRA != t.loraDesc() {
		return fmt.Errorf("sft: resume %s: it trained adapters %q, this run %q (use another -out to start afresh)", where, s.LoRA, t.loraDesc())
	}
	return nil
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
// is marked complete, so running the same command again changes nothing.
func (t *Trainer) resume() error {
	final, err := readState(filepath.Join(t.cfg.OutDir, stateFile))
	switch {
	case err == nil:
		if err := t.compatible(t.cfg.OutDir, final); err != nil {
			return err
		}
		if final.Step >= t.total {
			t.step, t.losses, t.complete = final.Step, final.Losses, true
			return nil
		}
	case !os.IsNotExist(err):
		return fmt.Errorf("sft: resume: %w", err)
	}
	cps, err := checkpoints(t.cfg.OutDir)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("sft: resume: %w", err)
	}
	if len(cps) == 0 {
		return nil
	}
	dir := cps[len(cps)-1]
	s, err := readState(filepath.Join(dir, stateFile))
	if err != nil {
		return fmt.Errorf("sft: resume: %w", err)
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
	return nil
}
