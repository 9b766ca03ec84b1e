package repl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rlm-project/rlm/internal/clip"
)

// DefaultLimits returns the limits a session gets for every zero field of
// its Limits.
func DefaultLimits() Limits {
	return Limits{
		CellTimeout: 30 * time.Second,
		KillGrace:   2 * time.Second,
		// What one session reserves from the server's memory budget
		// (budget.go): room for slicing a 10M-token context many times
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

// orDefault fills every zero field of l from d.
func (l Limits) orDefault(d Limits) Limits {
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

// applyWorkerLimits is called by the worker on itself after it mapped the
// context. The address-space limit is set relative to what the process has
// already reserved (Go runtime arenas, the interpreter, the mapped context),
// so that MemoryBytes means "room for model data" whatever the context size.
func applyWorkerLimits(l Limits, statm *os.File) error {
	debug.SetMaxStack(int(l.StackBytes))
	// A soft heap goal makes the GC work hard before the watchdog has to kill.
	debug.SetMemoryLimit(l.HeapBytes)
	vsz, err := addressSpace(statm)
	if err != nil {
		return err
	}
	lim := uint64(vsz + l.MemoryBytes)
	if err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: lim, Max: lim}); err != nil {
		return fmt.Errorf("set RLIMIT_AS to %d: %w", lim, err)
	}
	return nil
}

// addressSpace returns the virtual memory size of this process, read from
// statm, its /proc/self/statm opened before the worker was confined.
func addressSpace(statm *os.File) (int64, error) {
	var buf [256]byte
	n, err := statm.ReadAt(buf[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("read address space size: %w", err)
	}
	f := bytes.Fields(buf[:n])
	if len(f) == 0 {
		return 0, fmt.Errorf("read address space size: empty /proc/self/statm")
	}
	pages, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parse /proc/self/statm: %w", err)
	}
	return pages * int64(os.Getpagesize()), nil
}

// watchdog polls the worker's heap and goroutine count and calls die with a
// message for the model when one exceeds its limit. Polling (every 10ms) is
// enough: the address-space rlimit stops allocations that grow faster.
func watchdog(l Limits, baseGoroutines int, die func(msg string)) {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for range t.C {
		if n := runtime.NumGoroutine() - baseGoroutines; n > l.MaxGoroutines {
			die(fmt.Sprintf("goroutine limit: more than %d goroutines were alive at once", l.MaxGoroutines))
			return
		}
		metrics.Read(samples)
		if v := samples[0].Value; v.Kind() == metrics.KindUint64 && int64(v.Uint64()) > l.HeapBytes {
			die(fmt.Sprintf("worker out of memory: the heap grew past the limit of %s", formatBytes(l.HeapBytes)))
			return
		}
	}
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// frameLimit is the largest message a worker may send under l: a host call
// (its prompts, JSON-encoded) or a cell result (FINAL, error and output,
// each of which JSON may escape to six bytes per byte), plus room for the
// envelope. The parent refuses a larger frame from its header alone.
func (l Limits) frameLimit() int64 {
	result := 6 * (l.MaxFinalBytes + int64(l.MaxErrorBytes) + int64(l.MaxOutput) + 64<<10)
	return max(l.MaxCallBytes, result) + 1<<20
}

// checkCall says why a host call with these prompts is refused, or "".
// Both sides check: the worker to explain it to the model without sending
// anything, the parent because it does not trust the worker.
func checkCall(l Limits, prompts []string) string {
	if len(prompts) > l.MaxBatch {
		return fmt.Sprintf("a batch of %d prompts exceeds the limit of %d prompts per call; split it", len(prompts), l.MaxBatch)
	}
	var total int64
	for i, p := range prompts {
		if int64(len(p)) > l.MaxPromptBytes {
			return fmt.Sprintf("prompt %d is %d bytes, over the limit of %s per prompt; pass a smaller slice", i, len(p), formatBytes(l.MaxPromptBytes))
		}
		total += int64(len(p))
	}
	if total > l.MaxCallBytes {
		return fmt.Sprintf("the prompts of this call total %d bytes, over the limit of %s per call; use fewer or smaller prompts", total, formatBytes(l.MaxCallBytes))
	}
	return ""
}

// clipError keeps the first max bytes of a cell's error, cut at a UTF-8
// boundary, with a note of what was dropped.
func clipError(s string, max int) string { return clipText(s, max, "error") }

// clipText keeps the first max bytes of s (note included), cut at a UTF-8
// boundary, with a note saying how much of what (error, output) was shown.
func clipText(s string, max int, what string) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	// len(s) twice: the note's length with the largest number it can show.
	note := fmt.Sprintf("\n[%s truncated: %d of %d bytes shown]", what, len(s), len(s))
	head := clip.Head(s, max-len(note))
	return head + fmt.Sprintf("\n[%s truncated: %d of %d bytes shown]", what, len(head), len(s))
}

// elideValues replaces, in an interpreter error, the text of long values
// the error quotes whole: the context and its pieces by name, and the
// value of any long constant yaegi prints in "cannot assign to V (T
// constant)". A 40 MB context must not become a 40 MB error.
func elideValues(s string, named map[string]string) string {
	const long = 256
	for _, name := range sortedKeys(named) {
		v := named[name]
		if len(v) >= long && strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, fmt.Sprintf("%s (string, %d bytes)", name, len(v)))
		}
	}
	const prefix = "cannot assign to "
	var b strings.Builder
	for rest := s; ; {
		i := strings.Index(rest, prefix)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i+len(prefix)])
		rest = rest[i+len(prefix):]
		end := strings.Index(rest, " constant)")
		open := -1
		if end >= 0 {
			open = strings.LastIndex(rest[:end], " (")
		}
		if open < long {
			continue
		}
		typ := strings.TrimPrefix(rest[open+2:end], "untyped ")
		fmt.Fprintf(&b, "a constant (%s, %d bytes)", typ, open)
		rest = rest[open:]
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Longest value first: a piece is a substring of the whole context.
	sort.Slice(keys, func(i, j int) bool {
		if len(m[keys[i]]) != len(m[keys[j]]) {
			return len(m[keys[i]]) > len(m[keys[j]])
		}
		return keys[i] < keys[j]
	})
	return keys
}
