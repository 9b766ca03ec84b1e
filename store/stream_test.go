package store_test

import (
	"strconv"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/store/storetest"
)

// streamServer starts a redis-server and returns a store on it and a
// plain client, which reads the streams as a consumer elsewhere would.
func streamServer(t *testing.T) (*store.Redis, *goredis.Client) {
	t.Helper()
	url := storetest.StartRedis(t)
	r, err := store.OpenRedis(t.Context(), store.RedisConfig{URL: url, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	opt, err := goredis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := goredis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return r, c
}

// TestRedisStream appends entries to a stream on the store's server and
// reads them back as a remote consumer does: with a consumer group whose
// consumers share the entries, each exactly once.
func TestRedisStream(t *testing.T) {
	t.Parallel()
	r, c := streamServer(t)
	ctx := t.Context()

	const key = "test:entries"
	if err := c.XGroupCreateMkStream(ctx, key, "readers", "$").Err(); err != nil {
		t.Fatal(err)
	}
	s := r.Stream(key, 100)
	for i := range 3 {
		if _, err := s.Append(ctx, "id", "e"+strconv.Itoa(i), "body", "{}"); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]string{}
	for _, consumer := range []string{"w1", "w2", "w1"} {
		res, err := c.XReadGroup(ctx, &goredis.XReadGroupArgs{Group: "readers", Consumer: consumer,
			Streams: []string{key, ">"}, Count: 1, Block: time.Second}).Result()
		if err != nil {
			t.Fatalf("%s: %v", consumer, err)
		}
		for _, m := range res[0].Messages {
			id, _ := m.Values["id"].(string)
			if m.Values["body"] != "{}" {
				t.Errorf("entry %s: %v", m.ID, m.Values)
			}
			if prev, dup := seen[id]; dup {
				t.Errorf("%s delivered to %s and %s", id, prev, consumer)
			}
			seen[id] = consumer
			if err := c.XAck(ctx, key, "readers", m.ID).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(seen) != 3 {
		t.Errorf("consumed %v, want 3 entries", seen)
	}
	if pending, err := c.XPending(ctx, key, "readers").Result(); err != nil || pending.Count != 0 {
		t.Errorf("pending = %+v, %v", pending, err)
	}

	// The key is the stream's own name, not under the store's prefix.
	if n := c.XLen(ctx, key).Val(); n != 3 {
		t.Errorf("%s holds %d entries, want 3", key, n)
	}
	if _, err := s.Append(ctx, "id"); err == nil {
		t.Error("Append took a field without a value")
	}
}

// TestRedisStreamTrim: a stream with a length is trimmed near it (MAXLEN
// ~ trims whole nodes of about 100 entries); one without is never trimmed.
func TestRedisStreamTrim(t *testing.T) {
	t.Parallel()
	r, c := streamServer(t)
	ctx := t.Context()
	for _, tc := range []struct {
		key      string
		maxLen   int64
		min, max int64
	}{
		{"test:small", 10, 10, 200},
		{"test:whole", 0, 500, 500},
	} {
		s := r.Stream(tc.key, tc.maxLen)
		for range 500 {
			if _, err := s.Append(ctx, "id", "x"); err != nil {
				t.Fatal(err)
			}
		}
		if n := c.XLen(ctx, tc.key).Val(); n < tc.min || n > tc.max {
			t.Errorf("%s (maxLen %d): %d entries, want %d to %d", tc.key, tc.maxLen, n, tc.min, tc.max)
		}
	}
}
