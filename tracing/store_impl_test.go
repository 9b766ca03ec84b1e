package tracing_test

import (
	"testing"

	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/store/storetest"
	"github.com/rlm-project/rlm/tracing"
)

// The project's disk and Redis stores, for the archive round-trip tests.
func init() {
	stores = append(stores,
		storeCase{name: "disk", open: func(t *testing.T) tracing.Store {
			d, err := store.OpenDisk(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return d
		}},
		storeCase{name: "redis", open: func(t *testing.T) tracing.Store {
			url := storetest.StartRedis(t) // skips without redis-server, fails under CI=true
			r, err := store.OpenRedis(t.Context(), store.RedisConfig{URL: url, CacheDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			return r
		}},
	)
}

// Both stores satisfy tracing.Store.
var (
	_ tracing.Store = (*store.Disk)(nil)
	_ tracing.Store = (*store.Redis)(nil)
)
