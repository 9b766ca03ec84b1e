//go:build linux

package sandbox

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unsafe"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"
)

// Confinement by re-exec, for builds where the runtime cannot run a system
// call on all of its threads.
//
// no_new_privs, capabilities and Landlock belong to a thread, and the Go
// runtime has several threads before main runs; psx changes them all
// through the runtime (syscall.AllThreadsSyscall), which the runtime
// refuses with ENOTSUP in a binary that links purego without cgo (its fake
// cgo makes the runtime believe cgo is on): a CGO_ENABLED=0 build of rlm.
// Then the worker changes them on one locked thread and executes itself
// again from that thread: every thread of the new image descends from it,
// so all of them start with no_new_privs, no capabilities and the Landlock
// domain. The second start (stage 2) applies the layers of the whole
// process (rlimits, seccomp with TSYNC) as usual and only checks the
// per-thread ones.
//
// Landlock then has to let the exec through: the ruleset allows reading
// and executing the files the process has mapped (the binary, and for a
// dynamically linked one its loader and libraries) and reading the
// loader's cache, nothing else. Stage 2 cannot open files, so what it
// would read at start travels with it: /proc/self/statm as a descriptor,
// the local time zone's data in the environment.

// ReexecEnv marks a stage-2 worker, one that Confine executed again: its
// value is "statm=FD zone=BASE64" (zone empty when there is no zone file to
// pass). An operator, or a test, finds it in /proc/PID/environ.
const ReexecEnv = "RLM_REPL_CONFINED"

// perThreadLayers are the layers that the re-exec applies.
const perThreadLayers = DropPrivileges | LandlockLayer

// AllThreadsWork reports whether psx can reach every thread of this
// process; where it cannot, Confine applies the per-thread layers by
// re-exec. The harmless prctl(PR_GET_NO_NEW_PRIVS) answers ENOTSUP where it
// cannot.
func AllThreadsWork() bool {
	_, _, errno := psx.Syscall3(unix.SYS_PRCTL, unix.PR_GET_NO_NEW_PRIVS, 0, 0)
	return errno != unix.ENOTSUP
}

// stage2 returns what a stage-1 worker passed on, or ok false.
func stage2() (statmFD int, zone []byte, ok bool) {
	v, ok := os.LookupEnv(ReexecEnv)
	if !ok {
		return 0, nil, false
	}
	statmFD = -1
	for _, f := range strings.Fields(v) {
		k, val, _ := strings.Cut(f, "=")
		switch k {
		case "statm":
			statmFD, _ = strconv.Atoi(val)
		case "zone":
			zone, _ = base64.StdEncoding.DecodeString(val)
		}
	}
	return statmFD, zone, true
}

// inheritedStatm is the /proc/self/statm of a stage-2 worker, opened by
// stage 1 (nil otherwise). It is made close-on-exec again, so that
// closeInheritedFiles keeps it.
func inheritedStatm() *os.File {
	fd, _, ok := stage2()
	if !ok || fd < 0 {
		return nil
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), "/proc/self/statm")
}

// setLocalZone sets time.Local before confinement: from the data stage 1
// passed, or by resolving it now (it is read from a file on first use,
// which the confined worker cannot open).
func setLocalZone() {
	if _, zone, ok := stage2(); ok {
		if len(zone) > 0 {
			if loc, err := time.LoadLocationFromTZData("Local", zone); err == nil {
				time.Local = loc
			}
		}
		return
	}
	_ = time.Local.String()
}

// zoneData is the time zone file time.Local was read from, as the time
// package finds it ($TZ, else /etc/localtime), or nil.
func zoneData() []byte {
	tz, set := os.LookupEnv("TZ")
	var paths []string
	switch {
	case !set:
		paths = []string{"/etc/localtime"}
	case tz == "" || tz == "UTC":
		return nil
	default:
		tz = strings.TrimPrefix(tz, ":")
		if filepath.IsAbs(tz) {
			paths = []string{tz}
		}
		for _, dir := range []string{os.Getenv("ZONEINFO"), "/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/usr/lib/locale/TZ"} {
			if dir != "" && !filepath.IsAbs(tz) {
				paths = append(paths, filepath.Join(dir, tz))
			}
		}
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 {
			return b
		}
	}
	return nil
}

