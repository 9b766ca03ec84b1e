package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/rlm-project/rlm/repl/protocol"
)

// PoolConfig configures a Pool.
type PoolConfig struct {
	// Size is the number of pre-started idle workers kept ready, so that a
	// new session does not wait for a process to start. 0 means 2; a
	// negative value keeps none.
	Size int
	// Command starts a worker. nil means the running executable with env
	// RLM_REPL_WORKER=1, which works for any binary whose main (or TestMain)
	// calls MaybeRunWorker first.
	Command func() *exec.Cmd
	// Limits are the defaults for sessions; zero fields mean DefaultLimits.
	Limits Limits
	// RefillDelay is how long the pool waits, after a session took a
	// worker, before it starts the replacement, unless another session
	// takes one first: starting a worker costs tens of milliseconds of CPU,
	// which would otherwise compete with the session that just began (its
	// start and first cells) on a small machine. With a real model the
	// replacement then starts while the session waits for the model. 0
	// means 25ms; a negative value starts replacements at once.
	RefillDelay time.Duration
	// NoRefill makes the pool start its Size workers once and never
	// replace those sessions take: for a process that runs one request
	// and exits (rlm query), where a replacement or a spare would only
	// compete with that request for the CPU. A session that finds no idle
	// worker starts one, as always.
	NoRefill bool
	// StartTimeout bounds how long a session waits for its worker to be
	// ready (process started, context mapped). 0 means 30s.
	StartTimeout time.Duration
	// Stderr receives the workers' own stderr (Go runtime crash reports)
	// when set; the session keeps the tail either way to explain crashes.
	Stderr io.Writer
	// WorkerUID and WorkerGID are the user and group workers run as when
	// the pool's process is root (otherwise workers keep its uid and gid,
	// the only ones it may give). 0 means 65534 (nobody, nogroup); a
	// negative value keeps root's, capabilities dropped all the same.
	WorkerUID, WorkerGID int
	// MemoryBudget bounds, in bytes, the memory all sessions of the pool
	// reserve together (see MemoryBudget); 0 means no bound beyond each
	// worker's own. MemoryWait is how long a new session waits for memory
	// that other sessions hold before it fails with ErrMemoryBudget; 0
	// means 30s.
	MemoryBudget int64
	MemoryWait   time.Duration

	// unconfined starts workers as they were before the OS-level
	// confinement (the pool's uid, its working directory, no layer in the
	// worker), for the benchmark that measures its cost. Nothing outside
	// the package can ask for it.
	unconfined bool
}

// nobody is the uid and gid of workers of a root pool by default.
const nobody = 65534

// Pool starts workers ahead of time and hands them to sessions. A worker
// serves one session only: once model code ran in it, it is never reused.
type Pool struct {
	cfg    PoolConfig
	limits Limits
	cred   *syscall.Credential // workers' uid and gid; nil: the pool's own
	// exe is the executable opened by the pool, when workers run as another
	// user: they start from this descriptor, so the directories on the way
	// to it (a build cache under /root) need not be open to that user.
	exe  *os.File
	idle chan *proc
	// taken is signalled by every take that got an idle worker, so that a
	// delayed refill starts at once when the pool is no longer full.
	taken chan struct{}
	stop  chan struct{}
	done  chan struct{}

	count  workerCount
	budget *MemoryBudget // nil: none

	mu     sync.Mutex
	closed bool
}

// MemoryBudget is the pool's budget over all sessions (nil when it has
// none), for reports such as /metrics.
func (p *Pool) MemoryBudget() *MemoryBudget { return p.budget }

// Workers reports the pool's live worker processes: idle ones, started and
// not yet given to a session (the pool keeps Size of them ready, and may
// hold one more it is about to queue), and busy ones, serving a session.
// A session's worker stops counting once Close (or a replacement) killed it.
func (p *Pool) Workers() (idle, busy int) {
	p.count.mu.Lock()
	defer p.count.mu.Unlock()
	return p.count.live - p.count.busy, p.count.busy
}

