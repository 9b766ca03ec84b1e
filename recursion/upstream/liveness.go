package upstream

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// A silent upstream (one that accepts the connection and never answers, or
// sends headers and then nothing) looks, on the wire, like a slow one: a
// non-streaming upstream sends nothing until its completion is done, and a
// reasoning model streams nothing while it thinks. Waiting out Timeout on
// every attempt held a call, and the run slot of its request, for minutes.
// So an attempt silent for CheckAfter asks the upstream something cheap
// (GET /models): an upstream that answers it is alive and the attempt waits
// on; one that does not fails the call at once.

// liveness runs the checks of one upstream, one at a time: calls silent at
// the same time share one check.
type liveness struct {
	check func() error

	mu  sync.Mutex
	cur *livenessCheck // the latest check, running or done
}

type livenessCheck struct {
	start time.Time
	done  chan struct{}
	err   error
}

// alive reports whether the upstream answered a check that started at or
// after since, running one if none did; ctx ends the wait, not the check.
func (l *liveness) alive(ctx context.Context, since time.Time) error {
	l.mu.Lock()
	ch := l.cur
	if ch == nil || ch.start.Before(since) {
		ch = &livenessCheck{start: time.Now(), done: make(chan struct{})}
		l.cur = ch
		go func() {
			ch.err = l.check()
			close(ch.done)
		}()
	}
	l.mu.Unlock()
	select {
	case <-ch.done:
		return ch.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// answers is the liveness check: a GET of BASE/models that brings a
// complete response, of any status (a 404 or a 401 is an answer too),
// within CheckTimeout. It runs apart from any call, so no call's end cuts
// a check other calls wait on.
func (c *Client) answers() error {
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.CheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint("/models"), nil)
	if err != nil {
		return err
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// A model list is small; one larger than this is answering anyway.
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return err
}

// silenceWatch watches one attempt: touch it on every sign of life (the
// headers, each read that brings bytes). After CheckAfter without one it
// checks the upstream's liveness, and cancels the attempt with
// errUnresponsive when the upstream fails the check and the attempt heard
// nothing meanwhile. It waits on a timer, not a goroutine of its own: an
// attempt that ends before CheckAfter, as nearly all do, starts none.
type silenceWatch struct {
	last atomic.Int64 // UnixNano of the last sign of life

	mu      sync.Mutex
	timer   *time.Timer // nil: never checked
	stopped bool
	passed  time.Time // when the last check this attempt waited on passed; used by check only
}

// watchSilence starts the watch of the attempt whose context is ctx and
// whose cancel function is fail. Stop it when the attempt ends.
func (c *Client) watchSilence(ctx context.Context, fail context.CancelCauseFunc) *silenceWatch {
	w := &silenceWatch{}
	w.touch()
	if c.cfg.CheckAfter > 0 {
		w.mu.Lock()
		w.timer = time.AfterFunc(c.cfg.CheckAfter, func() { w.check(ctx, c, fail) })
		w.mu.Unlock()
	}
	return w
}

func (w *silenceWatch) touch() {
	if w != nil {
		w.last.Store(time.Now().UnixNano())
	}
}

func (w *silenceWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
}

// again sets the timer to fire after d, unless the watch was stopped.
func (w *silenceWatch) again(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.timer.Reset(d)
	}
}

// check runs when the timer fires (one run at a time: only a run sets the
// timer again).
func (w *silenceWatch) check(ctx context.Context, c *Client, fail context.CancelCauseFunc) {
	if ctx.Err() != nil {
		return
	}
	after := c.cfg.CheckAfter
	last := w.last.Load()
	// Silent since the later of the last sign of life and the last check
	// passed: only a check started since then says anything new.
	since := time.Unix(0, last)
	if w.passed.After(since) {
		since = w.passed
	}
	if wait := time.Until(since.Add(after)); wait > 0 {
		w.again(wait)
		return
	}
	err := c.live.alive(ctx, since)
	if ctx.Err() != nil {
		return
	}
	if err != nil && w.last.Load() == last {
		fail(fmt.Errorf("%w: silent for %v, then no answer to GET /models within %v", errUnresponsive, after, c.cfg.CheckTimeout))
		return
	}
	w.passed = time.Now()
	w.again(after)
}
