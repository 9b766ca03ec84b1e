// Package store keeps the server's durable records (uploaded files, stored
// completions, trajectories) as named blobs, on local disk by default or in
// Redis for deployments with several gateway replicas; on Redis it also
// appends to streams that processes elsewhere consume (the trajectory
// feed).
package store

import (
	"context"
	"errors"
	"io"
	"time"
)

// ErrNotFound is returned when a key does not exist.
var ErrNotFound = errors.New("not found")

// Store keeps blobs under a collection ("files", "completions", "traces"...)
// and a key. Keys may contain '/' to group records (for example by owner).
//
// Beside the blobs, a collection has indexes: named, ordered sets of small
// entries (a key and a value of at most MaxEntryBytes). They exist so that
// listing records in an order, such as one owner's stored completions by
// time, reads small summaries a page at a time instead of every record
// whole. A blob and the entries that describe it are written separately;
// keeping them consistent is the caller's business.
type Store interface {
	// Put writes the whole of value under coll/key, replacing any old value
	// atomically: readers see the old or the new value, never a part. It
	// returns the number of bytes written. Large values are streamed, not
	// held in memory.
	Put(ctx context.Context, coll, key string, value io.Reader) (int64, error)
	// Get opens the value of coll/key, or returns ErrNotFound.
	Get(ctx context.Context, coll, key string) (io.ReadCloser, error)
	// Delete removes coll/key; deleting a missing key returns ErrNotFound.
	Delete(ctx context.Context, coll, key string) error
	// List returns the keys of coll that start with prefix, sorted.
	List(ctx context.Context, coll, prefix string) ([]string, error)

	// PutEntry sets the entry key of coll's index to value, replacing any
	// old value atomically.
	PutEntry(ctx context.Context, coll, index, key string, value []byte) error
	// GetEntry returns the value of an entry, or ErrNotFound.
	GetEntry(ctx context.Context, coll, index, key string) ([]byte, error)
	// DeleteEntry removes an entry; deleting a missing one returns
	// ErrNotFound.
	DeleteEntry(ctx context.Context, coll, index, key string) error
	// ScanEntries calls fn with the entries of coll's index in ascending
	// byte order of their keys (descending when desc), starting after the
	// key after (before it, when desc; "" starts at the first or last
	// entry), until fn returns false or the entries run out. Entries are
	// read in batches, never all at once; an entry put or deleted during a
	// scan may or may not be seen. A missing index has no entries.
	ScanEntries(ctx context.Context, coll, index, after string, desc bool, fn func(Entry) bool) error

	// Walk calls fn with the Info of every value of coll whose key starts
	// with prefix, in no particular order, until fn returns false or the
	// values run out. It reads sizes and write times, never values:
	// retention and quotas need what a key holds, not what it says.
	Walk(ctx context.Context, coll, prefix string, fn func(Info) bool) error

	// RenewLease takes the lease name for ttl, or extends it by ttl from
	// now when this store already holds it. A lease is how a process
	// says it is alive to others sharing the store: records it tags with
	// the lease's name are its own while the lease is held, and
	// anyone's to clean up after.
	RenewLease(ctx context.Context, name string, ttl time.Duration) error
	// LeaseHeld reports whether the lease name is held: taken, not
	// released, and neither expired nor (on the disk store) left by a
	// process that exited.
	LeaseHeld(ctx context.Context, name string) (bool, error)
	// ReleaseLease gives up a lease this store holds, or removes one its
	// holder left behind; a lease that is not there is no error.
	ReleaseLease(ctx context.Context, name string) error
}

// Info describes a stored value.
type Info struct {
	Key  string
	Size int64
	// Modified is when the value was last written. Values written to a
	// Redis store by a version without write times read as first seen.
	Modified time.Time
}

// ErrLeaseHeld is returned by RenewLease for a lease another holder has.
var ErrLeaseHeld = errors.New("lease held by another process")

// Usage returns the bytes and number of the values of coll whose keys start
// with prefix.
func Usage(ctx context.Context, s Store, coll, prefix string) (bytes, count int64, err error) {
	err = s.Walk(ctx, coll, prefix, func(i Info) bool {
		bytes += i.Size
		count++
		return true
	})
	return bytes, count, err
}

// Entry is one entry of an index.
type Entry struct {
	Key   string
	Value []byte
}

// MaxEntryBytes bounds the value of an index entry: entries are summaries.
const MaxEntryBytes = 64 << 10

// scanBatch is how many entries a scan reads at a time.
const scanBatch = 256

var (
	_ Store = (*Disk)(nil)
	_ Store = (*Redis)(nil)
)
