package worker

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"strings"
	"time"

	"github.com/rlm-project/rlm/repl/protocol"
	"github.com/rlm-project/rlm/repl/sandbox"
)

// applyWorkerLimits is called by the worker on itself after it mapped the
// context. The address-space limit is set relative to what the process has
// already reserved (Go runtime arenas, the interpreter, the mapped context),
// so that MemoryBytes means "room for model data" whatever the context size.
func applyWorkerLimits(l protocol.Limits, statm *os.File) error {
	debug.SetMaxStack(int(l.StackBytes))
	// A soft heap goal makes the GC work hard before the watchdog has to kill.
	debug.SetMemoryLimit(l.HeapBytes)
	return sandbox.LimitAddressSpace(statm, l.MemoryBytes)
}

// watchdog polls the worker's heap and goroutine count and calls die with a
// message for the model when one exceeds its limit. Polling (every 10ms) is
// enough: the address-space rlimit stops allocations that grow faster.
func watchdog(l protocol.Limits, baseGoroutines int, die func(msg string)) {
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
			die(fmt.Sprintf("worker out of memory: the heap grew past the limit of %s", protocol.FormatBytes(l.HeapBytes)))
			return
		}
	}
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
