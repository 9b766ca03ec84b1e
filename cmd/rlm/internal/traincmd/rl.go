package traincmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/eval"
	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/tokenizer"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/repl"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/training/rl"
)

// rlFlags are rlm train rl's flags, most of them rl.Config's fields.
type rlFlags struct {
	trainFlags
	settings                               *cli.Settings
	dev                                    cli.Device
	cfg                                    rl.Config
	tasks, lengths, kvCache, traces, owner string
	taskOpts                               eval.TaskOptions
	maxDepth                               int
	replLim                                repl.Limits
}

// runTrainRL is `rlm train rl`: GRPO-family reinforcement learning on
// rollouts through the RLM engine and the REPL.
func runTrainRL(ctx context.Context, env cli.Env, args []string, stdout, stderr io.Writer) error {
	f, err := parseRLFlags(args, env, stderr)
	if f == nil || err != nil {
		return err // nil for -h
	}
	tok, err := tokenizer.Load(f.model)
	if err != nil {
		return fmt.Errorf("train rl: %w", err)
	}
	be, err := f.dev.OpenLogged(stdout)
	if err != nil {
		return fmt.Errorf("train rl: %w", err)
	}
	m, err := model.Load(be, f.model)
	if err != nil {
		return fmt.Errorf("train rl: %w", err)
	}
	pool, err := repl.NewPool(repl.PoolConfig{Limits: f.replLim})
	if err != nil {
		return fmt.Errorf("train rl: start REPL pool: %w", err)
	}
	defer pool.Close()
	f.cfg.Sandbox, f.cfg.REPLLimits = recursion.PoolSandbox(pool), f.replLim
	svc, err := cli.OpenRunTraces("train rl", f.traces, f.out, f.owner)
	if err != nil {
		return err
	}
	if svc != nil {
		f.cfg.Tracer = rlTracer{svc: svc, owner: f.owner}
	}
	fmt.Fprintf(stdout, "model: %s, %d parameters, backend %s\n", f.model, m.NumParams(), m.Backend().Name())
	tr, err := rl.New(m, tok, f.cfg)
	if err != nil {
		return fmt.Errorf("train rl: %w", err)
	}
	defer tr.Close()
	if tr.Step() > 0 {
		fmt.Fprintf(stdout, "resuming at step %d of %d from %s\n", tr.Step(), f.cfg.Steps, f.out)
	}
	res, err := tr.Run(ctx, stdout)
	if err != nil {
		return fmt.Errorf("train rl: %w", err)
	}
	if n := len(res.Steps); n > 0 {
		last := res.Steps[n-1]
		fmt.Fprintf(stdout, "done: %d steps, last reward %.3f, pass rate %.2f; model in %s, chart %s\n",
			n, last.RewardMean, last.PassRate, f.out, filepath.Join(f.out, "reward.svg"))
	}
	if mem := cli.DeviceMemory(be); mem != "" {
		fmt.Fprintln(stdout, mem)
	}
	return nil
}

