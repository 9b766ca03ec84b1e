//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	"github.com/rlm-project/rlm/repl/protocol"
	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"
)

// A worker confines itself before it builds its interpreter, so that no
// code the model wrote ever runs outside the confinement. Each layer holds
// on its own; docs/security.md says what each one stops and how an
// operator checks it. In order:
//
//  1. every inherited descriptor but the protocol's is closed;
//  2. rlimits: no core dumps, no file growth, few descriptors, a bound on
//     the tasks of the worker's uid, and an address-space limit from the
//     start (the session narrows it);
//  3. no_new_privs, and every capability dropped, the bounding set's too
//     where the worker holds CAP_SETPCAP (a worker of a root server);
//  4. Landlock, best effort: no filesystem or TCP access, no signals to
//     processes outside the worker;
//  5. the seccomp allowlist of seccomp_linux.go.
//
// The working directory is an empty directory the pool removed once the
// worker started, and the uid is another than the server's when the server
// runs as root: both are set by the pool (Pool.start).

// MaxFiles is the limit of open descriptors (RLIMIT_NOFILE) a worker has
// from its start: protocol pipes, poller, mapped context, with room to
// spare. (The session's init narrows the address space; see
// LimitAddressSpace.)
const MaxFiles = 64

// Layers selects confinement layers; workers get all of them, tests prove
// single layers on their own.
type Layers uint

// The layers, in the order Confine applies them.
const (
	CloseFiles     Layers = 1 << iota // close inherited descriptors past the protocol's
	StartLimits                       // rlimits: no core dumps, no file growth, MaxFiles, MaxProcesses, an address-space limit
	DropPrivileges                    // no_new_privs, no capabilities
	LandlockLayer                     // Landlock: no filesystem or TCP access, no signals outside the worker
	SeccompLayer                      // the seccomp allowlist of seccomp_linux.go

	AllLayers = CloseFiles | StartLimits | DropPrivileges | LandlockLayer | SeccompLayer
)

// Confine applies the layers ls to the calling process; startMemory bounds
// its address space (on top of what is mapped now) until the session sets
// its own limit. Where the runtime cannot change every thread at once, the
// per-thread layers are applied by re-executing the worker
// (reexec_linux.go); Confine then does not return unless that fails, and
// the second start calls it again.
func Confine(ls Layers, startMemory int64, statm *os.File) error {
	_, _, reexeced := stage2()
	// A second start has only what the first kept open; it could not list
	// its descriptors anyway (Landlock hides /proc).
	if ls&CloseFiles != 0 && !reexeced {
		if err := closeInheritedFiles(); err != nil {
			return err
		}
	}
	setLocalZone()
	if ls&StartLimits != 0 {
		if err := setStartLimits(startMemory, statm); err != nil {
			return err
		}
	}
	switch {
	case reexeced:
		if err := checkInherited(ls); err != nil {
			return err
		}
	case ls&perThreadLayers != 0 && !AllThreadsWork():
		return reexecConfined(ls&perThreadLayers, statm)
	default:
		if ls&DropPrivileges != 0 {
			if err := allThreads(unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0); err != nil {
				return fmt.Errorf("set no_new_privs: %w", err)
			}
			if err := dropCapabilities(allThreads); err != nil {
				return err
			}
		}
		if ls&LandlockLayer != 0 {
			// An empty configuration of every access right the kernel
			// knows: nothing on the filesystem, no TCP bind or connect,
			// and scoped signals and abstract sockets. Kernels without
			// Landlock (or with an older ABI) get what they support;
			// seccomp covers the rest.
			if err := landlock.V11.BestEffort().Restrict(); err != nil {
				return fmt.Errorf("landlock: %w", err)
			}
		}
	}
	if ls&SeccompLayer != 0 && SeccompSupported {
		if err := installSeccomp(); err != nil {
			return err
		}
	}
	return nil
}

// allThreads runs a system call on every thread of the process: privileges
// (no_new_privs, capabilities) are per thread, and the Go runtime has
// several threads before main runs.
func allThreads(nr, a1, a2, a3 uintptr) error {
	if _, _, errno := psx.Syscall6(nr, a1, a2, a3, 0, 0, 0); errno != 0 {
		return errno
	}
	return nil
}

