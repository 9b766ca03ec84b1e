package tracing

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// Stream feed defaults.
const (
	DefaultStream       = "rlm:trajectories"
	DefaultStreamMaxLen = 10000
)

// Feed appends finished trajectories to a Redis Stream so that trainers on
// other machines can consume them with consumer groups (XREADGROUP/XACK).
// Each entry has the fields id, owner, status, stop_reason, model, reward
// (empty when none) and trajectory (the JSON record).
type Feed struct {
	client redis.Cmdable
	stream string
	maxLen int64
}

// NewFeed returns a feed writing to stream (DefaultStream if empty), trimmed
// to about maxLen entries (DefaultStreamMaxLen if 0; negative: never trimmed).
// Trimming is approximate (MAXLEN ~), which Redis does cheaply.
func NewFeed(client redis.Cmdable, stream string, maxLen int64) *Feed {
	if stream == "" {
		stream = DefaultStream
	}
	if maxLen == 0 {
		maxLen = DefaultStreamMaxLen
	}
	return &Feed{client: client, stream: stream, maxLen: maxLen}
}

// Stream returns the stream's key.
func (f *Feed) Stream() string { return f.stream }

// Publish appends t to the stream and returns the entry's ID.
func (f *Feed) Publish(ctx context.Context, t *Trajectory) (string, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return "", fmt.Errorf("encode trajectory %s: %w", t.ID, err)
	}
	reward := ""
	if t.Reward != nil {
		reward = strconv.FormatFloat(t.Reward.Score, 'g', -1, 64)
	}
	args := &redis.XAddArgs{
		Stream: f.stream,
		Values: []any{
			"id", t.ID, "owner", t.Owner, "status", string(t.Status), "stop_reason", string(t.StopReason),
			"model", t.Model, "reward", reward, "trajectory", b,
		},
	}
	if f.maxLen > 0 {
		args.MaxLen, args.Approx = f.maxLen, true
	}
	id, err := f.client.XAdd(ctx, args).Result()
	if err != nil {
		return "", fmt.Errorf("publish trajectory %s to stream %s: %w", t.ID, f.stream, err)
	}
	return id, nil
}

// OpenFeed connects to the Redis at url (redis:// or unix://, as go-redis's
// ParseURL accepts), checks that it answers, and returns a feed on it with
// the client's Close.
func OpenFeed(ctx context.Context, url, stream string, maxLen int64) (*Feed, func() error, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, nil, fmt.Errorf("trajectory feed: %w", err)
	}
	opt.ContextTimeoutEnabled = true // deadlines bound a hung Redis's reads (see store.OpenRedis)
	c := redis.NewClient(opt)
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("trajectory feed: ping %s: %w", opt.Addr, err)
	}
	return NewFeed(c, stream, maxLen), c.Close, nil
}
