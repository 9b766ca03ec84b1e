// Package repl runs model-written Go code in sandboxed, persistent interpreter
// sessions. Each session lives in a worker subprocess (the rlm binary started
// with RLM_REPL_WORKER=1) so that a crash, a runaway loop or a huge allocation
// in model code can only take down the worker, never the caller.
package repl

import (
	"context"
	"time"
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

// ContextFile is the offloaded input of a session: a file the worker maps
// read-only and exposes as the Go string `context`, and byte ranges of it
// exposed as `contexts[i]` (slices of the same memory, no copies).
type ContextFile struct {
	Path   string
	Pieces []Range
}

// Range is a half-open byte range [Start, End) of a ContextFile.
type Range struct{ Start, End int64 }

// Limits bound what one session may use. The zero value of a field means the
// default from DefaultLimits.
type Limits struct {
	// CellTimeout is the time a cell may run before it is cancelled, not
	// counting the time it waits for answers to its llm_query/rlm_query
	// calls: those are bounded by the run's own time and call budgets, and
	// a cell waiting on a slow model is not a runaway cell.
	CellTimeout   time.Duration
	KillGrace     time.Duration // how long a cancelled cell may take to stop before the worker is killed
	MemoryBytes   int64         // address-space limit of the worker (RLIMIT_AS), on top of the mapped context
	HeapBytes     int64         // live heap above which the watchdog kills the worker
	MaxOutput     int           // characters of output shown back per cell
	MaxGoroutines int           // goroutines the model code may have alive at once
	StackBytes    int64         // maximum stack of one goroutine; deeper recursion crashes the worker (reported as a stack overflow)

	// Sizes that cross from the worker to the parent. Model code is
	// untrusted: each of these bounds what one cell can make the server
	// hold in memory or write to a trace.
	MaxPromptBytes int64 // one prompt of llm_query / rlm_query; a call with a larger one is refused
	MaxCallBytes   int64 // all prompts of one host call together; also bounds the frames the parent reads
	MaxBatch       int   // prompts in one batched call
	MaxFinalBytes  int64 // the answer given to FINAL; a larger one is refused with a cell error
	MaxErrorBytes  int   // a cell's error text; interpreter errors have long constants elided first
	MaxHostCalls   int   // host calls in flight at once per worker; more wait (back-pressure)
}

// CellResult is what running one cell produced, phrased for the model.
type CellResult struct {
	Output      string        // stdout and stderr, interleaved, truncated to Limits.MaxOutput with a visible note
	OutputBytes int           // size of the output before truncation
	Truncated   bool          // Output was cut
	Error       string        // compile error, panic or limit message, with the cell's own line numbers; empty on success
	Final       *string       // set when the cell called FINAL
	Restarted   bool          // the worker died or was killed and a fresh one replaced it: the model's variables are lost
	Duration    time.Duration // wall time of the cell
}
