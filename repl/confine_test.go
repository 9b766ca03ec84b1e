//go:build linux

package repl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/rlm-project/rlm/repl/protocol"
	"github.com/rlm-project/rlm/repl/sandbox"
	"golang.org/x/sys/unix"
)

// Environment of the confinement probe: a worker process of the test binary
// that, instead of serving a session, confines itself and tries what an
// escaped interpreter would. TestMain runs it (runProbe); nothing in the
// rlm binary knows these variables.
const (
	probeEnv     = "RLM_REPL_TEST_PROBE" // "all": a worker's confinement; "landlock": Landlock alone
	probePortEnv = "RLM_REPL_TEST_PORT"  // a TCP port on 127.0.0.1 the probe tries to connect to
	probePrefix  = "probe result: "
)

// runProbe confines the process as asked and prints, as JSON on stderr,
// each attempt's errno ("" when it succeeded).
func runProbe(mode string) int {
	// Made before confinement, so that connect is tried on a real socket.
	sock, sockErr := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	var err error
	switch mode {
	case "all":
		_, err = sandbox.ConfineWorker() // exactly what MaybeRunWorker does
	case "landlock":
		err = sandbox.Confine(sandbox.LandlockLayer, 0, nil)
	default:
		err = fmt.Errorf("unknown probe mode %q", mode)
	}
	if err != nil || sockErr != nil {
		fmt.Fprintf(os.Stderr, "probe: confine: %v (socket: %v)\n", err, sockErr)
		return 1
	}
	res := map[string]string{}
	try := func(name string, err error) {
		var errno syscall.Errno
		switch {
		case err == nil:
			res[name] = ""
		case errors.As(err, &errno):
			res[name] = unix.ErrnoName(errno)
		default:
			res[name] = err.Error()
		}
	}
	ppid := os.Getppid()
	port, _ := strconv.Atoi(os.Getenv(probePortEnv))

	fd, err := unix.Open("/etc/passwd", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
	}
	try("open", err)
	try("mkdir", unix.Mkdir(filepath.Join(os.TempDir(), fmt.Sprintf("rlm-probe-%d", os.Getpid())), 0o700))
	fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
	}
	try("socket", err)
	try("connect", unix.Connect(sock, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}))
	try("execve", unix.Exec("/bin/true", []string{"true"}, nil))
	err = unix.PtraceSeize(ppid)
	if err == nil {
		_ = unix.PtraceDetach(ppid)
	}
	try("ptrace", err)
	buf := make([]byte, 8)
	_, err = unix.ProcessVMReadv(ppid, []unix.Iovec{{Base: &buf[0], Len: 8}}, []unix.RemoteIovec{{Base: 0x400000, Len: 8}}, 0)
	try("process_vm_readv", err)
	try("kill", unix.Kill(ppid, 0)) // signal 0: only the permission check
	// SIGIO to the server through a descriptor's owner.
	_, err = unix.FcntlInt(uintptr(protocol.OutFD), unix.F_SETOWN, ppid)
	try("fcntl_setown", err)
	if mode == "all" {
		// A process of its own: the child, if the call succeeds, exits at
		// once without touching the runtime.
		pid, _, errno := unix.RawSyscall6(unix.SYS_CLONE, uintptr(unix.SIGCHLD), 0, 0, 0, 0, 0)
		if errno == 0 && pid == 0 {
			unix.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0)
		}
		try("fork", errnoOrNil(errno))
		_, _, errno = unix.RawSyscall(unix.SYS_CLONE3, 0, 0, 0)
		try("clone3", errnoOrNil(errno))
		try("threads", newThreads(16))
	}
	b, _ := json.Marshal(res)
	fmt.Fprintf(os.Stderr, "%s%s\n", probePrefix, b)
	return 0
}

func errnoOrNil(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// newThreads makes the runtime start n OS threads (goroutines locked to
// threads, all alive at once), proving that clone still works for threads.
func newThreads(n int) error {
	var wg sync.WaitGroup
	release := make(chan struct{})
	tids := make(chan int, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			tids <- unix.Gettid()
			<-release
		}()
	}
	seen := map[int]bool{}
	timeout := time.After(10 * time.Second)
	for len(seen) < n {
		select {
		case tid := <-tids:
			seen[tid] = true
		case <-timeout:
			close(release)
			return fmt.Errorf("only %d of %d threads started", len(seen), n)
		}
	}
	close(release)
	wg.Wait()
	return nil
}

