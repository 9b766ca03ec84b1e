package store_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

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

func TestDiskLeases(t *testing.T) {
	storetest.RunLeases(t, func(t *testing.T) (store.Store, store.Store) {
		dir := t.TempDir()
		a, err := store.OpenDisk(dir)
		if err != nil {
			t.Fatal(err)
		}
		b, err := store.OpenDisk(dir)
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	})
}

func TestRedisLeases(t *testing.T) {
	url := storetest.StartRedis(t)
	storetest.RunLeases(t, func(t *testing.T) (store.Store, store.Store) {
		open := func() store.Store {
			r, err := store.OpenRedis(context.Background(), store.RedisConfig{URL: url, Prefix: "leases", CacheDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			return r
		}
		return open(), open()
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

// TestDiskLeaseOfKilledProcess checks that a lease of the disk store ends
// the moment its holder is killed (SIGKILL, no chance to clean up), so that
// a server restarted after a crash can recover its runs at once.
func TestDiskLeaseOfKilledProcess(t *testing.T) {
	if dir := os.Getenv("RLM_TEST_LEASE_DIR"); dir != "" {
		holdLease(dir) // the child: hold the lease until killed
		return
	}
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDiskLeaseOfKilledProcess$")
	cmd.Env = append(os.Environ(), "RLM_TEST_LEASE_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "held\n" {
		t.Fatalf("the holder said %q, %v", line, err)
	}
	d, err := store.OpenDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if held, err := d.LeaseHeld(ctx, "child"); err != nil || !held {
		t.Fatalf("the live child's lease: held %v, %v", held, err)
	}
	if err := d.RenewLease(ctx, "child", time.Hour); !errors.Is(err, store.ErrLeaseHeld) {
		t.Fatalf("took the live child's lease: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	// Its expiry is an hour away; the lock went with the process.
	if held, err := d.LeaseHeld(ctx, "child"); err != nil || held {
		t.Errorf("the killed child's lease: held %v, %v", held, err)
	}
	if err := d.ReleaseLease(ctx, "child"); err != nil {
		t.Errorf("removing the lease the child left: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".leases", "child.lease")); !os.IsNotExist(err) {
		t.Errorf("the lease file is still there: %v", err)
	}
}

func holdLease(dir string) {
	d, err := store.OpenDisk(dir)
	if err == nil {
		err = d.RenewLease(context.Background(), "child", time.Hour)
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("held")
	select {}
}

// TestRedisLeaseExpires checks that a Redis lease its holder stops renewing
// ends with its ttl, on Redis's clock.
func TestRedisLeaseExpires(t *testing.T) {
	url := storetest.StartRedis(t)
	ctx := context.Background()
	open := func() *store.Redis {
		r, err := store.OpenRedis(ctx, store.RedisConfig{URL: url, CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	a, b := open(), open()
	if err := a.RenewLease(ctx, "crashed", 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if held, _ := b.LeaseHeld(ctx, "crashed"); !held {
		t.Fatal("a fresh lease is not held")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		held, err := b.LeaseHeld(ctx, "crashed")
		if err != nil {
			t.Fatal(err)
		}
		if !held {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a lease nobody renewed is still held after 5s (ttl 300ms)")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := b.RenewLease(ctx, "crashed", time.Minute); err != nil {
		t.Errorf("taking an expired lease: %v", err)
	}
}

// TestRedisWalkOfOlderValues checks that values written by a version that
// kept no sizes get theirs on the first Walk: sizes from the chunks, and
// the time they were first seen.
func TestRedisWalkOfOlderValues(t *testing.T) {
	url := storetest.StartRedis(t)
	ctx := context.Background()
	r, err := store.OpenRedis(ctx, store.RedisConfig{URL: url, Prefix: "old", ChunkBytes: 1000, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	value := strings.Repeat("x", 2500) // three chunks
	if _, err := r.Put(ctx, "files", "o/f", strings.NewReader(value)); err != nil {
		t.Fatal(err)
	}
	opt, _ := goredis.ParseURL(url)
	raw := goredis.NewClient(opt)
	defer raw.Close()
	if err := raw.Del(ctx, "old:info:files").Err(); err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Second)
	for range 2 { // computed the first time, read the second
		var got []store.Info
		if err := r.Walk(ctx, "files", "", func(i store.Info) bool { got = append(got, i); return true }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Size != int64(len(value)) || got[0].Modified.Before(before) {
			t.Fatalf("Walk of a value without info: %+v", got)
		}
	}
	if n, _ := raw.HLen(ctx, "old:info:files").Result(); n != 1 {
		t.Errorf("the computed info was not kept: %d entries", n)
	}
}
