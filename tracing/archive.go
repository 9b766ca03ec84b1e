package tracing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rlm-project/rlm/store"
)

// Store is the part of store.Store that trajectories need, declared here so
// that any implementation (disk, Redis, memory in tests) fits. Keys may
// contain '/'; Get and Delete return an error matching store.ErrNotFound
// for a missing key.
type Store interface {
	Put(ctx context.Context, coll, key string, value io.Reader) (int64, error)
	Get(ctx context.Context, coll, key string) (io.ReadCloser, error)
	Delete(ctx context.Context, coll, key string) error
	List(ctx context.Context, coll, prefix string) ([]string, error)
}

// Collection is the store collection trajectories live in. Keys are
// "<owner>/t/<id>" for the trajectory and "<owner>/s/<id>" for its summary,
// so that one owner's runs are one prefix and listings read summaries only.
const Collection = "traces"

// ErrNotFound is returned for a trajectory that does not exist for the
// asking owner.
var ErrNotFound = errors.New("trace not found")

// ErrInvalid is returned for an owner or trace ID that cannot be a key.
var ErrInvalid = errors.New("invalid trace reference")

// Archive saves and reads trajectories in a Store.
type Archive struct {
	store Store
	// beforeSave is Config.BeforeSave.
	beforeSave func(ctx context.Context, owner, id string, bytes int64) error
}

// NewArchive returns an Archive over s.
func NewArchive(s Store) *Archive { return &Archive{store: s} }

// ValidName reports whether s may be an owner or a trace ID: 1 to 128
// letters, digits, '-', '_' and '.', not starting with '.' (the rules of
// store keys, stricter so that a name is safe in URLs and file names too).
func ValidName(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '.' {
		return false
	}
	for _, c := range []byte(s) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}

// ParseKey returns the owner and trace ID of a key of Collection, and
// whether the key is the trace's summary (the value that lists it) rather
// than its trajectory; ok is false for a key of no trace.
func ParseKey(key string) (owner, id string, summary, ok bool) {
	owner, rest, _ := strings.Cut(key, "/")
	kind, id, _ := strings.Cut(rest, "/")
	if !ValidName(owner) || !ValidName(id) || (kind != "t" && kind != "s") {
		return "", "", false, false
	}
	return owner, id, kind == "s", true
}

func keys(owner, id string) (traj, summary string, err error) {
	if !ValidName(owner) {
		return "", "", fmt.Errorf("owner %q: %w", owner, ErrInvalid)
	}
	if !ValidName(id) {
		return "", "", fmt.Errorf("trace id %q: %w", id, ErrInvalid)
	}
	return owner + "/t/" + id, owner + "/s/" + id, nil
}

// Save writes t under t.Owner, trajectory first: a crash between the two
// writes leaves a record without a listing entry, never the reverse.
func (a *Archive) Save(ctx context.Context, t *Trajectory) (int64, error) {
	tk, sk, err := keys(t.Owner, t.ID)
	if err != nil {
		return 0, err
	}
	b, err := json.Marshal(t)
	if err != nil {
		return 0, fmt.Errorf("encode trajectory %s: %w", t.ID, err)
	}
	if a.beforeSave != nil {
		if err := a.beforeSave(ctx, t.Owner, t.ID, int64(len(b))); err != nil {
			return 0, fmt.Errorf("save trajectory %s: %w", t.ID, err)
		}
	}
	n, err := a.store.Put(ctx, Collection, tk, bytes.NewReader(b))
	if err != nil {
		return 0, fmt.Errorf("save trajectory %s: %w", t.ID, err)
	}
	sb, err := json.Marshal(t.Summary())
	if err != nil {
		return n, fmt.Errorf("encode summary %s: %w", t.ID, err)
	}
	if _, err := a.store.Put(ctx, Collection, sk, bytes.NewReader(sb)); err != nil {
		return n, fmt.Errorf("save summary %s: %w", t.ID, err)
	}
	return n, nil
}