// probe starts a probe through the pool's own start path (uid, directory,
// descriptors, environment) and returns what it reported.
func probe(t *testing.T, mode string) map[string]string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	p, err := NewPool(PoolConfig{Size: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	w, err := p.startEnv([]string{probeEnv + "=" + mode, fmt.Sprintf("%s=%d", probePortEnv, port)})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.dead:
	case <-time.After(60 * time.Second):
		w.kill()
		t.Fatalf("the probe did not finish: %s", w.stderr.String())
	}
	out := w.stderr.String()
	i := strings.Index(out, probePrefix)
	if i < 0 {
		t.Fatalf("the probe reported nothing (%v):\n%s", w.waitErr, out)
	}
	res := map[string]string{}
	if err := json.Unmarshal([]byte(firstLine(out[i+len(probePrefix):])), &res); err != nil {
		t.Fatalf("probe output %q: %v", out, err)
	}
	// The connection attempt must not have reached the listener.
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(50 * time.Millisecond))
	if c, err := ln.Accept(); err == nil {
		c.Close()
		t.Error("the probe connected to the test's listener")
	}
	return res
}

// TestConfinementProbe proves each layer from inside a worker process,
// without needing an interpreter escape: what the confined process tries
// directly in Go must fail with the errno of the layer that refuses it.
func TestConfinementProbe(t *testing.T) {
	t.Run("worker", func(t *testing.T) {
		if !sandbox.SeccompSupported {
			t.Skipf("no seccomp filter for %s", runtime.GOARCH)
		}
		got := probe(t, "all")
		t.Logf("probe: %v", got)
		// seccomp answers first, so every refusal is its EPERM; clone3 is
		// ENOSYS so that glibc falls back to clone.
		for _, name := range []string{"open", "mkdir", "socket", "connect", "execve", "ptrace", "process_vm_readv", "kill", "fcntl_setown", "fork"} {
			if got[name] != "EPERM" {
				t.Errorf("%s: got %q, want EPERM", name, got[name])
			}
		}
		if got["clone3"] != "ENOSYS" {
			t.Errorf("clone3: got %q, want ENOSYS", got["clone3"])
		}
		if got["threads"] != "" {
			t.Errorf("threads: %s", got["threads"])
		}
	})
	t.Run("landlock alone", func(t *testing.T) {
		abi, err := ll.LandlockGetABIVersion()
		if err != nil || abi < 6 {
			t.Skipf("the kernel's Landlock ABI is %d (%v); this test needs 6 (TCP and signal scoping)", abi, err)
		}
		got := probe(t, "landlock")
		t.Logf("probe: %v", got)
		want := map[string]string{
			"open": "EACCES", "mkdir": "EACCES", "connect": "EACCES", "execve": "EACCES",
			// Landlock forbids tracing and signalling processes outside
			// the worker's domain.
			"ptrace": "EPERM", "process_vm_readv": "EPERM", "kill": "EPERM",
			"socket": "", // Landlock does not refuse making a socket; seccomp does
		}
		for name, errno := range want {
			if got[name] != errno {
				t.Errorf("%s: got %q, want %q", name, got[name], errno)
			}
		}
	})
}

