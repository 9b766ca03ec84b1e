package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
)

// replBudget is the REPL's memory budgets in bytes.
type replBudget struct {
	total, request, session int64 // session: what one session without context reserves
	machine                 int64 // the machine's memory (0: unknown)
}

// sessionOverhead is what a REPL session reserves beside --repl-memory-bytes
// and its context (repl's runtimeReserve).
const sessionOverhead = 64 << 20

// replMemory resolves --repl-memory-total and --request-repl-memory: "auto"
// is half the machine's memory, and half of that (at least two sessions'
// worth, within the total) for one request. It
// refuses a configuration whose worst case the machine cannot hold: a total
// over its memory, or a budget that cannot hold one session.
func (c *engineConfig) replMemory() (replBudget, error) {
	b := replBudget{machine: machineMemory(), session: c.REPL.MemoryBytes + sessionOverhead}
	var err error
	if b.total, err = budgetSize("repl-memory-total", c.REPLMemoryTotal, b.machine/2); err != nil {
		return b, err
	}
	// auto: half the total, but room for a root and a child where the
	// total has it.
	if b.request, err = budgetSize("request-repl-memory", c.RequestREPLMemory, max(b.total/2, min(b.total, 2*b.session))); err != nil {
		return b, err
	}
	switch {
	case c.REPLMemoryWait < 0:
		return b, fmt.Errorf("repl-memory-wait %s: must not be negative", c.REPLMemoryWait)
	case b.total == 0 && c.REPLMemoryTotal == "auto":
		return b, fmt.Errorf("repl-memory-total auto: this machine's memory is unknown (no /proc/meminfo); give a size")
	case b.machine > 0 && b.total > b.machine:
		return b, fmt.Errorf("repl-memory-total %s is more than this machine's memory (%s): REPL workers could use it all",
			humanSize(b.total), humanSize(b.machine))
	case b.total < b.session:
		return b, fmt.Errorf("repl-memory-total %s cannot hold one REPL session, which reserves %s (--repl-memory-bytes %s and 64 MiB for its runtime, plus its context)",
			humanSize(b.total), humanSize(b.session), humanSize(c.REPL.MemoryBytes))
	case b.request < b.session:
		return b, fmt.Errorf("request-repl-memory %s cannot hold one REPL session, which reserves %s (--repl-memory-bytes %s and 64 MiB for its runtime, plus its context)",
			humanSize(b.request), humanSize(b.session), humanSize(c.REPL.MemoryBytes))
	case b.request > b.total:
		b.request = b.total
	}
	return b, nil
}

func budgetSize(name, v string, auto int64) (int64, error) {
	if v == "" || v == "auto" {
		return auto, nil
	}
	n, err := cli.ParseSize(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s %q: want a size like 8GiB, or auto", name, v)
	}
	return n, nil
}

// machineMemory is MemTotal of /proc/meminfo in bytes, 0 where unknown.
func machineMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// String describes the budgets for the start-up log.
func (b replBudget) String() string {
	s := fmt.Sprintf("REPL memory: %s for all sessions, %s for one request's; a session reserves %s and its context",
		humanSize(b.total), humanSize(b.request), humanSize(b.session))
	if b.machine > 0 {
		s += fmt.Sprintf(" (machine: %s)", humanSize(b.machine))
	}
	return s
}

// humanSize writes n bytes for people: 11.7 GiB, 640 MiB.
func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<30)), ".0") + " GiB"
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