// Raw returns the stored JSON of owner's trajectory id.
func (a *Archive) Raw(ctx context.Context, owner, id string) ([]byte, error) {
	tk, _, err := keys(owner, id)
	if err != nil {
		return nil, err
	}
	b, err := a.read(ctx, tk, id)
	if err != nil {
		return nil, err
	}
	// Records saved before ContextRef.Path was kept out of the JSON hold
	// the server's document paths; decoding and encoding them again drops
	// those (the field is never decoded nor encoded).
	if bytes.Contains(b, []byte(`"path":`)) {
		var t Trajectory
		if err := json.Unmarshal(b, &t); err != nil {
			return nil, fmt.Errorf("decode trace %s: %w", id, err)
		}
		if b, err = json.Marshal(&t); err != nil {
			return nil, fmt.Errorf("encode trace %s: %w", id, err)
		}
	}
	return b, nil
}

func (a *Archive) read(ctx context.Context, key, id string) ([]byte, error) {
	rc, err := a.store.Get(ctx, Collection, key)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("trace %s: %w", id, ErrNotFound)
		}
		return nil, fmt.Errorf("load trace %s: %w", id, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("load trace %s: %w", id, err)
	}
	return b, nil
}

// Load returns owner's trajectory id.
func (a *Archive) Load(ctx context.Context, owner, id string) (*Trajectory, error) {
	b, err := a.Raw(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	var t Trajectory
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("decode trace %s: %w", id, err)
	}
	return &t, nil
}

// Delete removes owner's trajectory id and its summary.
func (a *Archive) Delete(ctx context.Context, owner, id string) error {
	tk, sk, err := keys(owner, id)
	if err != nil {
		return err
	}
	if err := a.store.Delete(ctx, Collection, sk); err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("delete trace %s: %w", id, err)
	}
	if err := a.store.Delete(ctx, Collection, tk); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("trace %s: %w", id, ErrNotFound)
		}
		return fmt.Errorf("delete trace %s: %w", id, err)
	}
	return nil
}

// SetReward attaches a reward to owner's stored trajectory id, replacing any
// earlier one, and returns the updated trajectory.
func (a *Archive) SetReward(ctx context.Context, owner, id string, r Reward) (*Trajectory, error) {
	return a.Annotate(ctx, owner, id, &r, nil)
}

