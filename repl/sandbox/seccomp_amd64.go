//go:build linux

package sandbox

import "golang.org/x/sys/unix"

const seccompAuditArch = unix.AUDIT_ARCH_X86_64

// seccompX32Bit marks the x32 ABI's numbers, which the filter refuses.
const seccompX32Bit = 0x40000000

// seccompArchAllowed are the calls of amd64 that arm64 has no number for.
var seccompArchAllowed = []uint32{
	unix.SYS_ARCH_PRCTL, unix.SYS_EPOLL_WAIT, unix.SYS_EPOLL_CREATE,
	unix.SYS_POLL, unix.SYS_TIME, unix.SYS_PIPE, unix.SYS_DUP2,
}
