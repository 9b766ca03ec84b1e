//go:build !unix

package store

import (
	"errors"
	"os"
)

// haveFileLocks is false where flock(2) is missing: a lease of the disk
// store is then held until the expiry its holder last wrote.
const haveFileLocks = false

var errNoLocks = errors.New("no file locks on this system")

func tryLock(*os.File, bool) (bool, error) { return false, errNoLocks }

func unlock(*os.File) error { return errNoLocks }
