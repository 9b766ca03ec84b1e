package rl

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rlm-project/rlm/eval"
	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/inference/client"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
)

// Tracer stores rollouts as trajectories (the gateway's store, viewable in
// /ui/), with their rewards attached.
type Tracer interface {
	// StartRun begins the trajectory of req; the engine gets the returned
	// trace ID and observer, and finish is called with the outcome.
	StartRun(ctx context.Context, req recursion.Request) (traceID string, obs recursion.Observer, finish func(recursion.Result, error) error, err error)
	// Reward attaches a finished rollout's reward to its trajectory.
	Reward(ctx context.Context, traceID string, reward float64, label string) error
}

// recorder collects the model calls of one rollout.
type recorder struct {
	seed     uint64
	mu       sync.Mutex
	calls    []call
	overflow bool // a call did not fit in the context window
}

type recorderKey struct{}

// policyClient is the engine's upstream during training: the policy served
// in-process by the inference engine, sampling at the run's temperature
// with no truncation of the distribution, so that the sampler's (tempered)
// logprobs are the policy's. It records every call's prompt and sampled
// tokens in the rollout's recorder.
func policyClient(e *inference.Engine, maxTokens int, temperature float64) *client.Client {
	return &client.Client{Engine: e,
		Prepare: func(ctx context.Context, r *inference.Request) error {
			rec, _ := ctx.Value(recorderKey{}).(*recorder)
			if rec == nil {
				return errors.New("rl: policy call outside a rollout")
			}
			maxTok := maxTokens
			if r.MaxTokens > 0 {
				maxTok = min(maxTok, r.MaxTokens)
			}
			maxTok = min(maxTok, e.MaxModelLen()-len(r.Prompt))
			if maxTok < 1 {
				rec.mu.Lock()
				rec.overflow = true
				rec.mu.Unlock()
				return fmt.Errorf("rl: prompt of %d tokens leaves no room in the context window of %d (see --seq-len)", len(r.Prompt), e.MaxModelLen())
			}
			info, _ := llm.CallFrom(ctx)
			seed := callSeed(rec.seed, info, r.Prompt)
			r.MaxTokens = maxTok
			r.Sampling = inference.Sampling{Temperature: temperature, Seed: &seed, Logprobs: true, TemperedLogprobs: true}
			return nil
		},
		Done: func(ctx context.Context, r inference.Request, res inference.Result) {
			rec := ctx.Value(recorderKey{}).(*recorder) // Prepare checked it
			info, _ := llm.CallFrom(ctx)
			cl := call{Info: info, Prompt: r.Prompt, Tokens: make([]int32, len(res.Tokens)), Logprobs: make([]float64, len(res.Tokens))}
			for i, t := range res.Tokens {
				cl.Tokens[i], cl.Logprobs[i] = t.ID, t.Logprob
			}
			rec.mu.Lock()
			rec.calls = append(rec.calls, cl)
			rec.mu.Unlock()
		},
	}
}

// callSeed derives a call's sampling seed from its rollout's seed and what
// the call is, not from when it runs, so concurrent sub-calls sample the
// same tokens in every run.
func callSeed(rollout uint64, info llm.CallInfo, prompt []int32) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], rollout)
	h.Write(b[:])
	h.Write([]byte(info.Kind))
	binary.LittleEndian.PutUint64(b[:], uint64(info.Depth)<<32|uint64(info.Turn))
	h.Write(b[:])
	for _, id := range prompt {
		binary.LittleEndian.PutUint32(b[:4], uint32(id))
		h.Write(b[:4])
	}
	return h.Sum64()
}

// mix derives a seed from a run seed and indices.
func mix(seed uint64, xs ...int) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	for _, x := range xs {
		binary.LittleEndian.PutUint64(b[:], uint64(x))
		h.Write(b[:])
	}
	return h.Sum64()
}

