package repl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rlm-project/rlm/repl/protocol"
)

// SessionConfig configures one session.
type SessionConfig struct {
	Context *ContextFile // nil: context is "" and contexts is empty
	Query   string       // the value of query: the request's question, when it is short enough to stay in view
	Host    Host         // answers llm_query and rlm_query; nil answers with an error string
	// Tools are the names of the client's function tools: cells call each
	// as a Go function (see docs/repl.md), answered by Host's CallTools.
	Tools []string
	// Images names the request's images (media type and where they came
	// from): cells see them as images[i] and show them to a model with
	// llm_query_image, answered by Host's LLMQueryImage.
	Images []string
	Limits Limits // zero fields: the pool's limits
	// Budget, when set, is drawn on as well as the pool's budget: a
	// request's own, shared by the sessions of its tree (see MemoryBudget).
	Budget *MemoryBudget
}

// Session is a persistent interpreter state in a worker process. Run is
// safe to call from several goroutines; cells run one at a time.
type Session struct {
	pool   *Pool
	cfg    SessionConfig
	limits Limits

	mu     sync.Mutex // serialises Run and worker restarts
	nextID uint64

	wmu    sync.Mutex // guards w and closed, so Close need not wait for a running cell
	w      *proc
	closed bool
	res    *reservation // memory held until Close
}

// lostState is appended to every message about a replaced worker.
const lostState = "The worker was restarted: variables, functions and types defined in earlier cells were lost; context, contexts and the host functions are available again."

// startWorker takes a worker from the pool and initialises it.
func (s *Session) startWorker(ctx context.Context) error {
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		w, err := s.pool.take()
		if err != nil {
			return err
		}
		err = w.init(ctx, s.cfg.Context, s.cfg.Query, s.cfg.Tools, s.cfg.Images, s.limits, s.pool.cfg.StartTimeout)
		if err == nil {
			w.host = s.cfg.Host
			s.wmu.Lock()
			defer s.wmu.Unlock()
			if s.closed {
				w.kill()
				return ErrClosed
			}
			s.w = w
			return nil
		}
		w.kill()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		lastErr = err
		var ie *initError
		if errors.As(err, &ie) {
			return err // the worker is fine, the request is wrong
		}
	}
	return lastErr
}

// Run runs one cell. The error is only for the caller's side: a cancelled
// ctx or a worker that cannot be started. Everything the model should read,
// limit messages included, is in the CellResult.
func (s *Session) Run(ctx context.Context, code string) (CellResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wmu.Lock()
	closed, w := s.closed, s.w
	s.wmu.Unlock()
	if closed {
		return CellResult{}, ErrClosed
	}
	var res CellResult
	if w != nil {
		// A paused worker runs again before the cell's clock starts: the
		// time it stood still is no cell's.
		if err := w.resume(); err != nil {
			return CellResult{}, err
		}
	}
	if w == nil {
		// The previous worker died outside a cell; replace it first.
		if err := s.startWorker(ctx); err != nil {
			return CellResult{}, fmt.Errorf("repl: restart worker: %w", err)
		}
		res.Restarted = true
		s.wmu.Lock()
		w = s.w
		s.wmu.Unlock()
	}
	s.nextID++
	id := s.nextID
	start := time.Now()
	cellCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.setCell(id, cellCtx)
	defer w.setCell(0, nil)
	if err := w.send(&protocol.Message{Kind: protocol.KindCell, ID: id, Code: code}); err != nil {
		return s.died(ctx, w, res, start)
	}
	// The cell's clock stops while it waits for its host calls: when the
	// timer fires, it is set again for the time the cell has left.
	timer := time.NewTimer(s.limits.CellTimeout)
	defer timer.Stop()
	for {
		select {
		case msg := <-w.results:
			// A cell that ended because the caller cancelled (its host
			// calls returned early) reports the cancellation, whichever
			// the select saw first.
			return s.result(res, msg), ctx.Err()
		case <-w.dead:
			return s.died(ctx, w, res, start)
		case <-timer.C:
			waited := w.waited()
			if left := s.limits.CellTimeout - (time.Since(start) - waited); left > 0 {
				timer.Reset(left)
				continue
			}
			why := fmt.Sprintf("time limit of %s", s.limits.CellTimeout)
			if waited >= time.Millisecond {
				why += fmt.Sprintf(" (not counting %s of waiting for llm_query/rlm_query answers)", waited.Round(time.Millisecond))
			}
			r, err := s.cancel(ctx, w, id, res, start, why)
			return r, err
		case <-ctx.Done():
			r, _ := s.cancel(ctx, w, id, res, start, "the caller cancelled")
			return r, ctx.Err()
		}
	}
}

// result turns a worker's result message into the CellResult.
func (s *Session) result(res CellResult, msg *protocol.Message) CellResult {
	r := *msg.Result
	// The worker applies these caps; the parent does not rely on it.
	if r.Final != nil && int64(len(*r.Final)) > s.limits.MaxFinalBytes {
		r.Final = nil
		r.Error = strings.TrimSpace(fmt.Sprintf("FINAL refused: the answer is over the limit of %s", protocol.FormatBytes(s.limits.MaxFinalBytes)) + "\n" + r.Error)
	}
	r.Error = protocol.Clip(r.Error, s.limits.MaxErrorBytes, "error")
	if max := s.limits.MaxOutput + 256; len(r.Output) > max { // + the worker's truncation note
		r.Output, r.Truncated = protocol.Clip(r.Output, max, "output"), true
	}
	r.Restarted = r.Restarted || res.Restarted
	if res.Restarted {
		r.Error = strings.TrimSpace(lostState + "\n" + r.Error)
	}
	return r
}

