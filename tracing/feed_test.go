package tracing_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/tracingtest"
)

// memStream is a tracing.Stream in memory, which fails every append with
// fail when it is set.
type memStream struct {
	mu      sync.Mutex
	entries [][]string
	fail    error
}

func (s *memStream) Append(_ context.Context, fields ...string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return "", s.fail
	}
	s.entries = append(s.entries, fields)
	return strconv.Itoa(len(s.entries)), nil
}

// fields returns entry i's fields by name, and their names in order.
func (s *memStream) fields(t *testing.T, i int) (map[string]string, []string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.entries) {
		t.Fatalf("entry %d of %d", i, len(s.entries))
	}
	m := map[string]string{}
	var names []string
	e := s.entries[i]
	for j := 0; j+1 < len(e); j += 2 {
		m[e[j]] = e[j+1]
		names = append(names, e[j])
	}
	return m, names
}

func (s *memStream) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// TestFeedEntries: every saved run is appended to the feed as one entry
// whose fields say what it is and hold the whole record.
func TestFeedEntries(t *testing.T) {
	t.Parallel()
	feed := &memStream{}
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore(), Feed: feed})
	t0 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	tracingtest.SaveRun(t, svc, "alice", "tr_f0", t0, recursion.StopFinal, "m")
	tracingtest.SaveRun(t, svc, "alice", "tr_f1", t0, recursion.StopMaxIterations, "m")
	if feed.len() != 2 {
		t.Fatalf("%d entries for 2 runs", feed.len())
	}
	for i, want := range []struct{ id, status, stop string }{{"tr_f0", "completed", "final"}, {"tr_f1", "incomplete", "max_iterations"}} {
		f, names := feed.fields(t, i)
		if wantNames := []string{"id", "owner", "status", "stop_reason", "model", "reward", "trajectory"}; !slices.Equal(names, wantNames) {
			t.Errorf("entry %d: fields %v, want %v", i, names, wantNames)
		}
		if f["id"] != want.id || f["owner"] != "alice" || f["status"] != want.status || f["stop_reason"] != want.stop || f["model"] != "m" || f["reward"] != "" {
			t.Errorf("entry %d: %v", i, f)
		}
		var tr tracing.Trajectory
		if err := json.Unmarshal([]byte(f["trajectory"]), &tr); err != nil {
			t.Fatal(err)
		}
		if tr.ID != want.id || tr.Owner != "alice" || len(tr.Nodes) == 0 {
			t.Errorf("entry %d's trajectory: %+v", i, tr.Summary())
		}
	}
}

// TestFeedDownStillSaves checks that a feed failure is reported but the run
// is still stored.
func TestFeedDownStillSaves(t *testing.T) {
	t.Parallel()
	feed := &memStream{fail: errors.New("dial tcp 127.0.0.1:1: connection refused")}
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore(), Feed: feed})
	run, err := svc.StartRun(t.Context(), tracing.RunInfo{Owner: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Finish(t.Context(), recursion.Result{StopReason: recursion.StopFinal}, nil); !errors.Is(err, feed.fail) {
		t.Errorf("feed failure not reported: %v", err)
	}
	if _, err := svc.Archive().Load(t.Context(), "alice", run.ID()); err != nil {
		t.Errorf("run not saved: %v", err)
	}
}

// TestFeedbackRepublished checks that a reward given after the run reaches
// the stream: the rewarded trajectory is appended again under the same id.
func TestFeedbackRepublished(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	feed := &memStream{}
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore(), Feed: feed})
	tracingtest.SaveRun(t, svc, "alice", "tr_r", time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC), recursion.StopFinal, "m")
	if _, err := svc.Feedback(ctx, "alice", "tr_r", tracing.Reward{Score: 0.75, Label: "correct"}); err != nil {
		t.Fatal(err)
	}
	if feed.len() != 2 {
		t.Fatalf("%d stream entries, want the run and its reward", feed.len())
	}
	first, _ := feed.fields(t, 0)
	last, _ := feed.fields(t, 1)
	if first["id"] != "tr_r" || first["reward"] != "" || last["id"] != "tr_r" || last["reward"] != "0.75" {
		t.Errorf("entries %v / %v", first["reward"], last["reward"])
	}
	var tr tracing.Trajectory
	if err := json.Unmarshal([]byte(last["trajectory"]), &tr); err != nil {
		t.Fatal(err)
	}
	if tr.Reward == nil || tr.Reward.Score != 0.75 || tr.Reward.Label != "correct" || len(tr.Nodes) == 0 {
		t.Errorf("republished trajectory: reward %+v, %d nodes", tr.Reward, len(tr.Nodes))
	}
	// Feedback on an unknown run publishes nothing.
	if _, err := svc.Feedback(ctx, "alice", "tr_none", tracing.Reward{Score: 1}); !errors.Is(err, tracing.ErrNotFound) {
		t.Errorf("feedback on a missing run: %v", err)
	}
	if feed.len() != 2 {
		t.Errorf("%d entries after a refused feedback, want 2", feed.len())
	}
	// A feed that is down does not lose the reward: it is only logged.
	feed.mu.Lock()
	feed.fail = errors.New("down")
	feed.mu.Unlock()
	if _, err := svc.Feedback(ctx, "alice", "tr_r", tracing.Reward{Score: 0.5}); err != nil {
		t.Errorf("feedback with the feed down: %v", err)
	}
	if tr, err := svc.Archive().Load(ctx, "alice", "tr_r"); err != nil || tr.Reward == nil || tr.Reward.Score != 0.5 {
		t.Errorf("reward with the feed down: %+v, %v", tr, err)
	}
}