// TestWorkerConfined reads the confinement of real pooled workers from
// /proc, the way an operator checks it (docs/security.md).
func TestWorkerConfined(t *testing.T) {
	root := os.Geteuid() == 0
	// A descriptor without close-on-exec, as a server may inherit from its
	// own parent: every worker started meanwhile inherits it too.
	leak := filepath.Join(t.TempDir(), "leaked")
	if err := os.WriteFile(leak, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	opened, err := unix.Open(leak, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(opened)
	// Past the protocol's descriptors, which a worker's start replaces (a
	// test binary run without go test's own descriptors gets a low one).
	leakFD, err := unix.FcntlInt(uintptr(opened), unix.F_DUPFD, protocol.LastFD+1)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(leakFD)
	// Without confinement the worker keeps it: the setup does leak.
	raw, err := NewPool(PoolConfig{Size: 1, unconfined: true})
	if err != nil {
		t.Fatal(err)
	}
	w, err := raw.take()
	if err != nil {
		t.Fatal(err)
	}
	if target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", w.cmd.Process.Pid, leakFD)); target != leak {
		t.Errorf("an unconfined worker's fd %d is %q, want the leaked %s", leakFD, target, leak)
	}
	w.kill()
	raw.Close()

	cf, err := WriteContext(t.TempDir(), []string{"hello", "world"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		uid, gid int // PoolConfig
		wantUID  int // when the test runs as root
		wantGID  int
	}{
		{"default user", 0, 0, nobody, nobody},
		{"chosen user", 4242, 4343, 4242, 4343},
		// Root kept: the worker drops every capability itself.
		{"root kept", -1, -1, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !root && tt.uid != 0 {
				t.Skip("only a root pool chooses its workers' user")
			}
			p, err := NewPool(PoolConfig{Size: 1, WorkerUID: tt.uid, WorkerGID: tt.gid})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			s, err := p.NewSession(t.Context(), SessionConfig{Context: cf})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if r := run(t, s, `fmt.Print(contexts[1], len(context))`); r.Output != "world12" || r.Error != "" {
				t.Fatalf("cell: output %q, error %q", r.Output, r.Error)
			}
			pid := s.w.cmd.Process.Pid
			status := procFields(t, pid, "status")
			for _, k := range []string{"Uid", "Gid", "Groups", "NoNewPrivs", "Seccomp", "Seccomp_filters", "CapEff"} {
				t.Logf("%s:\t%s", k, status[k])
			}
			wantUID, wantGID := os.Geteuid(), os.Getegid()
			if root {
				wantUID, wantGID = tt.wantUID, tt.wantGID
			}
			for key, want := range map[string]string{
				"NoNewPrivs": "1",
				"Seccomp":    "2",
				"CapInh":     "0000000000000000",
				"CapPrm":     "0000000000000000",
				"CapEff":     "0000000000000000",
				"CapAmb":     "0000000000000000",
				"Uid":        strings.Repeat(strconv.Itoa(wantUID)+" ", 4),
				"Gid":        strings.Repeat(strconv.Itoa(wantGID)+" ", 4),
			} {
				if !sandbox.SeccompSupported && key == "Seccomp" {
					continue
				}
				if got := strings.Join(strings.Fields(status[key]), " "); got != strings.TrimSpace(want) {
					t.Errorf("/proc/%d/status %s: %q, want %q", pid, key, status[key], strings.TrimSpace(want))
				}
			}
			// Privileges belong to threads: every thread of the worker must
			// hold them, not only the one /proc/PID/status shows.
			tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range tasks {
				ts := procFields(t, pid, "task/"+task.Name()+"/status")
				for key, want := range map[string]string{"NoNewPrivs": "1", "CapEff": "0000000000000000", "CapPrm": "0000000000000000"} {
					if got := strings.TrimSpace(ts[key]); got != want {
						t.Errorf("thread %s of %d: %s %q, want %q", task.Name(), len(tasks), key, got, want)
					}
				}
				if sandbox.SeccompSupported && strings.TrimSpace(ts["Seccomp"]) != "2" {
					t.Errorf("thread %s: Seccomp %q, want 2", task.Name(), ts["Seccomp"])
				}
			}
			// A build where the runtime cannot reach every thread (a pure-Go
			// build linking purego) confines by re-exec.
			environ, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
			if got, want := strings.Contains(string(environ), sandbox.ReexecEnv+"="), !sandbox.AllThreadsWork(); got != want {
				t.Errorf("confined by re-exec: %v, want %v (psx reaches every thread: %v)", got, want, !want)
			}
			t.Logf("%d threads; confined by re-exec: %v", len(tasks), !sandbox.AllThreadsWork())
			// The bounding set takes CAP_SETPCAP to change: workers of a
			// root pool empty it, whatever their uid; those of a pool that
			// is not root keep the pool's.
			wantBnd := procFields(t, os.Getpid(), "status")["CapBnd"]
			if root {
				wantBnd = "0000000000000000"
			}
			t.Logf("CapBnd:\t%s", status["CapBnd"])
			if status["CapBnd"] != wantBnd {
				t.Errorf("/proc/%d/status CapBnd: %s, want %s", pid, status["CapBnd"], wantBnd)
			}
			if root && strings.TrimSpace(status["Groups"]) != "" {
				t.Errorf("supplementary groups %q, want none", status["Groups"])
			}

			cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
			if err != nil || !strings.HasSuffix(cwd, " (deleted)") {
				t.Errorf("working directory %q (%v), want an empty directory already removed", cwd, err)
			}

			fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range fds {
				n, _ := strconv.Atoi(e.Name())
				target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name()))
				t.Logf("fd %d: %s", n, target)
				if n <= protocol.LastFD {
					continue
				}
				// Past the protocol's: only what the worker opened for
				// itself (poller, statm) or the runtime did (cgroup limits).
				ok := strings.HasPrefix(target, "anon_inode:") || strings.HasPrefix(target, "pipe:") ||
					target == fmt.Sprintf("/proc/%d/statm", pid) || strings.HasPrefix(target, "/sys/fs/cgroup/")
				if !ok || target == leak {
					t.Errorf("worker %d holds fd %d: %s", pid, n, target)
				}
			}

			limits := procLimits(t, pid)
			var nproc unix.Rlimit
			if err := unix.Getrlimit(unix.RLIMIT_NPROC, &nproc); err != nil {
				t.Fatal(err)
			}
			maxProcs := min(sandbox.MaxProcesses, nproc.Max) // only ever lowered
			for name, want := range map[string]string{
				"Max core file size": "0 0",
				"Max file size":      "0 0",
				"Max open files":     fmt.Sprintf("%d %d", sandbox.MaxFiles, sandbox.MaxFiles),
				"Max processes":      fmt.Sprintf("%d %d", maxProcs, maxProcs),
			} {
				if limits[name] != want {
					t.Errorf("%s: %q, want %q", name, limits[name], want)
				}
			}
			if as := limits["Max address space"]; strings.HasPrefix(as, "unlimited") {
				t.Errorf("Max address space: %q, want a limit", as)
			}
		})
	}
}

