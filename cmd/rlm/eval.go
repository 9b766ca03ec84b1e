package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/eval"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/tracing"
)

// evalFlags are rlm eval's flags: the engine's settings, read into set,
// and its own.
type evalFlags struct {
	settings                                                             *cli.Settings
	set                                                                  *config
	tasks, lengths, out, workDir, baseline, baselineModel, traces, owner string
	n, parallel, maxCompletion                                           int
	taskOpts                                                             eval.TaskOptions
}

// runEval is `rlm eval`: long-context tasks through the RLM engine, and
// optionally through the model directly, with scores, costs and a chart.
func runEval(ctx context.Context, env cli.Env, args []string, stdout, stderr io.Writer) error {
	f, err := parseEvalFlags(args, env, stderr)
	if f == nil || err != nil {
		return err // nil for -h
	}
	set := f.set.loaded(f.settings)
	ec := &set.engineConfig
	// Like serve and query: with no upstream, the built-in model answers.
	release, err := set.prepareRun(stderr, false)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	defer release()
	cfg, err := f.config(ec)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "rlm-eval-engine-*")
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	defer os.RemoveAll(tmp)
	runLimits, maxima := set.runBudgets()
	eng, err := ec.newEngine(recursion.Config{TempDir: tmp, Max: maxima})
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	defer eng.Close()
	probeForRun(ctx, eng, ec, stderr)
	cfg.Engine, cfg.Limits, cfg.Progress = eng.Engine, runLimits, stderr
	svc, err := cli.OpenRunTraces("eval", f.traces, f.out, f.owner)
	if err != nil {
		return err
	}
	if svc != nil {
		cfg.Tracer = evalTracer{svc: svc, owner: f.owner}
	}
	if f.baseline == "direct" {
		// The direct baseline sees what the model can: --model-window,
		// whose auto is a local model's own (the built-in one's 8,192
		// tokens, not 128K).
		cfg.Baseline, cfg.BaselineModel, cfg.ContextWindow = eng.Upstream, f.baselineModel, max(ec.window(), 0)
		if ec.Local != nil {
			cfg.Baseline = ec.Local
		}
		if cfg.BaselineModel == "" {
			cfg.BaselineModel = ec.RootModel
		}
	}
	results, runErr := eval.Run(ctx, cfg)
	// Report what finished even when interrupted: the table is as useful
	// for a partial run, and resuming completes it.
	if len(results) > 0 {
		if err := eval.WriteTable(stdout, eval.Summarize(results)); err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		if err := eval.WriteReports(f.out, results); err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		fmt.Fprintf(stderr, "wrote %s, %s, %s, %s and %s\n", filepath.Join(f.out, eval.ResultsFile), eval.SummaryJSON,
			eval.SummaryCSV, eval.ResultsCSV, eval.ChartSVG)
	}
	return runErr
}

// newEvalFlags defines the flags of `rlm eval`, whose help goes to stderr.
func newEvalFlags(env cli.Env, stderr io.Writer) *evalFlags {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &evalFlags{}
	f.settings, f.set = newSettings("eval", fs, env)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: rlm eval [flags]")
		fmt.Fprintln(stderr, "\nRuns long-context tasks through the RLM engine (and with --baseline direct, through the")
		fmt.Fprintln(stderr, "model directly) and writes a table, results.jsonl, summary.json, CSV files and chart.svg.")
		fmt.Fprintln(stderr, "An interrupted run resumes from OUT/results.jsonl. Runs that failed (upstream or harness")
		fmt.Fprintln(stderr, "errors, not wrong answers) are counted apart, retried by the next run, and make rlm eval")
		fmt.Fprintln(stderr, "exit 1 while any remain. See docs/eval.md.")
		f.settings.PrintUsage(stderr)
	}
	fs.StringVar(&f.tasks, "task", "sniah", "comma-separated `tasks`: "+strings.Join(eval.TaskNames(), ", ")+", or custom:FILE.jsonl")
	fs.StringVar(&f.lengths, "lengths", "8k,32k,128k", "comma-separated input `lengths` in tokens (k=1024, m=1024*1024; 4 characters per token)")
	fs.IntVar(&f.n, "n", 20, "instances per task and length")
	fs.IntVar(&f.parallel, "parallel", 2, "instances run at once")
	fs.StringVar(&f.out, "out", "eval-out", "output `directory`; results.jsonl there is resumed")
	fs.StringVar(&f.workDir, "workdir", "", "`directory` for generated contexts while they run (default: a temporary one)")
	fs.StringVar(&f.baseline, "baseline", "", `"direct" also asks the model directly with the whole input`)
	fs.StringVar(&f.baselineModel, "baseline-model", "", "`model` for the direct baseline (default: the root model)")
	fs.StringVar(&f.taskOpts.Haystack, "haystack", "", "sniah: text `file` to use as haystack instead of RULER's noise sentences")
	cli.TaskOptionFlags(fs, &f.taskOpts)
	fs.Float64Var(&f.taskOpts.Depth, "depth", -1, "sniah: needle depth in [0,1]; negative picks a random depth per instance")
	fs.StringVar(&f.traces, "traces", "", "disk store `directory` for the runs' trajectories (default OUT/traces; \"none\" disables)")
	fs.IntVar(&f.maxCompletion, "max-completion-tokens", 0, "max_tokens of each model call (0: the upstream's default)")
	fs.StringVar(&f.owner, "trace-owner", "open", "`owner` the trajectories are saved under (\"open\" is the owner of an rlm serve without API keys)")
	f.settings.Arguments("out", "traces")
	return f
}

