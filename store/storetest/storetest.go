// Package storetest holds the conformance suite every store.Store must pass,
// and a helper that starts a real redis-server for tests.
package storetest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-project/rlm/store"
)

// Run runs the conformance suite against stores made by open; each subtest
// gets a fresh, empty store.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	ctx := context.Background()
	t.Run("PutGetRoundTrip", func(t *testing.T) {
		s := open(t)
		tests := []struct {
			name, key string
			value     []byte
		}{
			{"empty", "empty", nil},
			{"small", "a", []byte("hello")},
			{"nested", "owner/sub/b", []byte("nested value")},
			{"binary", "bin", []byte{0, 1, 2, 0xff, '\n', 0}},
			{"several chunks", "big", randomBytes(t, 3<<20+17)},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				n, err := s.Put(ctx, "files", tt.key, bytes.NewReader(tt.value))
				if err != nil {
					t.Fatalf("Put: %v", err)
				}
				if n != int64(len(tt.value)) {
					t.Errorf("Put wrote %d bytes, want %d", n, len(tt.value))
				}
				if got := get(t, s, "files", tt.key); !bytes.Equal(got, tt.value) {
					t.Errorf("Get returned %d bytes, want the %d put", len(got), len(tt.value))
				}
			})
		}
	})
	t.Run("Replace", func(t *testing.T) {
		s := open(t)
		put(t, s, "c", "k", "old")
		r, err := s.Get(ctx, "c", "k")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		put(t, s, "c", "k", "new value")
		if got := string(get(t, s, "c", "k")); got != "new value" {
			t.Errorf("after replace Get = %q", got)
		}
		// A reader opened before the replacement sees the old value whole.
		old, err := io.ReadAll(r)
		if err != nil || string(old) != "old" {
			t.Errorf("reader opened before replace read %q, %v; want old", old, err)
		}
		if keys := list(t, s, "c", ""); len(keys) != 1 {
			t.Errorf("List after replace = %q, want one key", keys)
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		s := open(t)
		if _, err := s.Get(ctx, "c", "missing"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get missing: %v, want ErrNotFound", err)
		}
		if err := s.Delete(ctx, "c", "missing"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Delete missing: %v, want ErrNotFound", err)
		}
	})
	t.Run("Delete", func(t *testing.T) {
		s := open(t)
		put(t, s, "c", "x/one", "1")
		put(t, s, "c", "x/two", "2")
		if err := s.Delete(ctx, "c", "x/one"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, "c", "x/one"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get after Delete: %v", err)
		}
		if keys := list(t, s, "c", ""); strings.Join(keys, ",") != "x/two" {
			t.Errorf("List after Delete = %q", keys)
		}
	})
	t.Run("List", func(t *testing.T) {
		s := open(t)
		for _, k := range []string{"b/2", "a/1", "a/2", "a2", "ab/1", "c"} {
			put(t, s, "coll", k, k)
		}
		put(t, s, "other", "a/9", "x")
		tests := []struct{ prefix, want string }{
			{"", "a/1,a/2,a2,ab/1,b/2,c"},
			{"a/", "a/1,a/2"},
			{"a", "a/1,a/2,a2,ab/1"},
			{"b/2", "b/2"},
			{"zz", ""},
			{"nope/", ""},
		}
		for _, tt := range tests {
			if got := strings.Join(list(t, s, "coll", tt.prefix), ","); got != tt.want {
				t.Errorf("List(%q) = %q, want %q", tt.prefix, got, tt.want)
			}
		}
		if got := list(t, s, "empty", ""); len(got) != 0 {
			t.Errorf("List of an empty collection = %q", got)
		}
	})
	t.Run("InvalidKeys", func(t *testing.T) {
		s := open(t)
		for _, k := range []string{"", "../x", "a/../../x", "/abs", "a//b", ".hidden", "a/./b", "a\\b", "x.blob/y", "nul\x00"} {
			if _, err := s.Put(ctx, "c", k, strings.NewReader("v")); !errors.Is(err, store.ErrInvalidKey) {
				t.Errorf("Put(%q): %v, want ErrInvalidKey", k, err)
			}
			if _, err := s.Get(ctx, "c", k); !errors.Is(err, store.ErrInvalidKey) {
				t.Errorf("Get(%q): %v, want ErrInvalidKey", k, err)
			}
		}
		for _, c := range []string{"", "..", "a/b", ".tmp"} {
			if _, err := s.Put(ctx, c, "k", strings.NewReader("v")); !errors.Is(err, store.ErrInvalidKey) {
				t.Errorf("Put in collection %q: %v, want ErrInvalidKey", c, err)
			}
		}
	})
	t.Run("FailedPutKeepsOldValue", func(t *testing.T) {
		s := open(t)
		put(t, s, "c", "k", "old")
		boom := errors.New("client went away")
		r := io.MultiReader(bytes.NewReader(randomBytes(t, 2<<20)), errReader{boom})
		if _, err := s.Put(ctx, "c", "k", r); !errors.Is(err, boom) {
			t.Errorf("Put from a failing reader: %v, want %v", err, boom)
		}
		if got := string(get(t, s, "c", "k")); got != "old" {
			t.Errorf("after a failed Put the value is %d bytes, want the old one", len(got))
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := s.Put(cctx, "c", "k2", strings.NewReader("x")); err == nil {
			t.Errorf("Put with a cancelled context succeeded")
		}
		if _, err := s.Get(ctx, "c", "k2"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a cancelled Put left a value: %v", err)
		}
	})
	t.Run("ConcurrentPuts", func(t *testing.T) {
		s := open(t)
		values := make([][]byte, 8)
		var wg sync.WaitGroup
		for i := range values {
			values[i] = bytes.Repeat([]byte{byte('a' + i)}, 1<<20+i)
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.Put(ctx, "c", "same", bytes.NewReader(values[i])); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		got := get(t, s, "c", "same")
		for _, v := range values {
			if bytes.Equal(got, v) {
				return
			}
		}
		t.Errorf("after concurrent Puts the value (%d bytes) is none of those put", len(got))
	})
	t.Run("Entries", func(t *testing.T) {
		s := open(t)
		// 600 entries: more than one of the stores' scan batches.
		var keys []string
		for i := range 600 {
			k := fmt.Sprintf("k%04d", i)
			keys = append(keys, k)
			if err := s.PutEntry(ctx, "c", "own", k, []byte("v"+k)); err != nil {
				t.Fatalf("PutEntry %s: %v", k, err)
			}
		}
		// Other indexes and collections do not mix in; blobs are apart.
		if err := s.PutEntry(ctx, "c", "other", "k0001", []byte("other")); err != nil {
			t.Fatal(err)
		}
		if err := s.PutEntry(ctx, "d", "own", "k0001", []byte("d")); err != nil {
			t.Fatal(err)
		}
		put(t, s, "c", "own/k0002", "blob")
		rev := slices.Clone(keys)
		slices.Reverse(rev)
		tests := []struct {
			name  string
			after string
			desc  bool
			limit int
			want  []string
		}{
			{"all ascending", "", false, 0, keys},
			{"all descending", "", true, 0, rev},
			{"first page", "", false, 3, keys[:3]},
			{"after", "k0002", false, 2, keys[3:5]},
			{"after a key between entries", "k0002x", false, 2, keys[3:5]},
			{"after before the first", "a", false, 1, keys[:1]},
			{"after past the last", "z", false, 0, nil},
			{"descending after", "k0300", true, 0, rev[300:]},
			{"descending after the last", "z", true, 2, rev[:2]},
			{"descending after the first", "k0000", true, 0, nil},
			{"across batches", "k0100", false, 400, keys[101:501]},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got := scan(t, s, "c", "own", tt.after, tt.desc, tt.limit)
				var gotKeys []string
				for _, e := range got {
					gotKeys = append(gotKeys, e.Key)
					if string(e.Value) != "v"+e.Key {
						t.Errorf("entry %s = %q", e.Key, e.Value)
					}
				}
				if !slices.Equal(gotKeys, tt.want) {
					t.Errorf("scan after %q desc %v limit %d: %d keys %.60q…, want %d %.60q…", tt.after, tt.desc, tt.limit,
						len(gotKeys), gotKeys, len(tt.want), tt.want)
				}
			})
		}
		if err := s.PutEntry(ctx, "c", "own", "k0005", []byte("replaced")); err != nil {
			t.Fatal(err)
		}
		if v, err := s.GetEntry(ctx, "c", "own", "k0005"); err != nil || string(v) != "replaced" {
			t.Errorf("GetEntry after replace: %q, %v", v, err)
		}
		if err := s.DeleteEntry(ctx, "c", "own", "k0005"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetEntry(ctx, "c", "own", "k0005"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("GetEntry after delete: %v", err)
		}
		if err := s.DeleteEntry(ctx, "c", "own", "k0005"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("second DeleteEntry: %v", err)
		}
		if got := scan(t, s, "c", "own", "k0004", false, 1); len(got) != 1 || got[0].Key != "k0006" {
			t.Errorf("scan past a deleted entry: %v", got)
		}
		if got := scan(t, s, "c", "missing", "", false, 0); len(got) != 0 {
			t.Errorf("scan of a missing index: %v", got)
		}
		if v, err := s.GetEntry(ctx, "c", "other", "k0001"); err != nil || string(v) != "other" {
			t.Errorf("entry of another index: %q, %v", v, err)
		}
		if got := string(get(t, s, "c", "own/k0002")); got != "blob" {
			t.Errorf("blob beside the index: %q", got)
		}
		if keys := list(t, s, "c", ""); len(keys) != 1 {
			t.Errorf("List sees index entries: %q", keys)
		}
		// Bad names and values.
		for _, name := range []string{"", "a/b", "../x", ".hidden", strings.Repeat("x", 201)} {
			if err := s.PutEntry(ctx, "c", name, "k", nil); !errors.Is(err, store.ErrInvalidKey) {
				t.Errorf("PutEntry in index %q: %v, want ErrInvalidKey", name, err)
			}
			if err := s.PutEntry(ctx, "c", "own", name, nil); !errors.Is(err, store.ErrInvalidKey) {
				t.Errorf("PutEntry key %q: %v, want ErrInvalidKey", name, err)
			}
		}
		if err := s.PutEntry(ctx, "c", "own", "big", make([]byte, store.MaxEntryBytes+1)); !errors.Is(err, store.ErrEntryTooLarge) {
			t.Errorf("PutEntry above MaxEntryBytes: %v", err)
		}
		if _, err := s.GetEntry(ctx, "c", "own", "big"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a refused entry was kept: %v", err)
		}
	})
	t.Run("Walk", func(t *testing.T) {
		s := open(t)
		before := time.Now().Add(-2 * time.Second) // file systems round times
		want := map[string]int64{}
		for i, k := range []string{"o1/a", "o1/b/c", "o1x", "o2/a"} {
			v := strings.Repeat("v", 10*i+1)
			put(t, s, "c", k, v)
			want[k] = int64(len(v))
		}
		put(t, s, "c", "o1/a", "replaced, longer")
		want["o1/a"] = int64(len("replaced, longer"))
		put(t, s, "other", "o1/z", "elsewhere")
		put(t, s, "c", "o2/gone", "x")
		if err := s.Delete(ctx, "c", "o2/gone"); err != nil {
			t.Fatal(err)
		}
		if err := s.PutEntry(ctx, "c", "o1", "entry", []byte("not a value")); err != nil {
			t.Fatal(err)
		}
		after := time.Now().Add(2 * time.Second)
		tests := []struct {
			prefix string
			keys   []string
		}{
			{"", []string{"o1/a", "o1/b/c", "o1x", "o2/a"}},
			{"o1/", []string{"o1/a", "o1/b/c"}},
			{"o1", []string{"o1/a", "o1/b/c", "o1x"}},
			{"o2/", []string{"o2/a"}},
			{"none/", nil},
		}
		for _, tt := range tests {
			got := walk(t, s, "c", tt.prefix, 0)
			var keys []string
			for _, in := range got {
				keys = append(keys, in.Key)
				if in.Size != want[in.Key] {
					t.Errorf("Walk(%q): %s is %d bytes, want %d", tt.prefix, in.Key, in.Size, want[in.Key])
				}
				if in.Modified.Before(before) || in.Modified.After(after) {
					t.Errorf("Walk(%q): %s written at %v, not between %v and %v", tt.prefix, in.Key, in.Modified, before, after)
				}
			}
			slices.Sort(keys)
			if !slices.Equal(keys, tt.keys) {
				t.Errorf("Walk(%q) = %q, want %q", tt.prefix, keys, tt.keys)
			}
		}
		if got := walk(t, s, "c", "", 2); len(got) != 2 {
			t.Errorf("Walk stopped after 2 gave %d", len(got))
		}
		if n, c, err := store.Usage(ctx, s, "c", "o1/"); err != nil || c != 2 || n != want["o1/a"]+want["o1/b/c"] {
			t.Errorf("Usage(o1/) = %d bytes, %d values, %v", n, c, err)
		}
		if err := s.Walk(ctx, "../x", "", func(store.Info) bool { return true }); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("Walk of a bad collection: %v", err)
		}
	})
	t.Run("LocalPath", func(t *testing.T) {
		s := open(t)
		lp, ok := s.(interface {
			LocalPath(ctx context.Context, coll, key string) (string, error)
		})
		if !ok {
			t.Skip("store has no LocalPath")
		}
		put(t, s, "files", "o/f1", "document text")
		p, err := lp.LocalPath(ctx, "files", "o/f1")
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil || string(b) != "document text" {
			t.Errorf("LocalPath file holds %q, %v", b, err)
		}
		put(t, s, "files", "o/f1", "replaced")
		p2, err := lp.LocalPath(ctx, "files", "o/f1")
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p2); string(b) != "replaced" {
			t.Errorf("LocalPath after replace holds %q", b)
		}
		if _, err := lp.LocalPath(ctx, "files", "o/none"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("LocalPath of a missing key: %v", err)
		}
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func randomBytes(t *testing.T, n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func put(t *testing.T, s store.Store, coll, key, v string) {
	t.Helper()
	if _, err := s.Put(context.Background(), coll, key, strings.NewReader(v)); err != nil {
		t.Fatalf("Put %s/%s: %v", coll, key, err)
	}
}

func get(t *testing.T, s store.Store, coll, key string) []byte {
	t.Helper()
	r, err := s.Get(context.Background(), coll, key)
	if err != nil {
		t.Fatalf("Get %s/%s: %v", coll, key, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read %s/%s: %v", coll, key, err)
	}
	return b
}

func list(t *testing.T, s store.Store, coll, prefix string) []string {
	t.Helper()
	keys, err := s.List(context.Background(), coll, prefix)
	if err != nil {
		t.Fatalf("List %s %q: %v", coll, prefix, err)
	}
	return keys
}

// walk returns the first limit values a Walk gives (all, for 0).
func walk(t *testing.T, s store.Store, coll, prefix string, limit int) []store.Info {
	t.Helper()
	var got []store.Info
	err := s.Walk(context.Background(), coll, prefix, func(i store.Info) bool {
		got = append(got, i)
		return limit == 0 || len(got) < limit
	})
	if err != nil {
		t.Fatalf("Walk %s %q: %v", coll, prefix, err)
	}
	return got
}

// RunLeases checks the leases of a store: open returns two handles on one
// new store, as two processes sharing it have.
func RunLeases(t *testing.T, open func(t *testing.T) (a, b store.Store)) {
	ctx := context.Background()
	a, b := open(t)
	held := func(s store.Store, name string) bool {
		t.Helper()
		ok, err := s.LeaseHeld(ctx, name)
		if err != nil {
			t.Fatalf("LeaseHeld(%s): %v", name, err)
		}
		return ok
	}
	if held(a, "x") || held(b, "x") {
		t.Fatal("a lease nobody took is held")
	}
	if err := a.RenewLease(ctx, "x", time.Minute); err != nil {
		t.Fatal(err)
	}
	if !held(a, "x") || !held(b, "x") {
		t.Errorf("a taken lease is not held: by its holder %v, by the other %v", held(a, "x"), held(b, "x"))
	}
	if err := b.RenewLease(ctx, "x", time.Minute); !errors.Is(err, store.ErrLeaseHeld) {
		t.Errorf("taking a held lease: %v, want ErrLeaseHeld", err)
	}
	if err := b.ReleaseLease(ctx, "x"); !errors.Is(err, store.ErrLeaseHeld) {
		t.Errorf("releasing another's lease: %v, want ErrLeaseHeld", err)
	}
	if err := a.RenewLease(ctx, "x", time.Minute); err != nil {
		t.Errorf("renewing a held lease: %v", err)
	}
	if err := a.ReleaseLease(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	if held(a, "x") || held(b, "x") {
		t.Error("a released lease is held")
	}
	if err := b.RenewLease(ctx, "x", time.Minute); err != nil {
		t.Errorf("taking a released lease: %v", err)
	}
	if err := a.ReleaseLease(ctx, "never-taken"); err != nil {
		t.Errorf("releasing a lease nobody took: %v", err)
	}
	for _, name := range []string{"", "a/b", "../x", ".hidden", strings.Repeat("x", 201)} {
		if err := a.RenewLease(ctx, name, time.Minute); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("RenewLease(%q): %v, want ErrInvalidKey", name, err)
		}
	}
	if err := a.RenewLease(ctx, "y", 0); err == nil {
		t.Error("a lease of no duration was taken")
	}
}

// scan returns the first limit entries (all, for 0) a scan gives.
func scan(t *testing.T, s store.Store, coll, index, after string, desc bool, limit int) []store.Entry {
	t.Helper()
	var got []store.Entry
	err := s.ScanEntries(context.Background(), coll, index, after, desc, func(e store.Entry) bool {
		got = append(got, e)
		return limit == 0 || len(got) < limit
	})
	if err != nil {
		t.Fatalf("ScanEntries %s/%s after %q: %v", coll, index, after, err)
	}
	return got
}

// StartRedis starts a redis-server on a free loopback port with its files in
// a temporary directory, stops it when the test ends, and returns its URL.
// Without redis-server the test is skipped, or fails when CI=true.
func StartRedis(t testing.TB) string {
	t.Helper()
	return StartRedisServer(t).URL
}

// RedisServer is a redis-server a test started, which the test may stop or
// pause to see how its clients cope with a store that is down or hung.
type RedisServer struct {
	URL string
	t   testing.TB
	bin string
	dir string
	mu  sync.Mutex
	cmd *exec.Cmd
}

// StartRedisServer is StartRedis, returning the server.
func StartRedisServer(t testing.TB) *RedisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server is required in CI: %v", err)
		}
		t.Skip("redis-server not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	r := &RedisServer{URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port), t: t, bin: bin, dir: t.TempDir()}
	t.Cleanup(r.Stop)
	r.start(port)
	return r
}

func (r *RedisServer) start(port int) {
	r.t.Helper()
	cmd := exec.Command(r.bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1",
		"--dir", r.dir, "--save", "", "--appendonly", "no", "--daemonize", "no")
	out, err := cmd.StdoutPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		r.t.Fatalf("start redis-server: %v", err)
	}
	r.mu.Lock()
	r.cmd = cmd
	r.mu.Unlock()
	ready := make(chan struct{})
	var log bytes.Buffer
	var mu sync.Mutex
	go func() {
		sc := bufio.NewScanner(out)
		once := sync.Once{}
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		r.t.Fatalf("redis-server did not start:\n%s", log.String())
	}
}

// Stop kills the server: connections are refused from then on. Stopping a
// stopped server does nothing.
func (r *RedisServer) Stop() {
	r.mu.Lock()
	cmd := r.cmd
	r.cmd = nil
	r.mu.Unlock()
	if cmd != nil {
		cmd.Process.Kill()
		cmd.Wait()
	}
}

// Pause stops the server's process (SIGSTOP) without closing its socket:
// connections are accepted by the kernel, and then nothing answers, as with
// a hung server or a network partition. Resume undoes it.
func (r *RedisServer) Pause() { r.signal(syscall.SIGSTOP) }

// Resume continues a paused server.
func (r *RedisServer) Resume() { r.signal(syscall.SIGCONT) }

func (r *RedisServer) signal(sig syscall.Signal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd != nil {
		r.cmd.Process.Signal(sig)
	}
}
