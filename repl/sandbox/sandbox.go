// Package sandbox confines a REPL worker process with the means of the
// operating system, so that model code that got past the interpreter's
// import allowlist still cannot reach files, the network, other processes
// or the server: inherited descriptors closed, rlimits, no privileges,
// Landlock and a seccomp allowlist on Linux (confine_linux.go), the limits
// alone elsewhere. docs/security.md says what each layer stops and how an
// operator checks it.
package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/rlm-project/rlm/repl/protocol"
)

// ConfineWorker confines this process, a worker its pool started, with
// every layer, unless the pool asked for none (protocol.ConfineEnv=0). It
// returns /proc/self/statm, opened before the confinement that would
// forbid it, for LimitAddressSpace.
func ConfineWorker() (statm *os.File, err error) {
	if statm = inheritedStatm(); statm == nil {
		if statm, err = os.Open("/proc/self/statm"); err != nil {
			return nil, fmt.Errorf("open /proc/self/statm: %w", err)
		}
	}
	if os.Getenv(protocol.ConfineEnv) == "0" {
		return statm, nil
	}
	mem, err := strconv.ParseInt(os.Getenv(protocol.StartMemoryEnv), 10, 64)
	if err != nil || mem <= 0 {
		mem = protocol.DefaultLimits().MemoryBytes
	}
	if err := Confine(AllLayers, mem, statm); err != nil {
		return nil, fmt.Errorf("confine: %w", err)
	}
	return statm, nil
}

// LimitAddressSpace sets this process's address-space limit (RLIMIT_AS,
// soft and hard) to bytes more than it has reserved now, as read from
// statm: what the runtime, the interpreter and a mapped context already
// take does not count against it.
func LimitAddressSpace(statm *os.File, bytes int64) error {
	vsz, err := addressSpace(statm)
	if err != nil {
		return err
	}
	lim := uint64(vsz + bytes)
	if err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: lim, Max: lim}); err != nil {
		return fmt.Errorf("set RLIMIT_AS to %d: %w", lim, err)
	}
	return nil
}

// addressSpace returns the virtual memory size of this process, read from
// statm, its /proc/self/statm opened before the worker was confined.
func addressSpace(statm *os.File) (int64, error) {
	var buf [256]byte
	n, err := statm.ReadAt(buf[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("read address space size: %w", err)
	}
	f := bytes.Fields(buf[:n])
	if len(f) == 0 {
		return 0, fmt.Errorf("read address space size: empty /proc/self/statm")
	}
	pages, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parse /proc/self/statm: %w", err)
	}
	return pages * int64(os.Getpagesize()), nil
}
