package repl

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The benchmarks run on a 40 MB context (about 10M tokens) and report, next
// to ns/op, the ratio to the same operation in native Go measured in the
// same run ("x-native"). Run them with a bounded count, e.g.
//
//	go test ./repl -run '^$' -bench . -benchtime 5x

const benchContextBytes = 40 << 20

// benchDir holds the generated context file; TestMain removes it, else
// every benchmark run left 40 MB behind in the temp directory.
var benchDir = sync.OnceValues(func() (string, error) { return os.MkdirTemp("", "rlm-bench-") })

var benchCtx = sync.OnceValues(func() (*ContextFile, error) {
	r := rand.New(rand.NewSource(1))
	words := []string{"alpha", "beta", "gamma", "delta", "needle", "omega", "lorem", "ipsum", "42", "2026-11-22"}
	var b strings.Builder
	b.Grow(benchContextBytes + 200)
	for b.Len() < benchContextBytes {
		n := 5 + r.Intn(15)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.Intn(len(words))])
		}
		b.WriteByte('\n')
	}
	dir, err := benchDir()
	if err != nil {
		return nil, err
	}
	return WriteContext(dir, []string{b.String()})
})

func benchContext(b *testing.B) (*ContextFile, string) {
	cf, err := benchCtx()
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(cf.Path)
	if err != nil {
		b.Fatal(err)
	}
	return cf, string(data)
}

// nativeTime is the best of a few runs of f.
func nativeTime(f func()) time.Duration {
	best := time.Duration(1 << 62)
	for range 5 {
		start := time.Now()
		f()
		if d := time.Since(start); d < best {
			best = d
		}
	}
	return best
}

func reportRatio(b *testing.B, native, repl time.Duration) {
	b.ReportMetric(float64(repl)/float64(native), "x-native")
	b.ReportMetric(float64(native)/1e6, "native-ms")
	b.ReportMetric(float64(repl)/1e6, "repl-ms")
}

