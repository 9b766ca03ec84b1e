package repl

import (
	"context"
	"testing"
	"time"
)

// waitWorkers polls Pool.Workers until it reports want, since the pool
// starts its idle workers in the background.
func waitWorkers(t *testing.T, p *Pool, wantIdle, wantBusy int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		idle, busy := p.Workers()
		if idle == wantIdle && busy == wantBusy {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Workers() = %d idle, %d busy; want %d, %d", idle, busy, wantIdle, wantBusy)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPoolWorkers checks that Workers counts live worker processes: busy
// while a session holds one (also across a crash that replaces it), back to
// the idle count once the session is closed, and none once the pool is
// closed.
func TestPoolWorkers(t *testing.T) {
	tests := []struct {
		name string
		size int
		idle int // at rest: Size ready, plus the one the filler holds
	}{
		{"no idle workers", -1, 0},
		{"one idle worker", 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestPool(t, tt.size)
			waitWorkers(t, p, tt.idle, 0)
			s := newTestSession(t, p)
			if _, busy := p.Workers(); busy != 1 {
				t.Fatalf("session open: %d busy, want 1", busy)
			}
			// A crash replaces the worker: still one busy, the dead one
			// no longer counted.
			if r, err := s.Run(context.Background(), "func f(n int) int { return f(n+1) + 1 }\nf(0)"); err != nil || !r.Restarted {
				t.Fatalf("crashing cell: %+v, %v", r, err)
			}
			if _, busy := p.Workers(); busy != 1 {
				t.Fatalf("after a crash: %d busy, want 1", busy)
			}
			s.Close()
			if _, busy := p.Workers(); busy != 0 {
				t.Fatalf("session closed: %d busy, want 0 at once", busy)
			}
			waitWorkers(t, p, tt.idle, 0)
			p.Close()
			if idle, busy := p.Workers(); idle != 0 || busy != 0 {
				t.Fatalf("pool closed: %d idle, %d busy, want none", idle, busy)
			}
		})
	}
}

// TestPoolRefillDelay checks when the pool replaces a taken worker: not
// while the session that took it starts (RefillDelay, here long enough
// that no timing on a loaded machine matters), but at once when a second
// session finds the pool no longer full; and that Close does not wait out
// the delay.
func TestPoolRefillDelay(t *testing.T) {
	p, err := NewPool(PoolConfig{Size: 1, Limits: testLimits(), RefillDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	waitWorkers(t, p, 2, 0) // Size queued, and the spare the filler holds
	a := newTestSession(t, p)
	// The spare was queued in place of a's worker; no new spare within
	// the hour.
	waitWorkers(t, p, 1, 1)
	time.Sleep(300 * time.Millisecond)
	if idle, busy := p.Workers(); idle != 1 || busy != 1 {
		t.Fatalf("a replacement started at once: %d idle, %d busy", idle, busy)
	}
	// The second session takes the queued worker: the pool is no longer
	// full and refills at once.
	b := newTestSession(t, p)
	waitWorkers(t, p, 1, 2)
	for _, s := range []*Session{a, b} {
		if r, err := s.Run(context.Background(), `fmt.Print("ok")`); err != nil || r.Output != "ok" {
			t.Fatalf("run: %+v %v", r, err)
		}
		s.Close()
	}
	start := time.Now()
	p.Close()
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Close took %s", d)
	}
}

// TestPoolNoRefill checks a pool for one request: it starts its one worker
// and no spare, starts none when a session takes it (RefillDelay is at
// once here, so a refill would show), and a second session still gets a
// worker, started for it.
func TestPoolNoRefill(t *testing.T) {
	t.Parallel()
	p, err := NewPool(PoolConfig{Size: 1, NoRefill: true, Limits: testLimits(), RefillDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	time.Sleep(300 * time.Millisecond)
	if idle, busy := p.Workers(); idle != 1 || busy != 0 {
		t.Fatalf("at rest: %d idle, %d busy; want the one worker", idle, busy)
	}
	a := newTestSession(t, p)
	time.Sleep(300 * time.Millisecond)
	if idle, busy := p.Workers(); idle != 0 || busy != 1 {
		t.Fatalf("after a take: %d idle, %d busy; want no replacement", idle, busy)
	}
	b := newTestSession(t, p)
	for _, s := range []*Session{a, b} {
		if r, err := s.Run(context.Background(), `fmt.Print("ok")`); err != nil || r.Output != "ok" {
			t.Fatalf("run: %+v %v", r, err)
		}
		s.Close()
	}
}
