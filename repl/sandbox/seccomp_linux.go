//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The worker's seccomp filter is an allowlist: the system calls the Go
// runtime (with or without cgo), the interpreter and the worker's own
// protocol code make once the worker is confined, and nothing else. Every
// other call fails with EPERM instead of killing the process, so a runtime
// path nobody foresaw shows up as an error, not as a dead worker. Opening
// files (open, openat, openat2), sockets (socket, connect, bind, sendmsg),
// new programs (execve, execveat), new processes (clone without
// CLONE_THREAD, fork, vfork), debugging other processes (ptrace,
// process_vm_readv/writev, pidfd_*) and io_uring, which would run all of
// those on the worker's behalf, are all outside the list.
//
// clone3 answers ENOSYS: glibc's pthread_create (the runtime's thread
// creation under cgo) then falls back to clone, whose flags a filter can
// read (clone3 passes them in memory, out of a filter's reach).

// seccompAllowed are the calls allowed whatever their arguments, on both
// architectures; seccompArchAllowed (per architecture) adds the legacy ones.
var seccompAllowed = []uint32{
	// I/O on descriptors the worker already holds.
	unix.SYS_READ, unix.SYS_WRITE, unix.SYS_READV, unix.SYS_WRITEV,
	unix.SYS_PREAD64, unix.SYS_LSEEK, unix.SYS_CLOSE, unix.SYS_FSTAT,
	unix.SYS_DUP, unix.SYS_DUP3, unix.SYS_PPOLL,
	// The context descriptor arrives over the protocol socket.
	unix.SYS_RECVMSG,
	// Memory.
	unix.SYS_MMAP, unix.SYS_MUNMAP, unix.SYS_MPROTECT, unix.SYS_MADVISE,
	unix.SYS_MREMAP, unix.SYS_MINCORE, unix.SYS_BRK,
	// Signals, threads and scheduling of the runtime.
	unix.SYS_RT_SIGACTION, unix.SYS_RT_SIGPROCMASK, unix.SYS_RT_SIGRETURN,
	unix.SYS_SIGALTSTACK, unix.SYS_RESTART_SYSCALL,
	unix.SYS_FUTEX, unix.SYS_SET_ROBUST_LIST, unix.SYS_RSEQ,
	unix.SYS_SCHED_YIELD, unix.SYS_SCHED_GETAFFINITY,
	unix.SYS_GETTID, unix.SYS_GETPID, unix.SYS_EXIT, unix.SYS_EXIT_GROUP,
	// Time and timers.
	unix.SYS_NANOSLEEP, unix.SYS_CLOCK_NANOSLEEP, unix.SYS_CLOCK_GETTIME,
	unix.SYS_CLOCK_GETRES, unix.SYS_GETTIMEOFDAY,
	unix.SYS_TIMER_CREATE, unix.SYS_TIMER_SETTIME, unix.SYS_TIMER_DELETE,
	unix.SYS_SETITIMER, unix.SYS_GETITIMER,
	// The network poller (over pipes only: no socket can be made).
	unix.SYS_EPOLL_CREATE1, unix.SYS_EPOLL_CTL, unix.SYS_EPOLL_PWAIT,
	unix.SYS_EPOLL_PWAIT2, unix.SYS_EVENTFD2, unix.SYS_PIPE2,
	// Harmless facts about the process; rlimits can only be lowered once
	// the session fixed its hard limits.
	unix.SYS_GETRANDOM, unix.SYS_UNAME, unix.SYS_GETUID, unix.SYS_GETEUID,
	unix.SYS_GETGID, unix.SYS_GETEGID, unix.SYS_GETRLIMIT, unix.SYS_SETRLIMIT,
	unix.SYS_PRLIMIT64,
}

// seccompPrctlAllowed are the prctl options the runtime uses (naming its
// anonymous mappings, thread names); the rest (dumpable, ptracer, securebits
// and so on) fail with EPERM.
var seccompPrctlAllowed = []uint32{unix.PR_SET_VMA, unix.PR_SET_NAME, unix.PR_GET_NAME}

