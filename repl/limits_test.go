package repl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFailureModes runs each kind of hostile or broken cell and checks that
// the parent survives, the error says what happened, and the session runs
// the next cell with its context intact.
func TestFailureModes(t *testing.T) {
	p := newTestPool(t, 2)
	tests := []struct {
		name      string
		code      string
		errHas    []string
		restarted bool
	}{
		{"infinite loop", "for {}", []string{"time limit"}, false},
		{"busy loop with work", "n := 0\nfor { n++ }", []string{"time limit"}, false},
		{"blocked channel", "ch := make(chan int)\n<-ch", []string{"time limit"}, false},
		{"deadlock", "var mu sync.Mutex\nmu.Lock()\nmu.Lock()", []string{"cell killed", "time limit"}, true},
		{"sleep forever", "time.Sleep(time.Hour)", []string{"time limit"}, false},
		{"goroutine bomb", "for { go func() { select {} }() }", []string{"goroutine limit"}, true},
		{"panic in a goroutine", `go func() { panic("boom") }()
time.Sleep(100 * time.Millisecond)`, []string{"panic in a goroutine: boom"}, false},
		{"panic in a named goroutine func", `func work() { var m map[int]int; m[1] = 1 }
go work()
time.Sleep(100 * time.Millisecond)`, []string{"panic in a goroutine", "nil map"}, false},
		{"stack overflow", "func f(n int) int { return f(n+1) + 1 }\nf(0)", []string{"stack overflow"}, true},
		{"1 TiB allocation", "b := make([]byte, 1<<40)\nb[0] = 1", []string{"out of memory"}, true},
		{"growing allocations", "var keep [][]byte\nfor { keep = append(keep, make([]byte, 1<<20)) }", []string{"out of memory"}, true},
		{"import os", `import "os"`, []string{`import "os" is not allowed`, "Allowed packages: bufio"}, false},
		{"import os/exec", "import \"os/exec\"\nexec.Command(\"ls\").Run()", []string{`import "os/exec" is not allowed`}, false},
		{"import net", `import "net"`, []string{`import "net" is not allowed`}, false},
		{"import syscall", `import "syscall"`, []string{`import "syscall" is not allowed`}, false},
		{"import unsafe", `import "unsafe"`, []string{`import "unsafe" is not allowed`}, false},
		{"import reflect", `import "reflect"`, []string{`import "reflect" is not allowed`}, false},
		{"import runtime", `import "runtime"`, []string{`import "runtime" is not allowed`}, false},
		{"import io/fs", `import "io/fs"`, []string{`import "io/fs" is not allowed`}, false},
		{"file read without import", `data, _ := os.ReadFile("/etc/passwd")`, []string{"line 1: undefined: os", "cannot use files"}, false},
		{"network attempt", "import \"net/http\"\nhttp.Get(\"http://example.com\")", []string{`import "net/http" is not allowed`}, false},
		{"source from disk", `import "github.com/evil/pkg"`, []string{"is not allowed"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSession(t, p, "ctx-data")
			run(t, s, "keep := 7")
			r := run(t, s, tt.code)
			for _, want := range tt.errHas {
				if !strings.Contains(r.Error, want) {
					t.Fatalf("error %q does not contain %q", r.Error, want)
				}
			}
			if r.Restarted != tt.restarted {
				t.Fatalf("Restarted = %v, want %v (error %q)", r.Restarted, tt.restarted, r.Error)
			}
			if r.Restarted && !strings.Contains(r.Error, "variables, functions and types defined in earlier cells were lost") {
				t.Fatalf("restart message does not say that variables were lost: %q", r.Error)
			}
			next := run(t, s, `fmt.Println(context, len(contexts))`)
			if next.Error != "" || next.Output != "ctx-data 1\n" {
				t.Fatalf("next cell: output %q, error %q", next.Output, next.Error)
			}
			keep := run(t, s, `fmt.Println(keep)`)
			if tt.restarted == (keep.Error == "") {
				t.Fatalf("after restart=%v, reading an old variable gave output %q error %q", tt.restarted, keep.Output, keep.Error)
			}
		})
	}
}

func TestOutputFlood(t *testing.T) {
	p := newTestPool(t, 1)
	s := newTestSession(t, p)
	r := run(t, s, `for i := 0; i < 100000; i++ { fmt.Println("flood line", i) }`)
	if !r.Truncated || r.OutputBytes < 1000000 {
		t.Fatalf("Truncated = %v, OutputBytes = %d", r.Truncated, r.OutputBytes)
	}
	if len(r.Output) > 20000+200 || !strings.Contains(r.Output, "[output truncated: showed the first 20000 of") {
		t.Fatalf("output of %d bytes ends with %q", len(r.Output), r.Output[len(r.Output)-150:])
	}
	if next := run(t, s, `fmt.Print("ok")`); next.Output != "ok" || next.Truncated {
		t.Fatalf("next cell: %+v", next)
	}
}

