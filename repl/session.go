package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// SessionConfig configures one session.
type SessionConfig struct {
	Context *ContextFile // nil: context is "" and contexts is empty
	Host    Host         // answers llm_query and rlm_query; nil answers with an error string
	Limits  Limits       // zero fields: the pool's limits
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
		err = w.init(ctx, s.cfg.Context, s.limits, s.pool.cfg.StartTimeout)
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
	if err := w.send(&message{Kind: kindCell, ID: id, Code: code}); err != nil {
		return s.died(ctx, w, res, start)
	}
	timer := time.NewTimer(s.limits.CellTimeout)
	defer timer.Stop()
	select {
	case msg := <-w.results:
		return s.result(res, msg), nil
	case <-w.dead:
		return s.died(ctx, w, res, start)
	case <-timer.C:
		why := fmt.Sprintf("time limit of %s", s.limits.CellTimeout)
		r, err := s.cancel(ctx, w, id, res, start, why)
		return r, err
	case <-ctx.Done():
		r, _ := s.cancel(ctx, w, id, res, start, "the caller cancelled")
		return r, ctx.Err()
	}
}

// result turns a worker's result message into the CellResult.
func (s *Session) result(res CellResult, msg *message) CellResult {
	r := *msg.Result
	r.Restarted = r.Restarted || res.Restarted
	if res.Restarted {
		r.Error = strings.TrimSpace(lostState + "\n" + r.Error)
	}
	return r
}

// cancel asks the worker to stop the cell, and kills and replaces it when
// the cell does not stop within KillGrace or left goroutines running.
func (s *Session) cancel(ctx context.Context, w *proc, id uint64, res CellResult, start time.Time, why string) (CellResult, error) {
	_ = w.send(&message{Kind: kindCancel, ID: id})
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
	// caller may have cancelled exactly this cell.
	startCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := s.startWorker(startCtx); errors.Is(err, ErrClosed) {
		return CellResult{}, ErrClosed
	}
	// On other errors s.w stays nil and the next Run tries again.
	return r, nil
}

// Close kills the session's worker. A cell running meanwhile ends at once
// and its Run returns ErrClosed.
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
	if w != nil {
		w.kill()
	}
	return nil
}

// proc is the parent's handle on one worker process.
type proc struct {
	cmd     *exec.Cmd
	toW     *os.File
	fromW   *os.File
	out     *msgWriter
	results chan *message // results of cells, in order
	ready   chan *message
	dead    chan struct{} // closed when the process exited and the pipe drained
	stderr  *tailWriter
	host    Host
	life    context.Context // cancelled when the worker is killed
	end     context.CancelFunc

	mu      sync.Mutex
	cellID  uint64
	cellCtx context.Context
	fatal   string
	killed  bool
	waitErr error
	once    sync.Once
}

// startProc starts a worker with its protocol pipes on fds 3 and 4.
func startProc(cmd *exec.Cmd, stderr io.Writer) (*proc, error) {
	toR, toW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("repl: pipe: %w", err)
	}
	fromR, fromW, err := os.Pipe()
	if err != nil {
		toR.Close()
		toW.Close()
		return nil, fmt.Errorf("repl: pipe: %w", err)
	}
	p := &proc{
		cmd:     cmd,
		toW:     toW,
		fromW:   fromR,
		out:     &msgWriter{w: toW},
		results: make(chan *message, 1),
		ready:   make(chan *message, 1),
		dead:    make(chan struct{}),
		stderr:  &tailWriter{max: 4096, also: stderr},
	}
	p.life, p.end = context.WithCancel(context.Background())
	cmd.ExtraFiles = []*os.File{toR, fromW}
	cmd.Stdout = io.Discard
	cmd.Stderr = p.stderr
	err = cmd.Start()
	toR.Close()
	fromW.Close()
	if err != nil {
		toW.Close()
		fromR.Close()
		return nil, fmt.Errorf("repl: start worker: %w", err)
	}
	go p.read()
	return p, nil
}

// read dispatches the worker's messages until the pipe closes, then reaps
// the process.
func (p *proc) read() {
	r := newMsgReader(p.fromW)
	var calls sync.WaitGroup
	for {
		msg, err := r.recv()
		if err != nil {
			break
		}
		switch msg.Kind {
		case kindReady:
			p.ready <- msg
		case kindResult:
			p.results <- msg
		case kindFatal:
			p.mu.Lock()
			p.fatal = msg.Error
			p.mu.Unlock()
		case kindLLM, kindRLM:
			calls.Add(1)
			go func() {
				defer calls.Done()
				p.answer(msg)
			}()
		}
	}
	p.fromW.Close()
	p.waitErr = p.cmd.Wait()
	p.end() // the worker is gone: nobody reads answers any more
	calls.Wait()
	close(p.dead)
}

