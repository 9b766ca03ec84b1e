package tracing_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/tracingtest"
)

// gatedStore is a MemStore whose Puts wait for open (or their context)
// and then fail with fail, if set: a store that is slow, hung or down.
type gatedStore struct {
	*tracingtest.MemStore
	mu   sync.Mutex
	gate chan struct{}
	fail error
}

func newGatedStore() *gatedStore {
	return &gatedStore{MemStore: tracingtest.NewMemStore(), gate: make(chan struct{})}
}

func (g *gatedStore) open() { close(g.gate) }

func (g *gatedStore) setFail(err error) {
	g.mu.Lock()
	g.fail = err
	g.mu.Unlock()
}

func (g *gatedStore) Put(ctx context.Context, coll, key string, v io.Reader) (int64, error) {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	g.mu.Lock()
	fail := g.fail
	g.mu.Unlock()
	if fail != nil {
		return 0, fail
	}
	return g.MemStore.Put(ctx, coll, key, v)
}

func finishInBackground(t *testing.T, svc *tracing.Service, id string) *tracing.Run {
	t.Helper()
	run, err := svc.StartRun(t.Context(), tracing.RunInfo{TraceID: id, Owner: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	res := tracingtest.Emit(run.Observer(), tracingtest.Shape{Turns: 1})
	run.FinishInBackground(t.Context(), res, nil)
	return run
}

// TestSaveOffTheAnswerPath reproduces answers held hostage by a hung store:
// FinishInBackground returns while the store is stuck, the run stays
// readable until it is saved, a full queue drops records (counted, not
// held), and saving resumes when the store answers again.
func TestSaveOffTheAnswerPath(t *testing.T) {
	st := newGatedStore()
	svc := tracing.NewService(tracing.Config{Store: st, SaveQueue: 2})
	// 4 records for the workers (stuck in Put), each taken from the queue
	// before the next comes, then 2 for the queue, then 2 over.
	for i := range 8 {
		finishInBackground(t, svc, fmt.Sprintf("tr_%d", i))
		if i < 4 {
			eventually(t, func() bool { return svc.Stats().Queued == 0 }, "a worker to take the record")
		}
	}
	if st := svc.Stats(); st.Saved != 0 || st.Dropped != 2 || st.Queued != 2 || st.Cap != 2 {
		t.Errorf("stats with a hung store: %+v", st)
	}
	if err := svc.SaveHealth(); err == nil || !strings.Contains(err.Error(), "queue is full") {
		t.Errorf("SaveHealth with a full queue: %v", err)
	}
	kept := 0
	for i := range 8 {
		if _, err := svc.Raw(t.Context(), "alice", fmt.Sprintf("tr_%d", i)); err == nil {
			kept++ // live while it waits to be saved
		}
	}
	if kept != 6 {
		t.Errorf("%d records readable while waiting, want 6 (8 less 2 dropped)", kept)
	}

	st.open()
	if err := svc.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := svc.Stats(); st.Saved != 6 || st.Dropped != 2 || st.Failed != 0 || st.Queued != 0 {
		t.Errorf("stats once the store answers: %+v", st)
	}
	if err := svc.SaveHealth(); err != nil {
		t.Errorf("SaveHealth after the queue drained: %v", err)
	}
	stored, _ := st.List(t.Context(), tracing.Collection, "alice/t/")
	if len(stored) != 6 {
		t.Errorf("%d records stored, want 6", len(stored))
	}
}

// TestSaveFailuresCounted: a store that fails is counted and reported by
// SaveHealth (without its error text, which names addresses) until a save
// works again.
func TestSaveFailuresCounted(t *testing.T) {
	st := newGatedStore()
	st.open()
	st.setFail(errors.New("dial tcp 10.1.2.3:6379: connection refused"))
	svc := tracing.NewService(tracing.Config{Store: st})
	finishInBackground(t, svc, "tr_a")
	svc.Flush(t.Context())
	if s := svc.Stats(); s.Failed != 1 || s.Saved != 0 {
		t.Errorf("stats: %+v", s)
	}
	err := svc.SaveHealth()
	if err == nil || strings.Contains(err.Error(), "10.1.2.3") {
		t.Errorf("SaveHealth after a failure: %v", err)
	}
	if _, err := svc.Raw(t.Context(), "alice", "tr_a"); err == nil {
		t.Errorf("a record that failed to save is still served as live")
	}
	st.setFail(nil)
	finishInBackground(t, svc, "tr_b")
	svc.Flush(t.Context())
	if err := svc.SaveHealth(); err != nil {
		t.Errorf("SaveHealth after a save worked again: %v", err)
	}
}

// TestCloseDrains: Close saves what is queued when the store answers in
// time, and otherwise gives up at its deadline, counting what it dropped;
// records finished after Close are dropped at once.
func TestCloseDrains(t *testing.T) {
	t.Run("in time", func(t *testing.T) {
		st := newGatedStore()
		svc := tracing.NewService(tracing.Config{Store: st})
		for i := range 6 {
			finishInBackground(t, svc, fmt.Sprintf("tr_%d", i))
		}
		time.AfterFunc(100*time.Millisecond, st.open)
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if err := svc.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if s := svc.Stats(); s.Saved != 6 || s.Dropped != 0 {
			t.Errorf("stats after Close: %+v", s)
		}
		finishInBackground(t, svc, "tr_late")
		if s := svc.Stats(); s.Dropped != 1 {
			t.Errorf("a record finished after Close: %+v", s)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		st := newGatedStore() // never opens
		svc := tracing.NewService(tracing.Config{Store: st})
		for i := range 6 {
			finishInBackground(t, svc, fmt.Sprintf("tr_%d", i))
		}
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		err := svc.Close(ctx)
		if err == nil || time.Since(start) > 5*time.Second {
			t.Fatalf("Close on a hung store: %v after %v", err, time.Since(start))
		}
		// 4 saves under way were cancelled (failed), 2 queued were dropped.
		if s := svc.Stats(); s.Saved != 0 || s.Failed+s.Dropped != 6 || s.Dropped < 2 {
			t.Errorf("stats after a Close that gave up: %+v", s)
		}
	})
}

func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
