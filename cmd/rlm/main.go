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

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/cmd/rlm/internal/modelcmd"
	"github.com/rlm-project/rlm/cmd/rlm/internal/tracecmd"
	"github.com/rlm-project/rlm/cmd/rlm/internal/traincmd"
	"github.com/rlm-project/rlm/repl"
)

// commands lists the subcommands: serve, query and eval live in this
// package (they share its settings table); model, traces and train in
// packages of their own under internal/ (modelcmd, tracecmd, traincmd).
func commands() map[string]cli.Command {
	return map[string]cli.Command{
		"model": modelcmd.Command,
		"eval": {Summary: "run long-context benchmarks (S-NIAH, OOLONG-style) through the engine", Run: runEval,
			Tables: func(env cli.Env) []*cli.Settings { return []*cli.Settings{newEvalFlags(env, io.Discard).settings} }},
		"query": {Summary: "run one RLM over context files, with an upstream model or the built-in one", Run: runQuery,
			Tables: func(env cli.Env) []*cli.Settings { return []*cli.Settings{newQueryFlags(env, io.Discard).settings} }},
		"serve": {Summary: "run the OpenAI-compatible RLM gateway", Run: runServe,
			Tables: func(env cli.Env) []*cli.Settings {
				s, _ := newServeSettings(env, io.Discard)
				return []*cli.Settings{s}
			}},
		"traces": tracecmd.Command,
		"train":  traincmd.Command,
	}
}

// otherEnv are the RLM_ variables rlm reads that are no command's
// settings: the CUDA backend's libraries, and what a REPL worker is
// started with.
var otherEnv = []string{"RLM_CUBLASLT", "RLM_CUDA_DRIVER", "RLM_CUDA_EMU_LIB",
	"RLM_REPL_WORKER", "RLM_REPL_CONFINE", "RLM_REPL_CONFINED", "RLM_REPL_START_MEMORY"}

// newEnv is what every command reads besides its arguments: the
// environment getenv reads, and the names of every command's settings.
func newEnv(getenv func(string) string) cli.Env {
	env := cli.Env{Getenv: getenv}
	var tables []*cli.Settings
	for _, c := range commands() {
		tables = append(tables, c.Tables(env)...)
	}
	env.Names = cli.NamesOf(tables)
	return env
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

// run executes one invocation of rlm and returns its exit status. An
// RLM_ variable that no command reads is warned about first.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	env := newEnv(os.Getenv)
	cli.WarnUnknownEnv(stderr, os.Environ(), env.Names, otherEnv)
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := cmds[args[1]]; ok {
				// Asked-for help is the output, so it goes to stdout (rlm help serve | less).
				return exitStatus(c.Run(ctx, env, append(args[2:], "-h"), stdout, stdout), stderr)
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
	return exitStatus(c.Run(ctx, env, args[1:], stdout, stderr), stderr)
}

func exitStatus(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if err == cli.ErrUsage {
		return 2
	}
	fmt.Fprintf(stderr, "rlm: %v\n", err)
	var bad *cli.FlagError
	if errors.As(err, &bad) {
		return 2
	}
	return 1
}

func usage(w io.Writer, cmds map[string]cli.Command) {
	fmt.Fprintln(w, "rlm: a Recursive Language Model inference server.")
	fmt.Fprintln(w, "\nUsage: rlm <command> [flags] [args]\n\nCommands:")
	names := make([]string, 0, len(cmds))
	for name := range cmds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-8s %s\n", name, cmds[name].Summary)
	}
	fmt.Fprintln(w, "  help     show this list, or `rlm help <command>` for a command's flags")
}
