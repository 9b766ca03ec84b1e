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
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rlm-project/rlm/repl/protocol"
)

// proc is the parent's handle on one worker process.
type proc struct {
	cmd     *exec.Cmd
	toW     *os.File
	fromW   *os.File
	ctxSock *os.File // the parent's end of the context socket
	out     *protocol.Writer
	results chan *protocol.Message // results of cells, in order
	ready   chan *protocol.Message
	dead    chan struct{} // closed when the process exited and the pipe drained
	stderr  *tailWriter
	host    Host
	life    context.Context // cancelled when the worker is killed
	end     context.CancelFunc

	// limit is the largest frame read from the worker; slots bound the
	// host calls answered at once. Both follow the session's Limits.
	limit atomic.Int64

	mu      sync.Mutex
	slots   chan struct{}
	limits  Limits
	cellID  uint64
	cellCtx context.Context
	// The current cell's time spent waiting for host calls: calls in
	// flight, since when at least one has been (and the worker's CPU time
	// then), and the credit of the intervals before (see waited).
	calling   int
	callSince time.Time
	cpuSince  time.Duration
	callTotal time.Duration
	fatal     string
	waitErr   error
	paused    bool // stopped by pause, not yet continued
	once      sync.Once
	calls     sync.WaitGroup // host calls being answered; Add under mu while life is not done

	// count, when set, is the pool's tally of live workers; leased and gone
	// are guarded by count.mu.
	count  *workerCount
	leased bool
	gone   bool
}

// workerCount tallies a pool's live worker processes, for Pool.Workers.
type workerCount struct {
	mu         sync.Mutex
	live, busy int
}

// lease marks w as serving a session. A worker that already exited is not
// counted: its exit was tallied.
func (c *workerCount) lease(w *proc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !w.gone && !w.leased {
		w.leased = true
		c.busy++
	}
}

// exited removes w from the tally once its process is reaped, or once a
// session stopped it (proc.stop), whichever is first.
func (c *workerCount) exited(w *proc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w.gone {
		return
	}
	w.gone = true
	c.live--
	if w.leased {
		c.busy--
	}
}

// startProc starts a worker with its protocol files on fds 3 to 5; count,
// when not nil, tallies it until it is reaped.
func startProc(cmd *exec.Cmd, stderr io.Writer, count *workerCount) (*proc, error) {
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
	ctxParent, ctxChild, err := protocol.SocketPair()
	if err != nil {
		toR.Close()
		toW.Close()
		fromR.Close()
		fromW.Close()
		return nil, err
	}
	p := &proc{
		cmd:     cmd,
		toW:     toW,
		fromW:   fromR,
		ctxSock: ctxParent,
		out:     protocol.NewWriter(toW),
		results: make(chan *protocol.Message, 1),
		ready:   make(chan *protocol.Message, 1),
		dead:    make(chan struct{}),
		stderr:  &tailWriter{max: 4096, also: stderr},
		count:   count,
	}
	p.setLimits(DefaultLimits())
	p.life, p.end = context.WithCancel(context.Background())
	cmd.ExtraFiles = append([]*os.File{toR, fromW, ctxChild}, cmd.ExtraFiles...)
	cmd.Stdout = io.Discard
	cmd.Stderr = p.stderr
	err = cmd.Start()
	toR.Close()
	fromW.Close()
	ctxChild.Close()
	if err != nil {
		toW.Close()
		fromR.Close()
		ctxParent.Close()
		return nil, fmt.Errorf("repl: start worker: %w", err)
	}
	if count != nil {
		count.mu.Lock()
		count.live++
		count.mu.Unlock()
	}
	go p.read()
	return p, nil
}

// read dispatches the worker's messages until the pipe closes, then reaps
// the process.
func (p *proc) read() {
	r := protocol.NewReader(p.fromW)
	for {
		msg, err := r.Recv(p.limit.Load())
		if err != nil {
			var big *protocol.FrameTooLargeError
			if errors.As(err, &big) {
				// The worker checks sizes before it sends: a frame this large
				// means it no longer follows the protocol. It is not read.
				p.mu.Lock()
				p.fatal = fmt.Sprintf("the worker was stopped: it sent a %s", big)
				p.mu.Unlock()
				_ = p.cmd.Process.Kill()
			}
			break
		}
		switch msg.Kind {
		// Never block here: a session that gave up on a cell (and is about
		// to kill this worker) may not read its late result.
		case protocol.KindReady:
			select {
			case p.ready <- msg:
			default:
			}
		case protocol.KindResult:
			select {
			case p.results <- msg:
			default:
			}
		case protocol.KindFatal:
			p.mu.Lock()
			p.fatal = msg.Error
			p.mu.Unlock()
		case protocol.KindLLM, protocol.KindRLM, protocol.KindTool, protocol.KindImage:
			// Back-pressure: with every slot taken the reader stops, so
			// the worker's writes block rather than the parent spawning a
			// goroutine per message.
			p.mu.Lock()
			slots := p.slots
			p.mu.Unlock()
			select {
			case slots <- struct{}{}:
			case <-p.life.Done():
				continue // killed: nobody reads answers
			}
			// Under mu, so that stop, which ends life under mu and then
			// waits for the calls, sees every call started before.
			p.mu.Lock()
			if p.life.Err() != nil {
				p.mu.Unlock()
				<-slots
				continue
			}
			p.calls.Add(1)
			p.mu.Unlock()
			go func() {
				defer p.calls.Done()
				defer func() { <-slots }()
				p.answer(msg)
			}()
		}
	}
	p.fromW.Close()
	p.waitErr = p.cmd.Wait()
	p.ctxSock.Close()
	p.mu.Lock()
	p.end() // the worker is gone: nobody reads answers any more
	p.mu.Unlock()
	p.calls.Wait()
	// Before dead closes, so that the tally is current once kill returns.
	if p.count != nil {
		p.count.exited(p)
	}
	close(p.dead)
}