// Annotate attaches a reward (when r is not nil) and metadata to owner's
// stored trajectory id and returns the updated trajectory. Metadata keys are
// merged into the run's; an empty value removes its key.
func (a *Archive) Annotate(ctx context.Context, owner, id string, r *Reward, meta map[string]string) (*Trajectory, error) {
	t, err := a.Load(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	if r != nil {
		rr := *r
		if rr.Time.IsZero() {
			rr.Time = time.Now().UTC()
		}
		t.Reward = &rr
	}
	for k, v := range meta {
		if v == "" {
			delete(t.Metadata, k)
			continue
		}
		if t.Metadata == nil {
			t.Metadata = map[string]string{}
		}
		t.Metadata[k] = v
	}
	// The stored owner is authoritative: never let a record move.
	t.Owner = owner
	if _, err := a.Save(ctx, t); err != nil {
		return nil, fmt.Errorf("annotate trace %s: %w", id, err)
	}
	return t, nil
}

// Filter selects trajectories for listings and exports. Zero fields match
// everything.
type Filter struct {
	Since, Until time.Time // on the start time; Until is exclusive
	Model        string
	StopReason   string
	Status       string
	MinReward    *float64 // only runs with a reward of at least this
	// Limit is the page size; 0 means DefaultPageSize, capped at MaxPageSize.
	Limit int
	// Cursor continues a listing from the NextCursor of the previous page.
	Cursor string
}

// Page sizes of listings.
const (
	DefaultPageSize = 50
	MaxPageSize     = 1000
)

// Match reports whether s passes the filter's selection (not its paging).
func (f *Filter) Match(s Summary) bool {
	switch {
	case !f.Since.IsZero() && s.Started.Before(f.Since):
		return false
	case !f.Until.IsZero() && !s.Started.Before(f.Until):
		return false
	case f.Model != "" && s.Model != f.Model && !slices.Contains(s.Models, f.Model):
		// A model is found by the name the caller used (a gateway alias)
		// or by an upstream name that answered.
		return false
	case f.StopReason != "" && string(s.StopReason) != f.StopReason:
		return false
	case f.Status != "" && string(s.Status) != f.Status:
		return false
	case f.MinReward != nil && (s.Reward == nil || s.Reward.Score < *f.MinReward):
		return false
	}
	return true
}

// Page is one page of a listing, newest first.
type Page struct {
	Object     string    `json:"object"`
	Data       []Summary `json:"data"`
	HasMore    bool      `json:"has_more"`
	NextCursor string    `json:"next_cursor,omitempty"`
}

// Summaries returns the summaries of all of owner's stored runs that match
// f's selection, newest first.
func (a *Archive) Summaries(ctx context.Context, owner string, f Filter) ([]Summary, error) {
	if !ValidName(owner) {
		return nil, fmt.Errorf("owner %q: %w", owner, ErrInvalid)
	}
	prefix := owner + "/s/"
	ks, err := a.store.List(ctx, Collection, prefix)
	if err != nil {
		return nil, fmt.Errorf("list traces: %w", err)
	}
	out := make([]Summary, 0, len(ks))
	for _, k := range ks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := a.read(ctx, k, strings.TrimPrefix(k, prefix))
		if errors.Is(err, ErrNotFound) {
			continue // deleted while we listed
		}
		if err != nil {
			return nil, err
		}
		var s Summary
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("decode summary %s: %w", k, err)
		}
		if f.Match(s) {
			out = append(out, s)
		}
	}
	sortSummaries(out)
	return out, nil
}

func sortSummaries(s []Summary) {
	slices.SortFunc(s, func(a, b Summary) int {
		if c := b.Started.Compare(a.Started); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
}

// paginate cuts one page out of newest-first summaries. The cursor is the
// start time and ID of the last entry shown, so pages stay stable while new
// runs arrive.
func paginate(all []Summary, f Filter) (Page, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultPageSize
	}
	limit = min(limit, MaxPageSize)
	start := 0
	if f.Cursor != "" {
		ts, id, ok := strings.Cut(f.Cursor, "|")
		at, err := time.Parse(time.RFC3339Nano, ts)
		if !ok || err != nil {
			return Page{}, fmt.Errorf("cursor %q: %w", f.Cursor, ErrInvalid)
		}
		start = len(all)
		for i, s := range all {
			if c := s.Started.Compare(at); c < 0 || c == 0 && s.ID < id {
				start = i
				break
			}
		}
	}
	end := min(start+limit, len(all))
	p := Page{Object: "list", Data: all[start:end], HasMore: end < len(all)}
	if p.Data == nil {
		p.Data = []Summary{}
	}
	if p.HasMore {
		last := all[end-1]
		p.NextCursor = last.Started.Format(time.RFC3339Nano) + "|" + last.ID
	}
	return p, nil
}

// Owners returns the number of stored runs of every owner that has any.
// Owners are hashes of API keys on a gateway with keys, so that a data
// directory's reader cannot guess them; this is how it finds them.
func (a *Archive) Owners(ctx context.Context) (map[string]int, error) {
	ks, err := a.store.List(ctx, Collection, "")
	if err != nil {
		return nil, fmt.Errorf("list owners: %w", err)
	}
	out := map[string]int{}
	for _, k := range ks {
		if owner, rest, ok := strings.Cut(k, "/"); ok && strings.HasPrefix(rest, "s/") {
			out[owner]++
		}
	}
	return out, nil
}
