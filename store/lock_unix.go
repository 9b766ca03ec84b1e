//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// haveFileLocks says whether leases of the disk store are file locks,
// which the kernel drops the moment their process exits, however it exits.
const haveFileLocks = true

// tryLock takes a lock on f without waiting: exclusive or shared. It
// reports false when another open file holds a conflicting lock.
func tryLock(f *os.File, exclusive bool) (bool, error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
