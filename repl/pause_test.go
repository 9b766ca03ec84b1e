//go:build linux

package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// spinCell starts goroutines that outlive their cell, as the audit's did:
// one counts as fast as it can, one sleeps and calls llm_query in a loop
// (both return at once once the cell has ended).
const spinCell = `var spins, calls int64
go func() { for { atomic.AddInt64(&spins, 1) } }()
go func() { for { time.Sleep(time.Millisecond); llm_query("x"); atomic.AddInt64(&calls, 1) } }()
fmt.Print("started")`

// TestPausedSessionUsesNoCPU: a paused session's worker, whose cell left
// goroutines spinning, uses no CPU time at all (read from /proc/PID/stat)
// for longer than its cell time limit, still counts against the memory
// budget, runs its next cell without a time-limit error, with its
// goroutines going on, and is killed and reaped by Close while paused.
func TestPausedSessionUsesNoCPU(t *testing.T) {
	p, err := NewPool(PoolConfig{Size: 1, Limits: testLimits(), MemoryBudget: 8 << 30})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	s := newTestSession(t, p)
	if r := run(t, s, spinCell); r.Output != "started" || r.Error != "" {
		t.Fatalf("cell: %+v", r)
	}
	w := s.w
	pid := w.cmd.Process.Pid
	// Running, the goroutines burn CPU: the measurement can see it.
	busy := cpuOver(pid, 500*time.Millisecond)
	if busy < 50*time.Millisecond {
		t.Fatalf("the spinning worker used %v of CPU in 500ms; the test cannot tell a paused one from it", busy)
	}

	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	paused := time.Now()
	waitStopped(t, pid)
	idle := cpuOver(pid, time.Second)
	t.Logf("CPU time over 500ms running: %v; over 1s paused: %v", busy, idle)
	if idle > 10*time.Millisecond { // one clock tick of slack
		t.Errorf("a paused worker used %v of CPU in 1s", idle)
	}
	if used, n := p.MemoryBudget().Used(); n != 1 || used != sessionReservation(s.limits, 0) {
		t.Errorf("the paused session holds %d bytes of the budget in %d sessions, want its reservation in 1", used, n)
	}

	// Paused past the cell time limit, the session still runs a cell
	// within it, and the goroutines go on.
	time.Sleep(time.Until(paused.Add(s.limits.CellTimeout + 200*time.Millisecond)))
	r := run(t, s, `a, b := atomic.LoadInt64(&spins), atomic.LoadInt64(&calls)
time.Sleep(200 * time.Millisecond)
fmt.Print(atomic.LoadInt64(&spins) > a, atomic.LoadInt64(&calls) > b)`)
	if r.Output != "true true" || r.Error != "" || r.Restarted {
		t.Fatalf("after the pause: %+v", r)
	}
	if s.w != w {
		t.Fatal("the worker was replaced")
	}

	// Paused, the session is closed: the worker is killed and reaped, and
	// its memory goes back to the budget.
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	waitStopped(t, pid)
	s.Close()
	select {
	case <-w.dead:
	case <-time.After(10 * time.Second):
		t.Fatal("a paused worker was not reaped 10s after Close")
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if used, n := p.MemoryBudget().Used(); used == 0 && n == 0 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("after Close the budget still holds %d bytes in %d sessions", used, n)
		}
	}
	if err := s.Pause(); !errors.Is(err, ErrClosed) {
		t.Errorf("Pause of a closed session: %v", err)
	}
}

// TestResumeAndCancelPausedSession: Resume lets the goroutines of a paused
// session go on without a cell, and a cell whose Run is cancelled at once
// after a pause ends as any other.
func TestResumeAndCancelPausedSession(t *testing.T) {
	p := newTestPool(t, 1)
	s := newTestSession(t, p)
	run(t, s, spinCell)
	pid := s.w.cmd.Process.Pid
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	waitStopped(t, pid)
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	if busy := cpuOver(pid, 500*time.Millisecond); busy < 50*time.Millisecond {
		t.Errorf("a resumed worker used %v of CPU in 500ms; its goroutines did not go on", busy)
	}
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	waitStopped(t, pid)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Run(ctx, `fmt.Print(1)`); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled Run of a paused session: %v", err)
	}
	if r := run(t, s, `fmt.Print(atomic.LoadInt64(&spins) > 0)`); r.Output != "true" || r.Error != "" {
		t.Fatalf("after a cancelled Run: %+v", r)
	}
}

// cpuOver is the CPU time process pid uses over d.
func cpuOver(pid int, d time.Duration) time.Duration {
	before := processCPU(pid)
	time.Sleep(d)
	return processCPU(pid) - before
}

// waitStopped waits until every thread of process pid is stopped (state T
// in /proc/PID/task/TID/stat): SIGSTOP reaches a running thread at its
// next entry to the kernel.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		states, err := threadStates(pid)
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.Trim(states, "T")) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("threads of worker %d in states %q 5s after the pause, want all T", pid, states)
		}
	}
}

// threadStates returns the state letter of each thread of process pid.
func threadStates(pid int) ([]byte, error) {
	stats, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(stats) == 0 {
		return nil, fmt.Errorf("threads of %d: %v", pid, err)
	}
	var states []byte
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
			states = append(states, b[i+2])
		}
	}
	return states, nil
}
