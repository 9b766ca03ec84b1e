package worker

import (
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-project/rlm/repl/protocol"
)

// BenchmarkCell runs the cell of a typical root turn in an unconfined
// worker built in this process: the rewrite, the interpreter and the
// result's encoding, without the pipe round trip. Every 20 cells it starts
// a new worker (outside the timing), as a 20-turn run would. cpu-ns/op is
// the process's CPU time (all threads: the garbage collector too) per
// cell, steadier than the wall time on a loaded machine.
func BenchmarkCell(b *testing.B) {
	const turns = 20
	code := "n := len(context)\nfmt.Println(n, strings.Count(context[:1000], \"x\"))"
	var w *worker
	var cpu time.Duration
	for i := range b.N {
		if i%turns == 0 {
			b.StopTimer()
			w = newBenchWorker(b, strings.Repeat("x", 100_000))
			b.StartTimer()
		}
		start := cpuTime()
		w.runCell(uint64(i+1), code)
		cpu += cpuTime() - start
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func newBenchWorker(b testing.TB, ctxData string) *worker {
	w := &worker{out: protocol.NewWriter(io.Discard), calls: map[uint64]chan []string{}, limits: protocol.DefaultLimits()}
	w.slots = make(chan struct{}, w.limits.MaxHostCalls)
	w.trace.out = &w.output
	w.output.max = w.limits.MaxOutput
	if err := w.newInterpreter(); err != nil {
		b.Fatal(err)
	}
	w.ctxData = ctxData
	return w
}
