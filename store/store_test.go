package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/store/storetest"
)

func TestDisk(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		d, err := store.OpenDisk(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}

func TestRedis(t *testing.T) {
	url := storetest.StartRedis(t)
	n := 0
	storetest.Run(t, func(t *testing.T) store.Store {
		n++
		// Small chunks so that every value above a few KB takes several.
		r, err := store.OpenRedis(context.Background(), store.RedisConfig{
			URL: url, Prefix: fmt.Sprintf("t%d", n), ChunkBytes: 64 << 10,
			CacheDir: t.TempDir(),
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	})
}

// TestDiskStaysInsideRoot checks that no key, however odd, makes the disk
// store write outside its directory.
func TestDiskStaysInsideRoot(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "root")
	d, err := store.OpenDisk(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, k := range []string{"../escape", "a/../../escape", "/tmp/escape", "..", "a/..", "..\\escape"} {
		d.Put(ctx, "c", k, strings.NewReader("x"))
		d.Put(ctx, "..", k, strings.NewReader("x"))
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("files appeared next to the store's root: %v", entries)
	}
}

// TestDiskCrashLeftovers checks that temporary files of a crashed Put are
// removed on open and never listed.
func TestDiskCrashLeftovers(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, ".tmp", "put-123"), []byte("half"), 0o600)
	d, err := store.OpenDisk(root)
	if err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(filepath.Join(root, ".tmp")); len(es) != 0 {
		t.Errorf("leftover temp files after open: %v", es)
	}
	if keys, _ := d.List(context.Background(), "c", ""); len(keys) != 0 {
		t.Errorf("List = %q", keys)
	}
}

// TestDiskReadOnly checks that a read-only open reads what a writer wrote
// and changes nothing: no directory for a missing path, no removal of a
// live writer's temporary files, no Put or Delete.
func TestDiskReadOnly(t *testing.T) {
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "typo")
	if _, err := store.OpenDiskReadOnly(missing); err == nil {
		t.Error("opened a directory that does not exist")
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("the read-only open created %s", missing)
	}
	root := t.TempDir()
	w, err := store.OpenDisk(root)
	if err != nil {
		t.Fatal(err)
	}
	w.Put(ctx, "c", "a/b", strings.NewReader("value"))
	inflight := filepath.Join(root, ".tmp", "put-live")
	os.WriteFile(inflight, []byte("half"), 0o600)
	before := snapshot(t, root)

	r, err := store.OpenDiskReadOnly(root)
	if err != nil {
		t.Fatal(err)
	}
	if keys, err := r.List(ctx, "c", ""); err != nil || len(keys) != 1 || keys[0] != "a/b" {
		t.Errorf("List = %q, %v", keys, err)
	}
	rc, err := r.Get(ctx, "c", "a/b")
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
	if _, err := r.Put(ctx, "c", "x", strings.NewReader("y")); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("Put: %v, want ErrReadOnly", err)
	}
	if err := r.Delete(ctx, "c", "a/b"); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("Delete: %v, want ErrReadOnly", err)
	}
	if err := r.PutEntry(ctx, "c", "i", "k", nil); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("PutEntry: %v, want ErrReadOnly", err)
	}
	if err := r.DeleteEntry(ctx, "c", "i", "k"); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("DeleteEntry: %v, want ErrReadOnly", err)
	}
	if after := snapshot(t, root); after != before {
		t.Errorf("the read-only store changed the directory:\nbefore %s\nafter  %s", before, after)
	}
	file := filepath.Join(root, "c", "a", "b.blob")
	if _, err := store.OpenDiskReadOnly(file); err == nil {
		t.Error("opened a file as a store")
	}
}

// snapshot lists every path under root.
func snapshot(t *testing.T, root string) string {
	var paths []string
	filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
		paths = append(paths, p)
		return err
	})
	return strings.Join(paths, " ")
}