// answer runs one host call on the parent's Host and replies.
func (p *proc) answer(msg *message) {
	p.mu.Lock()
	ctx, host := p.cellCtx, p.host
	current := p.cellID == msg.Cell
	p.mu.Unlock()
	var res []string
	switch {
	case !current || ctx == nil:
		res = errorStrings(len(msg.Prompts), "the cell that made this call has ended")
	case host == nil:
		res = errorStrings(len(msg.Prompts), "no model is connected to this session")
	default:
		// The call ends with the cell or with the worker, whichever is
		// first: Close must not wait for a slow model.
		ctx, cancel := context.WithCancel(ctx)
		stop := context.AfterFunc(p.life, cancel)
		if msg.Kind == kindLLM {
			res = host.LLMQuery(ctx, msg.Prompts)
		} else {
			res = host.RLMQuery(ctx, msg.Prompts)
		}
		stop()
		cancel()
	}
	_ = p.send(&message{Kind: kindReply, ID: msg.ID, Results: res})
}

func errorStrings(n int, why string) []string {
	r := make([]string, n)
	for i := range r {
		r[i] = "error: " + why
	}
	return r
}

func (p *proc) setCell(id uint64, ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cellID, p.cellCtx = id, ctx
}

func (p *proc) send(msg *message) error { return p.out.send(msg) }

// init sends the session's context and limits and waits for the worker.
func (p *proc) init(ctx context.Context, cf *ContextFile, l Limits, timeout time.Duration) error {
	if err := p.send(&message{Kind: kindInit, Context: cf, Limits: &l}); err != nil {
		// Most likely the worker is gone already; say why when we can.
		select {
		case <-p.dead:
			return fmt.Errorf("repl: worker exited during start: %s", p.deathReason(l))
		case <-time.After(time.Second):
			return fmt.Errorf("repl: init worker: %w", err)
		}
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-t.C:
		return fmt.Errorf("repl: worker not ready after %s (is MaybeRunWorker called first in main or TestMain?)", timeout)
	case msg := <-p.ready:
		if msg.Error != "" {
			return &initError{msg.Error}
		}
		return nil
	case <-p.dead:
		return fmt.Errorf("repl: worker exited during start: %s", p.deathReason(l))
	case <-ctx.Done():
		return ctx.Err()
	}
}

// initError is a session setup the worker refused (a bad context file).
type initError struct{ msg string }

func (e *initError) Error() string { return "repl: start session: " + e.msg }

func (p *proc) alive() bool {
	select {
	case <-p.dead:
		return false
	default:
		return true
	}
}

// kill ends the worker and waits until it is reaped.
func (p *proc) kill() {
	p.once.Do(func() {
		p.mu.Lock()
		p.killed = true
		p.mu.Unlock()
		p.end()
		if p.cmd.Process != nil {
			_ = p.cmd.Process.Kill()
		}
		p.toW.Close()
	})
	<-p.dead
}

// deathReason says, for the model, why the worker exited.
func (p *proc) deathReason(l Limits) string {
	<-p.dead
	p.mu.Lock()
	fatal := p.fatal
	p.mu.Unlock()
	if fatal != "" {
		return fatal
	}
	tail := p.stderr.String()
	switch {
	case strings.Contains(tail, "goroutine stack exceeds"), strings.Contains(tail, "stack overflow"):
		return fmt.Sprintf("worker crashed: stack overflow (a goroutine's stack passed %s; probably unbounded recursion)", formatBytes(l.StackBytes))
	case strings.Contains(tail, "out of memory"), strings.Contains(tail, "cannot allocate memory"),
		strings.Contains(tail, "address space collisions"): // the race detector's runtime under RLIMIT_AS
		return fmt.Sprintf("worker out of memory (limit %s of address space for model data)", formatBytes(l.MemoryBytes))
	}
	if i := strings.Index(tail, "panic: "); i >= 0 {
		return "worker crashed: " + firstLine(tail[i:])
	}
	if i := strings.Index(tail, "fatal error: "); i >= 0 {
		return "worker crashed: " + firstLine(tail[i:])
	}
	if p.waitErr != nil {
		return "worker crashed: " + p.waitErr.Error()
	}
	return "worker exited unexpectedly"
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu   sync.Mutex
	buf  []byte
	max  int
	also io.Writer
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.also != nil {
		_, _ = t.also.Write(p)
	}
	// Keep the head too: a Go crash report starts with the reason.
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:t.max:t.max], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
