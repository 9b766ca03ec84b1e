package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlm-project/rlm/eval"
	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/tokenizer"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/repl"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/training/rl"
)

// runTrainRL is `rlm train rl`: GRPO-family reinforcement learning on
// rollouts through the RLM engine and the REPL.
func runTrainRL(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rlm train rl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: rlm train rl --model DIR --out DIR [flags]

Trains a Qwen3 checkpoint with reinforcement learning (GRPO family, DPPO trust
region) on rollouts of eval tasks through the RLM engine and the REPL, with
the policy served in-process. Writes checkpoints, the final model,
trainer_state.json and reward.svg to --out and every rollout as a trajectory
(viewable in rlm serve's /ui/). --config FILE reads a JSON object of these
flags ({"lr": 1e-6, "group": 8}); flags on the command line win. An
interrupted run resumes from its newest checkpoint. See docs/training.md.
Flags:
`)
		printFlags(stderr, fs, nil)
	}
	def := rl.DefaultConfig()
	configPath := fs.String("config", "", "JSON `file` of flag values (keys are flag names)")
	modelDir := fs.String("model", "", "Qwen3 checkpoint `directory` to start from (config.json, *.safetensors, tokenizer.json); required")
	out := fs.String("out", "", "output `directory`; required")
	tasks := fs.String("task", "sniah", "comma-separated `tasks`: "+strings.Join(eval.TaskNames(), ", ")+", or custom:FILE.jsonl")
	taskOpts := eval.TaskOptions{Depth: -1}
	taskOptionFlags(fs, &taskOpts)
	lengths := fs.String("lengths", "1k", "comma-separated context `lengths` in tokens, used in turn (k=1024)")
	fs.IntVar(&def.TasksPerStep, "tasks-per-step", def.TasksPerStep, "task instances per step")
	fs.IntVar(&def.Group, "group", def.Group, "rollouts per task instance (G)")
	fs.IntVar(&def.Steps, "steps", def.Steps, "optimizer steps")
	fs.Uint64Var(&def.Seed, "seed", def.Seed, "seed of task instances and sampling; same seed and flags give the same run")
	fs.Float64Var(&def.LR, "lr", def.LR, "peak learning rate")
	fs.Float64Var(&def.MinLRRatio, "min-lr-ratio", def.MinLRRatio, "final learning rate of the cosine schedule, as a fraction of --lr (1: constant)")
	fs.IntVar(&def.WarmupSteps, "warmup", def.WarmupSteps, "linear warmup steps")
	fs.Float64Var(&def.WeightDecay, "weight-decay", def.WeightDecay, "AdamW decoupled weight decay (weight matrices only)")
	fs.Float64Var(&def.Beta1, "beta1", def.Beta1, "AdamW beta1")
	fs.Float64Var(&def.Beta2, "beta2", def.Beta2, "AdamW beta2")
	fs.Float64Var(&def.Eps, "adam-eps", def.Eps, "AdamW epsilon")
	fs.Float64Var(&def.ClipNorm, "clip", def.ClipNorm, "global gradient-norm clipping threshold (0 disables)")
	fs.StringVar(&def.Loss.Mode, "loss", def.Loss.Mode, "trust region: dppo (mask tokens whose probability moved more than --tv-low/-tv-high) or ppo (clip the ratio at 1-clip-low, 1+clip-high)")
	fs.Float64Var(&def.Loss.TVLow, "tv-low", def.Loss.TVLow, "dppo: largest fall of a token's probability, with a negative advantage")
	fs.Float64Var(&def.Loss.TVHigh, "tv-high", def.Loss.TVHigh, "dppo: largest rise of a token's probability, with a positive advantage")
	fs.Float64Var(&def.Loss.ClipLow, "clip-low", def.Loss.ClipLow, "ppo: lower clip of the ratio is 1-clip-low")
	fs.Float64Var(&def.Loss.ClipHigh, "clip-high", def.Loss.ClipHigh, "ppo: upper clip of the ratio is 1+clip-high")
	fs.Float64Var(&def.Loss.LogRatioPenalty, "log-ratio-penalty", def.Loss.LogRatioPenalty, "weight of the (log ratio)^2 penalty on sampled tokens (0: none)")
	fs.Float64Var(&def.Temperature, "temperature", def.Temperature, "sampling temperature of the rollouts; the loss scores them under the same tempered distribution (below 1 a weak policy finds more correct runs)")
	fs.BoolVar(&def.ScaleByStd, "scale-by-std", def.ScaleByStd, "divide advantages by the group's standard deviation")
	fs.IntVar(&def.MaxStaleness, "max-staleness", def.MaxStaleness, "steps the sampling policy may lag the trained one; rollouts of the next steps are generated while a step trains (0: synchronous)")
	fs.BoolVar(&def.RootOnly, "root-only", def.RootOnly, "train only the root node's turns, not child RLMs' or llm_query calls'")
	fs.Float64Var(&def.NoFinalPenalty, "no-final-penalty", def.NoFinalPenalty, "subtracted from the reward of a rollout that did not end with FINAL")
	fs.Float64Var(&def.BudgetPenalty, "budget-penalty", def.BudgetPenalty, "subtracted from the reward of a rollout that ran out of turns, calls, tokens, time or context window")
	fs.Float64Var(&def.PassScore, "pass-score", def.PassScore, "score that counts as a pass")
	fs.IntVar(&def.MaxTokens, "max-completion-tokens", def.MaxTokens, "max_tokens of each model call")
	fs.IntVar(&def.SeqLen, "seq-len", def.SeqLen, "context window of a model call (prompt plus completion), also the longest training sample")
	kvCache := fs.String("kv-cache", "auto", "KV cache pool of the rollout engine: a `size` like 1GiB, or tokens like 65536tokens; auto: every rollout of a step at --seq-len, at most 1 GiB")
	fs.IntVar(&def.Limits.MaxIterations, "max-iterations", def.Limits.MaxIterations, "turns per RLM node")
	maxDepth := fs.Int("max-depth", def.Limits.MaxDepth, "deepest rlm_query level; 0 makes rlm_query a plain llm_query")
	fs.IntVar(&def.Limits.MaxLLMCalls, "max-llm-calls", 0, "model calls per rollout, root turns included (0: the engine's default)")
	fs.DurationVar(&def.Limits.Timeout, "timeout", 0, "wall time per rollout (0: the engine's default)")
	replLim := repl.DefaultLimits()
	fs.DurationVar(&replLim.CellTimeout, "cell-timeout", replLim.CellTimeout, "time a REPL cell may run, not counting the time it waits for its llm_query/rlm_query calls")
	fs.IntVar(&replLim.MaxOutput, "max-output", replLim.MaxOutput, "characters of cell output shown to the model")
	fs.IntVar(&def.CheckpointEvery, "checkpoint-every", def.CheckpointEvery, "steps between checkpoints (0: only at the end)")
	fs.IntVar(&def.KeepCheckpoints, "keep-checkpoints", def.KeepCheckpoints, "checkpoint directories to keep")
	fs.IntVar(&def.LogEvery, "log-every", def.LogEvery, "steps between progress lines")
	fs.IntVar(&def.StopAfter, "stop-after", 0, "end after this step with a checkpoint (to split a run into jobs)")
	dtype := fs.String("dtype", "bf16", "`dtype` of the final model: bf16 or f32 (checkpoints are always f32)")
	resume := fs.Bool("resume", true, "continue from the newest checkpoint in --out when there is one")
	traces := fs.String("traces", "", "disk store `directory` for the rollouts' trajectories (default OUT/traces; \"none\" disables)")
	traceOwner := fs.String("trace-owner", "open", "`owner` the trajectories are saved under (\"open\" is the owner of an rlm serve without API keys)")
	fs.StringVar(&def.Export, "export", "", "also append every rollout's samples (token ids, loss masks, sampler logprobs, reward, advantage) to OUT/"+rl.ExportFile+" in this `format`: "+strings.Join(rl.ExportFormats, " or ")+" (see docs/training.md)")
	device := fs.String("device", "auto", "where to train: auto (a GPU when there is one), cpu, cuda or cuda:N")
	precision := fs.String("precision", "bf16", "CUDA arithmetic of matrix products and attention: bf16, tf32 or fp32")
	if err := parseWithConfig(fs, args, configPath, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		if errors.Is(err, errUsage) {
			return err
		}
		return badFlag("train rl: %w", err)
	}
	if *modelDir == "" || *out == "" {
		fmt.Fprintln(stderr, "rlm train rl: --model and --out are required")
		fs.Usage()
		return errUsage
	}
	var err error
	if def.SaveDType, err = parseDType(*dtype); err != nil {
		return badFlag("train rl: %w", err)
	}
	if def.Lengths, err = eval.ParseLengths(*lengths); err != nil {
		return badFlag("train rl: --lengths: %w", err)
	}
	if *kvCache != "auto" {
		kv, err := parseKVCache(*kvCache)
		if err != nil {
			return badFlag("train rl: --kv-cache: %w", err)
		}
		def.KVCacheTokens, def.KVCacheBytes = kv.KVCacheTokens, kv.KVCacheBytes
	}
	def.Limits.MaxDepth = *maxDepth
	if *maxDepth == 0 {
		def.Limits.MaxDepth = -1 // recursion.Limits writes "root alone" as -1
	}
	if def.Tasks, err = parseTasks(*tasks, taskOpts); err != nil {
		return badFlag("train rl: --task: %w", err)
	}
	def.OutDir, def.Resume, def.TokenizerFrom = *out, *resume, *modelDir
	if def.Export != "" && !slices.Contains(rl.ExportFormats, def.Export) {
		return badFlag("train rl: --export %q: want one of %s", def.Export, strings.Join(rl.ExportFormats, ", "))
	}
	dev, err := parseDevice(*device, *precision)
	if err != nil {
		return badFlag("train rl: %w", err)
	}
	tok, err := tokenizer.Load(*modelDir)
	if err != nil {
		return fmt.Errorf("train rl: %w", err)
	}
	be, err := dev.openLogged(stdout)
	if err != nil {
		return fmt.Errorf("train rl: %w", err)
	}
	m, err := model.Load(be, *modelDir)
	if err != nil {
		return fmt.Errorf("train rl: %w", err)
	}
	pool, err := repl.NewPool(repl.PoolConfig{Limits: replLim})
	if err != nil {
		return fmt.Errorf("train rl: start REPL pool: %w", err)
	}
	defer pool.Close()
	def.Sandbox, def.REPLLimits = recursion.PoolSandbox(pool), replLim
	svc, err := openRunTraces("train rl", *traces, *out, *traceOwner)
	if err != nil {
		return err
	}
	if svc != nil {
		def.Tracer = rlTracer{svc: svc, owner: *traceOwner}
	}
	fmt.Fprintf(stdout, "model: %s, %d parameters, backend %s\n", *modelDir, m.NumParams(), m.Backend().Name())
	tr, err := rl.New(m, tok, def)
	if err != nil {
		return fmt.Errorf("train rl: %w", err)
	}
	defer tr.Close()
	if tr.Step() > 0 {
		fmt.Fprintf(stdout, "resuming at step %d of %d from %s\n", tr.Step(), def.Steps, *out)
	}
	res, err := tr.Run(ctx, stdout)
	if err != nil {
		return fmt.Errorf("train rl: %w", err)
	}
	if n := len(res.Steps); n > 0 {
		last := res.Steps[n-1]
		fmt.Fprintf(stdout, "done: %d steps, last reward %.3f, pass rate %.2f; model in %s, chart %s\n",
			n, last.RewardMean, last.PassRate, *out, filepath.Join(*out, "reward.svg"))
	}
	return nil
}

// parseWithConfig parses args into fs, then sets every flag that the
// command line left unset from the JSON object in *configPath, if any.
func parseWithConfig(fs *flag.FlagSet, args []string, configPath *string, stderr io.Writer) error {
	if err := parseFlags(fs, args, stderr, fs.Usage); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *configPath == "" {
		return nil
	}
	raw, err := os.ReadFile(*configPath)
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	var values map[string]json.RawMessage
	if err := json.Unmarshal(raw, &values); err != nil {
		return fmt.Errorf("--config %s: want a JSON object of flag values: %w", *configPath, err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for name, v := range values {
		if to := renamedTo(fs, name); to != "" {
			return fmt.Errorf("--config %s: setting %q was renamed %q", *configPath, name, to)
		}
		if name == "config" || fs.Lookup(name) == nil {
			return fmt.Errorf("--config %s: unknown setting %q", *configPath, name)
		}
		if set[name] {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v) // a number or a boolean, as written
		}
		if err := fs.Set(name, s); err != nil {
			return fmt.Errorf("--config %s: %s: %w", *configPath, name, err)
		}
	}
	return nil
}

// rlTracer stores rollouts as trajectories with their rewards, like the
// gateway stores its requests.
type rlTracer struct {
	svc   *tracing.Service
	owner string
}

func (t rlTracer) StartRun(ctx context.Context, req recursion.Request) (string, recursion.Observer, func(recursion.Result, error) error, error) {
	run, err := t.svc.StartRun(ctx, tracing.RunInfo{Owner: t.owner, Model: req.Model, Sampling: req.Sampling,
		Limits: req.Limits, Messages: req.Messages, Documents: req.Documents})
	if err != nil {
		return "", nil, nil, err
	}
	finish := func(res recursion.Result, runErr error) error {
		_, err := run.Finish(ctx, res, runErr)
		return err
	}
	return run.ID(), run.Observer(), finish, nil
}

func (t rlTracer) Reward(ctx context.Context, traceID string, reward float64, label string) error {
	_, err := t.svc.Feedback(ctx, t.owner, traceID, tracing.Reward{Score: reward, Label: label})
	return err
}
