package retention_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/store/retention"
	"github.com/rlm-project/rlm/store/storetest"
)

// BenchmarkItems measures reading one owner's items when it holds 10,000
// of them, two values each (a trace's trajectory and summary): the walk a
// quota check, or a trim before a trace is saved, does.
func BenchmarkItems(b *testing.B) {
	const n = 10000
	kind := func(st store.Store) retention.Kind {
		return retention.Kind{Name: "traces", Colls: []string{"traces"},
			Item: func(_, key string) (string, string, bool, bool) {
				parts := strings.Split(key, "/")
				return parts[0], parts[2], parts[1] == "s", len(parts) == 3
			},
			Delete: func(context.Context, string, string) error { return nil }}
	}
	b.Run("disk", func(b *testing.B) {
		dir := b.TempDir()
		st, err := store.OpenDisk(dir)
		if err != nil {
			b.Fatal(err)
		}
		// Files written directly: n fsynced Puts would take minutes.
		for _, sub := range []string{"t", "s"} {
			d := filepath.Join(dir, "traces", "owner", sub)
			os.MkdirAll(d, 0o700)
			for i := range n {
				os.WriteFile(filepath.Join(d, fmt.Sprintf("trace-%06d.blob", i)), make([]byte, 2000), 0o600)
			}
		}
		benchItems(b, st, kind(st), n)
	})
	b.Run("redis", func(b *testing.B) {
		st, err := store.OpenRedis(context.Background(), store.RedisConfig{URL: storetest.StartRedis(b), CacheDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		for _, sub := range []string{"t", "s"} {
			for i := range n {
				st.Put(context.Background(), "traces", fmt.Sprintf("owner/%s/trace-%06d", sub, i), strings.NewReader(strings.Repeat("x", 2000)))
			}
		}
		benchItems(b, st, kind(st), n)
	})
}

func benchItems(b *testing.B, st store.Store, k retention.Kind, n int) {
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			items, err := retention.Items(context.Background(), st, k, "owner")
			if err != nil || len(items) != n {
				b.Fatalf("%d items, %v", len(items), err)
			}
		}
	})
	// What a quota check costs once the ledger has read the owner.
	b.Run("ledger", func(b *testing.B) {
		l := &retention.Ledger{Store: st, Kind: k}
		for b.Loop() {
			if _, ok, err := l.Fits(context.Background(), "owner", 2000, 1<<40, 2*int64(n)); !ok || err != nil {
				b.Fatalf("fits: %v %v", ok, err)
			}
		}
	})
}
