package sft

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rlm-project/rlm/training/backend"
	"github.com/rlm-project/rlm/training/model"
	"github.com/rlm-project/rlm/training/safetensors"
)

const (
	stateFile      = "trainer_state.json"
	optimizerFile  = "optimizer.safetensors"
	checkpointStem = "checkpoint-"
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
// loadable Hugging Face directory), the AdamW moments and the trainer state.
// It is written under a temporary name and renamed, so a crash mid-save
// leaves the previous checkpoint as the newest complete one. Older
// checkpoints beyond KeepCheckpoints are removed.
func (t *Trainer) SaveCheckpoint() error {
	final := filepath.Join(t.cfg.OutDir, fmt.Sprintf("%s%06d", checkpointStem, t.step))
	tmp := final + ".tmp"
	os.RemoveAll(tmp)
	if err := t.saveWeights(tmp, safetensors.F32); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("sft: checkpoint: %w", err)
	}
	be := t.m.Backend()
	n := t.adamM.Len()
	mv := make([]float32, 2*n)
	be.Download(mv[:n], t.adamM)
	be.Download(mv[n:], t.adamV)
	opt := []safetensors.Tensor{
		{Name: "exp_avg", Shape: []int{n}, Data: mv[:n]},
		{Name: "exp_avg_sq", Shape: []int{n}, Data: mv[n:]},
	}
	if err := safetensors.WriteFile(filepath.Join(tmp, optimizerFile), opt, safetensors.F32, nil); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("sft: checkpoint: %w", err)
	}
	if err := writeState(filepath.Join(tmp, stateFile), t.state()); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	os.RemoveAll(final)
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("sft: checkpoint: %w", err)
	}
	cps, _ := checkpoints(t.cfg.OutDir)
	for len(cps) > t.cfg.KeepCheckpoints {
		os.RemoveAll(cps[0])
		cps = cps[1:]
	}
	return nil
}

// checkpoints lists the complete checkpoint directories of out, oldest first.
func checkpoints(out string) ([]string, error) {
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
		if !e.IsDir() || !strings.HasPrefix(name, checkpointStem) {
			continue
		}
		step, err := strconv.Atoi(strings.TrimPrefix(name, checkpointStem))
		if err != nil {
			continue // includes .tmp leftovers
		}
		if _, err := os.Stat(filepath.Join(out, name, stateFile)); err != nil {
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
	be := t.m.Backend()
	if t.cfg.LoRA != nil {
		if err := t.m.LoadLoRAWeights(dir); err != nil {
			return fmt.Errorf("sft: resume: %w", err)
		}
	} else {
		saved, err := model.Load(be, dir)
		if err != nil {
			return fmt.Errorf("sft: resume: %w", err)
		}
		if saved.NumParams() != t.m.NumParams() {
			return fmt.Errorf("sft: resume %s: checkpoint has %d parameters, model %d", dir, saved.NumParams(), t.m.NumParams())
		}
		be.Copy(t.m.Params, saved.Params)
	}
	f, err := safetensors.Open(filepath.Join(dir, optimizerFile))
	if err != nil {
		return fmt.Errorf("sft: resume: %w", err)
	}
	defer f.Close()
	host := make([]float32, t.adamM.Len())
	for _, tc := range []struct {
		name string
		dst  backend.Buffer
	}{{"exp_avg", t.adamM}, {"exp_avg_sq", t.adamV}} {
		if err := f.ReadFloat32(tc.name, host); err != nil {
			return fmt.Errorf("sft: resume: %w", err)
		}
		be.Upload(tc.dst, host)
	}
	t.step = s.Step
	t.losses = append([]float64(nil), s.Losses...)
	return nil
}