// answer runs one host call on the parent's Host and replies.
func (p *proc) answer(msg *protocol.Message) {
	p.mu.Lock()
	ctx, host, l := p.cellCtx, p.host, p.limits
	current := p.cellID == msg.Cell
	p.mu.Unlock()
	var res []string
	name := protocol.CallName(msg.Kind, msg.Tool)
	th, tools := host.(ToolHost)
	ih, images := host.(ImageHost)
	switch why := protocol.CheckCall(l, msg.Prompts); {
	case why != "":
		// The worker refuses these itself; this is the parent's own check.
		res = protocol.ErrorStrings(len(msg.Prompts), name+": "+why)
	case !current || ctx == nil:
		res = protocol.ErrorStrings(len(msg.Prompts), "the cell that made this call has ended")
	case host == nil:
		res = protocol.ErrorStrings(len(msg.Prompts), "no model is connected to this session")
	case msg.Kind == protocol.KindTool && !tools:
		res = protocol.ErrorStrings(len(msg.Prompts), name+": this session has no client tools")
	case msg.Kind == protocol.KindImage && (!images || len(msg.Prompts) != 1):
		res = protocol.ErrorStrings(len(msg.Prompts), name+": this session cannot show images to a model")
	default:
		// The call ends with the cell or with the worker, whichever is
		// first: Close must not wait for a slow model.
		ctx, cancel := context.WithCancel(ctx)
		stop := context.AfterFunc(p.life, cancel)
		p.hostCall(msg.Cell, +1)
		switch msg.Kind {
		case protocol.KindLLM:
			res = host.LLMQuery(ctx, msg.Prompts)
		case protocol.KindRLM:
			res = host.RLMQuery(ctx, msg.Prompts)
		case protocol.KindImage:
			res = []string{ih.LLMQueryImage(ctx, msg.Prompts[0], msg.Image)}
		default:
			res = th.CallTools(ctx, msg.Tool, msg.Prompts)
		}
		p.hostCall(msg.Cell, -1)
		stop()
		cancel()
	}
	_ = p.send(&protocol.Message{Kind: protocol.KindReply, ID: msg.ID, Results: res})
}

// setLimits applies a session's limits to what the parent reads.
func (p *proc) setLimits(l Limits) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.limits = l
	p.limit.Store(protocol.FrameLimit(l))
	p.slots = make(chan struct{}, l.MaxHostCalls)
}

func (p *proc) setCell(id uint64, ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cellID, p.cellCtx = id, ctx
	p.calling, p.callTotal = 0, 0
}

// hostCall marks a host call of cell id as started (+1) or ended (-1).
func (p *proc) hostCall(id uint64, delta int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cellID != id {
		return
	}
	if p.calling == 0 && delta > 0 {
		p.callSince, p.cpuSince = time.Now(), p.cpuTime()
	}
	p.calling += delta
	if p.calling == 0 {
		p.callTotal += p.credit()
	}
}

// credit is the current waiting interval's time, less the CPU time the
// worker spent in it: a cell that computes in other goroutines while it
// waits gets no credit for that.
func (p *proc) credit() time.Duration {
	return max(0, time.Since(p.callSince)-(p.cpuTime()-p.cpuSince))
}

// waited is how long the current cell has waited for host calls (the
// intervals in which at least one was in flight), less what it computed
// meanwhile: the time its clock stood still.
func (p *proc) waited() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.calling > 0 {
		return p.callTotal + p.credit()
	}
	return p.callTotal
}

// cpuTime is the worker's CPU time so far (0 where it cannot be read).
func (p *proc) cpuTime() time.Duration {
	if p.cmd.Process == nil {
		return 0
	}
	return processCPU(p.cmd.Process.Pid)
}

