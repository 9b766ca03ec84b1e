package repl

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// keepSetpcap lets a worker that a root pool starts as another user keep
// CAP_SETPCAP, and only it, through the uid switch and exec (as an ambient
// capability): without it, the worker could not empty its capability
// bounding set, which needs CAP_SETPCAP. The worker drops it, with every
// other capability, before anything else runs (repl/sandbox).
func keepSetpcap(attr *syscall.SysProcAttr) {
	attr.AmbientCaps = []uintptr{unix.CAP_SETPCAP}
}
