//go:build linux

package sandbox

import "golang.org/x/sys/unix"

const seccompAuditArch = unix.AUDIT_ARCH_AARCH64

// seccompX32Bit is 0: arm64 has no second ABI sharing its numbers.
const seccompX32Bit = 0

// seccompArchAllowed is empty: arm64 has only the modern calls.
var seccompArchAllowed = []uint32{}
