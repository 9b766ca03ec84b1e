package repl

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rlm-project/rlm/repl/protocol"
)

// A worker's memory is bounded by what the kernel enforces on it: its
// address-space limit, Limits.MemoryBytes on top of what it mapped at start
// (the context) and the Go runtime's own few tens of megabytes. One worker
// is bounded, but many are not: a request's rlm_query_batched starts a
// child worker per prompt, and the server runs many requests. A
// MemoryBudget bounds the sum: every session reserves its worker's bound
// before the worker is given to it, and gives it back when it closes. The
// pool has one budget for all of its sessions (PoolConfig.MemoryBudget);
// a request may have one of its own for its tree of sessions
// (SessionConfig.Budget).

// ErrMemoryBudget is the error of a session that found no memory left to
// reserve within PoolConfig.MemoryWait (test with errors.Is).
var ErrMemoryBudget = errors.New("REPL memory budget exhausted")

// runtimeReserve is what a worker uses beside its model data: the Go
// runtime, the interpreter and its stacks.
const runtimeReserve = 64 << 20

// sessionReservation is what a session with limits l and a context of
// contextBytes reserves.
func sessionReservation(l Limits, contextBytes int64) int64 {
	return l.MemoryBytes + contextBytes + runtimeReserve
}

// MemoryBudget is an amount of memory that sessions reserve from; its
// methods are safe for concurrent use.
type MemoryBudget struct {
	name  string // for errors: "the server", "this request"
	total int64

	mu       sync.Mutex
	used     int64
	sessions int
	changed  chan struct{} // closed and replaced whenever used falls
	reclaim  func() bool
}

// reclaimPoll is how often a waiting reservation asks its budget's reclaim
// function again.
const reclaimPoll = 50 * time.Millisecond

// SetReclaim sets f, called (without the budget's lock) when a reservation
// finds too little memory left, before it waits: f closes a session that
// holds memory but is idle (one kept for a follow-up) and reports whether
// it closed one. Running work then never waits behind idle sessions.
func (b *MemoryBudget) SetReclaim(f func() bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reclaim = f
}

// NewMemoryBudget returns a budget of total bytes, named in errors (e.g.
// "this request").
func NewMemoryBudget(name string, total int64) *MemoryBudget {
	return &MemoryBudget{name: name, total: total, changed: make(chan struct{})}
}

// Total is the budget's size.
func (b *MemoryBudget) Total() int64 { return b.total }

// Used reports the bytes reserved and by how many sessions.
func (b *MemoryBudget) Used() (bytes int64, sessions int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used, b.sessions
}

// reserve takes n bytes, waiting until deadline for others to give some
// back. A reservation larger than the whole budget fails at once.
func (b *MemoryBudget) reserve(ctx context.Context, n int64, deadline time.Time) error {
	if n > b.total {
		return fmt.Errorf("%w: a REPL session needs %s (its --repl-memory-bytes, context and runtime), more than %s's whole budget of %s",
			ErrMemoryBudget, protocol.FormatBytes(n), b.name, protocol.FormatBytes(b.total))
	}
	for {
		b.mu.Lock()
		if b.used+n <= b.total {
			b.used += n
			b.sessions++
			b.mu.Unlock()
			return nil
		}
		wait, used, sessions, reclaim := b.changed, b.used, b.sessions, b.reclaim
		b.mu.Unlock()
		// One idle session closed is waited for (its memory comes back
		// when its process is gone) before another is.
		reclaimed := reclaim != nil && reclaim()
		if err := b.wait(ctx, wait, deadline, reclaim != nil && !reclaimed); err == ctx.Err() && err != nil {
			return err
		} else if err != nil {
			return fmt.Errorf("%w: a REPL session needs %s; %d sessions of %s hold %s of its %s and none ended in time",
				err, protocol.FormatBytes(n), sessions, b.name, protocol.FormatBytes(used), protocol.FormatBytes(b.total))
		}
	}
}

// wait waits for a release (changed), the deadline (ErrMemoryBudget) or
// ctx; with poll, for reclaimPoll at most, since a session can become idle
// (kept for a follow-up, reclaimable) without releasing anything.
func (b *MemoryBudget) wait(ctx context.Context, changed <-chan struct{}, deadline time.Time, poll bool) error {
	d := time.Until(deadline)
	if d <= 0 {
		return ErrMemoryBudget
	}
	if poll && d > reclaimPoll {
		d = reclaimPoll
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-changed:
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		if time.Now().After(deadline) {
			return ErrMemoryBudget
		}
	}
	return nil
}

func (b *MemoryBudget) release(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	b.sessions--
	close(b.changed)
	b.changed = make(chan struct{})
}

// reservation is what one session holds; release is idempotent.
type reservation struct {
	n int64

	mu       sync.Mutex
	released bool
	budgets  []*MemoryBudget
}

// reserveAll reserves n from each budget in turn (nil ones skipped),
// giving back what it took when one fails.
func reserveAll(ctx context.Context, n int64, wait time.Duration, budgets ...*MemoryBudget) (*reservation, error) {
	r := &reservation{n: n}
	deadline := time.Now().Add(wait)
	for _, b := range budgets {
		if b == nil {
			continue
		}
		if err := b.reserve(ctx, n, deadline); err != nil {
			r.release()
			return nil, err
		}
		r.budgets = append(r.budgets, b)
	}
	return r, nil
}

// move moves the reservation from budget old to b (either may be nil:
// none), reserving in b first, within wait, as a new session would.
func (r *reservation) move(ctx context.Context, old, b *MemoryBudget, wait time.Duration) error {
	if old == b {
		return nil
	}
	if b != nil {
		if err := b.reserve(ctx, r.n, time.Now().Add(wait)); err != nil {
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.released {
		if b != nil {
			b.release(r.n)
		}
		return ErrClosed
	}
	kept := r.budgets[:0]
	for _, x := range r.budgets {
		if x == old {
			x.release(r.n)
			continue
		}
		kept = append(kept, x)
	}
	r.budgets = kept
	if b != nil {
		r.budgets = append(r.budgets, b)
	}
	return nil
}

func (r *reservation) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.released {
		return
	}
	r.released = true
	for _, b := range r.budgets {
		b.release(r.n)
	}
}
