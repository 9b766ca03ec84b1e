package rl

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/safetensors"
	"github.com/rlm-project/rlm/training/loop"
)

const (
	stateFile   = "trainer_state.json"
	pendingFile = "pending_rollouts.json"
	chartFile   = "reward.svg"
)

// settings are what must not change across a resume: the data a step sees,
// its schedule and its objective.
type settings struct {
	Steps        int        `json:"steps"`
	Seed         uint64     `json:"seed"`
	Tasks        []string   `json:"tasks"`
	Lengths      []int      `json:"lengths"`
	TasksPerStep int        `json:"tasks_per_step"`
	Group        int        `json:"group"`
	LR           float64    `json:"lr"`
	MinLRRatio   float64    `json:"min_lr_ratio"`
	WarmupSteps  int        `json:"warmup_steps"`
	MaxStaleness int        `json:"max_staleness"`
	Loss         LossConfig `json:"loss"`
	Temperature  float64    `json:"temperature"`
	ScaleByStd   bool       `json:"scale_by_std"`
	RootOnly     bool       `json:"root_only"`
	MaxTokens    int        `json:"max_tokens"`
	SeqLen       int        `json:"seq_len"`
}

type state struct {
	Step     int         `json:"step"`
	Settings settings    `json:"settings"`
	History  []StepStats `json:"history"`
}

func (t *Trainer) settings() settings {
	c := t.cfg
	s := settings{Steps: c.Steps, Seed: c.Seed, Lengths: c.Lengths, TasksPerStep: c.TasksPerStep, Group: c.Group,
		LR: c.LR, MinLRRatio: c.MinLRRatio, WarmupSteps: c.WarmupSteps, MaxStaleness: c.MaxStaleness, Loss: c.Loss,
		Temperature: c.Temperature, ScaleByStd: c.ScaleByStd, RootOnly: c.RootOnly, MaxTokens: c.MaxTokens, SeqLen: c.SeqLen}
	for _, task := range c.Tasks {
		s.Tasks = append(s.Tasks, task.Name())
	}
	return s
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// SaveCheckpoint writes OutDir/checkpoint-<step>: the model in F32, the
// AdamW moments, the trainer state and the rollouts already sampled for
// the next steps (see loop.WriteCheckpoint).
func (t *Trainer) SaveCheckpoint() error {
	return loop.WriteCheckpoint(t.cfg.OutDir, t.step, t.cfg.KeepCheckpoints, stateFile, func(dir string) error {
		if err := t.m.Save(dir, model.SaveOptions{DType: safetensors.F32, CopyFrom: t.cfg.TokenizerFrom}); err != nil {
			return err
		}
		if err := t.opt.Save(dir); err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(dir, pendingFile), t.pending); err != nil {
			return err
		}
		return writeJSON(filepath.Join(dir, stateFile), state{Step: t.step, Settings: t.settings(), History: t.history})
	})
}

func (t *Trainer) compatible(where string, s state) error {
	if s.Settings.Temperature == 0 {
		s.Settings.Temperature = 1 // saved before the setting existed
	}
	if want := t.settings(); !reflect.DeepEqual(s.Settings, want) {
		a, _ := json.Marshal(s.Settings)
		b, _ := json.Marshal(want)
		return fmt.Errorf("rl: resume %s: it was made with other settings (use another -out to start afresh, or the same settings to continue):\n  saved: %s\n  now:   %s", where, a, b)
	}
	return nil
}

// resume loads the newest checkpoint of OutDir; a run whose final state is
// there is complete.
func (t *Trainer) resume() error {
	var final state
	err := readJSON(filepath.Join(t.cfg.OutDir, stateFile), &final)
	switch {
	case err == nil:
		if err := t.compatible(t.cfg.OutDir, final); err != nil {
			return err
		}
		t.step, t.history, t.done = final.Step, final.History, true
		return nil
	case !os.IsNotExist(err):
		return fmt.Errorf("rl: resume: %w", err)
	}
	cps, err := loop.Checkpoints(t.cfg.OutDir, stateFile)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("rl: resume: %w", err)
	}
	if len(cps) == 0 {
		return nil
	}
	dir := cps[len(cps)-1]
	var s state
	if err := readJSON(filepath.Join(dir, stateFile), &s); err != nil {
		return fmt.Errorf("rl: resume: %w", err)
	}
	if err := t.compatible(dir, s); err != nil {
		return err
	}
	if err := loop.LoadWeights(t.m, dir); err != nil {
		return fmt.Errorf("rl: resume: %w", err)
	}
	if err := t.opt.Load(dir); err != nil {
		return fmt.Errorf("rl: resume: %w", err)
	}
	var pending []*Batch
	if err := readJSON(filepath.Join(dir, pendingFile), &pending); err != nil {
		return fmt.Errorf("rl: resume: %w", err)
	}
	t.step, t.history, t.pending = s.Step, s.History, pending
	return nil
}

// saveFinal writes the model, the state with the whole history and the
// chart of reward and pass rate per step.
func (t *Trainer) saveFinal() error {
	if err := t.m.Save(t.cfg.OutDir, model.SaveOptions{DType: t.cfg.SaveDType, CopyFrom: t.cfg.TokenizerFrom}); err != nil {
		return fmt.Errorf("rl: save final model: %w", err)
	}
	if err := writeJSON(filepath.Join(t.cfg.OutDir, stateFile), state{Step: t.step, Settings: t.settings(), History: t.history}); err != nil {
		return fmt.Errorf("rl: %w", err)
	}
	if err := os.WriteFile(filepath.Join(t.cfg.OutDir, chartFile), RewardChart(t.history), 0o644); err != nil {
		return fmt.Errorf("rl: chart: %w", err)
	}
	return nil
}

// RewardChart draws the mean reward and the pass rate of each step.
func RewardChart(history []StepStats) []byte {
	reward := make([]float64, len(history))
	pass := make([]float64, len(history))
	for i, h := range history {
		reward[i], pass[i] = h.RewardMean, h.PassRate
	}
	return loop.LineChart("RL: reward and pass rate per step", loop.Series{Name: "mean reward", Values: reward},
		loop.Series{Name: "pass rate", Values: pass})
}
