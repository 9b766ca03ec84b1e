// Command rlm is a Recursive Language Model inference server: an
// OpenAI-compatible gateway that offloads long inputs into a sandboxed Go REPL
// and lets the model work on them through code and sub-calls.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/rlm-project/rlm/repl"
)

// command is one subcommand of rlm. run gets the arguments after the
// subcommand's name.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands lists the subcommands. Each lives in its own file of this package.
func commands() map[string]command {
	return map[string]command{
		"model":  modelCommand,
		"eval":   {"run long-context benchmarks (S-NIAH, OOLONG-style) through the engine", runEval},
		"query":  {"run one RLM over context files against an upstream model", runQuery},
		"serve":  {"run the OpenAI-compatible RLM gateway", runServe},
		"traces": {"list, show, open and export recorded runs (trajectories)", tracesCmd},
		"train":  trainCommand,
	}
}

func main() {
	repl.MaybeRunWorker() // a REPL worker process runs model code and exits here
	ctx, stop := stopOnSignal(os.Stderr, os.Exit)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// stopOnSignal returns a context cancelled by the first SIGINT or SIGTERM,
// which every command treats as "stop cleanly" (a server drains its runs;
// a query ends its run and prints what it has). It says so, and that a
// second signal stops at once: then exit(130) is called without waiting.
func stopOnSignal(stderr io.Writer, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
		case <-done:
			return
		}
		fmt.Fprintln(stderr, "\nrlm: stopping cleanly; press Ctrl-C again to stop at once")
		cancel()
		select {
		case <-ch:
			fmt.Fprintln(stderr, "rlm: stopping at once")
			exit(130)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
}

// run executes one invocation of rlm and returns its exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := cmds[args[1]]; ok {
				// Asked-for help is the output, so it goes to stdout (rlm help serve | less).
				return exitStatus(c.run(ctx, []string{"-h"}, stdout, stdout), stderr)
			}
		}
		usage(stdout, cmds)
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "rlm: unknown command %q\n\n", args[0])
		usage(stderr, cmds)
		return 2
	}
	return exitStatus(c.run(ctx, args[1:], stdout, stderr), stderr)
}

func exitStatus(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if err == errUsage {
		return 2
	}
	fmt.Fprintf(stderr, "rlm: %v\n", err)
	var bad *flagError
	if errors.As(err, &bad) {
		return 2
	}
	return 1
}

// errUsage is returned by a subcommand whose flags were wrong; the flag
// package has already printed why.
var errUsage = errors.New("usage")

// flagError is a flag value that parsed but is not usable (a temperature
// that is not a number, an unknown baseline). rlm prints it and exits 2, as
// for the flag package's own errors.
type flagError struct{ err error }

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return e.err }

// badFlag returns a flagError formatted like fmt.Errorf.
func badFlag(format string, args ...any) error {
	return &flagError{fmt.Errorf(format, args...)}
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "rlm: a Recursive Language Model inference server.")
	fmt.Fprintln(w, "\nUsage: rlm <command> [flags] [args]\n\nCommands:")
	names := make([]string, 0, len(cmds))
	for name := range cmds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-8s %s\n", name, cmds[name].summary)
	}
	fmt.Fprintln(w, "  help     show this list, or `rlm help <command>` for a command's flags")
}
