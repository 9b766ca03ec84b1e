package store

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// RedisStream is a Redis Stream on a Redis store's server: an append-only
// log that processes elsewhere read as it grows, sharing it out with
// consumer groups (XREADGROUP, XACK). rlm serve appends every finished
// trajectory to one, for trainers on other machines.
type RedisStream struct {
	rdb    *redis.Client
	key    string
	maxLen int64
}

// Stream returns the stream key on r's server, trimmed to about maxLen
// entries when maxLen > 0 (MAXLEN ~, which Redis does cheaply) and never
// trimmed otherwise. The key is used as it is, without the store's
// prefix: it is the name consumers read.
func (r *Redis) Stream(key string, maxLen int64) *RedisStream {
	return &RedisStream{rdb: r.rdb, key: key, maxLen: maxLen}
}

// Append adds an entry of fields, given as name, value pairs, and returns
// its ID.
func (s *RedisStream) Append(ctx context.Context, fields ...string) (string, error) {
	if len(fields) == 0 || len(fields)%2 != 0 {
		return "", fmt.Errorf("append to stream %s: %d fields: want name, value pairs", s.key, len(fields))
	}
	values := make([]any, len(fields))
	for i, f := range fields {
		values[i] = f
	}
	args := &redis.XAddArgs{Stream: s.key, Values: values}
	if s.maxLen > 0 {
		args.MaxLen, args.Approx = s.maxLen, true
	}
	id, err := s.rdb.XAdd(ctx, args).Result()
	if err != nil {
		return "", fmt.Errorf("append to stream %s: %w", s.key, err)
	}
	return id, nil
}