// Rollout is one scored run of the policy on a task instance.
type Rollout struct {
	Task       string  `json:"task"`
	Index      int     `json:"index"`
	Group      int     `json:"group"` // the task's place in its step
	Score      float64 `json:"score"` // the eval scorer's
	Reward     float64 `json:"reward"`
	Pass       bool    `json:"pass"`
	StopReason string  `json:"stop_reason"`
	Answer     string  `json:"answer"`
	TraceID    string  `json:"trace_id,omitempty"`
	TraceError string  `json:"trace_error,omitempty"` // the trajectory was not (fully) stored
	Generated  int     `json:"generated_tokens"`
	Samples    int     `json:"samples"`
}

// Batch is what one step trains on: the rollouts of its task groups and
// the samples of the groups that carry signal.
type Batch struct {
	Step     int       `json:"step"`
	Version  int       `json:"version"` // optimizer steps of the policy that sampled it
	Rollouts []Rollout `json:"rollouts"`
	Samples  []Sample  `json:"samples"`
	Dropped  int       `json:"dropped_groups"` // groups whose rewards were all equal
	Seconds  float64   `json:"rollout_seconds"`
}

// budgetStops are the stop reasons that mean the rollout ran out of a
// budget rather than answering.
var budgetStops = map[recursion.StopReason]bool{
	recursion.StopMaxIterations: true, recursion.StopBudgetCalls: true,
	recursion.StopBudgetTokens: true, recursion.StopTimeout: true,
}

// instance picks task group j of step: tasks round-robin, then lengths,
// indices counting up through the run.
func (t *Trainer) instance(step, j int) (eval.Task, eval.Spec) {
	cfg := t.cfg
	idx := (step-1)*cfg.TasksPerStep + j
	task := cfg.Tasks[idx%len(cfg.Tasks)]
	spec := eval.Spec{Index: idx, Seed: int64(cfg.Seed), Tokens: cfg.Lengths[(idx/len(cfg.Tasks))%len(cfg.Lengths)]}
	if ft, ok := task.(eval.FixedTask); ok {
		spec.Index = idx % ft.Len()
		spec.Tokens = ft.Tokens(spec.Index)
	}
	return task, spec
}

// generate runs the rollouts of step with the engine's current weights
// (policy version) and scores them.
func (t *Trainer) generate(ctx context.Context, step, version int) (*Batch, error) {
	start := time.Now()
	cfg := t.cfg
	b := &Batch{Step: step, Version: version}
	type groupOut struct {
		rollouts []Rollout
		samples  [][]Sample
		err      error
	}
	outs := make([]groupOut, cfg.TasksPerStep)
	var wg sync.WaitGroup
	for j := range cfg.TasksPerStep {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := &outs[j]
			o.rollouts, o.samples, o.err = t.runGroup(ctx, step, j)
		}()
	}
	wg.Wait()
	for j, o := range outs {
		if o.err != nil {
			return nil, o.err
		}
		rewards := make([]float64, len(o.rollouts))
		for i, r := range o.rollouts {
			rewards[i] = r.Reward
		}
		adv, keep := advantages(rewards, cfg.ScaleByStd)
		if !keep {
			b.Dropped++
		}
		for i, r := range o.rollouts {
			r.Group = j
			if t.export != nil {
				h := exportLine{Step: step, Version: version, Task: r.Task, Index: r.Index, Group: j, Rollout: i,
					TraceID: r.TraceID, Reward: r.Reward, Advantage: adv[i]}
				if err := t.export.write(h, o.samples[i]); err != nil {
					return nil, err
				}
			}
			if keep {
				for _, s := range o.samples[i] {
					s.Advantage = adv[i]
					b.Samples = append(b.Samples, s)
				}
			}
			b.Rollouts = append(b.Rollouts, r)
		}
	}
	if t.export != nil {
		if err := t.export.flush(); err != nil {
			return nil, err
		}
	}
	b.Seconds = time.Since(start).Seconds()
	return b, nil
}

