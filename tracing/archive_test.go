package tracing_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/tracingtest"
)

// storeCase is one Store implementation the archive tests run against.
type storeCase struct {
	name string
	open func(t *testing.T) tracing.Store
}

// stores lists the implementations under test; store_impl_test.go adds the
// project's disk and Redis stores.
var stores = []storeCase{
	{name: "memory", open: func(*testing.T) tracing.Store { return tracingtest.NewMemStore() }},
}

func TestArchiveRoundTrip(t *testing.T) {
	for _, sc := range stores {
		t.Run(sc.name, func(t *testing.T) {
			svc := tracing.NewService(tracing.Config{Store: sc.open(t)})
			t0 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
			want := tracingtest.SaveRun(t, svc, "alice", "tr_a1", t0, recursion.StopFinal, "m1")
			got, err := svc.Archive().Load(t.Context(), "alice", "tr_a1")
			if err != nil {
				t.Fatal(err)
			}
			wb, _ := json.Marshal(want)
			gb, _ := json.Marshal(got)
			if string(wb) != string(gb) {
				t.Errorf("round trip changed the record:\n%s\n%s", wb, gb)
			}
			// Feedback lands on the stored record and its summary.
			if _, err := svc.Feedback(t.Context(), "alice", "tr_a1", tracing.Reward{Score: 0.75, Label: "good"}); err != nil {
				t.Fatal(err)
			}
			got, err = svc.Archive().Load(t.Context(), "alice", "tr_a1")
			if err != nil || got.Reward == nil || got.Reward.Score != 0.75 || got.Reward.Label != "good" {
				t.Fatalf("reward not stored: %+v, %v", got.Reward, err)
			}
			page, err := svc.List(t.Context(), "alice", tracing.Filter{MinReward: ptr(0.5)})
			if err != nil || len(page.Data) != 1 || page.Data[0].Reward == nil {
				t.Errorf("listing by reward: %+v, %v", page, err)
			}
			// Isolation: another owner sees nothing of alice's.
			if _, err := svc.Archive().Load(t.Context(), "bob", "tr_a1"); !errors.Is(err, tracing.ErrNotFound) {
				t.Errorf("bob loaded alice's trace: %v", err)
			}
			if _, err := svc.Feedback(t.Context(), "bob", "tr_a1", tracing.Reward{Score: 0}); !errors.Is(err, tracing.ErrNotFound) {
				t.Errorf("bob rated alice's trace: %v", err)
			}
			if page, _ := svc.List(t.Context(), "bob", tracing.Filter{}); len(page.Data) != 0 {
				t.Errorf("bob lists %d of alice's runs", len(page.Data))
			}
			for _, bad := range []string{"", "..", "a/b", "x y"} {
				if _, err := svc.Archive().Load(t.Context(), "alice", bad); !errors.Is(err, tracing.ErrInvalid) {
					t.Errorf("id %q: %v, want ErrInvalid", bad, err)
				}
			}
			if err := svc.Archive().Delete(t.Context(), "alice", "tr_a1"); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Archive().Load(t.Context(), "alice", "tr_a1"); !errors.Is(err, tracing.ErrNotFound) {
				t.Errorf("after delete: %v", err)
			}
		})
	}
}