// newRLFlags defines the flags of `rlm train rl`, whose help goes to
// stderr.
func newRLFlags(env cli.Env, stderr io.Writer) *rlFlags {
	fs := flag.NewFlagSet("rlm train rl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &rlFlags{cfg: rl.DefaultConfig(), taskOpts: eval.TaskOptions{Depth: -1}, replLim: repl.DefaultLimits(),
		settings: cli.NewSettings("train rl", fs, env)}
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: rlm train rl --model DIR --out DIR [flags]

Trains a Qwen3 checkpoint with reinforcement learning (GRPO family, DPPO trust
region) on rollouts of eval tasks through the RLM engine and the REPL, with
the policy served in-process. Writes checkpoints, the final model,
trainer_state.json and reward.svg to --out and every rollout as a trajectory
(viewable in rlm serve's /ui/). An interrupted run resumes from its newest
checkpoint. See docs/training.md.
`)
		f.settings.PrintUsage(stderr)
	}
	c := &f.cfg
	f.trainFlags.register(fs, "checkpoints, final model, trainer_state.json, reward.svg, traces", "continue from the newest checkpoint in --out when there is one")
	optimizer{&c.LR, &c.MinLRRatio, &c.WeightDecay, &c.Beta1, &c.Beta2, &c.Eps, &c.ClipNorm,
		&c.WarmupSteps, &c.CheckpointEvery, &c.KeepCheckpoints, &c.LogEvery, &c.StopAfter, &c.Seed}.register(fs)
	fs.StringVar(&f.tasks, "task", "sniah", "comma-separated `tasks`: "+strings.Join(eval.TaskNames(), ", ")+", or custom:FILE.jsonl")
	cli.TaskOptionFlags(fs, &f.taskOpts)
	fs.StringVar(&f.lengths, "lengths", "1k", "comma-separated context `lengths` in tokens, used in turn (k=1024)")
	fs.IntVar(&c.TasksPerStep, "tasks-per-step", c.TasksPerStep, "task instances per step")
	fs.IntVar(&c.Group, "group", c.Group, "rollouts per task instance (G)")
	fs.IntVar(&c.Steps, "steps", c.Steps, "optimizer steps")
	fs.StringVar(&c.Loss.Mode, "loss", c.Loss.Mode, "trust region: dppo (mask tokens whose probability moved more than --tv-low/-tv-high) or ppo (clip the ratio at 1-clip-low, 1+clip-high)")
	fs.Float64Var(&c.Loss.TVLow, "tv-low", c.Loss.TVLow, "dppo: largest fall of a token's probability, with a negative advantage")
	fs.Float64Var(&c.Loss.TVHigh, "tv-high", c.Loss.TVHigh, "dppo: largest rise of a token's probability, with a positive advantage")
	fs.Float64Var(&c.Loss.ClipLow, "clip-low", c.Loss.ClipLow, "ppo: lower clip of the ratio is 1-clip-low")
	fs.Float64Var(&c.Loss.ClipHigh, "clip-high", c.Loss.ClipHigh, "ppo: upper clip of the ratio is 1+clip-high")
	fs.Float64Var(&c.Loss.LogRatioPenalty, "log-ratio-penalty", c.Loss.LogRatioPenalty, "weight of the (log ratio)^2 penalty on sampled tokens (0: none)")
	fs.Float64Var(&c.Temperature, "temperature", c.Temperature, "sampling temperature of the rollouts; the loss scores them under the same tempered distribution (below 1 a weak policy finds more correct runs)")
	fs.BoolVar(&c.ScaleByStd, "scale-by-std", c.ScaleByStd, "divide advantages by the group's standard deviation")
	fs.IntVar(&c.MaxStaleness, "max-staleness", c.MaxStaleness, "steps the sampling policy may lag the trained one; rollouts of the next steps are generated while a step trains (0: synchronous)")
	fs.BoolVar(&c.RootOnly, "root-only", c.RootOnly, "train only the root node's turns, not child RLMs' or llm_query calls'")
	fs.Float64Var(&c.NoFinalPenalty, "no-final-penalty", c.NoFinalPenalty, "subtracted from the reward of a rollout that did not end with FINAL")
	fs.Float64Var(&c.BudgetPenalty, "budget-penalty", c.BudgetPenalty, "subtracted from the reward of a rollout that ran out of turns, calls, tokens, time or context window")
	fs.Float64Var(&c.PassScore, "pass-score", c.PassScore, "score that counts as a pass")
	fs.IntVar(&c.MaxTokens, "max-completion-tokens", c.MaxTokens, "max_tokens of each model call")
	fs.IntVar(&c.SeqLen, "seq-len", c.SeqLen, "context window of a model call (prompt plus completion), also the longest training sample")
	fs.StringVar(&f.kvCache, "kv-cache", "auto", "KV cache pool of the rollout engine: a `size` like 1GiB, or tokens like 65536tokens; auto: every rollout of a step at --seq-len, at most 1 GiB")
	fs.IntVar(&c.Limits.MaxIterations, "max-iterations", c.Limits.MaxIterations, "turns per RLM node")
	fs.IntVar(&f.maxDepth, "max-depth", c.Limits.MaxDepth, "deepest rlm_query level; 0 makes rlm_query a plain llm_query")
	fs.IntVar(&c.Limits.MaxLLMCalls, "max-llm-calls", 0, "model calls per rollout, root turns included (0: the engine's default)")
	fs.DurationVar(&c.Limits.Timeout, "timeout", 0, "wall time per rollout (0: the engine's default)")
	fs.DurationVar(&f.replLim.CellTimeout, "cell-timeout", f.replLim.CellTimeout, "time a REPL cell may run, not counting the time it waits for its llm_query/rlm_query calls")
	fs.IntVar(&f.replLim.MaxOutput, "max-output", f.replLim.MaxOutput, "characters of cell output shown to the model")
	fs.StringVar(&f.traces, "traces", "", "disk store `directory` for the rollouts' trajectories (default OUT/traces; \"none\" disables)")
	fs.StringVar(&f.owner, "trace-owner", "open", "`owner` the trajectories are saved under (\"open\" is the owner of an rlm serve without API keys)")
	fs.StringVar(&c.Export, "export", "", "also append every rollout's samples (token ids, loss masks, sampler logprobs, reward, advantage) to OUT/"+rl.ExportFile+" in this `format`: "+strings.Join(rl.ExportFormats, " or ")+" (see docs/training.md)")
	f.settings.Arguments("model", "out", "traces")
	return f
}

// parseRLFlags returns nil and no error for -h.
func parseRLFlags(args []string, env cli.Env, stderr io.Writer) (*rlFlags, error) {
	f := newRLFlags(env, stderr)
	if err := f.settings.Parse(args, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil
		}
		return nil, err
	}
	if f.model == "" || f.out == "" {
		fmt.Fprintln(stderr, "rlm train rl: --model and --out are required; `rlm train rl -h` lists its flags")
		return nil, cli.ErrUsage
	}
	return f, f.check()
}

// check validates the flags and fills in the rest of the trainer config.
func (f *rlFlags) check() error {
	var err error
	c := &f.cfg
	if c.SaveDType, f.dev, err = f.trainFlags.check("train rl"); err != nil {
		return err
	}
	if c.Lengths, err = eval.ParseLengths(f.lengths); err != nil {
		return cli.BadFlag("train rl: --lengths: %w", err)
	}
	if f.kvCache != "auto" {
		kv, err := cli.ParseKVCache(f.kvCache)
		if err != nil {
			return cli.BadFlag("train rl: --kv-cache: %w", err)
		}
		c.KVCacheTokens, c.KVCacheBytes = kv.KVCacheTokens, kv.KVCacheBytes
	}
	c.Limits.MaxDepth = f.maxDepth
	if f.maxDepth == 0 {
		c.Limits.MaxDepth = -1 // recursion.Limits writes "root alone" as -1
	}
	if c.Tasks, err = cli.ParseTasks(f.tasks, f.taskOpts); err != nil {
		return cli.BadFlag("train rl: --task: %w", err)
	}
	c.OutDir, c.Resume, c.TokenizerFrom = f.out, f.resume, f.model
	if c.Export != "" && !slices.Contains(rl.ExportFormats, c.Export) {
		return cli.BadFlag("train rl: --export %q: want one of %s", c.Export, strings.Join(rl.ExportFormats, ", "))
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
