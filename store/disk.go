package store

import (
	"bytes"
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
// <dir>/<coll>/<key>.blob, with the '/' of keys as subdirectories, and an
// index entry is the file <dir>/.index/<coll>/<index>/<key>.entry, and a
// lease the file <dir>/.leases/<name>.lease (see RenewLease). Writes go to a
// temporary file under <dir>/.tmp, are synced, and are renamed into place,
// so a crash leaves the old value or the new one, never a part.
type Disk struct {
	dir      string
	readOnly bool
	leases   *diskLeases
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
	return &Disk{dir: abs, leases: &diskLeases{held: map[string]*os.File{}}}, nil
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
	return &Disk{dir: abs, readOnly: true, leases: &diskLeases{held: map[string]*os.File{}}}, nil
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
	n, err := d.replace(ctx, p, value)
	if err != nil {
		return n, fmt.Errorf("put %s/%s: %w", coll, key, err)
	}
	return n, nil
}

// replace writes value to a temporary file and renames it to p, so that p
// holds the old value or the new one, never a part.
func (d *Disk) replace(ctx context.Context, p string, value io.Reader) (int64, error) {
	f, err := os.CreateTemp(filepath.Join(d.dir, ".tmp"), "put-*")
	if err != nil {
		return 0, err
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
		return n, err
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
	var keys []string
	err := d.walk(ctx, coll, prefix, func(key string, _ fs.DirEntry) error {
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(keys)
	return keys, nil
}

// Walk implements Store: a value's size and write time are its file's.
func (d *Disk) Walk(ctx context.Context, coll, prefix string, fn func(Info) bool) error {
	errStop := errors.New("stop")
	err := d.walk(ctx, coll, prefix, func(key string, e fs.DirEntry) error {
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted since the listing
		}
		if err != nil {
			return err
		}
		if !fn(Info{Key: key, Size: fi.Size(), Modified: fi.ModTime()}) {
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// walk calls fn with every key of coll that starts with prefix and its
// file, in the order of the directory walk.
func (d *Disk) walk(ctx context.Context, coll, prefix string, fn func(key string, e fs.DirEntry) error) error {
	if err := CheckKey(coll, "x"); err != nil {
		return err
	}
	root := filepath.Join(d.dir, coll)
	// Walk only the subdirectory the prefix names, not the whole collection.
	start := root
	if i := strings.LastIndex(prefix, "/"); i > 0 {
		if err := CheckKey(coll, prefix[:i]); err != nil {
			return nil
		}
		start = filepath.Join(root, filepath.FromSlash(prefix[:i]))
	}
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
		if !strings.HasPrefix(k, prefix) {
			return nil
		}
		return fn(k, e)
	})
	if err != nil {
		return fmt.Errorf("list %s/%s: %w", coll, prefix, err)
	}
	return nil
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

// entrySuffix ends the name of every index entry file.
const entrySuffix = ".entry"

func (d *Disk) indexDir(coll, index string) (string, error) {
	if err := CheckEntry(coll, index, "x"); err != nil {
		return "", err
	}
	return filepath.Join(d.dir, ".index", coll, index), nil
}

func (d *Disk) entryPath(coll, index, key string) (string, error) {
	if err := CheckEntry(coll, index, key); err != nil {
		return "", err
	}
	dir, err := d.indexDir(coll, index)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, key+entrySuffix), nil
}

// PutEntry implements Store.
func (d *Disk) PutEntry(ctx context.Context, coll, index, key string, value []byte) error {
	if d.readOnly {
		return fmt.Errorf("put entry %s/%s/%s: %w", coll, index, key, ErrReadOnly)
	}
	if len(value) > MaxEntryBytes {
		return fmt.Errorf("put entry %s/%s/%s: %w", coll, index, key, ErrEntryTooLarge)
	}
	p, err := d.entryPath(coll, index, key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("put entry %s/%s/%s: %w", coll, index, key, err)
	}
	if _, err := d.replace(ctx, p, bytes.NewReader(value)); err != nil {
		return fmt.Errorf("put entry %s/%s/%s: %w", coll, index, key, err)
	}
	return nil
}

// GetEntry implements Store.
func (d *Disk) GetEntry(ctx context.Context, coll, index, key string) ([]byte, error) {
	p, err := d.entryPath(coll, index, key)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("get entry %s/%s/%s: %w", coll, index, key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get entry %s/%s/%s: %w", coll, index, key, err)
	}
	return b, nil
}

// DeleteEntry implements Store.
func (d *Disk) DeleteEntry(ctx context.Context, coll, index, key string) error {
	if d.readOnly {
		return fmt.Errorf("delete entry %s/%s/%s: %w", coll, index, key, ErrReadOnly)
	}
	p, err := d.entryPath(coll, index, key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete entry %s/%s/%s: %w", coll, index, key, ErrNotFound)
		}
		return fmt.Errorf("delete entry %s/%s/%s: %w", coll, index, key, err)
	}
	return nil
}

// ScanEntries implements Store. The index is a directory: listing it reads
// the names of all its entries (not their values), then values are read
// one at a time as fn asks for them.
func (d *Disk) ScanEntries(ctx context.Context, coll, index, after string, desc bool, fn func(Entry) bool) error {
	dir, err := d.indexDir(coll, index)
	if err != nil {
		return err
	}
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("scan %s/%s: %w", coll, index, err)
	}
	keys := make([]string, 0, len(des))
	for _, e := range des {
		if k, ok := strings.CutSuffix(e.Name(), entrySuffix); ok && !e.IsDir() {
			keys = append(keys, k)
		}
	}
	// Names sort like keys only up to the suffix ("a!.entry" < "a.entry").
	sort.Strings(keys)
	var i, step int
	switch {
	case !desc && after == "":
		i, step = 0, 1
	case !desc:
		i, step = sort.Search(len(keys), func(j int) bool { return keys[j] > after }), 1
	case after == "":
		i, step = len(keys)-1, -1
	default:
		i, step = sort.SearchStrings(keys, after)-1, -1
	}
	for ; i >= 0 && i < len(keys); i += step {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("scan %s/%s: %w", coll, index, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, keys[i]+entrySuffix))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted since the listing
		}
		if err != nil {
			return fmt.Errorf("scan %s/%s: %w", coll, index, err)
		}
		if !fn(Entry{Key: keys[i], Value: b}) {
			return nil
		}
	}
	return nil
}
