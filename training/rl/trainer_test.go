package rl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/eval"
	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/safetensors"
	"github.com/rlm-project/rlm/model/tokenizer"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/repl"
)

func TestMain(m *testing.M) {
	repl.MaybeRunWorker()
	os.Exit(m.Run())
}

// The end-to-end tests train a tiny random-init Qwen3 over
// ../sft/testdata/tokenizer.json (a byte-level BPE in the real Qwen3 format
// with 269 ids) through the real RLM engine and REPL. Its task is
// trivially learnable: answer with text that contains "4" (the contains
// scorer of eval). A random policy does so in about one rollout in five.

const tokenizerPath = "../sft/testdata/tokenizer.json"

func harnessModel(t testing.TB) (*model.Model, *tokenizer.Tokenizer) {
	t.Helper()
	tok, err := tokenizer.Load(tokenizerPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := model.ParseConfig([]byte(`{"hidden_size":48,"intermediate_size":96,"num_hidden_layers":2,
		"num_attention_heads":2,"num_key_value_heads":1,"head_dim":16,"rms_norm_eps":1e-6,
		"rope_theta":10000,"max_position_embeddings":8192,"tie_word_embeddings":true,"vocab_size":269}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(backend.CPU{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.InitRandom(7, 0.02)
	return m, tok
}

func fourTask(t testing.TB) eval.Task {
	t.Helper()
	path := filepath.Join(t.TempDir(), "four.jsonl")
	lines := `{"context": "The answer is 4.", "question": "What is the answer?", "answer": "4", "scorer": "contains"}
{"context": "Two plus two is four, written 4.", "question": "Write the digit.", "answer": "4", "scorer": "contains"}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := eval.LoadCustom(path)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func testConfig(t testing.TB, pool *repl.Pool, out string) Config {
	cfg := DefaultConfig()
	cfg.Tasks = []eval.Task{fourTask(t)}
	cfg.TasksPerStep, cfg.Group, cfg.Steps = 2, 8, 10
	cfg.LR, cfg.Beta2, cfg.ClipNorm = 2e-2, 0.95, 0
	cfg.MaxTokens, cfg.SeqLen = 64, 4096
	cfg.Limits = recursion.Limits{MaxIterations: 1, MaxDepth: -1, Timeout: 5 * time.Minute}
	cfg.Sandbox = recursion.PoolSandbox(pool)
	cfg.OutDir, cfg.CheckpointEvery, cfg.SaveDType = out, 0, safetensors.F32
	return cfg
}

func newPool(t testing.TB) *repl.Pool {
	pool, err := repl.NewPool(repl.PoolConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return pool
}

func run(t *testing.T, cfg Config, m *model.Model, tok *tokenizer.Tokenizer) (Result, string) {
	t.Helper()
	tr, err := New(m, tok, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var progress bytes.Buffer
	res, err := tr.Run(context.Background(), &progress)
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	return res, progress.String()
}

// TestRewardRises: a few steps of RL through the real engine and REPL
// raise the reward of the trivially learnable task.
func TestRewardRises(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	m, tok := harnessModel(t)
	cfg := testConfig(t, newPool(t), t.TempDir())
	res, progress := run(t, cfg, m, tok)
	t.Log("\n" + progress)
	h := res.Steps
	if len(h) != cfg.Steps {
		t.Fatalf("%d steps", len(h))
	}
	first := (h[0].RewardMean + h[1].RewardMean) / 2
	last := (h[len(h)-1].RewardMean + h[len(h)-2].RewardMean) / 2
	if last < first+0.25 {
		t.Errorf("mean reward of the first two steps %.3f, of the last two %.3f: want a rise of at least 0.25", first, last)
	}
	// A rollout here is two root turns (the turn, then the engine's
	// "answer now" turn), which merge into one sample when the second
	// prompt extends the first prompt and completion token for token.
	merged := false
	for _, s := range h {
		if s.Dropped == 0 && s.Samples < 2*s.Rollouts {
			merged = true
		}
		if s.Step > 1 && s.Staleness != min(1, s.Step-1) {
			t.Errorf("step %d sampled by policy %d: staleness %d", s.Step, s.Version, s.Staleness)
		}
	}
	if !merged {
		t.Error("no step merged the turns of a rollout into one sample")
	}
	for _, f := range []string{"model.safetensors", "config.json", stateFile, chartFile} {
		if _, err := os.Stat(filepath.Join(cfg.OutDir, f)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(progress, "staleness") || !strings.Contains(progress, "pass") {
		t.Errorf("progress: %s", progress)
	}
}

// TestResumeIsExact: a run stopped after a checkpoint and resumed ends
// with the same weights as the same run made in one go, with rollouts of
// the next step already sampled when the checkpoint was written.
func TestResumeIsExact(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	pool := newPool(t)
	small := func(out string) Config {
		cfg := testConfig(t, pool, out)
		cfg.TasksPerStep, cfg.Group, cfg.Steps, cfg.MaxTokens = 1, 4, 3, 16
		// Graded rewards (the share of ten characters the answer contains)
		// make every step's group carry signal. None of the ten occurs in
		// the fixed words of a partial answer ("No answer: the run
		// stopped (max_iterations: no FINAL after 1 turns) ..."), so only
		// what the model wrote moves the reward.
		path := filepath.Join(t.TempDir(), "chars.jsonl")
		os.WriteFile(path, []byte(`{"context": "jkqvz23579", "question": "Which characters?", "answer": ["j","k","q","v","z","2","3","5","7","9"], "scorer": "contains"}`+"\n"), 0o644)
		task, err := eval.LoadCustom(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Tasks = []eval.Task{task}
		cfg.Export = ExportVerifiers
		return cfg
	}
	m, tok := harnessModel(t)
	init := m.DownloadParams()
	wholeOut := t.TempDir()
	whole, _ := run(t, small(wholeOut), m, tok)
	want := m.DownloadParams()
	updates := 0
	for _, s := range whole.Steps {
		if !s.TrainSkipped {
			updates++
		}
	}
	changed := 0
	for i := range want {
		if want[i] != init[i] {
			changed++
		}
	}
	t.Logf("%d of %d steps updated the weights; %d weights changed", updates, len(whole.Steps), changed)
	if updates < 2 || changed == 0 {
		t.Fatalf("the run learned nothing, so comparing weights shows nothing")
	}

	out := t.TempDir()
	m2, _ := harnessModel(t)
	cfg := small(out)
	cfg.StopAfter = 2
	first, progress := run(t, cfg, m2, tok)
	if len(first.Steps) != 2 || !strings.Contains(progress, "stopped after step 2") {
		t.Fatalf("stop after 2: %d steps\n%s", len(first.Steps), progress)
	}
	// An export line of a step the resume samples again, as a run that
	// died before its checkpoint leaves: the resume must drop it.
	f, err := os.OpenFile(filepath.Join(out, ExportFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, `{"step": 4, "prompt_ids": []}`)
	f.Close()
	m3, _ := harnessModel(t)
	cfg = small(out)
	cfg.Resume = true
	rest, _ := run(t, cfg, m3, tok)
	// The export holds each step once, as in one go (trace ids aside).
	if a, b := exportWithoutTraceIDs(t, wholeOut), exportWithoutTraceIDs(t, out); a != b || a == "" {
		al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
		for _, x := range [][]string{al, bl} {
			var steps []string
			for _, l := range x {
				var v struct{ Step, Group, Rollout int }
				json.Unmarshal([]byte(l), &v)
				steps = append(steps, fmt.Sprint(v))
			}
			t.Log(steps)
		}
		t.Errorf("export of the resumed run differs from the run in one go: %d and %d lines", len(al), len(bl))
		for i := range min(len(al), len(bl)) {
			if al[i] != bl[i] {
				t.Errorf("line %d:\n%s\n%s", i, al[i], bl[i])
				break
			}
		}
	}
	if len(rest.Steps) != 3 {
		t.Fatalf("resumed run reports %d steps", len(rest.Steps))
	}
	got := m3.DownloadParams()
	diff := 0
	for i := range want {
		if got[i] != want[i] {
			diff++
		}
	}
	if diff > 0 {
		t.Errorf("%d of %d weights differ between the resumed run and the whole run", diff, len(want))
	}
	for i := range whole.Steps {
		if a, b := whole.Steps[i].RewardMean, rest.Steps[i].RewardMean; a != b {
			t.Errorf("step %d: reward %g in one go, %g resumed", i+1, a, b)
		}
	}
	// A resume with other settings is refused.
	cfg = small(out)
	cfg.Resume, cfg.LR = true, 1e-3
	if _, err := New(m3, tok, cfg); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Errorf("resume with another learning rate: %v", err)
	}
}

func exportWithoutTraceIDs(t *testing.T, out string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, ExportFile))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var l map[string]any
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		delete(l, "trace_id")
		s, _ := json.Marshal(l)
		lines = append(lines, string(s))
	}
	return strings.Join(lines, "\n")
}

// failingTracer is a test double of a trajectory store that is down.
type failingTracer struct{}

func (failingTracer) StartRun(ctx context.Context, req recursion.Request) (string, recursion.Observer, func(recursion.Result, error) error, error) {
	return "", nil, nil, errors.New("store unavailable")
}

func (failingTracer) Reward(ctx context.Context, traceID string, reward float64, label string) error {
	return errors.New("store unavailable")
}

// TestTraceStoreDownDoesNotStopTraining: rollouts whose trajectories
// cannot be stored still train; the step reports how many were lost.
func TestTraceStoreDownDoesNotStopTraining(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	m, tok := harnessModel(t)
	cfg := testConfig(t, newPool(t), t.TempDir())
	cfg.TasksPerStep, cfg.Group, cfg.Steps, cfg.MaxTokens = 1, 2, 1, 8
	cfg.Tracer = failingTracer{}
	res, progress := run(t, cfg, m, tok)
	if len(res.Steps) != 1 || res.Steps[0].TraceErrors != 2 || !strings.Contains(progress, "2 trajectories not stored (first: start trajectory: store unavailable)") {
		t.Errorf("steps %+v\n%s", res.Steps, progress)
	}
}

// cancelAfter is a progress writer that cancels the run once a line
// containing mark was written.
type cancelAfter struct {
	bytes.Buffer
	mark   string
	cancel context.CancelFunc
}

func (w *cancelAfter) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if strings.Contains(w.String(), w.mark) {
		w.cancel()
	}
	return n, err
}

// TestInterruptSavesAndResumes: a run cancelled after its first step saves
// that step, and the same command resumes and finishes.
func TestInterruptSavesAndResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	pool := newPool(t)
	out := t.TempDir()
	cfg := testConfig(t, pool, out)
	cfg.TasksPerStep, cfg.Group, cfg.Steps, cfg.MaxTokens = 1, 2, 3, 8
	m, tok := harnessModel(t)
	tr, err := New(m, tok, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &cancelAfter{mark: "step 1/3", cancel: cancel}
	_, err = tr.Run(ctx, w)
	tr.Close()
	if err == nil || !strings.Contains(err.Error(), "interrupted after step 1 (checkpoint saved)") {
		t.Fatalf("cancelled run: %v\n%s", err, w.String())
	}
	if _, err := os.Stat(filepath.Join(out, "checkpoint-000001", stateFile)); err != nil {
		t.Fatal(err)
	}
	cfg.Resume = true
	m2, _ := harnessModel(t)
	res, _ := run(t, cfg, m2, tok)
	if len(res.Steps) != 3 {
		t.Errorf("resumed run reports %d steps", len(res.Steps))
	}
}

// TestGeneratedTasks: tasks from the eval generators at the configured
// lengths run through the trainer; a group whose rewards are all equal (the
// random policy finds no needle) is dropped and the step makes no update.
func TestGeneratedTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs rollouts")
	}
	sniah, err := eval.NewTask("sniah", eval.TaskOptions{Depth: -1})
	if err != nil {
		t.Fatal(err)
	}
	m, tok := harnessModel(t)
	before := m.DownloadParams()
	cfg := testConfig(t, newPool(t), t.TempDir())
	cfg.Tasks, cfg.Lengths = []eval.Task{sniah}, []int{512}
	cfg.TasksPerStep, cfg.Group, cfg.Steps, cfg.MaxTokens = 1, 2, 1, 8
	res, progress := run(t, cfg, m, tok)
	s := res.Steps[0]
	if s.Rollouts != 2 || s.RewardMean != 0 || s.Dropped != 1 || !s.TrainSkipped || s.Samples != 0 {
		t.Errorf("step %+v\n%s", s, progress)
	}
	if !slices.Equal(before, m.DownloadParams()) {
		t.Error("a step without signal changed the weights")
	}
}
