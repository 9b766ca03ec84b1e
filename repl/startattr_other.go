//go:build !linux

package repl

import "syscall"

// keepSetpcap does nothing: capabilities are Linux's.
func keepSetpcap(*syscall.SysProcAttr) {}
