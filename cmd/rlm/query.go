package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/document"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
)

// queryFlags are the flags of `rlm query`: its arguments (the context
// files) and its settings.
type queryFlags struct {
	settings       *cli.Settings
	cfg            *config
	contexts       cli.MultiFlag
	verbose, quiet bool
}

// newQueryFlags defines the flags of `rlm query`, whose help goes to
// stderr.
func newQueryFlags(env cli.Env, stderr io.Writer) *queryFlags {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	fs.SetOutput(stderr)
	q := &queryFlags{}
	q.settings, q.cfg = newSettings("query", fs, env)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: rlm query [flags] --context FILE [--context FILE2] \"question\"")
		fmt.Fprintln(stderr, "\nRuns one Recursive Language Model over the context files (- reads stdin) and prints the answer,")
		fmt.Fprintln(stderr, "then a one-line summary on stderr.")
		q.settings.PrintUsage(stderr)
	}
	fs.Var(&q.contexts, "context", "context `file` offloaded into the REPL; repeatable; - reads stdin")
	fs.BoolVar(&q.verbose, "verbose", false, "stream turns, code, outputs and sub-calls to stderr as they happen")
	fs.BoolVar(&q.quiet, "quiet", false, "print no progress lines (one per root turn) and no notice of the built-in model to stderr")
	q.settings.Arguments("context")
	return q
}

// runQuery is `rlm query`: one RLM run from the terminal.
func runQuery(ctx context.Context, env cli.Env, args []string, stdout, stderr io.Writer) error {
	q := newQueryFlags(env, stderr)
	// Flags may come after the question too.
	words, err := q.settings.ParseInterspersed(args, stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	question := strings.TrimSpace(strings.Join(words, " "))
	if question == "" {
		fmt.Fprintln(stderr, `rlm query: a question is required: rlm query --context FILE "question"; `+"`rlm query -h` lists its flags")
		return cli.ErrUsage
	}
	cfg := q.cfg.loaded(q.settings)
	ec := &cfg.engineConfig
	samp, err := ec.sampling()
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	if err := cfg.checkDocuments(); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	release, err := cfg.prepareRun(stderr, q.quiet)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	defer release()

	tmp, err := os.MkdirTemp("", "rlm-query-*")
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	defer os.RemoveAll(tmp)
	docs, err := readContexts(ctx, cfg, tmp, q.contexts)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	runLimits, maxima := cfg.runBudgets()
	ec.oneRun = true
	eng, err := ec.newEngine(recursion.Config{TempDir: tmp, Max: maxima})
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	defer eng.Close()
	probeForRun(ctx, eng, ec, stderr)
	req := recursion.Request{
		Messages:  []llm.Message{{Role: "user", Content: question}},
		Documents: docs,
		Sampling:  samp,
		Limits:    runLimits,
	}
	switch {
	case q.verbose:
		req.Observer = newVerboseObserver(stderr)
	case !q.quiet:
		req.Observer = newProgressObserver(stderr)
	}
	if ec.Local == nil {
		defer leaveCoreToWorker()()
	}
	res, err := eng.Run(ctx, req)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	return printAnswer(stdout, stderr, res)
}

// leaveCoreToWorker lowers GOMAXPROCS by one, unless it is 1 or set in
// the environment, and returns what restores it. A query's run against an
// upstream computes little in this process: it waits on the model and on
// its REPL worker, which runs the cells. A P with nothing to do only makes
// each goroutine hand-off (the HTTP transport's, the REPL protocol's) wake
// a second thread, which on a small machine takes the CPU the worker needs
// (on 2 cores: per-turn p50 and p90 9% and 24% lower, BENCHMARKS.md). A
// local model computes here, and keeps every P.
func leaveCoreToWorker() (restore func()) {
	n := runtime.GOMAXPROCS(0)
	if n <= 1 || os.Getenv("GOMAXPROCS") != "" {
		return func() {}
	}
	runtime.GOMAXPROCS(n - 1)
	return func() { runtime.GOMAXPROCS(n) }
}

// printAnswer writes a run's answer: standard output holds answers only; a
// run that gave none says why on standard error, and the exit status is 1.
func printAnswer(stdout, stderr io.Writer, res recursion.Result) error {
	if res.StopReason == recursion.StopFinal {
		fmt.Fprintln(stdout, res.Answer)
	}
	fmt.Fprintf(stderr, "iterations=%d llm_calls=%d depth=%d tokens=%d (prompt %d, completion %d) time=%s stop=%s\n",
		res.Iterations, res.LLMCalls, res.MaxDepth, res.Usage.TotalTokens, res.Usage.PromptTokens,
		res.Usage.CompletionTokens, res.Duration.Round(time.Millisecond), res.StopReason)
	if res.StopReason != recursion.StopFinal {
		return fmt.Errorf("query: %s", res.Answer)
	}
	return nil
}

// readContexts reads the --context files as the gateway reads attachments:
// PDF pages become pieces, HTML its text, and other binary content is
// refused. "-" is standard input, copied into tmp first.
func readContexts(ctx context.Context, cfg *config, tmp string, contexts []string) ([]recursion.Document, error) {
	extractor := document.New(cfg.documentOptions())
	defer extractor.Close()
	var docs []recursion.Document
	for _, c := range contexts {
		name, path := filepath.Base(c), c
		if c == "-" {
			name, path = "stdin", filepath.Join(tmp, "stdin.txt")
			if err := copyStdin(path); err != nil {
				return nil, fmt.Errorf("read context from stdin: %w", err)
			}
		}
		doc, err := readContext(ctx, extractor, tmp, name, path)
		if err != nil {
			return nil, fmt.Errorf("context %s: %w", c, err)
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

// copyStdin streams stdin into a file, so `-` works for contexts larger than memory.
func copyStdin(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, os.Stdin); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readContext turns one context file into a Document: a text file as it
// is, a PDF's pages or an HTML page's text saved in dir.
func readContext(ctx context.Context, x *document.Extractor, dir, name, path string) (recursion.Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return recursion.Document{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return recursion.Document{}, err
	}
	res, err := x.Extract(ctx, document.Source{Data: f, Size: st.Size(), Filename: name})
	if err != nil {
		return recursion.Document{}, err
	}
	if res.Pieces == nil {
		return recursion.Document{Name: name, Path: path}, nil
	}
	text, spans, err := document.SaveText(dir, res)
	if err != nil {
		return recursion.Document{}, err
	}
	doc := recursion.Document{Name: name, Path: text}
	for _, sp := range spans {
		doc.Parts = append(doc.Parts, recursion.DocumentPart{Label: sp.Label, Start: sp.Start, End: sp.End})
	}
	return doc, nil
}
