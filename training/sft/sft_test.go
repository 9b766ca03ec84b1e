package sft

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/tokenizer"
	"github.com/rlm-project/rlm/training/data"
)

// The tests use testdata/tokenizer.json, a tiny tokenizer in the real Qwen3
// format (byte-level BPE, same pre-tokenizer, the chat special tokens), so a
// model small enough to train in seconds can still read real chat renderings.

func tinyModel(t testing.TB, vocab int, seed uint64) *model.Model {
	t.Helper()
	cfg, err := model.ParseConfig([]byte(`{"hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,
		"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"rms_norm_eps":1e-6,
		"rope_theta":10000,"max_position_embeddings":512,"tie_word_embeddings":false,"vocab_size":` +
		jsonInt(vocab) + `}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(backend.CPU{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.InitRandom(seed, 0.02)
	return m
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

type chat struct {
	msgs []tokenizer.Message
}

// readTrajectories reads the good samples (reward 1) of
// testdata/trajectories.jsonl, in the tracing export's SFT format: one
// sample per root turn, earlier assistant turns marked "train": false.
func readTrajectories(t testing.TB) []chat {
	t.Helper()
	f, err := os.Open("testdata/trajectories.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []chat
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var s struct {
			Reward   float64 `json:"reward"`
			Messages []struct {
				Role, Content string
				Train         *bool
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		if s.Reward < 1 {
			continue
		}
		var c chat
		for _, m := range s.Messages {
			train := m.Role == "assistant" && (m.Train == nil || *m.Train)
			c.msgs = append(c.msgs, tokenizer.Message{Role: m.Role, Content: m.Content, Train: train})
		}
		out = append(out, c)
	}
	return out
}

// toSequence lays one tokenized chat into a row of length T: the target of
// position i is token i+1, trained when the mask marks token i+1 generated.
func toSequence(ids []int, mask []bool, T int, pad int32) Sequence {
	s := Sequence{IDs: make([]int32, T), Targets: make([]int32, T), Train: make([]bool, T), Pos: make([]int32, T), Seg: make([]int32, T)}
	for i := range T {
		s.IDs[i], s.Targets[i], s.Pos[i] = pad, pad, int32(i)
		if i < len(ids) {
			s.IDs[i] = int32(ids[i])
		} else {
			s.Seg[i] = 1
		}
		if i+1 < len(ids) {
			s.Targets[i] = int32(ids[i+1])
			s.Train[i] = mask[i+1]
		}
	}
	return s
}

func loadTokenizer(t testing.TB) *tokenizer.Tokenizer {
	t.Helper()
	tok, err := tokenizer.Load("testdata/tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func sequences(t testing.TB, tok *tokenizer.Tokenizer, chats []chat, T int) []Sequence {
	t.Helper()
	pad, _ := tok.TokenID("<|endoftext|>")
	var seqs []Sequence
	for _, c := range chats {
		ids, mask, err := tok.EncodeChat(c.msgs)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) > T {
			t.Fatalf("chat of %d tokens does not fit %d", len(ids), T)
		}
		seqs = append(seqs, toSequence(ids, mask, T, int32(pad)))
	}
	return seqs
}

// TestOverfitReproducesTrainedTurns trains a tiny model on four recorded
// RLM turns until the loss is near zero, then checks that greedy decoding
// from each prompt reproduces exactly the trained assistant turn.
func TestOverfitReproducesTrainedTurns(t *testing.T) {
	tok := loadTokenizer(t)
	chats := readTrajectories(t)
	if len(chats) != 4 {
		t.Fatalf("%d good trajectories, want 4", len(chats))
	}
	const T = 224
	data := sequences(t, tok, chats, T)
	m := tinyModel(t, tok.VocabSize(), 1)
	cfg := DefaultConfig()
	cfg.LR, cfg.WarmupSteps, cfg.Steps, cfg.BatchSize, cfg.GradAccum = 1e-2, 5, 60, 2, 2
	cfg.WeightDecay, cfg.LogEvery, cfg.OutDir, cfg.SaveDType = 0, 20, t.TempDir(), "F32"
	tr, err := New(m, data, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	res, err := tr.Run(context.Background(), &progress)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first loss %.3f, final loss %.4f after %d steps in %s\n%s", res.Losses[0], res.FinalLoss, res.Steps, res.Duration, progress.String())
	if res.FinalLoss > 0.05 {
		t.Fatalf("final loss %.4f, want < 0.05", res.FinalLoss)
	}
	if !strings.Contains(progress.String(), "tok/s") || !strings.Contains(progress.String(), "eta") {
		t.Errorf("progress lines lack tok/s or eta:\n%s", progress.String())
	}
	// Greedy decoding of the saved model (not the in-memory one) reproduces
	// each trained turn, think block and <|im_end|> included.
	saved, err := model.Load(backend.CPU{}, cfg.OutDir)
	if err != nil {
		t.Fatal(err)
	}
	imEnd, _ := tok.TokenID("<|im_end|>")
	for i, c := range chats {
		prompt, err := tok.EncodePrompt(c.msgs[:len(c.msgs)-1])
		if err != nil {
			t.Fatal(err)
		}
		ids, mask, _ := tok.EncodeChat(c.msgs)
		var want []int32
		for j, id := range ids {
			if mask[j] {
				want = append(want, int32(id))
			}
		}
		p32 := make([]int32, len(prompt))
		for j, id := range prompt {
			p32[j] = int32(id)
		}
		got, err := saved.Greedy(context.Background(), p32, len(want)+4, func(id int32) bool { return int(id) == imEnd })
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("chat %d: greedy output %q, want %q", i, decode(tok, got), decode(tok, want))
		}
	}
	for _, name := range []string{"loss.svg", "config.json", "model.safetensors", "trainer_state.json"} {
		if _, err := os.Stat(filepath.Join(cfg.OutDir, name)); err != nil {
			t.Errorf("output lacks %s", name)
		}
	}
}

func decode(tok *tokenizer.Tokenizer, ids []int32) string {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return tok.Decode(out)
}

// TestResumeIsExact interrupts a run by cancelling its context, resumes it
// from the checkpoint, and requires the same losses and weights as an
// uninterrupted run with the same seed.
func TestResumeIsExact(t *testing.T) {
	tok := loadTokenizer(t)
	data := sequences(t, tok, readTrajectories(t), 224)
	cfg := DefaultConfig()
	cfg.LR, cfg.WarmupSteps, cfg.Steps, cfg.BatchSize, cfg.GradAccum = 3e-3, 2, 6, 1, 3
	cfg.SaveDType, cfg.LogEvery, cfg.Seed = "F32", 100, 42

	run := func(out string, cancelAfter int, resume bool) ([]float64, []float32, error) {
		m := tinyModel(t, tok.VocabSize(), 3)
		c := cfg
		c.OutDir, c.Resume = out, resume
		tr, err := New(m, data, c)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var losses []float64
		for tr.Step() < tr.TotalSteps() {
			if tr.Step() == cancelAfter {
				cancel()
			}
			if ctx.Err() != nil {
				_, err := tr.Run(ctx, &bytes.Buffer{})
				return losses, nil, err
			}
			st, err := tr.TrainStep(ctx)
			if err != nil {
				t.Fatal(err)
			}
			losses = append(losses, st.Loss)
		}
		if _, err := tr.Run(ctx, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		return tr.losses, m.DownloadParams(), nil
	}
	straightLosses, straight, _ := run(t.TempDir(), -1, false)

	out := t.TempDir()
	if _, _, err := run(out, 4, false); err == nil || !strings.Contains(err.Error(), "interrupted after step 4") {
		t.Fatalf("interrupted run: err = %v", err)
	}
	if cps, _ := checkpoints(out); len(cps) != 1 || !strings.HasSuffix(cps[0], "checkpoint-000004") {
		t.Fatalf("checkpoints after interrupt: %v", cps)
	}
	resumedLosses, resumed, _ := run(out, -1, true)
	if len(resumedLosses) != len(straightLosses) {
		t.Fatalf("resumed run has %d losses, straight %d", len(resumedLosses), len(straightLosses))
	}
	for i := range straightLosses {
		if resumedLosses[i] != straightLosses[i] {
			t.Fatalf("step %d: loss %v resumed vs %v straight", i+1, resumedLosses[i], straightLosses[i])
		}
	}
	for i := range straight {
		if straight[i] != resumed[i] {
			t.Fatalf("parameter %d differs after resume: %g vs %g", i, resumed[i], straight[i])
		}
	}

	// Running the finished command again changes nothing.
	before, _ := os.ReadFile(filepath.Join(out, "model.safetensors"))
	c := cfg
	c.OutDir, c.Resume = out, true
	tr, err := New(tinyModel(t, tok.VocabSize(), 3), data, c)
	if err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	if _, err := tr.Run(context.Background(), &progress); err != nil || !strings.Contains(progress.String(), "already complete") {
		t.Fatalf("rerun of a finished run: err %v, output %q", err, progress.String())
	}
	if after, _ := os.ReadFile(filepath.Join(out, "model.safetensors")); !bytes.Equal(before, after) {
		t.Fatal("rerunning a finished run rewrote its model")
	}

	// A resume with different settings is refused rather than silently
	// training on a different data order.
	m := tinyModel(t, tok.VocabSize(), 3)
	c.Seed = 7
	os.MkdirAll(filepath.Join(out, "checkpoint-000009"), 0o755) // incomplete: no state, ignored
	if err := (func() error {
		tr, err := New(m, data, c)
		_ = tr
		return err
	})(); err == nil || !strings.Contains(err.Error(), "seed") {
		t.Fatalf("resume with another seed: err = %v", err)
	}
}

func TestLRSchedule(t *testing.T) {
	for _, tc := range []struct {
		warmup, step, total int
		want                float64
	}{
		{10, 1, 101, 0.1}, {10, 5, 101, 0.5}, {10, 10, 101, 1}, {10, 11, 101, 1},
		{10, 56, 101, 0.55}, {10, 101, 101, 0.1},
		{0, 1, 5, 1}, {0, 5, 5, 0.1}, {0, 1, 1, 1},
	} {
		cfg := Config{LR: 1, MinLRRatio: 0.1, WarmupSteps: tc.warmup}
		if got := cfg.LRAt(tc.step, tc.total); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("warmup %d: LRAt(%d, %d) = %g, want %g", tc.warmup, tc.step, tc.total, got, tc.want)
		}
	}
}

func TestBadConfig(t *testing.T) {
	tok := loadTokenizer(t)
	data := sequences(t, tok, readTrajectories(t), 224)
	m := tinyModel(t, tok.VocabSize(), 1)
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		data []Sequence
		want string
	}{
		{"no data", func(*Config) {}, []Sequence{}, "no training sequences"},
		{"lr", func(c *Config) { c.LR = 0 }, data, "learning rate"},
		{"batch", func(c *Config) { c.BatchSize = 0 }, data, "batch size"},
		{"out", func(c *Config) { c.OutDir = "" }, data, "output directory"},
		{"ragged", func(*Config) {}, append([]Sequence{{IDs: []int32{1}}}, data...), "length"},
	} {
		cfg := DefaultConfig()
		cfg.OutDir = t.TempDir()
		tc.mod(&cfg)
		if _, err := New(m, tc.data, cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want mention of %q", tc.name, err, tc.want)
		}
	}
}

// TestNewWithAdaptersOn: a model whose adapters are already on (as
// model.NewLoRA and LoadLoRA make them) trains only with the same adapter
// settings; a run of the whole model or of other adapters is refused.
func TestNewWithAdaptersOn(t *testing.T) {
	tok := loadTokenizer(t)
	data := sequences(t, tok, readTrajectories(t), 224)
	base := tinyModel(t, tok.VocabSize(), 1)
	lora := model.LoRAConfig{Rank: 2, Alpha: 4}
	for _, tc := range []struct {
		name string
		run  *model.LoRAConfig
		want string // "" for accepted
	}{
		{"same adapters", &model.LoRAConfig{Rank: 2, Alpha: 4}, ""},
		{"same, targets spelled out", &model.LoRAConfig{Rank: 2, Alpha: 4, Targets: model.DefaultLoRATargets}, ""},
		{"another rank", &model.LoRAConfig{Rank: 4, Alpha: 4}, "not the run's"},
		{"whole model", nil, "trains the whole model"},
	} {
		m, err := model.NewLoRA(backend.CPU{}, base.Cfg, lora)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.OutDir, cfg.LoRA = t.TempDir(), tc.run
		_, err = New(m, data, cfg)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestLossChartIsValidSVG(t *testing.T) {
	for _, vals := range [][]float64{nil, {2}, {3, 2.5, math.NaN(), 1, 0.5}} {
		svg := LossChart(vals, "loss <&>")
		d := xml.NewDecoder(bytes.NewReader(svg))
		for {
			_, err := d.Token()
			if err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("%v: invalid SVG: %v\n%s", vals, err, svg)
				}
				break
			}
		}
		if len(vals) > 1 && !strings.Contains(string(svg), "<polyline") {
			t.Errorf("no line drawn for %v", vals)
		}
	}
}

// TestDeterministicAcrossCores trains the same steps with 1 and 2 cores and
// requires bit-identical weights: no reduction depends on the thread count.
func TestDeterministicAcrossCores(t *testing.T) {
	tok := loadTokenizer(t)
	data := sequences(t, tok, readTrajectories(t), 224)
	train := func(procs int) []float32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		m := tinyModel(t, tok.VocabSize(), 5)
		cfg := DefaultConfig()
		cfg.LR, cfg.Steps, cfg.BatchSize, cfg.GradAccum, cfg.OutDir = 1e-3, 3, 2, 1, t.TempDir()
		tr, err := New(m, data, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := tr.TrainStep(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		return m.DownloadParams()
	}
	one, two := train(1), train(2)
	for i := range one {
		if one[i] != two[i] {
			t.Fatalf("parameter %d: %g with 1 core, %g with 2", i, one[i], two[i])
		}
	}
}

func TestFromPacked(t *testing.T) {
	packed := []data.Sequence{{
		Input:    []int{5, 6, 7, 0},
		Target:   []int{data.IgnoreTarget, 7, data.IgnoreTarget, data.IgnoreTarget},
		Segment:  []int{1, 1, 1, 0},
		Position: []int{0, 1, 2, 0},
	}}
	got, err := FromPacked(packed, 10)
	if err != nil {
		t.Fatal(err)
	}
	s := got[0]
	if !slices.Equal(s.IDs, []int32{5, 6, 7, 0}) || s.Train[0] || !s.Train[1] || s.Targets[1] != 7 || s.Seg[3] != 0 || s.Pos[2] != 2 {
		t.Fatalf("converted %+v", s)
	}
	if _, err := FromPacked(packed, 7); err == nil {
		t.Fatal("ids outside the vocabulary accepted")
	}
}

// TestResumeRefusesChangedSettings: a resume whose schedule or optimizer
// settings differ from the checkpoint's is refused, naming the setting and
// both values, both in the middle of a run and after it finished.
func TestResumeRefusesChangedSettings(t *testing.T) {
	tok := loadTokenizer(t)
	data := sequences(t, tok, readTrajectories(t), 224)
	base := DefaultConfig()
	base.LR, base.WarmupSteps, base.Steps, base.GradAccum, base.LogEvery, base.SaveDType = 3e-3, 1, 3, 1, 100, "F32"
	mid, finished := t.TempDir(), t.TempDir()
	for _, out := range []string{mid, finished} {
		c := base
		c.OutDir = out
		tr, err := New(tinyModel(t, tok.VocabSize(), 3), data, c)
		if err != nil {
			t.Fatal(err)
		}
		if out == mid {
			if _, err := tr.TrainStep(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := tr.SaveCheckpoint(); err != nil {
				t.Fatal(err)
			}
		} else if _, err := tr.Run(context.Background(), &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"learning rate", func(c *Config) { c.LR = 1e-3 }, "-lr was 0.003 there, 0.001 now"},
		{"warmup", func(c *Config) { c.WarmupSteps = 5 }, "-warmup was 1 there, 5 now"},
		{"steps", func(c *Config) { c.Steps = 6 }, "steps (-steps, or -epochs over the data) was 3 there, 6 now"},
		{"min lr", func(c *Config) { c.MinLRRatio = 0.5 }, "-min-lr-ratio was 0.1 there, 0.5 now"},
		{"two at once", func(c *Config) { c.LR, c.ClipNorm = 1e-3, 2 }, "-lr was 0.003 there, 0.001 now; -clip was 1 there, 2 now"},
	} {
		for _, out := range []string{mid, finished} {
			t.Run(tc.name, func(t *testing.T) {
				c := base
				c.OutDir, c.Resume = out, true
				tc.mod(&c)
				_, err := New(tinyModel(t, tok.VocabSize(), 3), data, c)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want it to say %q", err, tc.want)
				}
				if hint := "-extend-steps"; (out == finished) != strings.Contains(err.Error(), hint) {
					t.Errorf("finished %v, but the error %q mentions %s: %v", out == finished, err, hint, strings.Contains(err.Error(), hint))
				}
			})
		}
	}
	// The same settings resume.
	c := base
	c.OutDir, c.Resume = mid, true
	if tr, err := New(tinyModel(t, tok.VocabSize(), 3), data, c); err != nil || tr.Step() != 1 {
		t.Fatalf("resume with the same settings: %v", err)
	}
}

// TestExtendFinishedRun: -extend-steps continues a finished run from the
// checkpoint of its final step at the final learning rate, and the result
// is the run that had the extension from the start, bit for bit.
func TestExtendFinishedRun(t *testing.T) {
	tok := loadTokenizer(t)
	data := sequences(t, tok, readTrajectories(t), 224)
	base := DefaultConfig()
	base.LR, base.WarmupSteps, base.Steps, base.GradAccum, base.LogEvery, base.SaveDType = 3e-3, 1, 3, 1, 100, "F32"
	base.CheckpointEvery = 2
	run := func(out string, extend int) (*Trainer, Result, []float32) {
		t.Helper()
		m := tinyModel(t, tok.VocabSize(), 3)
		c := base
		c.OutDir, c.Resume, c.ExtendSteps = out, true, extend
		tr, err := New(m, data, c)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tr.Run(context.Background(), &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		return tr, res, m.DownloadParams()
	}
	_, straight, straightW := run(t.TempDir(), 2)

	out := t.TempDir()
	_, first, _ := run(out, 0)
	if first.Steps != 3 {
		t.Fatalf("first run made %d steps", first.Steps)
	}
	c := base
	c.OutDir, c.Resume, c.ExtendSteps = out, true, 2
	tr, err := New(tinyModel(t, tok.VocabSize(), 3), data, c)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Step() != 3 || tr.TotalSteps() != 5 {
		t.Fatalf("extension starts at step %d of %d, want 3 of 5", tr.Step(), tr.TotalSteps())
	}
	st, err := tr.TrainStep(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := base.LR * base.MinLRRatio; math.Abs(st.LR-want) > 1e-15 {
		t.Errorf("extension step learning rate %g, want the final %g", st.LR, want)
	}
	_, extended, extendedW := run(out, 2) // interrupted after step 4 without a checkpoint: redone from 3
	if !slices.Equal(extended.Losses, straight.Losses) {
		t.Errorf("extended losses %v, straight %v", extended.Losses, straight.Losses)
	}
	if !slices.Equal(extendedW, straightW) {
		t.Error("extended weights differ from a run with the extension from the start")
	}
	s, err := readState(filepath.Join(out, stateFile))
	if err != nil || s.Step != 5 || s.ScheduleSteps != 3 || s.ExtendSteps != 2 {
		t.Errorf("state after extension: %+v, %v", s, err)
	}
	// Running the extension again changes nothing; a run without a
	// checkpoint of its final step (older runs) cannot be extended.
	before, _ := os.ReadFile(filepath.Join(out, "model.safetensors"))
	tr, _, _ = run(out, 2)
	if !tr.complete {
		t.Error("rerun of a finished extension trained again")
	}
	if after, _ := os.ReadFile(filepath.Join(out, "model.safetensors")); !bytes.Equal(before, after) {
		t.Error("rerun of a finished extension rewrote the model")
	}
	os.RemoveAll(filepath.Join(out, "checkpoint-000005"))
	c.ExtendSteps = 4
	if _, err := New(tinyModel(t, tok.VocabSize(), 3), data, c); err == nil || !strings.Contains(err.Error(), "no checkpoint of that step") {
		t.Errorf("extension without a final checkpoint: err = %v", err)
	}
}

// TestValidationLoss holds one of the four recorded turns out: its loss,
// computed without gradients, falls as the model learns the other three,
// and training is bit for bit the same with or without validation, so the
// held-out sample never reaches an update.
func TestValidationLoss(t *testing.T) {
	tok := loadTokenizer(t)
	all := sequences(t, tok, readTrajectories(t), 224)
	train, val := all[:3], all[3:]
	cfg := DefaultConfig()
	cfg.LR, cfg.WarmupSteps, cfg.Steps, cfg.BatchSize, cfg.GradAccum = 1e-2, 5, 30, 2, 1
	cfg.WeightDecay, cfg.LogEvery, cfg.SaveDType, cfg.ValEvery = 0, 10, "F32", 10
	run := func(val []Sequence) (*Trainer, Result, []float32, string) {
		m := tinyModel(t, tok.VocabSize(), 1)
		c := cfg
		c.OutDir, c.Validation = t.TempDir(), val
		tr, err := New(m, train, c)
		if err != nil {
			t.Fatal(err)
		}
		var progress bytes.Buffer
		res, err := tr.Run(context.Background(), &progress)
		if err != nil {
			t.Fatal(err)
		}
		return tr, res, m.DownloadParams(), progress.String()
	}
	fresh, err := New(tinyModel(t, tok.VocabSize(), 1), train, Config{LR: 1, Steps: 1, BatchSize: 2, GradAccum: 1, OutDir: t.TempDir(), Validation: val})
	if err != nil {
		t.Fatal(err)
	}
	initial, err := fresh.ValidationLoss(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tr, res, withVal, progress := run(val)
	_, plain, withoutVal, _ := run(nil)
	t.Logf("validation loss %.3f before training, %v after; training loss %.3f\n%s", initial, res.ValLosses, res.FinalLoss, progress)
	if !slices.Equal(res.Losses, plain.Losses) || !slices.Equal(withVal, withoutVal) {
		t.Fatal("validation changed training")
	}
	if got := []int{res.ValLosses[0].Step, res.ValLosses[1].Step, res.ValLosses[2].Step}; len(res.ValLosses) != 3 || !slices.Equal(got, []int{10, 20, 30}) {
		t.Fatalf("validation at steps %v, want 10, 20, 30", res.ValLosses)
	}
	// Measured (2026-11-23): 5.64 before training, 3.50, 3.36, 3.34 at steps
	// 10, 20, 30, while the training loss fell to 0.46.
	if !(res.FinalValLoss < 0.7*initial) || !(res.FinalValLoss < res.ValLosses[0].Loss) || res.ValLosses[0].Loss >= initial {
		t.Errorf("validation loss %.3f before training, %v after: did not fall", initial, res.ValLosses)
	}
	if !math.IsNaN(plain.FinalValLoss) {
		t.Errorf("final validation loss %g without validation data", plain.FinalValLoss)
	}
	if again, err := tr.ValidationLoss(context.Background()); err != nil || again != res.FinalValLoss {
		t.Errorf("validation loss of the final model %g, reported %g (%v)", again, res.FinalValLoss, err)
	}
	if !strings.Contains(progress, "step 30/30 loss") || !strings.Contains(progress, fmt.Sprintf("val %.4f", res.FinalValLoss)) {
		t.Errorf("progress lacks the validation loss:\n%s", progress)
	}
	s, err := readState(filepath.Join(tr.cfg.OutDir, stateFile))
	if err != nil || !slices.Equal(s.ValLosses, res.ValLosses) || s.ValSequences != 1 {
		t.Errorf("state: %+v, %v", s, err)
	}
	chart, _ := os.ReadFile(filepath.Join(tr.cfg.OutDir, "loss.svg"))
	if !bytes.Contains(chart, []byte(">validation</text>")) || bytes.Count(chart, []byte("<polyline")) != 2 {
		t.Errorf("loss.svg lacks the validation series")
	}
	if err := xml.Unmarshal(chart, new(struct{})); err != nil {
		t.Errorf("loss.svg is not XML: %v", err)
	}
}

// TestStopAfterThenResume splits a run into two jobs with StopAfter: the
// first ends with a checkpoint and no final model, the second resumes it,
// and the weights equal those of one uninterrupted run.
func TestStopAfterThenResume(t *testing.T) {
	tok := loadTokenizer(t)
	data := sequences(t, tok, readTrajectories(t), 224)
	cfg := DefaultConfig()
	cfg.LR, cfg.WarmupSteps, cfg.Steps, cfg.BatchSize, cfg.GradAccum = 3e-3, 2, 5, 1, 2
	cfg.SaveDType, cfg.LogEvery, cfg.Seed = "F32", 100, 7
	run := func(out string, stopAfter int) ([]float32, string) {
		m := tinyModel(t, tok.VocabSize(), 3)
		c := cfg
		c.OutDir, c.Resume, c.StopAfter = out, true, stopAfter
		tr, err := New(m, data, c)
		if err != nil {
			t.Fatal(err)
		}
		var progress bytes.Buffer
		if _, err := tr.Run(context.Background(), &progress); err != nil {
			t.Fatal(err)
		}
		return m.DownloadParams(), progress.String()
	}
	straight, _ := run(t.TempDir(), 0)

	out := t.TempDir()
	_, progress := run(out, 3)
	if !strings.Contains(progress, "stopped after step 3 of 5") {
		t.Fatalf("first job's progress: %q", progress)
	}
	if cps, _ := checkpoints(out); len(cps) != 1 || !strings.HasSuffix(cps[0], "checkpoint-000003") {
		t.Fatalf("checkpoints after the first job: %v", cps)
	}
	if _, err := os.Stat(filepath.Join(out, "model.safetensors")); !os.IsNotExist(err) {
		t.Fatalf("the first job wrote a final model (stat err %v)", err)
	}
	resumed, _ := run(out, 0)
	for i := range straight {
		if straight[i] != resumed[i] {
			t.Fatalf("parameter %d: %g after two jobs, %g in one run", i, resumed[i], straight[i])
		}
	}
}
