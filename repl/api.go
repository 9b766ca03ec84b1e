// Package repl runs model-written Go code in sandboxed, persistent interpreter
// sessions. Each session lives in a worker subprocess (the rlm binary started
// with RLM_REPL_WORKER=1) so that a crash, a runaway loop or a huge allocation
// in model code can only take down the worker, never the caller.
//
// This package is the host side that callers use: the pool of workers,
// sessions, the memory budgets, and the parent's end of the protocol. The
// worker process is package repl/worker, which confines itself with
// repl/sandbox, rewrites cells with repl/rewrite and calls the shims of
// repl/shims; what the two sides exchange is defined once, in
// repl/protocol.
package repl

import (
	"context"
	"os"

	"github.com/rlm-project/rlm/repl/protocol"
	"github.com/rlm-project/rlm/repl/rewrite"
	"github.com/rlm-project/rlm/repl/worker"
)

// Host answers the sub-model calls that code in a session makes. The RLM
// engine implements it. Calls arrive with a context derived from the one given
// to Session.Run, so they are cancelled with the cell.
type Host interface {
	// LLMQuery answers each prompt with a plain model call, concurrently.
	// Results are in input order. A call that fails yields a string that
	// explains the failure to the model instead of an error.
	LLMQuery(ctx context.Context, prompts []string) []string
	// RLMQuery answers each prompt with a child RLM, concurrently, with the
	// same conventions as LLMQuery.
	RLMQuery(ctx context.Context, prompts []string) []string
}

// ToolHost answers the calls code in a session makes to the client's
// tools (SessionConfig.Tools), when the session's Host implements it: a
// host without it answers them with an error string.
type ToolHost interface {
	// CallTools calls tool once per element of args (each a JSON text),
	// concurrently as far as the client allows, and returns each call's
	// output in input order; a call that cannot be made yields a string
	// that says why, as LLMQuery's do.
	CallTools(ctx context.Context, tool string, args []string) []string
}

// ImageHost answers llm_query_image calls, when the session's Host
// implements it: a host without it answers them with an error string.
type ImageHost interface {
	// LLMQueryImage answers prompt with a plain call of a model that takes
	// images, shown the session's images (SessionConfig.Images) at these
	// indexes.
	LLMQueryImage(ctx context.Context, prompt string, images []int) string
}

// The values sessions take and give are those the host and its workers
// exchange, defined once in package protocol.
type (
	// ContextFile is the offloaded input of a session: a file the worker
	// maps read-only and exposes as the Go string `context`, and byte
	// ranges of it exposed as `contexts[i]` (slices of the same memory, no
	// copies).
	ContextFile = protocol.ContextFile
	// Range is a half-open byte range [Start, End) of a ContextFile.
	Range = protocol.Range
	// Limits bound what one session may use. The zero value of a field
	// means the default from DefaultLimits.
	Limits = protocol.Limits
	// CellResult is what running one cell produced, phrased for the model.
	CellResult = protocol.CellResult
)

// DefaultLimits returns the limits a session gets for every zero field of
// its Limits.
func DefaultLimits() Limits { return protocol.DefaultLimits() }

// MaybeRunWorker runs the REPL worker and exits when the process was started
// as one (env RLM_REPL_WORKER=1); otherwise it returns at once. Call it first
// thing in main, and in TestMain of packages whose tests start sessions.
func MaybeRunWorker() {
	if os.Getenv(protocol.WorkerEnv) != "1" {
		return
	}
	os.Exit(worker.Main())
}

// AllowedImports returns the import paths cells may use, sorted. The
// system prompt lists them from here.
func AllowedImports() []string { return rewrite.AllowedImports() }

// IsGo reports whether code is a cell the REPL can parse and that does
// something: an unlabeled fence in a model's reply runs as Go only then. A
// bare literal or name (output pasted back) or prose is not code.
func IsGo(code string) bool { return rewrite.IsGo(code) }
