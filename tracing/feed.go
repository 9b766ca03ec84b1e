package tracing

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Defaults of rlm serve's trajectory stream (--trace-stream,
// --trace-stream-maxlen).
const (
	DefaultStream       = "rlm:trajectories"
	DefaultStreamMaxLen = 10000
)

// Stream is an append-only log that processes elsewhere read as it grows:
// trainers on other machines consume finished trajectories from it. The
// Redis store's streams (store.Redis.Stream) are one.
type Stream interface {
	// Append adds an entry of fields, given as name, value pairs, and
	// returns its ID.
	Append(ctx context.Context, fields ...string) (string, error)
}

// publish appends t to s as one entry with the fields id, owner, status,
// stop_reason, model, reward (empty when none) and trajectory (the JSON
// record).
func publish(ctx context.Context, s Stream, t *Trajectory) error {
	// Encoded straight into a string: a record can be tens of megabytes,
	// which string(json.Marshal(t)) would copy once more.
	var b strings.Builder
	if err := json.NewEncoder(&b).Encode(t); err != nil {
		return fmt.Errorf("encode trajectory %s: %w", t.ID, err)
	}
	reward := ""
	if t.Reward != nil {
		reward = strconv.FormatFloat(t.Reward.Score, 'g', -1, 64)
	}
	_, err := s.Append(ctx, "id", t.ID, "owner", t.Owner, "status", string(t.Status), "stop_reason", string(t.StopReason),
		"model", t.Model, "reward", reward, "trajectory", strings.TrimSuffix(b.String(), "\n"))
	if err != nil {
		return fmt.Errorf("publish trajectory %s: %w", t.ID, err)
	}
	return nil
}
