package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Disk is a Store in a directory on local disk: coll/key is the file
// <dir>/<coll>/<key>.blob, with the '/' of keys as subdirectories. Writes go
// to a temporary file under <dir>/.tmp, are synced, and are renamed into
// place, so a crash leaves the old value or the new one, never a part.
type Disk struct {
	dir      string
	readOnly bool
}

// OpenDisk opens (creating it if needed) the disk store rooted at dir.
// Temporary files left by a crash are removed.
func OpenDisk(dir string) (*Disk, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open disk store %s: %w", dir, err)
	}
	tmp := filepath.Join(abs, ".tmp")
	if err := os.RemoveAll(tmp); err != nil {
		return nil, fmt.Errorf("open disk store %s: clear temporary files: %w", dir, err)
	}
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, fmt.Errorf("open disk store %s: %w", dir, err)
	}
	return &Disk{dir: abs}, nil
}

// ErrReadOnly is returned by Put and Delete of a store opened read-only.
var ErrReadOnly = errors.New("store opened read-only")

// OpenDiskReadOnly opens the existing disk store at dir for reading. Unlike
// OpenDisk it changes nothing on disk: it creates no directory (a mistyped
// dir is an error, not a new empty store) and leaves alone the temporary
// files of a writer that may be running on the same directory, such as a
// gateway. Put and Delete fail with ErrReadOnly.
func OpenDiskReadOnly(dir string) (*Disk, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open disk store %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open disk store: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("open disk store %s: not a directory", dir)
	}
	return &Disk{dir: abs, readOnly: true}, nil
}

// Dir returns the store's root directory.
func (d *Disk) Dir() string { return d.dir }

func (d *Disk) path(coll, key string) (string, error) {
	if err := CheckKey(coll, key); err != nil {
		return "", err
	}
	p := filepath.Join(d.dir, coll, filepath.FromSlash(key)+blobSuffix)
	// CheckKey already rules out "..", this is a second line of defence.
	if !strings.HasPrefix(p, d.dir+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %q escapes the store", ErrInvalidKey, key)
	}
	return p, nil
}

// Put implements Store.
func (d *Disk) Put(ctx context.Context, coll, key string, value io.Reader) (int64, error) {
	if d.readOnly {
		return 0, fmt.Errorf("put %s/%s: %w", coll, key, ErrReadOnly)
	}
	p, err := d.path(coll, key)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return 0, fmt.Errorf("put %s/%s: %w", coll, key, err)
	}
	f, err := os.CreateTemp(filepath.Join(d.dir, ".tmp"), "put-*")
	if err != nil {
		return 0, fmt.Errorf("put %s/%s: %w", coll, key, err)
	}
	tmp := f.Name()
	n, err := io.Copy(f, ctxReader{ctx, value})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		return n, fmt.Errorf("put %s/%s: %w", coll, key, err)
	}
	// Sync the directory so that the rename itself survives a crash.
	if dir, err := os.Open(filepath.Dir(p)); err == nil {
		dir.Sync()
		dir.Close()
	}
	return n, nil
}

// Get implements Store.
func (d *Disk) Get(ctx context.Context, coll, key string) (io.ReadCloser, error) {
	p, err := d.path(coll, key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("get %s/%s: %w", coll, key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get %s/%s: %w", coll, key, err)
	}
	return f, nil
}

// LocalPath returns the file that holds coll/key. The file is replaced, not
// rewritten, by a later Put, so an open handle keeps seeing the old value.
func (d *Disk) LocalPath(ctx context.Context, coll, key string) (string, error) {
	p, err := d.path(coll, key)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("local path %s/%s: %w", coll, key, ErrNotFound)
		}
		return "", fmt.Errorf("local path %s/%s: %w", coll, key, err)
	}
	return p, nil
}

// Delete implements Store.
func (d *Disk) Delete(ctx context.Context, coll, key string) error {
	if d.readOnly {
		return fmt.Errorf("delete %s/%s: %w", coll, key, ErrReadOnly)
	}
	p, err := d.path(coll, key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete %s/%s: %w", coll, key, ErrNotFound)
		}
		return fmt.Errorf("delete %s/%s: %w", coll, key, err)
	}
	return nil
}

// List implements Store.
func (d *Disk) List(ctx context.Context, coll, prefix string) ([]string, error) {
	if err := CheckKey(coll, "x"); err != nil {
		return nil, err
	}
	root := filepath.Join(d.dir, coll)
	// Walk only the subdirectory the prefix names, not the whole collection.
	start := root
	if i := strings.LastIndex(prefix, "/"); i > 0 {
		if err := CheckKey(coll, prefix[:i]); err != nil {
			return nil, nil
		}
		start = filepath.Join(root, filepath.FromSlash(prefix[:i]))
	}
	var keys []string
	err := filepath.WalkDir(start, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() || !strings.HasSuffix(p, blobSuffix) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		k := strings.TrimSuffix(filepath.ToSlash(rel), blobSuffix)
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s/%s: %w", coll, prefix, err)
	}
	sort.Strings(keys)
	return keys, nil
}

// ctxReader stops a long copy when its context is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
