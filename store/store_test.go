package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
