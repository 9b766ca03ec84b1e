//go:build !linux

package protocol

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

const recvFlags = 0

// SocketPair returns the two ends of a socket that carries descriptors:
// the parent keeps parent and gives child to the worker as ContextFD.
func SocketPair() (parent, child *os.File, err error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("repl: socketpair: %w", err)
	}
	unix.CloseOnExec(fds[0])
	unix.CloseOnExec(fds[1])
	return os.NewFile(uintptr(fds[0]), "repl-ctx"), os.NewFile(uintptr(fds[1]), "repl-ctx-worker"), nil
}