// seccompFcntlAllowed are the fcntl commands the runtime and os use. Not
// F_SETOWN and friends: a descriptor's owner receives SIGIO, a way to signal
// the server that kill's check would not see.
var seccompFcntlAllowed = []uint32{
	unix.F_GETFD, unix.F_SETFD, unix.F_GETFL, unix.F_SETFL, unix.F_DUPFD, unix.F_DUPFD_CLOEXEC,
}

// SeccompSupported reports whether the worker gets the seccomp layer: a
// filter is written for this architecture.
const SeccompSupported = true

// Offsets in struct seccomp_data. Arguments are 64 bits; the filter reads
// their low half, which is all the kernel reads of an int or pid_t.
const (
	seccompNr   = 0
	seccompArch = 4
	seccompArg0 = 16
	seccompArg1 = 24
)

// seccompFilter returns the worker's filter for process pid.
func seccompFilter(pid int) []unix.SockFilter {
	var prog []unix.SockFilter
	stmt := func(code uint16, k uint32) { prog = append(prog, unix.SockFilter{Code: code, K: k}) }
	jump := func(code uint16, k uint32, jt, jf uint8) {
		prog = append(prog, unix.SockFilter{Code: code, K: k, Jt: jt, Jf: jf})
	}
	const (
		load  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		jset  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		allow = unix.SECCOMP_RET_ALLOW
		eperm = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	)
	// A call made through another ABI (i386 on amd64, arm32 on arm64) has
	// other numbers: refuse it rather than misread it.
	stmt(load, seccompArch)
	jump(jeq, seccompAuditArch, 1, 0)
	stmt(ret, eperm)
	stmt(load, seccompNr)
	if seccompX32Bit != 0 {
		jump(jge, seccompX32Bit, 0, 1)
		stmt(ret, eperm)
	}
	jump(jeq, unix.SYS_CLONE3, 0, 1)
	stmt(ret, unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS))

	// argIs allows nr when its argument at offset arg is one of vals (or,
	// with bits, has one of them set). A matched nr returns in its block;
	// an unmatched one skips it with the number still loaded.
	argIs := func(nr uint32, arg uint32, bits bool, vals ...uint32) {
		jump(jeq, nr, 0, uint8(1+2*len(vals)+1))
		stmt(load, arg)
		for _, v := range vals {
			if bits {
				jump(jset, v, 0, 1)
			} else {
				jump(jeq, v, 0, 1)
			}
			stmt(ret, allow)
		}
		stmt(ret, eperm)
	}
	// New threads only, never a new process.
	argIs(unix.SYS_CLONE, seccompArg0, true, unix.CLONE_THREAD)
	// Signals to the worker itself (the runtime preempts goroutines with
	// tgkill and raises crash signals with kill), never to the server or
	// another worker.
	argIs(unix.SYS_KILL, seccompArg0, false, uint32(pid))
	argIs(unix.SYS_TGKILL, seccompArg0, false, uint32(pid))
	argIs(unix.SYS_PRCTL, seccompArg0, false, seccompPrctlAllowed...)
	argIs(unix.SYS_FCNTL, seccompArg1, false, seccompFcntlAllowed...)

	for _, nr := range append(append([]uint32(nil), seccompAllowed...), seccompArchAllowed...) {
		jump(jeq, nr, 0, 1)
		stmt(ret, allow)
	}
	stmt(ret, eperm)
	return prog
}

// installSeccomp loads the filter into every thread of the process
// (SECCOMP_FILTER_FLAG_TSYNC). no_new_privs must already be set.
func installSeccomp() error {
	prog := seccompFilter(unix.Getpid())
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return fmt.Errorf("install seccomp filter: %w", errno)
	}
	if r != 0 {
		return fmt.Errorf("install seccomp filter: thread %d could not be synchronised", r)
	}
	return nil
}