func (p *proc) send(msg *protocol.Message) error { return p.out.Send(msg) }

// init sends the session's context, query and limits and waits for the
// worker.
func (p *proc) init(ctx context.Context, cf *ContextFile, query string, tools, images []string, l Limits, timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	p.setLimits(l)
	if cf != nil && cf.Path != "" {
		f, err := os.Open(cf.Path)
		if err != nil {
			return &initError{fmt.Sprintf("open context: %v", err)}
		}
		err = protocol.SendFile(p.ctxSock, f)
		f.Close()
		if err != nil {
			return p.initWriteFailed(ctx, err, l, t.C)
		}
	}
	if err := p.send(&protocol.Message{Kind: protocol.KindInit, Context: cf, Query: query, Tools: tools, Images: images, Limits: &l}); err != nil {
		return p.initWriteFailed(ctx, err, l, t.C)
	}
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

// initWriteFailed explains a failed write of the init message. The write
// fails when the worker's end of the pipe is closed, which a worker does
// only by exiting, but the exit may not have been seen yet (the process
// reaped, its pipes drained): that order must not change the error. So the
// exit is waited for, until the start timeout; a process still running by
// then closed the pipe without exiting and is killed. Either way the exit
// status says which it was: only a process killed here ends by our signal.
func (p *proc) initWriteFailed(ctx context.Context, err error, l Limits, timeout <-chan time.Time) error {
	select {
	case <-p.dead:
	case <-timeout:
	case <-ctx.Done():
		p.kill()
		return ctx.Err()
	}
	killed := p.alive()
	p.kill() // waits until it is reaped; a process that exited is not touched
	if killed && p.cmd.ProcessState != nil && p.cmd.ProcessState.ExitCode() == -1 {
		return fmt.Errorf("repl: init worker: %w (the worker closed its pipe and did not exit)", err)
	}
	return fmt.Errorf("repl: worker exited during start: %s", p.deathReason(l))
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
	p.signal()
	<-p.dead
}

// stop ends the worker without waiting for the kernel to tear the process
// down (milliseconds for a worker with a large heap, on the path of every
// request otherwise): once it returns, no host call of the worker is
// running or will start, and the pool no longer counts it. read reaps it.
func (p *proc) stop() {
	p.signal()
	p.calls.Wait()
	if p.count != nil {
		p.count.exited(p)
	}
}

// signal kills the worker once and ends its life: host calls in flight are
// cancelled and no new one starts.
func (p *proc) signal() {
	p.once.Do(func() {
		p.mu.Lock()
		p.end()
		p.mu.Unlock()
		if p.cmd.Process != nil {
			_ = p.cmd.Process.Kill()
		}
		p.toW.Close()
	})
}

// pause stops the worker process (SIGSTOP) until resume: every thread of
// it, so goroutines that cells left running stop too. A stopped process
// still dies of SIGKILL, so kill and stop need no resume first. A worker
// that already exited is not an error: the session finds out at its next
// cell.
func (p *proc) pause() error { return p.setPaused(true, syscall.SIGSTOP) }

// resume continues a worker that pause stopped (SIGCONT).
func (p *proc) resume() error { return p.setPaused(false, syscall.SIGCONT) }

func (p *proc) setPaused(paused bool, sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused == paused || p.life.Err() != nil {
		return nil
	}
	// os.Process.Signal does not signal a process already reaped, so a
	// recycled pid is never hit.
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("repl: %s worker %d: %w", map[bool]string{true: "pause", false: "resume"}[paused], p.cmd.Process.Pid, err)
	}
	p.paused = paused
	return nil
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
		return fmt.Sprintf("worker crashed: stack overflow (a goroutine's stack passed %s; probably unbounded recursion)", protocol.FormatBytes(l.StackBytes))
	case strings.Contains(tail, "out of memory"), strings.Contains(tail, "cannot allocate memory"),
		// The race detector's runtime under RLIMIT_AS says it in its own words.
		strings.Contains(tail, "address space collisions"), strings.Contains(tail, "ThreadSanitizer failed to allocate"):
		return fmt.Sprintf("worker out of memory (limit %s of address space for model data)", protocol.FormatBytes(l.MemoryBytes))
	}
	if i := strings.Index(tail, "panic: "); i >= 0 {
		return "worker crashed: " + firstLine(tail[i:])
	}
	// The worker's own reason for giving up, such as a confinement layer
	// the system refused.
	if i := strings.Index(tail, protocol.WorkerErrPrefix); i >= 0 {
		return "worker failed: " + firstLine(tail[i+len(protocol.WorkerErrPrefix):])
	}
	if i := strings.Index(tail, "fatal error: "); i >= 0 {
		return "worker crashed: " + firstLine(tail[i:])
	}
	if p.waitErr != nil {
		return "worker crashed: " + p.waitErr.Error()
	}
	return "worker exited unexpectedly"
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

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