// runGroup writes the context of task group j of step and runs its G
// rollouts concurrently.
func (t *Trainer) runGroup(ctx context.Context, step, j int) ([]Rollout, [][]Sample, error) {
	cfg := t.cfg
	task, spec := t.instance(step, j)
	path := filepath.Join(t.workDir, fmt.Sprintf("step%d-task%d-%s.txt", step, j, strings.ReplaceAll(task.Name(), ":", "_")))
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("rl: context file: %w", err)
	}
	inst, err := task.Generate(ctx, f, spec)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	defer os.Remove(path)
	if err != nil {
		return nil, nil, fmt.Errorf("rl: generate %s #%d: %w", task.Name(), spec.Index, err)
	}
	rollouts := make([]Rollout, cfg.Group)
	samples := make([][]Sample, cfg.Group)
	errs := make([]error, cfg.Group)
	var wg sync.WaitGroup
	for g := range cfg.Group {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rollouts[g], samples[g], errs[g] = t.rollout(ctx, inst, path, mix(cfg.Seed, step, j, g))
			rollouts[g].Task, rollouts[g].Index = task.Name(), spec.Index
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	return rollouts, samples, nil
}

// rollout runs one RLM request through the engine and REPL with the policy
// and scores its answer.
func (t *Trainer) rollout(ctx context.Context, inst eval.Instance, path string, seed uint64) (Rollout, []Sample, error) {
	cfg := t.cfg
	rec := &recorder{seed: seed}
	req, err := eval.RLMRequest(inst, path)
	if err != nil {
		return Rollout{}, nil, err
	}
	req.Model, req.Limits = "policy", cfg.Limits
	maxTok := cfg.MaxTokens
	req.Sampling.MaxTokens = &maxTok
	// A trajectory that cannot be stored costs the run its record, not
	// the run: the rollout still trains, and the step counts the failure.
	var finish func(recursion.Result, error) error
	var traceErr error
	if cfg.Tracer != nil {
		id, obs, fin, err := cfg.Tracer.StartRun(ctx, req)
		if err != nil {
			traceErr = fmt.Errorf("start trajectory: %w", err)
		} else {
			req.TraceID, req.Observer, finish = id, obs, fin
		}
	}
	res, err := t.engine.Run(context.WithValue(ctx, recorderKey{}, rec), req)
	if finish != nil {
		if ferr := finish(res, err); ferr != nil {
			traceErr = fmt.Errorf("save trajectory: %w", ferr)
		}
	}
	if err != nil {
		return Rollout{}, nil, fmt.Errorf("rl: rollout: %w", err)
	}
	if ctx.Err() != nil {
		return Rollout{}, nil, ctx.Err()
	}
	score, err := eval.Score(inst, res.Answer)
	if err != nil {
		return Rollout{}, nil, fmt.Errorf("rl: score: %w", err)
	}
	r := Rollout{Score: score, Reward: score, Pass: score >= cfg.PassScore, StopReason: string(res.StopReason),
		Answer: res.Answer}
	if traceErr == nil {
		r.TraceID = res.TraceID
	}
	if res.StopReason != recursion.StopFinal {
		r.Reward -= cfg.NoFinalPenalty
	}
	rec.mu.Lock()
	overflow := rec.overflow
	calls := rec.calls
	rec.mu.Unlock()
	if budgetStops[res.StopReason] || overflow {
		r.Reward -= cfg.BudgetPenalty
	}
	if res.StopReason == recursion.StopUpstreamError && !overflow {
		return Rollout{}, nil, fmt.Errorf("rl: rollout failed: %s", res.Error)
	}
	for _, c := range calls {
		r.Generated += len(c.Tokens)
	}
	samples := buildSamples(calls, cfg.RootOnly)
	r.Samples = len(samples)
	if cfg.Tracer != nil && r.TraceID != "" {
		label := fmt.Sprintf("rl %s #%d score %.3g", inst.Task, inst.Index, score)
		if err := cfg.Tracer.Reward(ctx, r.TraceID, r.Reward, label); err != nil {
			traceErr = fmt.Errorf("attach reward: %w", err)
		}
	}
	if traceErr != nil {
		r.TraceError = traceErr.Error()
	}
	return r, samples, nil
}