// cancel asks the worker to stop the cell, and kills and replaces it when
// the cell does not stop within KillGrace or left goroutines running.
func (s *Session) cancel(ctx context.Context, w *proc, id uint64, res CellResult, start time.Time, why string) (CellResult, error) {
	_ = w.send(&protocol.Message{Kind: protocol.KindCancel, ID: id})
	grace := time.NewTimer(s.limits.KillGrace)
	defer grace.Stop()
	elapsed := func() string { return time.Since(start).Round(time.Millisecond).String() }
	select {
	case msg := <-w.results:
		r := s.result(res, msg)
		if msg.Clean {
			r.Error = strings.TrimSpace(fmt.Sprintf("cell cancelled after %s: %s", elapsed(), why) + "\n" + r.Error)
			if r.Error != "" && strings.HasSuffix(r.Error, "\ncancelled") {
				r.Error = strings.TrimSuffix(r.Error, "\ncancelled")
			}
			return r, nil
		}
		// Goroutines of the cell are still running inside the interpreter;
		// the worker cannot be trusted with the next cell.
		out := r.Output
		r2, err := s.replace(ctx, fmt.Sprintf("cell killed after %s: %s (its goroutines did not stop)", elapsed(), why))
		r2.Output, r2.OutputBytes, r2.Truncated = out, r.OutputBytes, r.Truncated
		r2.Duration = time.Since(start)
		return r2, err
	case <-w.dead:
		return s.died(ctx, w, res, start)
	case <-grace.C:
		r, err := s.replace(ctx, fmt.Sprintf("cell killed after %s: %s", elapsed(), why))
		r.Duration = time.Since(start)
		return r, err
	}
}

// died explains why the worker exited during a cell and replaces it.
func (s *Session) died(ctx context.Context, w *proc, res CellResult, start time.Time) (CellResult, error) {
	w.kill()
	s.wmu.Lock()
	closed := s.closed
	s.wmu.Unlock()
	if closed {
		return CellResult{}, ErrClosed
	}
	r, err := s.replace(ctx, w.deathReason(s.limits))
	r.Duration = time.Since(start)
	return r, err
}

// replace kills the current worker and starts a fresh one with the same
// context, limits and host.
func (s *Session) replace(ctx context.Context, why string) (CellResult, error) {
	s.wmu.Lock()
	old := s.w
	s.w = nil
	closed := s.closed
	s.wmu.Unlock()
	if old != nil {
		old.kill()
	}
	if closed {
		return CellResult{}, ErrClosed
	}
	r := CellResult{Error: why + "\n" + lostState, Restarted: true}
	// A fresh worker does not depend on the caller's ctx being alive: the
	// caller may have cancelled exactly this cell. StartTimeout bounds it.
	if err := s.startWorker(context.WithoutCancel(ctx)); errors.Is(err, ErrClosed) {
		return CellResult{}, ErrClosed
	}
	// On other errors s.w stays nil and the next Run tries again.
	return r, nil
}

// Pause stops the session's worker process until the next Run or Resume,
// so that a session kept idle between runs (one kept for a follow-up) uses
// no CPU, whatever goroutines its cells left running: they stop where they
// are and go on once it resumes. A running cell is waited for. The worker
// still holds its memory (and the session its reservation), and Close
// ends a paused session as any other.
func (s *Session) Pause() error { return s.setPaused(true) }

// Resume continues a session that Pause stopped: the goroutines its cells
// left running go on. Run resumes a paused session by itself.
func (s *Session) Resume() error { return s.setPaused(false) }

// setPaused is freeze once no cell runs (s.mu).
func (s *Session) setPaused(paused bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.freeze(paused)
}

// Freeze stops the session's worker while a cell of it waits in a host
// call that may take long (a client tool the run paused at); unlike Pause
// it does not wait for the cell, whose clock is stopped during host calls
// anyway. Thaw continues it; the call's answer is read then.
func (s *Session) Freeze() error { return s.freeze(true) }

// Thaw continues a worker Freeze stopped.
func (s *Session) Thaw() error { return s.freeze(false) }

func (s *Session) freeze(on bool) error {
	s.wmu.Lock()
	closed, w := s.closed, s.w
	s.wmu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case w == nil:
		return nil // no worker: nothing runs
	case on:
		return w.pause()
	}
	return w.resume()
}

// SetBudget makes the session draw on b instead of the budget it was
// started with (SessionConfig.Budget; nil: none), waiting for room in b
// as a new session would: a session kept for a follow-up then counts
// against the budget of the request that continues it. The pool's budget
// holds it throughout.
func (s *Session) SetBudget(ctx context.Context, b *MemoryBudget) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.res.move(ctx, s.cfg.Budget, b, s.pool.cfg.MemoryWait); err != nil {
		return err
	}
	s.cfg.Budget = b
	return nil
}

// Close kills the session's worker; the process is reaped in the
// background. A cell running meanwhile ends at once and its Run returns
// ErrClosed.
func (s *Session) Close() error {
	s.wmu.Lock()
	if s.closed {
		s.wmu.Unlock()
		return nil
	}
	s.closed = true
	w := s.w
	s.w = nil
	s.wmu.Unlock()
	if w == nil {
		s.res.release()
		return nil
	}
	// Not kill: the request need not wait while the kernel tears the
	// process down; its reaping goes on in the background, and the
	// session's memory goes back to the budgets once the process is gone.
	w.stop()
	go func() {
		<-w.dead
		s.res.release()
	}()
	return nil
}