// ErrClosed is returned by a closed Pool or Session.
var ErrClosed = errors.New("repl: closed")

// NewPool starts the pool and its idle workers.
func NewPool(cfg PoolConfig) (*Pool, error) {
	if cfg.Size == 0 {
		cfg.Size = 2
	}
	if cfg.Size < 0 {
		cfg.Size = 0
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 30 * time.Second
	}
	if cfg.RefillDelay == 0 {
		cfg.RefillDelay = 25 * time.Millisecond
	}
	if cfg.MemoryWait <= 0 {
		cfg.MemoryWait = 30 * time.Second
	}
	p := &Pool{
		cfg:    cfg,
		limits: protocol.OrDefault(cfg.Limits, DefaultLimits()),
		cred:   workerCredential(cfg),
		idle:   make(chan *proc, cfg.Size),
		taken:  make(chan struct{}, 1),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	if cfg.MemoryBudget > 0 {
		p.budget = NewMemoryBudget("the server", cfg.MemoryBudget)
	}
	if cfg.Command == nil {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("repl: find the executable to start workers: %w", err)
		}
		p.cfg.Command = func() *exec.Cmd { return exec.Command(exe) }
		if p.cred != nil {
			if p.exe, err = os.Open(exe); err != nil {
				return nil, fmt.Errorf("repl: open the executable to start workers: %w", err)
			}
		}
	}
	// Start one worker now so that a broken Command fails here, not later.
	if cfg.Size > 0 {
		w, err := p.start()
		if err != nil {
			p.closeExe()
			return nil, err
		}
		p.idle <- w
	}
	go p.fill()
	return p, nil
}

// fill keeps the idle channel full until the pool is closed; with
// NoRefill it only starts the Size workers NewPool did not.
func (p *Pool) fill() {
	defer close(p.done)
	if p.cfg.Size == 0 {
		return
	}
	for started := 1; !p.cfg.NoRefill || started < p.cfg.Size; started++ {
		select {
		case <-p.stop:
			return
		default:
		}
		w, err := p.start()
		if err != nil {
			// Sessions start workers themselves when none is idle; do not
			// spin on a broken command.
			select {
			case <-p.stop:
				return
			case <-time.After(100 * time.Millisecond):
				continue
			}
		}
		select {
		case p.idle <- w:
		case <-p.stop:
			w.kill()
			return
		}
		if !p.waitRefill() {
			return
		}
	}
}

// waitRefill waits, after the filler queued a worker, before it starts the
// next: at once while idle workers are missing, but RefillDelay when the
// pool is full (the next worker is the spare the filler holds for the next
// take), cut short when a session takes a worker meanwhile. It reports
// false when the pool stops.
func (p *Pool) waitRefill() bool {
	if p.cfg.RefillDelay < 0 {
		return true
	}
	t := time.NewTimer(p.cfg.RefillDelay)
	defer t.Stop()
	for len(p.idle) == cap(p.idle) {
		select {
		case <-t.C:
			return true
		case <-p.taken: // may be the take that let the filler queue: check again
		case <-p.stop:
			return false
		}
	}
	return true
}

// take returns an idle worker, or starts one when none is ready.
func (p *Pool) take() (*proc, error) {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	for {
		select {
		case w := <-p.idle:
			select {
			case p.taken <- struct{}{}:
			default:
			}
			if w.alive() {
				p.count.lease(w)
				return w, nil
			}
			w.kill()
		default:
			w, err := p.start()
			if err != nil {
				return nil, err
			}
			p.count.lease(w)
			return w, nil
		}
	}
}

// start starts one worker process.
func (p *Pool) start() (*proc, error) { return p.startEnv(nil) }