func TestListFilterAndPaging(t *testing.T) {
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	t0 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	for i := range 7 {
		stop, model := recursion.StopFinal, "m1"
		if i%3 == 0 {
			stop = recursion.StopMaxIterations
		}
		if i%2 == 0 {
			model = "m2"
		}
		tracingtest.SaveRun(t, svc, "alice", "tr_"+strconv.Itoa(i), t0.Add(time.Duration(i)*time.Minute), stop, model)
	}
	tracingtest.SaveRun(t, svc, "bob", "tr_bob", t0, recursion.StopFinal, "m1")
	tests := []struct {
		name string
		f    tracing.Filter
		want string
	}{
		{"all newest first", tracing.Filter{}, "[tr_6 tr_5 tr_4 tr_3 tr_2 tr_1 tr_0]"},
		{"model", tracing.Filter{Model: "m1"}, "[tr_5 tr_3 tr_1]"},
		{"stop reason", tracing.Filter{StopReason: "max_iterations"}, "[tr_6 tr_3 tr_0]"},
		{"time range", tracing.Filter{Since: t0.Add(2 * time.Minute), Until: t0.Add(5 * time.Minute)}, "[tr_4 tr_3 tr_2]"},
		{"combined", tracing.Filter{Model: "m2", StopReason: "final"}, "[tr_4 tr_2]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ids []string
			f := tc.f
			f.Limit = 2
			for pages := 0; ; pages++ {
				if pages > 10 {
					t.Fatal("paging does not end")
				}
				p, err := svc.List(t.Context(), "alice", f)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range p.Data {
					ids = append(ids, s.ID)
				}
				if !p.HasMore {
					break
				}
				f.Cursor = p.NextCursor
			}
			if got := fmt.Sprint(ids); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	if _, err := svc.List(t.Context(), "alice", tracing.Filter{Cursor: "garbage"}); !errors.Is(err, tracing.ErrInvalid) {
		t.Errorf("bad cursor: %v", err)
	}
}

// TestLiveRunVisible checks that a run in progress is listed and readable,
// and that a live subscriber sees its events and its end.
func TestLiveRunVisible(t *testing.T) {
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	run, err := svc.StartRun(t.Context(), tracing.RunInfo{Owner: "alice", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	events, cancel := run.Recorder().Subscribe(1024)
	defer cancel()
	run.Observer().Observe(recursion.Event{Kind: recursion.EventNodeStart, NodeID: "0"})
	p, err := svc.List(t.Context(), "alice", tracing.Filter{})
	if err != nil || len(p.Data) != 1 || p.Data[0].Status != tracing.StatusRunning {
		t.Fatalf("live run not listed: %+v %v", p, err)
	}
	raw, err := svc.Raw(t.Context(), "alice", run.ID())
	if err != nil || !json.Valid(raw) {
		t.Fatalf("live run not readable: %v", err)
	}
	if _, err := svc.Raw(t.Context(), "bob", run.ID()); !errors.Is(err, tracing.ErrNotFound) {
		t.Errorf("bob read alice's live run: %v", err)
	}
	if _, err := run.Finish(t.Context(), recursion.Result{StopReason: recursion.StopFinal}, nil); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for ev := range events {
		kinds = append(kinds, ev.Kind)
	}
	if fmt.Sprint(kinds) != "[node_start end]" {
		t.Errorf("live events = %v", kinds)
	}
	if svc.Live("alice", run.ID()) != nil {
		t.Errorf("finished run still live")
	}
}

// TestFinishAfterCancel checks that a run whose request context was
// cancelled is still saved.
func TestFinishAfterCancel(t *testing.T) {
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	ctx, cancel := context.WithCancel(t.Context())
	run, err := svc.StartRun(ctx, tracing.RunInfo{Owner: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	tracingtest.Emit(run.Observer(), tracingtest.Shape{Turns: 2, Stop: recursion.StopCancelled})
	cancel()
	if _, err := run.Finish(ctx, recursion.Result{}, context.Canceled); err != nil {
		t.Fatal(err)
	}
	tr, err := svc.Archive().Load(t.Context(), "alice", run.ID())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Status != tracing.StatusCancelled || tr.StopReason != recursion.StopCancelled {
		t.Errorf("status %q stop %q", tr.Status, tr.StopReason)
	}
}

// TestOwnersAndModelNames: Owners counts every owner's stored runs, and
// the model filter finds a run by the name its caller used (a gateway
// alias) or by an upstream model that answered.
func TestOwnersAndModelNames(t *testing.T) {
	for _, sc := range stores {
		t.Run(sc.name, func(t *testing.T) {
			svc := tracing.NewService(tracing.Config{Store: sc.open(t)})
			if owners, err := svc.Archive().Owners(t.Context()); err != nil || len(owners) != 0 {
				t.Fatalf("empty store: owners %v, %v", owners, err)
			}
			t0 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
			// An alias run: the caller named "rlm", upstream "gpt-x" answered.
			run, err := svc.StartRun(t.Context(), tracing.RunInfo{TraceID: "tr_alias", Owner: "alice", Model: "rlm", Started: t0})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := run.Finish(t.Context(), tracingtest.Emit(run.Observer(), tracingtest.Shape{Start: t0, Model: "gpt-x", Turns: 1}), nil); err != nil {
				t.Fatal(err)
			}
			tracingtest.SaveRun(t, svc, "alice", "tr_plain", t0.Add(time.Second), recursion.StopFinal, "gpt-y")
			tracingtest.SaveRun(t, svc, "bob", "tr_bob", t0, recursion.StopFinal, "gpt-x")
			owners, err := svc.Archive().Owners(t.Context())
			if err != nil || len(owners) != 2 || owners["alice"] != 2 || owners["bob"] != 1 {
				t.Errorf("owners %v, %v; want alice 2, bob 1", owners, err)
			}
			for model, want := range map[string]string{"rlm": "[tr_alias]", "gpt-x": "[tr_alias]", "gpt-y": "[tr_plain]", "nope": "[]"} {
				page, err := svc.List(t.Context(), "alice", tracing.Filter{Model: model})
				var got []string
				for _, s := range page.Data {
					got = append(got, s.ID)
				}
				if err != nil || fmt.Sprint(got) != want {
					t.Errorf("model %q: %v %v, want %s", model, got, err, want)
				}
			}
			if id := tracing.NewTraceID(); len(id) != len("trace-")+24 || id[:6] != "trace-" {
				t.Errorf("NewTraceID() = %q, want trace- and 24 hex digits, like the gateway's", id)
			}
		})
	}
}

func TestParseKey(t *testing.T) {
	tests := []struct {
		key, owner, id string
		summary, ok    bool
	}{
		{"alice/t/tr_1", "alice", "tr_1", false, true},
		{"alice/s/tr_1", "alice", "tr_1", true, true},
		{"alice/x/tr_1", "", "", false, false},
		{"alice/t", "", "", false, false},
		{"alice/t/a/b", "", "", false, false},
		{".hidden/t/x", "", "", false, false},
	}
	for _, tt := range tests {
		owner, id, summary, ok := tracing.ParseKey(tt.key)
		if owner != tt.owner || id != tt.id || summary != tt.summary || ok != tt.ok {
			t.Errorf("ParseKey(%q) = %q %q %v %v", tt.key, owner, id, summary, ok)
		}
	}
}

// TestBeforeSave checks that the hook sees every write of a trajectory
// with its owner, id and size, and that its error keeps the record out.
func TestBeforeSave(t *testing.T) {
	st := tracingtest.NewMemStore()
	refuse := errors.New("no room")
	var calls []string
	svc := tracing.NewService(tracing.Config{Store: st,
		BeforeSave: func(_ context.Context, owner, id string, n int64) error {
			calls = append(calls, fmt.Sprintf("%s/%s:%v", owner, id, n > 100))
			if id == "tr_refused" {
				return refuse
			}
			return nil
		}})
	t0 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	tracingtest.SaveRun(t, svc, "alice", "tr_kept", t0, recursion.StopFinal, "m1")
	run, err := svc.StartRun(t.Context(), tracing.RunInfo{TraceID: "tr_refused", Owner: "alice", Started: t0})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Finish(t.Context(), tracingtest.Emit(run.Observer(), tracingtest.Shape{Start: t0, Turns: 1}), nil); !errors.Is(err, refuse) {
		t.Errorf("a refused save: %v", err)
	}
	if _, err := svc.Archive().Load(t.Context(), "alice", "tr_refused"); !errors.Is(err, tracing.ErrNotFound) {
		t.Errorf("the refused trace was stored: %v", err)
	}
	if _, err := svc.Feedback(t.Context(), "alice", "tr_kept", tracing.Reward{Score: 1}); err != nil {
		t.Fatal(err)
	}
	want := "alice/tr_kept:true alice/tr_refused:true alice/tr_kept:true"
	if got := fmt.Sprint(calls); got != "["+want+"]" {
		t.Errorf("calls %s, want [%s]", got, want)
	}
}