// closeInheritedFiles closes every descriptor above the protocol's that the
// worker inherited: those are the ones without close-on-exec (anything the
// server opened with it was closed by exec), such as a descriptor the
// server's own parent leaked to it. Descriptors the Go runtime opened in
// this process (cgroup files it rereads) have close-on-exec and stay.
func closeInheritedFiles() error {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("list open files: %w", err)
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= protocol.LastFD {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC != 0 {
			continue // gone (the directory's own descriptor) or ours
		}
		if err := unix.Close(fd); err != nil {
			return fmt.Errorf("close inherited file %d: %w", fd, err)
		}
	}
	return nil
}

// MaxProcesses is the limit of tasks (RLIMIT_NPROC) a worker has from its
// start. The kernel counts every process and thread of the worker's real
// uid against it, those of all workers together (and the server's when
// workers share its uid), and checks it when the worker makes a thread:
// it is no bound on one worker but on all of them, far above what they use
// (a worker runs a few threads more than GOMAXPROCS) and far below what
// would exhaust the machine (kernel.threads-max, kernel.pid_max). The
// seccomp filter refuses new processes; this stops an escaped worker from
// making threads until the machine has none left. Root (uid 0 of the
// initial user namespace) is exempt, by the kernel: a worker kept as root
// is not bounded by it.
const MaxProcesses = 16384

// setStartLimits sets the rlimits a worker has from its start.
func setStartLimits(memory int64, statm *os.File) error {
	vsz, err := addressSpace(statm)
	if err != nil {
		return err
	}
	for _, l := range []struct {
		name     string
		res      int
		cur, max uint64
	}{
		{"RLIMIT_CORE", unix.RLIMIT_CORE, 0, 0},   // a core file would hold tenants' data
		{"RLIMIT_FSIZE", unix.RLIMIT_FSIZE, 0, 0}, // no file to write
		{"RLIMIT_NOFILE", unix.RLIMIT_NOFILE, MaxFiles, MaxFiles},
		{"RLIMIT_NPROC", unix.RLIMIT_NPROC, MaxProcesses, MaxProcesses},
		// Soft only: the session may need more for a larger context and
		// fixes both halves once it mapped it (LimitAddressSpace). No model
		// code runs before that.
		{"RLIMIT_AS", unix.RLIMIT_AS, uint64(vsz + memory), unix.RLIM_INFINITY},
	} {
		var old unix.Rlimit
		if err := unix.Getrlimit(l.res, &old); err != nil {
			return fmt.Errorf("get %s: %w", l.name, err)
		}
		next := unix.Rlimit{Cur: min(l.cur, old.Max), Max: min(l.max, old.Max)}
		if err := unix.Setrlimit(l.res, &next); err != nil {
			return fmt.Errorf("set %s to %d: %w", l.name, next.Cur, err)
		}
	}
	return nil
}

// dropCapabilities empties every capability set of the threads that run
// reaches (all of them, or the calling one before a re-exec), the bounding
// set included where the worker may change it, which takes CAP_SETPCAP: a
// worker that is root has it, and one a root pool started as another user
// keeps it alone for this (repl's Pool starts it so). A worker without it, that of a
// server that is not root, keeps the server's bounding set, which
// no_new_privs makes inert (and seccomp refuses exec); any other
// capability it has (a service's ambient ones) is dropped all the same.
func dropCapabilities(run func(nr, a1, a2, a3 uintptr) error) error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read capabilities: %w", err)
	}
	if data[0].Permitted|data[1].Permitted|data[0].Effective|data[1].Effective|data[0].Inheritable|data[1].Inheritable == 0 {
		return nil
	}
	for c := uintptr(0); c < 64 && data[0].Effective&(1<<unix.CAP_SETPCAP) != 0; c++ {
		err := run(unix.SYS_PRCTL, unix.PR_CAPBSET_DROP, c, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the last capability this kernel knows
		}
		if err != nil {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := run(unix.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := run(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}