// TestRedisCacheHoldsOnlyLiveValues checks that the local copies LocalPath
// makes do not outlive their values: a deleted document leaves the deleting
// replica's disk at once and every other replica's after the grace period,
// a replaced one after the grace period, and files in a shared cache
// directory that the store did not make are left alone.
func TestRedisCacheHoldsOnlyLiveValues(t *testing.T) {
	url := storetest.StartRedis(t)
	ctx := context.Background()
	open := func(cache string) *store.Redis {
		r, err := store.OpenRedis(ctx, store.RedisConfig{URL: url, Prefix: "cache", CacheDir: cache, ReplacedGrace: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	a, b := open(t.TempDir()), open(t.TempDir())
	put := func(key, v string) {
		if _, err := a.Put(ctx, "files", key, strings.NewReader(v)); err != nil {
			t.Fatal(err)
		}
	}
	local := func(s *store.Redis, key string) string {
		p, err := s.LocalPath(ctx, "files", key)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	put("o/doc", "secret")
	put("o/keep", "v1")
	aDoc, bDoc, bKeep1 := local(a, "o/doc"), local(b, "o/doc"), local(b, "o/keep")
	foreign := filepath.Join(filepath.Dir(bDoc), "0123456789abcdef0123456789abcdef.blob")
	if err := os.WriteFile(foreign, []byte("another store's"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, "files", "o/doc"); err != nil {
		t.Fatal(err)
	}
	if exists(aDoc) {
		t.Errorf("the deleting replica kept its copy %s", aDoc)
	}
	put("o/keep", "v2")
	bKeep2 := local(b, "o/keep")
	if !exists(bDoc) || !exists(bKeep1) {
		t.Errorf("copies removed before the grace period: doc %v, old keep %v", exists(bDoc), exists(bKeep1))
	}
	deadline := time.Now().Add(10 * time.Second)
	for exists(bDoc) || exists(bKeep1) {
		if time.Now().After(deadline) {
			t.Fatalf("after the grace period the other replica still holds doc %v, old keep %v", exists(bDoc), exists(bKeep1))
		}
		time.Sleep(100 * time.Millisecond)
		if _, err := b.PruneCache(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(bKeep2); err != nil || string(b) != "v2" {
		t.Errorf("current copy %s: %q, %v", bKeep2, b, err)
	}
	if !exists(foreign) {
		t.Error("PruneCache removed a file another store made")
	}
}

// TestRedisHungHonorsDeadlines reproduces a hung Redis (paused: it accepts
// connections and never answers) holding calls far past their context's
// deadline, because go-redis bounded socket reads by its own ReadTimeout
// (3s), retried. Each call now ends near its deadline; a failed Put adds
// at most its one-second cleanup.
func TestRedisHungHonorsDeadlines(t *testing.T) {
	rs := storetest.StartRedisServer(t)
	r, err := store.OpenRedis(context.Background(), store.RedisConfig{URL: rs.URL, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	rs.Pause()
	defer rs.Resume()
	const deadline = 300 * time.Millisecond
	calls := []struct {
		name  string
		slack time.Duration
		do    func(ctx context.Context) error
	}{
		{"Put", time.Second, func(ctx context.Context) error {
			_, err := r.Put(ctx, "c", "k", strings.NewReader("v"))
			return err
		}},
		{"Get", 0, func(ctx context.Context) error { _, err := r.Get(ctx, "c", "k"); return err }},
		{"List", 0, func(ctx context.Context) error { _, err := r.List(ctx, "c", ""); return err }},
		{"Delete", 0, func(ctx context.Context) error { return r.Delete(ctx, "c", "k") }},
	}
	for _, c := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		start := time.Now()
		err := c.do(ctx)
		took := time.Since(start)
		cancel()
		// Generous: the point is the 3s-per-attempt read timeout, not ms.
		if err == nil || took > deadline+c.slack+time.Second {
			t.Errorf("%s on a hung Redis with a %v deadline: %v after %v", c.name, deadline, err, took)
		}
	}
}
