package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rlm-project/rlm/document"
	"github.com/rlm-project/rlm/internal/cli"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
)

// runQuery is `rlm query`: one RLM run from the terminal.
func runQuery(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	fs.SetOutput(stderr)
	settings := registerSettings(fs, "query", os.Getenv)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: rlm query [flags] --context FILE [--context FILE2] \"question\"")
		fmt.Fprintln(stderr, "\nRuns one Recursive Language Model over the context files (- reads stdin) and prints the answer,")
		fmt.Fprintln(stderr, "then a one-line summary on stderr.")
		settings.printUsage(stderr)
	}
	var contexts cli.MultiFlag
	fs.Var(&contexts, "context", "context `file` offloaded into the REPL; repeatable; - reads stdin")
	verbose := fs.Bool("verbose", false, "stream turns, code, outputs and sub-calls to stderr as they happen")
	quiet := fs.Bool("quiet", false, "print no progress lines (one per root turn) to stderr")
	// Flags may come after the question too.
	words, err := cli.ParseInterspersed(fs, args, stderr)
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
	cfg, err := settings.load()
	if err != nil {
		return err
	}
	ec := &cfg.engineConfig
	samp, err := ec.sampling()
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	if err := cfg.checkDocuments(); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	release, err := cfg.prepareRun(stderr)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	defer release()

	tmp, err := os.MkdirTemp("", "rlm-query-*")
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	defer os.RemoveAll(tmp)
	docs, err := readContexts(ctx, cfg, tmp, contexts)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	runLimits, maxima := cfg.runBudgets()
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
	case *verbose:
		req.Observer = &verboseObserver{w: stderr}
	case !*quiet:
		req.Observer = &progressObserver{w: stderr, start: time.Now()}
	}
	res, err := eng.Run(ctx, req)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	return printAnswer(stdout, stderr, res)
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

// verboseObserver prints a run's events as they happen.
type verboseObserver struct {
	mu sync.Mutex
	w  io.Writer
}

func short(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d chars)", len(s))
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

func (v *verboseObserver) Observe(ev recursion.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	p := fmt.Sprintf("[%s]", ev.NodeID)
	switch ev.Kind {
	case recursion.EventNodeStart:
		fmt.Fprintf(v.w, "%s node start (depth %d, parent %q)\n", p, ev.Depth, ev.ParentID)
	case recursion.EventTurnStart:
		fmt.Fprintf(v.w, "%s turn %d\n", p, ev.Turn)
	case recursion.EventModelCall:
		m := ev.Model
		fmt.Fprintf(v.w, "%s model %s: %d+%d tokens in %s\n", p, m.Model, m.Usage.PromptTokens, m.Usage.CompletionTokens, m.Latency.Round(time.Millisecond))
		if m.Err != "" {
			fmt.Fprintf(v.w, "%s model error: %s\n", p, m.Err)
		}
		fmt.Fprintln(v.w, indent(short(m.Response, 2000)))
	case recursion.EventCellStart:
		fmt.Fprintf(v.w, "%s cell %d.%d running\n", p, ev.Turn, ev.Cell)
	case recursion.EventCellEnd:
		c := ev.CellRun
		fmt.Fprintf(v.w, "%s cell %d.%d done in %s\n", p, ev.Turn, ev.Cell, c.Duration.Round(time.Millisecond))
		if c.Output != "" {
			fmt.Fprintln(v.w, indent(short(c.Output, 1000)))
		}
		if c.Error != "" {
			fmt.Fprintf(v.w, "%s cell error: %s\n", p, short(c.Error, 500))
		}
	case recursion.EventSubCallStart:
		s := ev.SubCall
		fmt.Fprintf(v.w, "%s %s_query %s start: %q\n", p, s.Kind, s.ID, short(s.Prompt, 120))
	case recursion.EventSubCallEnd:
		s := ev.SubCall
		status := "ok"
		if s.Err != "" {
			status = "error: " + s.Err
		}
		fmt.Fprintf(v.w, "%s %s_query %s %s in %s: %q\n", p, s.Kind, s.ID, status, s.Duration.Round(time.Millisecond), short(s.Response, 200))
	case recursion.EventNodeEnd:
		e := ev.End
		fmt.Fprintf(v.w, "%s node end: %s after %d turns, %d tokens\n", p, e.StopReason, e.Iterations, e.TreeUsage.TotalTokens)
	}
}

// progressObserver prints one line per root turn, so a long run shows it is alive.
type progressObserver struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	subs  int
}

func (p *progressObserver) Observe(ev recursion.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case ev.Kind == recursion.EventSubCallEnd:
		p.subs++
	case ev.Kind == recursion.EventTurnStart && ev.NodeID == "0":
		fmt.Fprintf(p.w, "rlm: turn %d (%d sub-calls so far, %s)\n", ev.Turn, p.subs, time.Since(p.start).Round(time.Second))
	}
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
