// Package store keeps the server's durable records (uploaded files, stored
// completions, trajectories) as named blobs, on local disk by default or in
// Redis for deployments with several gateway replicas.
package store

import (
	"context"
	"errors"
	"io"
)

// ErrNotFound is returned when a key does not exist.
var ErrNotFound = errors.New("not found")

// Store keeps blobs under a collection ("files", "completions", "traces"...)
// and a key. Keys may contain '/' to group records (for example by owner).
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
}