// parseEvalFlags returns nil and no error for -h.
func parseEvalFlags(args []string, env cli.Env, stderr io.Writer) (*evalFlags, error) {
	f := newEvalFlags(env, stderr)
	if err := f.settings.Parse(args, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil
		}
		return nil, err
	}
	if f.baseline != "" && f.baseline != "direct" {
		return nil, cli.BadFlag("eval: --baseline %q: the only baseline is direct", f.baseline)
	}
	if f.maxCompletion < 0 {
		return nil, cli.BadFlag("eval: --max-completion-tokens %d: must not be negative", f.maxCompletion)
	}
	return f, nil
}

// config is the evaluation the flags ask for, without its engine.
func (f *evalFlags) config(ec *engineConfig) (eval.Config, error) {
	ls, err := eval.ParseLengths(f.lengths)
	if err != nil {
		return eval.Config{}, cli.BadFlag("eval: --lengths: %w", err)
	}
	samp, err := ec.sampling()
	if err != nil {
		return eval.Config{}, fmt.Errorf("eval: %w", err)
	}
	if f.maxCompletion > 0 {
		samp.MaxTokens = &f.maxCompletion
	}
	if samp.Seed == nil {
		one := 1
		samp.Seed = &one
	}
	ts, err := cli.ParseTasks(f.tasks, f.taskOpts)
	if err != nil {
		return eval.Config{}, fmt.Errorf("eval: --task: %w", err)
	}
	// --seed makes the instances; each derives its calls' seed from it.
	return eval.Config{Tasks: ts, Lengths: ls, N: f.n, Seed: int64(*samp.Seed), Concurrency: f.parallel,
		OutDir: f.out, WorkDir: f.workDir, Model: ec.RootModel, Sampling: samp}, nil
}

// evalTracer saves each run of an evaluation as a trajectory, like the
// gateway does for its requests: RLM runs, and the direct baseline's calls
// (which eval.Run reports as one-node runs).
type evalTracer struct {
	svc   *tracing.Service
	owner string
}

func (t evalTracer) StartTrace(ctx context.Context, r eval.Result, req recursion.Request) (string, recursion.Observer, func(recursion.Result, error) error, error) {
	run, err := t.svc.StartRun(ctx, tracing.RunInfo{Owner: t.owner, Model: req.Model, Sampling: req.Sampling,
		Limits: req.Limits, Messages: req.Messages, Documents: req.Documents,
		Question: r.Question, Metadata: r.TraceMetadata()})
	if err != nil {
		return "", nil, nil, err
	}
	finish := func(res recursion.Result, runErr error) error {
		_, err := run.Finish(ctx, res, runErr)
		return err
	}
	return run.ID(), run.Observer(), finish, nil
}

// Reward attaches the run's score to its trajectory as the reward that
// training exports carry (rlm traces export, rlm train sft --min-reward),
// and as eval.score metadata, which the viewer colors runs by. The label
// names the evaluation item: "eval sniah 8K #3 rlm".
func (t evalTracer) Reward(ctx context.Context, r eval.Result) error {
	label := fmt.Sprintf("eval %s %s #%d %s", r.Task, eval.FormatLength(r.Tokens), r.Index, r.Mode)
	meta := r.TraceMetadata()
	meta["eval.score"] = eval.FormatScore(r.Score)
	_, err := t.svc.Annotate(ctx, t.owner, r.TraceID, &tracing.Reward{Score: r.Score, Label: label}, meta)
	return err
}
