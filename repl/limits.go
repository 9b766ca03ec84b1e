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
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultLimits returns the limits a session gets for every zero field of
// its Limits.
func DefaultLimits() Limits {
	return Limits{
		CellTimeout:   30 * time.Second,
		KillGrace:     2 * time.Second,
		MemoryBytes:   4 << 30,
		HeapBytes:     2 << 30,
		MaxOutput:     20000,
		MaxGoroutines: 1000,
		StackBytes:    256 << 20,
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
