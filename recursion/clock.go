package recursion

import (
	"sync"
	"time"
)

// runClock is a run's wall time (Limits.Timeout): it ends the run when the
// time is up, not counting the time the run waited for client tools.
type runClock struct {
	mu       sync.Mutex
	timer    *time.Timer
	deadline time.Time
	pausedAt time.Time
	budget   *budget // told the deadline, for its refusals
}

func newRunClock(timeout time.Duration, expire func(), b *budget) *runClock {
	return &runClock{timer: time.AfterFunc(timeout, expire), deadline: time.Now().Add(timeout), budget: b}
}

// pause stops the clock.
func (c *runClock) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pausedAt.IsZero() && c.timer.Stop() {
		c.pausedAt = time.Now()
	}
}

// resume starts a paused clock again, the deadline moved by the pause,
// and returns how long it was paused.
func (c *runClock) resume() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pausedAt.IsZero() {
		return 0
	}
	d := time.Since(c.pausedAt)
	c.pausedAt = time.Time{}
	c.deadline = c.deadline.Add(d)
	c.timer.Reset(time.Until(c.deadline))
	c.budget.setDeadline(c.deadline)
	return d
}

func (c *runClock) stop() { c.timer.Stop() }
