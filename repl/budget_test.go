package repl

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestMemoryBudget(t *testing.T) {
	ctx := context.Background()
	b := NewMemoryBudget("this request", 100)
	soon := func(d time.Duration) time.Time { return time.Now().Add(d) }

	if err := b.reserve(ctx, 101, soon(time.Hour)); !errors.Is(err, ErrMemoryBudget) || !strings.Contains(err.Error(), "whole budget") {
		t.Fatalf("more than the whole budget: %v", err)
	}
	if err := b.reserve(ctx, 60, soon(time.Hour)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := b.reserve(ctx, 50, soon(50*time.Millisecond)); !errors.Is(err, ErrMemoryBudget) || !strings.Contains(err.Error(), "1 sessions of this request hold 60 bytes") {
		t.Fatalf("over the budget: %v", err)
	}
	if waited := time.Since(start); waited < 40*time.Millisecond {
		t.Fatalf("gave up after %v, before its deadline", waited)
	}
	// A waiting reservation goes through once another is given back.
	got := make(chan error, 1)
	go func() { got <- b.reserve(ctx, 50, soon(10*time.Second)) }()
	select {
	case err := <-got:
		t.Fatalf("reserved 50 of 100 while 60 were held: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	b.release(60)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if used, n := b.Used(); used != 50 || n != 1 {
		t.Fatalf("used %d by %d sessions, want 50 by 1", used, n)
	}
	// Cancellation ends a wait.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if err := b.reserve(cctx, 60, soon(time.Hour)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	// reserveAll gives back what it took when a later budget fails.
	outer := NewMemoryBudget("the server", 1000)
	if _, err := reserveAll(ctx, 60, 20*time.Millisecond, outer, b); !errors.Is(err, ErrMemoryBudget) {
		t.Fatalf("reserveAll over the inner budget: %v", err)
	}
	if used, _ := outer.Used(); used != 0 {
		t.Fatalf("the outer budget kept %d after the inner one refused", used)
	}
	r, err := reserveAll(ctx, 40, time.Second, outer, nil, b)
	if err != nil {
		t.Fatal(err)
	}
	r.release()
	r.release()
	if used, _ := outer.Used(); used != 0 {
		t.Fatalf("outer budget holds %d after the release", used)
	}
	if used, _ := b.Used(); used != 50 {
		t.Fatalf("inner budget holds %d after the release, want the first 50", used)
	}
}

// TestPoolMemoryBudget: sessions reserve their worker's bound from the
// pool's budget and a request's; one that finds none left waits for a
// session to close, or fails with ErrMemoryBudget after MemoryWait.
func TestPoolMemoryBudget(t *testing.T) {
	lim := testLimits()
	lim.MemoryBytes = 256 << 20
	per := sessionReservation(lim, 0)
	p, err := NewPool(PoolConfig{Size: 1, Limits: lim, MemoryBudget: 2*per + per/2, MemoryWait: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	a, err := p.NewSession(ctx, SessionConfig{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.NewSession(ctx, SessionConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if used, n := p.MemoryBudget().Used(); used != 2*per || n != 2 {
		t.Fatalf("budget holds %d in %d sessions, want %d in 2", used, n, 2*per)
	}
	if _, err := p.NewSession(ctx, SessionConfig{}); !errors.Is(err, ErrMemoryBudget) {
		t.Fatalf("a third session over the budget: %v", err)
	}
	// One waiting while a session closes gets its memory.
	go func() { time.Sleep(50 * time.Millisecond); a.Close() }()
	c, err := p.NewSession(ctx, SessionConfig{})
	if err != nil {
		t.Fatalf("a session waiting for a closed one's memory: %v", err)
	}
	if r := run(t, c, `fmt.Print("ok")`); r.Output != "ok" {
		t.Fatalf("cell: %+v", r)
	}
	// A request's own budget bounds its sessions together.
	req := NewMemoryBudget("this request", per+per/2)
	b.Close()
	d, err := p.NewSession(ctx, SessionConfig{Budget: req})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.NewSession(ctx, SessionConfig{Budget: req}); !errors.Is(err, ErrMemoryBudget) || !strings.Contains(err.Error(), "this request") {
		t.Fatalf("a second session of a request with room for one: %v", err)
	}
	// A session kept for a follow-up moves to the budget of the request
	// that continues it; the pool's budget holds it throughout.
	next := NewMemoryBudget("this request", per+per/2)
	if err := d.SetBudget(ctx, next); err != nil {
		t.Fatal(err)
	}
	if used, n := req.Used(); used != 0 || n != 0 {
		t.Errorf("the first request's budget holds %d in %d sessions after the move, want none", used, n)
	}
	if used, n := next.Used(); used != per || n != 1 {
		t.Errorf("the next request's budget holds %d in %d sessions, want %d in 1", used, n, per)
	}
	if used, n := p.MemoryBudget().Used(); used != 2*per || n != 2 {
		t.Errorf("the pool's budget holds %d in %d sessions after the move, want %d in 2", used, n, 2*per)
	}
	if err := d.SetBudget(ctx, NewMemoryBudget("this request", per/2)); !errors.Is(err, ErrMemoryBudget) {
		t.Errorf("a move to a budget too small for the session: %v", err)
	}
	if used, _ := next.Used(); used != per {
		t.Errorf("a failed move left %d in the budget the session holds, want %d", used, per)
	}
	d.Close()
	c.Close()
	// Sessions give their memory back once their workers are gone.
	deadline := time.Now().Add(5 * time.Second)
	for {
		used, n := p.MemoryBudget().Used()
		if used == 0 && n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("budget still holds %d in %d sessions after every session closed", used, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if used, n := next.Used(); used != 0 || n != 0 {
		t.Errorf("the next request's budget holds %d in %d sessions after Close", used, n)
	}
}

// TestMemoryBudgetReclaim: a reservation that finds the budget full asks
// the reclaim function to close an idle session before it waits, waits for
// that session's memory to come back, and asks again now and then: a
// session can become idle (kept for a follow-up) without releasing
// anything, which no release would announce.
func TestMemoryBudgetReclaim(t *testing.T) {
	ctx := context.Background()
	b := NewMemoryBudget("the server", 100)
	if err := b.reserve(ctx, 100, time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	idle := make(chan struct{}) // closed when the holder becomes idle
	calls := 0
	b.SetReclaim(func() bool {
		calls++
		select {
		case <-idle:
		default:
			return false // busy: nothing to reclaim yet
		}
		go b.release(100) // as a worker's memory comes back once it is gone
		idle = nil        // reclaimed once
		return true
	})
	time.AfterFunc(100*time.Millisecond, func() { close(idle) })
	start := time.Now()
	if err := b.reserve(ctx, 60, time.Now().Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second || calls < 2 {
		t.Errorf("reserved after %v and %d reclaim calls; want soon after the holder became idle, asked more than once", took, calls)
	}
}
