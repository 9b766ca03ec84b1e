package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Leases of the disk store are files <dir>/.leases/<name>.lease. The holder
// keeps its file open under an exclusive flock(2), which the kernel drops
// when the holder's process exits, killed or not: a lease left by a crash
// reads as not held at once, so the next process to start on the directory
// can clean up after the crash without waiting for an expiry. The file also
// holds the expiry of the last renewal, which decides alone where there are
// no file locks (not unix).
type diskLeases struct {
	mu   sync.Mutex
	held map[string]*os.File
}

const leaseSuffix = ".lease"

func (d *Disk) leasePath(name string) (string, error) {
	if err := CheckEntry("leases", "leases", name); err != nil {
		return "", err
	}
	return filepath.Join(d.dir, ".leases", name+leaseSuffix), nil
}

// RenewLease implements Store.
func (d *Disk) RenewLease(ctx context.Context, name string, ttl time.Duration) error {
	if d.readOnly {
		return fmt.Errorf("renew lease %s: %w", name, ErrReadOnly)
	}
	if ttl <= 0 {
		return fmt.Errorf("renew lease %s: ttl %v is not positive", name, ttl)
	}
	p, err := d.leasePath(name)
	if err != nil {
		return err
	}
	expiry := time.Now().Add(ttl)
	d.leases.mu.Lock()
	defer d.leases.mu.Unlock()
	if f, ok := d.leases.held[name]; ok {
		if err := writeExpiry(f, expiry); err != nil {
			return fmt.Errorf("renew lease %s: %w", name, err)
		}
		return nil
	}
	f, err := d.takeLease(p, expiry)
	if err != nil {
		return fmt.Errorf("take lease %s: %w", name, err)
	}
	d.leases.held[name] = f
	return nil
}

// takeLease makes the lease file p, locked before it has its name, so that
// nobody ever sees the file of a live holder unlocked.
func (d *Disk) takeLease(p string, expiry time.Time) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Join(d.dir, ".tmp"), "lease-*")
	if err != nil {
		return nil, err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	fail := func(err error) (*os.File, error) {
		f.Close()
		return nil, err
	}
	if haveFileLocks {
		ok, err := tryLock(f, true)
		if err == nil && !ok {
			err = errors.New("a new file is locked already")
		}
		if err != nil {
			return fail(fmt.Errorf("lock: %w", err))
		}
	}
	if err := writeExpiry(f, expiry); err != nil {
		return fail(err)
	}
	for {
		err := os.Link(tmp, p)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return fail(err)
		}
		// The same name again: a holder that lives, or one that left it.
		held, err := clearLease(p)
		if err != nil {
			return fail(err)
		}
		if held {
			return fail(ErrLeaseHeld)
		}
	}
}

// writeExpiry writes the expiry over the start of f, at a fixed width.
func writeExpiry(f *os.File, expiry time.Time) error {
	_, err := f.WriteAt([]byte(fmt.Sprintf("%020d\n", expiry.UnixMilli())), 0)
	return err
}

// LeaseHeld implements Store.
func (d *Disk) LeaseHeld(ctx context.Context, name string) (bool, error) {
	p, err := d.leasePath(name)
	if err != nil {
		return false, err
	}
	d.leases.mu.Lock()
	_, mine := d.leases.held[name]
	d.leases.mu.Unlock()
	if mine {
		return true, nil
	}
	held, err := leaseHeldAt(p, false)
	if err != nil {
		return false, fmt.Errorf("lease %s: %w", name, err)
	}
	return held, nil
}

// ReleaseLease implements Store.
func (d *Disk) ReleaseLease(ctx context.Context, name string) error {
	if d.readOnly {
		return fmt.Errorf("release lease %s: %w", name, ErrReadOnly)
	}
	p, err := d.leasePath(name)
	if err != nil {
		return err
	}
	d.leases.mu.Lock()
	defer d.leases.mu.Unlock()
	if f, ok := d.leases.held[name]; ok {
		delete(d.leases.held, name)
		// Removed while still locked, then unlocked by the close.
		err := os.Remove(p)
		f.Close()
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("release lease %s: %w", name, err)
		}
		return nil
	}
	held, err := clearLease(p)
	if err != nil {
		return fmt.Errorf("release lease %s: %w", name, err)
	}
	if held {
		return fmt.Errorf("release lease %s: %w", name, ErrLeaseHeld)
	}
	return nil
}

// clearLease removes the lease file p unless a live holder has it, and
// reports whether one has. The file is removed under an exclusive lock, so
// that a holder taking the name meanwhile waits for the removal.
func clearLease(p string) (held bool, err error) {
	return leaseHeldAt(p, true)
}

// leaseHeldAt reports whether the lease file p is held; when it is not and
// remove is set, it removes the file.
func leaseHeldAt(p string, remove bool) (bool, error) {
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if haveFileLocks {
		ok, err := tryLock(f, remove)
		if err != nil {
			return false, err
		}
		if !ok {
			return true, nil
		}
		defer unlock(f)
	} else {
		b, err := io.ReadAll(io.LimitReader(f, 64))
		if err != nil {
			return false, err
		}
		ms, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && time.Now().Before(time.UnixMilli(ms)) {
			return true, nil
		}
	}
	if remove {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	}
	return false, nil
}