// reexecConfined applies the per-thread layers ls to this thread and
// executes the binary again with them; it returns only on failure.
func reexecConfined(ls Layers, statm *os.File) error {
	runtime.LockOSThread() // for good: this thread becomes the process
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if ls&DropPrivileges != 0 {
		if err := dropCapabilities(thisThread); err != nil {
			return err
		}
	}
	if ls&LandlockLayer != 0 {
		if err := landlockThisThread(); err != nil {
			return fmt.Errorf("landlock: %w", err)
		}
	}
	env := ReexecEnv + "=statm=-1"
	if statm != nil {
		if _, err := unix.FcntlInt(statm.Fd(), unix.F_SETFD, 0); err != nil {
			return fmt.Errorf("pass /proc/self/statm on: %w", err)
		}
		env = fmt.Sprintf("%s=statm=%d", ReexecEnv, statm.Fd())
	}
	if z := zoneData(); z != nil {
		env += " zone=" + base64.StdEncoding.EncodeToString(z)
	}
	err := unix.Exec("/proc/self/exe", os.Args, append(os.Environ(), env))
	return fmt.Errorf("execute the worker again, confined: %w", err)
}

// checkInherited verifies, in stage 2, what stage 1 set on its thread.
func checkInherited(ls Layers) error {
	if ls&DropPrivileges == 0 {
		return nil
	}
	nnp, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
	if err != nil || nnp != 1 {
		return fmt.Errorf("no_new_privs was not inherited (%d, %v)", nnp, err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read capabilities: %w", err)
	}
	for _, d := range data {
		if d.Effective|d.Permitted|d.Inheritable != 0 {
			return errors.New("capabilities survived the re-exec")
		}
	}
	return nil
}

// thisThread runs a system call on the calling thread only.
func thisThread(nr, a1, a2, a3 uintptr) error {
	if _, _, errno := unix.Syscall(nr, a1, a2, a3); errno != 0 {
		return errno
	}
	return nil
}

// landlockRights are the access rights each Landlock ABI version handles
// (docs.kernel.org/userspace-api/landlock.html): filesystem, network and
// scopes. Newer versions handle at least what version 11 does.
var landlockRights = []struct{ fs, net, scoped uint64 }{
	{},
	{1<<13 - 1, 0, 0},
	{1<<14 - 1, 0, 0},
	{1<<15 - 1, 0, 0},
	{1<<15 - 1, 1<<2 - 1, 0},
	{1<<16 - 1, 1<<2 - 1, 0},
	{1<<16 - 1, 1<<2 - 1, 1<<2 - 1},
	{1<<16 - 1, 1<<2 - 1, 1<<2 - 1},
	{1<<16 - 1, 1<<2 - 1, 1<<2 - 1},
	{1<<17 - 1, 1<<2 - 1, 1<<2 - 1},
	{1<<17 - 1, 1<<4 - 1, 1<<2 - 1},
	{1<<17 - 1, 1<<4 - 1, 1<<2 - 1},
}

// landlockThisThread restricts the calling thread as the worker's Landlock
// layer does (every access right the kernel knows, best effort), except
// that the files needed to execute this binary again stay readable and
// executable. A kernel without Landlock leaves it to seccomp.
func landlockThisThread() error {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi <= 0 {
		return nil
	}
	r := landlockRights[min(abi, len(landlockRights)-1)]
	attr := ll.RulesetAttr{HandledAccessFS: r.fs, HandledAccessNet: r.net, Scoped: r.scoped}
	fd, err := landlockCreateRuleset(&attr)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	const execRead = ll.AccessFSExecute | ll.AccessFSReadFile
	files, err := mappedFiles()
	if err != nil {
		return err
	}
	for _, f := range append([]string{"/proc/self/exe"}, files...) {
		if err := allowFile(fd, f, execRead); err != nil {
			return err
		}
	}
	if err := allowFile(fd, "/etc/ld.so.cache", ll.AccessFSReadFile); err != nil {
		return err
	}
	return ll.LandlockRestrictSelf(fd, 0)
}

// landlockCreateRuleset passes only the ABI-1 part of attr's struct
// (handled rights for files, network, scopes), which every kernel with
// Landlock takes.
func landlockCreateRuleset(attr *ll.RulesetAttr) (int, error) {
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(attr)), 3*8, 0)
	if errno != 0 {
		return -1, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	return int(fd), nil
}

// allowFile adds a rule for one file; a file that is not there is skipped.
func allowFile(ruleset int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil
	}
	if err := ll.LandlockAddPathBeneathRule(ruleset, &ll.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}, 0); err != nil {
		return fmt.Errorf("allow %s: %w", path, err)
	}
	return nil
}

// mappedFiles lists the files mapped into the process (/proc/self/maps):
// the binary and, if it is dynamically linked, its loader and libraries.
func mappedFiles() ([]string, error) {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil, fmt.Errorf("read /proc/self/maps: %w", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || !strings.HasPrefix(f[5], "/") || len(f) > 6 {
			continue // anonymous, [vdso], or "(deleted)"
		}
		if !seen[f[5]] {
			seen[f[5]] = true
			out = append(out, f[5])
		}
	}
	return out, nil
}