// startEnv starts one worker process with env added to its environment.
func (p *Pool) startEnv(env []string) (*proc, error) {
	cmd := p.cfg.Command()
	cmd.Env = append(workerEnviron(cmd.Env), env...)
	// Own process group: a signal to the parent's group (Ctrl-C) must not
	// reach workers before the parent has decided what to do.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if p.cfg.unconfined {
		cmd.Env = append(cmd.Env, protocol.ConfineEnv+"=0")
		return startProc(cmd, p.cfg.Stderr, &p.count)
	}
	cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", protocol.StartMemoryEnv, p.limits.MemoryBytes))
	cmd.SysProcAttr.Credential = p.cred
	if p.cred != nil {
		keepSetpcap(cmd.SysProcAttr)
	}
	if p.exe != nil {
		cmd.Path = fmt.Sprintf("/proc/self/fd/%d", protocol.LastFD+1+len(cmd.ExtraFiles))
		cmd.ExtraFiles = append(cmd.ExtraFiles, p.exe)
	}
	// The working directory is empty and removed once the worker runs in
	// it: nothing is there to read, and nothing can be made there.
	dir, err := os.MkdirTemp("", "rlm-worker-")
	if err != nil {
		return nil, fmt.Errorf("repl: make the worker's directory: %w", err)
	}
	defer os.Remove(dir)
	if err := os.Chmod(dir, 0o555); err != nil { // enterable by the worker's uid
		return nil, fmt.Errorf("repl: make the worker's directory: %w", err)
	}
	cmd.Dir = dir
	return startProc(cmd, p.cfg.Stderr, &p.count)
}

// workerCredential returns the uid and gid workers switch to, or nil when
// they keep the pool's.
func workerCredential(cfg PoolConfig) *syscall.Credential {
	if cfg.unconfined || os.Geteuid() != 0 || (cfg.WorkerUID < 0 && cfg.WorkerGID < 0) {
		return nil
	}
	pick := func(v, own int) uint32 {
		switch {
		case v < 0:
			return uint32(own)
		case v == 0:
			return nobody
		}
		return uint32(v)
	}
	// Groups empty: the supplementary groups of the server are dropped.
	return &syscall.Credential{Uid: pick(cfg.WorkerUID, os.Geteuid()), Gid: pick(cfg.WorkerGID, os.Getegid()), Groups: []uint32{}}
}

func (p *Pool) closeExe() {
	if p.exe != nil {
		p.exe.Close()
	}
}

// workerEnviron gives the worker only what it needs: the marker variable
// and, for coverage runs, GOCOVERDIR. Secrets in the parent's environment
// (API keys) never reach the process that runs model code.
func workerEnviron(extra []string) []string {
	env := append([]string{protocol.WorkerEnv + "=1"}, extra...)
	if d := os.Getenv("GOCOVERDIR"); d != "" {
		env = append(env, "GOCOVERDIR="+d)
	}
	return env
}

// Close stops the pool and kills its idle workers. Sessions already started
// keep running until they are closed.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	close(p.stop)
	<-p.done
	for {
		select {
		case w := <-p.idle:
			w.kill()
		default:
			p.closeExe()
			return nil
		}
	}
}

// NewSession starts a session on a pooled worker: it maps the context and
// applies the limits, ready for Run.
func (p *Pool) NewSession(ctx context.Context, cfg SessionConfig) (*Session, error) {
	s := &Session{
		pool:   p,
		cfg:    cfg,
		limits: protocol.OrDefault(cfg.Limits, p.limits),
	}
	var contextBytes int64
	if cfg.Context != nil && cfg.Context.Path != "" {
		if fi, err := os.Stat(cfg.Context.Path); err == nil {
			contextBytes = fi.Size()
		}
	}
	res, err := reserveAll(ctx, sessionReservation(s.limits, contextBytes), p.cfg.MemoryWait, cfg.Budget, p.budget)
	if err != nil {
		return nil, err
	}
	s.res = res
	if err := s.startWorker(ctx); err != nil {
		res.release()
		return nil, err
	}
	return s, nil
}
