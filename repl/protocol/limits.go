package protocol

import (
	"fmt"
	"time"

	"github.com/rlm-project/rlm/internal/clip"
)

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

// DefaultLimits returns the limits a session gets for every zero field of
// its Limits.
func DefaultLimits() Limits {
	return Limits{
		CellTimeout: 30 * time.Second,
		KillGrace:   2 * time.Second,
		// What one session reserves from the server's memory budget
		// (repl.MemoryBudget): room for slicing a 10M-token context many times
		// over, small enough that a 24 GiB machine runs ten at once.
		MemoryBytes:   1 << 30,
		HeapBytes:     768 << 20,
		MaxOutput:     20000,
		MaxGoroutines: 1000,
		StackBytes:    256 << 20,
		// A 10M-token context is ~40 MB: a prompt is a slice of it that a
		// sub-model can read (~1M tokens), a call a batch of such slices.
		MaxPromptBytes: 4 << 20,
		MaxCallBytes:   32 << 20,
		MaxBatch:       10000,
		MaxFinalBytes:  4 << 20,
		MaxErrorBytes:  16 << 10,
		MaxHostCalls:   64,
	}
}

// OrDefault returns l with every zero field filled from d.
func OrDefault(l, d Limits) Limits {
	if l.CellTimeout <= 0 {
		l.CellTimeout = d.CellTimeout
	}
	if l.KillGrace <= 0 {
		l.KillGrace = d.KillGrace
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = d.MemoryBytes
	}
	if l.HeapBytes <= 0 {
		l.HeapBytes = d.HeapBytes
	}
	if l.MaxOutput <= 0 {
		l.MaxOutput = d.MaxOutput
	}
	if l.MaxGoroutines <= 0 {
		l.MaxGoroutines = d.MaxGoroutines
	}
	if l.StackBytes <= 0 {
		l.StackBytes = d.StackBytes
	}
	if l.MaxPromptBytes <= 0 {
		l.MaxPromptBytes = d.MaxPromptBytes
	}
	if l.MaxCallBytes <= 0 {
		l.MaxCallBytes = d.MaxCallBytes
	}
	if l.MaxBatch <= 0 {
		l.MaxBatch = d.MaxBatch
	}
	if l.MaxFinalBytes <= 0 {
		l.MaxFinalBytes = d.MaxFinalBytes
	}
	if l.MaxErrorBytes <= 0 {
		l.MaxErrorBytes = d.MaxErrorBytes
	}
	if l.MaxHostCalls <= 0 {
		l.MaxHostCalls = d.MaxHostCalls
	}
	return l
}

// FormatBytes writes a size the way messages about limits do: "1 GiB",
// "768 MiB", "100 bytes".
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// FrameLimit is the largest message a worker may send under l: a host call
// (its prompts, JSON-encoded) or a cell result (FINAL, error and output,
// each of which JSON may escape to six bytes per byte), plus room for the
// envelope. The parent refuses a larger frame from its header alone.
func FrameLimit(l Limits) int64 {
	result := 6 * (l.MaxFinalBytes + int64(l.MaxErrorBytes) + int64(l.MaxOutput) + 64<<10)
	return max(l.MaxCallBytes, result) + 1<<20
}

// CheckCall says why a host call with these prompts is refused, or "".
// Both sides check: the worker to explain it to the model without sending
// anything, the parent because it does not trust the worker.
func CheckCall(l Limits, prompts []string) string {
	if len(prompts) > l.MaxBatch {
		return fmt.Sprintf("a batch of %d prompts exceeds the limit of %d prompts per call; split it", len(prompts), l.MaxBatch)
	}
	var total int64
	for i, p := range prompts {
		if int64(len(p)) > l.MaxPromptBytes {
			return fmt.Sprintf("prompt %d is %d bytes, over the limit of %s per prompt; pass a smaller slice", i, len(p), FormatBytes(l.MaxPromptBytes))
		}
		total += int64(len(p))
	}
	if total > l.MaxCallBytes {
		return fmt.Sprintf("the prompts of this call total %d bytes, over the limit of %s per call; use fewer or smaller prompts", total, FormatBytes(l.MaxCallBytes))
	}
	return ""
}

// Clip keeps the first max bytes of s (note included), cut at a UTF-8
// boundary, with a note saying how much of what (error, output) was shown.
// Both sides clip: the worker what it sends, the parent what it accepts.
func Clip(s string, max int, what string) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	// len(s) twice: the note's length with the largest number it can show.
	note := fmt.Sprintf("\n[%s truncated: %d of %d bytes shown]", what, len(s), len(s))
	head := clip.Head(s, max-len(note))
	return head + fmt.Sprintf("\n[%s truncated: %d of %d bytes shown]", what, len(head), len(s))
}