func benchSession(b *testing.B, p *Pool, cf *ContextFile) *Session {
	s, err := p.NewSession(context.Background(), SessionConfig{Context: cf, Host: &echoHost{}, Limits: Limits{CellTimeout: time.Minute}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func mustRun(b *testing.B, s *Session, code string) CellResult {
	r, err := s.Run(context.Background(), code)
	if err != nil {
		b.Fatal(err)
	}
	if r.Error != "" {
		b.Fatalf("%s: %s", code, r.Error)
	}
	return r
}

// BenchmarkSessionStart measures NewSession with a warm pool (a pre-started
// worker, the context mapped, limits applied) against a cold start of the
// same worker without a pool.
func BenchmarkSessionStart(b *testing.B) {
	cf, _ := benchContext(b)
	cold, err := NewPool(PoolConfig{Size: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer cold.Close()
	coldTime := nativeTime(func() {
		s := benchSession(b, cold, cf)
		mustRun(b, s, "_ = 1")
		s.Close()
	})
	p, err := NewPool(PoolConfig{Size: 2})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	time.Sleep(500 * time.Millisecond) // let the pool fill
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := benchSession(b, p, cf)
		mustRun(b, s, "_ = 1")
		b.StopTimer()
		s.Close()
		time.Sleep(100 * time.Millisecond) // the pool refills between sessions, as between requests
		b.StartTimer()
	}
	per := float64(b.Elapsed()) / float64(b.N)
	b.ReportMetric(per/float64(coldTime), "x-cold-start")
	b.ReportMetric(float64(coldTime)/1e6, "cold-ms")
}

// BenchmarkContextLoad measures a session with the 40 MB context reading all
// of it (len and a full scan) against os.ReadFile of the same file.
func BenchmarkContextLoad(b *testing.B) {
	cf, _ := benchContext(b)
	p, err := NewPool(PoolConfig{Size: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var native, repl time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		d, _ := os.ReadFile(cf.Path)
		_ = strings.Count(string(d), "needle")
		native += time.Since(start)
		start = time.Now()
		s := benchSession(b, p, cf)
		mustRun(b, s, `n := strings.Count(context, "needle")`)
		repl += time.Since(start)
		b.StopTimer()
		s.Close()
		time.Sleep(50 * time.Millisecond) // let the pool refill
		b.StartTimer()
	}
	reportRatio(b, native/time.Duration(b.N), repl/time.Duration(b.N))
}

// BenchmarkEmptyCell is the fixed cost of one cell: a round trip over the
// pipe, the rewrite and an Eval.
func BenchmarkEmptyCell(b *testing.B) {
	p, err := NewPool(PoolConfig{Size: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	s := benchSession(b, p, nil)
	mustRun(b, s, "x := 1")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mustRun(b, s, "x++")
	}
}

// BenchmarkTurnCell runs the cell of a typical root turn (BenchmarkTurnGapREPL's
// in package recursion) on a 100,000-character context, in sessions of 20
// cells, and reports the CPU time each side spent per cell: the worker's
// (its process's, from /proc: the rewrite, the interpreter, its side of the
// pipe) and this process's (the host's side of the pipe). CPU time is
// steadier than ns/op on a loaded machine.
func BenchmarkTurnCell(b *testing.B) {
	const turns = 20
	dir, err := benchDir()
	if err != nil {
		b.Fatal(err)
	}
	cf, err := WriteContext(dir, []string{strings.Repeat("x", 100_000)})
	if err != nil {
		b.Fatal(err)
	}
	p, err := NewPool(PoolConfig{Size: 1, RefillDelay: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	code := "n := len(context)\nfmt.Println(n, strings.Count(context[:1000], \"x\"))"
	var worker, host time.Duration
	for i := 0; i < b.N; i += turns {
		b.StopTimer()
		s := benchSession(b, p, cf)
		for idle, _ := p.Workers(); idle < 2; idle, _ = p.Workers() { // refilled, and the filler's spare
			time.Sleep(time.Millisecond)
		}
		pid := s.w.cmd.Process.Pid
		w0, h0 := threadsCPU(pid), threadsCPU(os.Getpid())
		b.StartTimer()
		for range min(turns, b.N-i) {
			mustRun(b, s, code)
		}
		b.StopTimer()
		worker += threadsCPU(pid) - w0
		host += threadsCPU(os.Getpid()) - h0
		w := s.w
		s.Close()
		<-w.dead // reaped before the next session's count starts
		b.StartTimer()
	}
	b.ReportMetric(float64(worker.Microseconds())/float64(b.N), "worker-cpu-us/op")
	b.ReportMetric(float64(host.Microseconds())/float64(b.N), "host-cpu-us/op")
}

// threadsCPU is the time process pid's threads have run, summed from
// /proc/pid/task/*/schedstat (nanoseconds, where /proc/pid/stat counts
// hundredths of a second).
func threadsCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			sum += time.Duration(ns)
		}
	}
	return sum
}

// BenchmarkOps runs one cell per operation on the 40 MB context.
func BenchmarkOps(b *testing.B) {
	cf, data := benchContext(b)
	re := regexp.MustCompile(`needle \d+`)
	// The REPL keeps each result in a variable until the next cell replaces
	// it; the native runs keep theirs the same way, so the garbage collector
	// has the same live heap to scan in both.
	var sink int
	var keepLines []string
	var keepIdx [][]int
	ops := []struct {
		name   string
		code   string
		native func()
	}{
		{"strings.Count", `n := strings.Count(context, "needle")`, func() { sink = strings.Count(data, "needle") }},
		{"regexp", `import "regexp"
re := regexp.MustCompile(` + "`needle \\d+`" + `)
n := len(re.FindAllStringIndex(context, -1))`, func() { keepIdx = re.FindAllStringIndex(data, -1) }},
		{"split lines", `lines := strings.Split(context, "\n")`, func() { keepLines = strings.Split(data, "\n") }},
		// A range over the call runs over a slice (repl/rewrite,
		// iterFuncs); over an iterator held in a variable, through the
		// interpreter's range over functions.
		{"range strings.Lines", `n := 0
for l := range strings.Lines(context) { n += len(l) }`, func() {
			for l := range strings.Lines(data) {
				sink += len(l)
			}
		}},
		{"range held strings.Lines", `lines := strings.Lines(context)
n := 0
for l := range lines { n += len(l) }`, func() {
			lines := strings.Lines(data)
			for l := range lines {
				sink += len(l)
			}
		}},
		{"100 chunks", `size := len(context) / 100
chunks := make([]string, 0, 100)
for i := 0; i < 100; i++ { chunks = append(chunks, context[i*size:(i+1)*size]) }`, func() {
			size := len(data) / 100
			chunks := make([]string, 0, 100)
			for i := 0; i < 100; i++ {
				chunks = append(chunks, data[i*size:(i+1)*size])
			}
			sink = len(chunks)
		}},
	}
	p, err := NewPool(PoolConfig{Size: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			s := benchSession(b, p, cf)
			mustRun(b, s, op.code) // warm: fault in pages, grow the heap
			op.native()
			// Native and REPL runs alternate so that both see the same load
			// on a shared machine.
			var native, repl time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				op.native()
				native += time.Since(start)
				start = time.Now()
				mustRun(b, s, op.code)
				repl += time.Since(start)
			}
			b.StopTimer()
			reportRatio(b, native/time.Duration(b.N), repl/time.Duration(b.N))
		})
	}
	_, _, _ = sink, keepLines, keepIdx
}

// BenchmarkWorkerMemory reports the worker's peak RSS (VmHWM) relative to
// the context size after splitting the context into lines and chunks.
func BenchmarkWorkerMemory(b *testing.B) {
	cf, data := benchContext(b)
	p, err := NewPool(PoolConfig{Size: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var peak int64
	for i := 0; i < b.N; i++ {
		s := benchSession(b, p, cf)
		mustRun(b, s, `n := strings.Count(context, "needle")
lines := strings.Split(context, "\n")
first := lines[0]
parts := make([]string, 0, 100)
for i := 0; i < 100; i++ { parts = append(parts, context[i*len(context)/100:(i+1)*len(context)/100]) }`)
		peak = max(peak, vmHWM(b, s.w.cmd.Process.Pid))
		s.Close()
	}
	b.ReportMetric(float64(peak)/float64(len(data)), "peakRSS/context")
	b.ReportMetric(float64(peak)/(1<<20), "peakRSS-MiB")
}

func vmHWM(b *testing.B, pid int) int64 {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(st), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	b.Fatal("no VmHWM")
	return 0
}

// BenchmarkTopLevelLoop measures a loop written at the top level of a cell,
// which runs as the body of a declared function (wrapInFunc), against the
// same loop written by the model inside a func of its own, the form the
// system prompt used to ask for ("x-func" is their ratio, 1 when the
// wrapping costs nothing).
func BenchmarkTopLevelLoop(b *testing.B) {
	p := newTestPool(b, 1)
	s, err := p.NewSession(context.Background(), SessionConfig{Limits: Limits{CellTimeout: time.Minute}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const loop = "for _, w := range words { k, v, ok := strings.Cut(w, \"=\"); if ok { n += len(k) + len(v) } }"
	setup := "words := strings.Split(strings.Repeat(\"key=value \", 100000), \" \")\nn := 0\nfunc count() int { n := 0; " + loop + "; return n }"
	if r := run(b, s, setup); r.Error != "" {
		b.Fatal(r.Error)
	}
	timeCell := func(code string) time.Duration {
		best := time.Duration(1 << 62)
		for range 3 {
			start := time.Now()
			if r := run(b, s, code); r.Error != "" {
				b.Fatal(r.Error)
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	b.ResetTimer()
	var top, fn time.Duration
	for range b.N {
		top += timeCell("n = 0\n" + loop)
		fn += timeCell("n = count()")
	}
	b.ReportMetric(float64(top)/float64(fn), "x-func")
	b.ReportMetric(float64(top)/float64(b.N)/1e6, "top-ms")
	b.ReportMetric(float64(fn)/float64(b.N)/1e6, "func-ms")
}