// TestConfinedWorkerTimeZones checks that model code still has time zones,
// which the standard library reads from files the worker cannot open.
func TestConfinedWorkerTimeZones(t *testing.T) {
	s := newTestSession(t, newTestPool(t, 1))
	r := run(t, s, `loc, err := time.LoadLocation("Asia/Tokyo")
fmt.Print(loc, " ", err, " ", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).In(loc).Hour())`)
	if r.Output != "Asia/Tokyo <nil> 9" || r.Error != "" {
		t.Fatalf("output %q, error %q", r.Output, r.Error)
	}
}

// TestIdleWorkerConfined checks that a worker is confined from its start,
// before any session reached it.
func TestIdleWorkerConfined(t *testing.T) {
	p := newTestPool(t, 1)
	w, err := p.take()
	if err != nil {
		t.Fatal(err)
	}
	defer w.kill()
	// The worker confines itself first thing after exec.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		status := procFields(t, w.cmd.Process.Pid, "status")
		if status["NoNewPrivs"] == "1" && (!sandbox.SeccompSupported || status["Seccomp"] == "2") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("idle worker: NoNewPrivs %q, Seccomp %q; want 1 and 2", status["NoNewPrivs"], status["Seccomp"])
		}
	}
	if as := procLimits(t, w.cmd.Process.Pid)["Max address space"]; strings.HasPrefix(as, "unlimited") {
		t.Errorf("idle worker: Max address space %q, want a limit from the start", as)
	}
}

// procFields reads /proc/pid/name as "Key:\tvalue" lines.
func procFields(t *testing.T, pid int, name string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, name))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

// procLimits reads /proc/pid/limits as name -> "soft hard".
func procLimits(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(b), "\n")[1:] {
		if len(l) < 26 {
			continue
		}
		f := strings.Fields(l[25:])
		if len(f) >= 2 {
			m[strings.TrimSpace(l[:25])] = f[0] + " " + f[1]
		}
	}
	return m
}

// TestWorkerSetupFailureExplained checks that a worker that could not set
// itself up (a confinement layer refused) is reported with its own reason,
// not only an exit status.
func TestWorkerSetupFailureExplained(t *testing.T) {
	p, err := startProc(exec.Command("/bin/sh", "-c", `echo "`+protocol.WorkerErrPrefix+`confine: landlock: refused" >&2; exit 4`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.kill()
	err = p.init(context.Background(), nil, "", nil, nil, DefaultLimits(), 20*time.Second)
	if want := "worker failed: confine: landlock: refused"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("init: %v, want %q", err, want)
	}
}