func TestOutputLimitConfigurable(t *testing.T) {
	p := newTestPool(t, 1)
	s, err := p.NewSession(context.Background(), SessionConfig{Limits: Limits{MaxOutput: 10}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := run(t, s, `fmt.Print("0123456789abcdef")`)
	if !strings.HasPrefix(r.Output, "0123456789\n[output truncated: showed the first 10 of 16") {
		t.Fatalf("output %q", r.Output)
	}
}

func TestCallerCancel(t *testing.T) {
	p := newTestPool(t, 1)
	s := newTestSession(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Run(ctx, "for {}")
	if err == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("Run returned %v after %v", err, time.Since(start))
	}
	if r := run(t, s, `fmt.Print("ok")`); r.Output != "ok" {
		t.Fatalf("next cell: %+v", r)
	}
}

// TestHostCallCancelled checks that a host call in flight is cancelled with
// the cell: the Host sees a cancelled context, and the session goes on. The
// caller cancels once the call has reached the Host, not on a timer, so
// that the call is in flight however slowly a loaded machine starts the
// cell.
func TestHostCallCancelled(t *testing.T) {
	p := newTestPool(t, 1)
	h := &blockingHost{called: make(chan struct{}), cancelled: make(chan struct{})}
	s, err := p.NewSession(context.Background(), SessionConfig{Host: h, Limits: Limits{CellTimeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-h.called
		cancel()
	}()
	start := time.Now()
	if _, err := s.Run(ctx, `fmt.Print(llm_query("slow"))`); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v after %v", err, time.Since(start))
	}
	select {
	case <-h.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the host call's context was not cancelled")
	}
	if r := run(t, s, `fmt.Print("ok")`); r.Output != "ok" {
		t.Fatalf("next cell: %+v", r)
	}
}

// blockingHost answers no call: it closes called when the first comes and
// cancelled when that call's context is cancelled.
type blockingHost struct {
	called, cancelled chan struct{}
	once              sync.Once
}

func (h *blockingHost) LLMQuery(ctx context.Context, prompts []string) []string {
	first := false
	h.once.Do(func() { first = true; close(h.called) })
	<-ctx.Done()
	if first {
		close(h.cancelled)
	}
	return make([]string, len(prompts))
}

func (h *blockingHost) RLMQuery(ctx context.Context, prompts []string) []string {
	return h.LLMQuery(ctx, prompts)
}

// TestCellClockStopsForHostCalls: the cell time limit counts the cell's own
// time, not the time its llm_query calls wait for a model (a shared model
// under load answers slowly; RL rollouts on a busy policy scored 0 when it
// did). A cell that computes past the limit around its calls is still
// stopped.
func TestCellClockStopsForHostCalls(t *testing.T) {
	p := newTestPool(t, 1)
	// The cell's own time (compiling it, running it, the round trips of
	// its five calls) is measured first with calls answered at once: the
	// limit leaves it four times that room, however loaded the machine,
	// and the calls then wait three times the limit.
	const calls = `for i := 0; i < 4; i++ { llm_query("x") }
results := llm_query_batched([]string{"a", "b"})
fmt.Print(len(results))`
	own := run(t, newTestSession(t, p), calls).Duration
	limit := max(time.Second, 4*own)
	t.Logf("the cell's own time: %v; limit %v", own, limit)
	s0, err := p.NewSession(context.Background(), SessionConfig{Host: &echoHost{delay: limit / 2}, Limits: Limits{CellTimeout: limit}})
	if err != nil {
		t.Fatal(err)
	}
	defer s0.Close()
	start := time.Now()
	r := run(t, s0, calls)
	if r.Error != "" || r.Output != "2" {
		t.Fatalf("a cell waiting %v for its calls (its own time %v at once) was stopped at a limit of %v: %+v", time.Since(start), own, limit, r)
	}
	if took := time.Since(start); took < 2*limit {
		t.Fatalf("the calls took %v; the test needs them to outlast the limit of %v", took, limit)
	}
	// Wall time outside the calls counts, however loaded the machine.
	s, err := p.NewSession(context.Background(), SessionConfig{Host: &echoHost{delay: 250 * time.Millisecond}, Limits: Limits{CellTimeout: 400 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r = run(t, s, `busy := func() { t0 := time.Now(); for time.Since(t0) < 250*time.Millisecond {} }
busy()
llm_query("x")
busy()
fmt.Print("not stopped")`)
	if !strings.Contains(r.Error, "time limit") {
		t.Fatalf("a cell that computed 500ms against a limit of 400ms: %+v", r)
	}
	// Computing in another goroutine while a call waits earns no credit.
	// The call is answered once the worker computed a second of CPU time
	// while it waited, however long that takes on a loaded machine.
	cpu := &cpuHost{spend: time.Second}
	s2, err := p.NewSession(context.Background(), SessionConfig{Host: cpu, Limits: Limits{CellTimeout: 400 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	cpu.pid.Store(int64(s2.w.cmd.Process.Pid))
	r = run(t, s2, `done := make(chan bool)
go func() { llm_query("x"); done <- true }()
for waiting := true; waiting; {
	select {
	case <-done:
		waiting = false
	default:
	}
}
fmt.Print("not stopped")`)
	if !strings.Contains(r.Error, "time limit") {
		t.Fatalf("a cell that computed a second of CPU time during a call against a limit of 400ms: %+v", r)
	}
}

// cpuHost answers a call once worker pid has used spend of CPU time since
// the call came, when the call is cancelled, or after a minute (where the
// CPU time cannot be read).
type cpuHost struct {
	pid   atomic.Int64
	spend time.Duration
}

func (h *cpuHost) LLMQuery(ctx context.Context, prompts []string) []string {
	pid := int(h.pid.Load())
	start, deadline := processCPU(pid), time.Now().Add(time.Minute)
	for processCPU(pid)-start < h.spend && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return make([]string, len(prompts))
		case <-time.After(10 * time.Millisecond):
		}
	}
	return make([]string, len(prompts))
}

func (h *cpuHost) RLMQuery(ctx context.Context, prompts []string) []string {
	return h.LLMQuery(ctx, prompts)
}

func TestClosedSession(t *testing.T) {
	p := newTestPool(t, 1)
	s := newTestSession(t, p)
	s.Close()
	if _, err := s.Run(context.Background(), "1"); err != ErrClosed {
		t.Fatalf("Run after Close: %v", err)
	}
	if _, err := p.NewSession(context.Background(), SessionConfig{Context: &ContextFile{Path: "/nonexistent/file"}}); err == nil || !strings.Contains(err.Error(), "open context") {
		t.Fatalf("missing context file: %v", err)
	}
}

func TestCloseDuringRun(t *testing.T) {
	p := newTestPool(t, 1)
	s, err := p.NewSession(context.Background(), SessionConfig{Limits: Limits{CellTimeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := s.Run(context.Background(), "for {}")
		errc <- err
	}()
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err != ErrClosed {
			t.Fatalf("Run returned %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after Close")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Close took %v", d)
	}
}

// TestCloseDuringHostCall checks that Close does not wait for a Host that
// is slow to answer: the call's context is cancelled when the worker goes.
func TestCloseDuringHostCall(t *testing.T) {
	p := newTestPool(t, 1)
	s, err := p.NewSession(context.Background(), SessionConfig{Host: &echoHost{delay: time.Hour}, Limits: Limits{CellTimeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := s.Run(context.Background(), `fmt.Print(llm_query("slow"))`)
		errc <- err
	}()
	time.Sleep(300 * time.Millisecond)
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for the host call")
	}
	if err := <-errc; err != ErrClosed {
		t.Fatalf("Run returned %v, want ErrClosed", err)
	}
}

// TestBrokenWorkerCommand checks that a command that is not a worker gives
// a clear error instead of a hang or a crash.
func TestBrokenWorkerCommand(t *testing.T) {
	tests := []struct {
		name   string
		cmd    []string
		errHas string
	}{
		{"exits at once", []string{"/bin/false"}, "worker exited during start"},
		{"never answers", []string{"/bin/sleep", "30"}, "worker not ready after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := os.Stat(tt.cmd[0]); err != nil {
				t.Skip(err)
			}
			p, err := NewPool(PoolConfig{Size: 1, StartTimeout: 300 * time.Millisecond,
				Command: func() *exec.Cmd { return exec.Command(tt.cmd[0], tt.cmd[1:]...) }})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			_, err = p.NewSession(context.Background(), SessionConfig{})
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("NewSession: %v, want %q", err, tt.errHas)
			}
		})
	}
}

// TestInitWriteFails starts a process that closes its end of the init pipe
// and only then sends the init message, so that the write fails before or
// after the exit is seen: the error must say the worker exited, in both
// orders, and a process that closed the pipe but stays is killed.
func TestInitWriteFails(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc to see when the process closed the pipe:", err)
	}
	tests := []struct {
		name    string
		script  string
		timeout time.Duration
		errHas  string
	}{
		{"exits after the write failed", "exec 3<&-; sleep 1.5; exit 3", 20 * time.Second, "worker exited during start: worker crashed: exit status 3"},
		{"exited before the write", "exec 3<&-; exit 3", 20 * time.Second, "worker exited during start: worker crashed: exit status 3"},
		{"closes the pipe and stays", "exec 3<&-; exec sleep 30", 300 * time.Millisecond, "the worker closed its pipe and did not exit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := startProc(exec.Command("/bin/sh", "-c", tt.script), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer p.kill()
			fd := fmt.Sprintf("/proc/%d/fd/3", p.cmd.Process.Pid)
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if _, err := os.Stat(fd); os.IsNotExist(err) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the process did not close fd 3")
				}
			}
			err = p.init(context.Background(), nil, "", nil, nil, DefaultLimits(), tt.timeout)
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("init: %v, want %q", err, tt.errHas)
			}
			if p.alive() {
				t.Fatal("the process is still running")
			}
		})
	}
}
