package protocol

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// recvFlags makes a received descriptor close-on-exec as it arrives.
const recvFlags = unix.MSG_CMSG_CLOEXEC

// SocketPair returns the two ends of a socket that carries descriptors:
// the parent keeps parent and gives child to the worker as ContextFD.
func SocketPair() (parent, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("repl: socketpair: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "repl-ctx"), os.NewFile(uintptr(fds[1]), "repl-ctx-worker"), nil
}
