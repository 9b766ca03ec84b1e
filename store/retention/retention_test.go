package retention_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/store/retention"
)

// fixture is a disk store with one kind of record, "doc": a main value in
// "docs" and a part in "parts", both under "<owner>/<id>".
type fixture struct {
	t   *testing.T
	dir string
	st  *store.Disk
}

func newFixture(t *testing.T) *fixture {
	dir := t.TempDir()
	st, err := store.OpenDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t, dir, st}
}

func (f *fixture) kind(name string, colls ...string) retention.Kind {
	return retention.Kind{
		Name:  name,
		Colls: colls,
		Item: func(coll, key string) (string, string, bool, bool) {
			owner, id, ok := strings.Cut(key, "/")
			return owner, id, coll == colls[0], ok
		},
		Delete: func(ctx context.Context, owner, id string) error {
			found := false
			for _, c := range colls {
				err := f.st.Delete(ctx, c, owner+"/"+id)
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					return err
				}
				found = found || err == nil
			}
			if !found {
				return store.ErrNotFound
			}
			return nil
		},
	}
}

// put writes coll/key with n bytes, last written age ago.
func (f *fixture) put(coll, key string, n int, age time.Duration) {
	f.t.Helper()
	if _, err := f.st.Put(context.Background(), coll, key, strings.NewReader(strings.Repeat("x", n))); err != nil {
		f.t.Fatal(err)
	}
	when := time.Now().Add(-age)
	if err := os.Chtimes(filepath.Join(f.dir, coll, key+".blob"), when, when); err != nil {
		f.t.Fatal(err)
	}
}

// keys lists what is left of coll.
func (f *fixture) keys(coll string) string {
	f.t.Helper()
	ks, err := f.st.List(context.Background(), coll, "")
	if err != nil {
		f.t.Fatal(err)
	}
	return strings.Join(ks, " ")
}

func TestItemsGroupValues(t *testing.T) {
	f := newFixture(t)
	k := f.kind("doc", "docs", "parts")
	f.put("docs", "o1/a", 10, 3*time.Hour)
	f.put("parts", "o1/a", 5, time.Hour)
	f.put("parts", "o1/b", 7, 0) // debris in the making
	f.put("docs", "o2/a", 1, 0)
	items, err := retention.Items(context.Background(), f.st, k, "o1")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(items, func(a, b retention.Item) int { return strings.Compare(a.ID, b.ID) })
	if len(items) != 2 || items[0].ID != "a" || items[0].Bytes != 15 || !items[0].Whole ||
		time.Since(items[0].Modified) > 2*time.Hour || items[1].ID != "b" || items[1].Whole {
		t.Errorf("items of o1: %+v", items)
	}
}

func TestSweep(t *testing.T) {
	tests := []struct {
		name     string
		rules    retention.Rules
		maxBytes int64
		values   []string // coll/owner/id:bytes:age
		left     string   // keys left in docs
		deleted  string   // reasons
	}{
		{name: "age", rules: retention.Rules{MaxAge: 24 * time.Hour},
			values: []string{"docs/o/old:1:48h", "parts/o/old:1:48h", "docs/o/new:1:1h"},
			left:   "o/new", deleted: "age=1"},
		{name: "no age limit keeps everything", rules: retention.Rules{},
			values: []string{"docs/o/old:1:10000h", "docs/o/new:1:0s"},
			left:   "o/new o/old"},
		{name: "debris", rules: retention.Rules{},
			values: []string{"parts/o/crashed:1:2h", "parts/o/writing:1:1m", "docs/o/whole:1:5h"},
			left:   "o/whole", deleted: "debris=1"},
		{name: "owner bytes keep the newest", rules: retention.Rules{OwnerBytes: 25},
			values: []string{"docs/a/1:10:4h", "docs/a/2:10:3h", "docs/a/3:10:2h", "docs/a/4:10:1h", "docs/b/1:10:9h"},
			left:   "a/3 a/4 b/1", deleted: "owner_quota=2"},
		{name: "owner items", rules: retention.Rules{OwnerItems: 1},
			values: []string{"docs/a/1:10:4h", "docs/a/2:10:3h", "docs/b/1:10:9h"},
			left:   "a/2 b/1", deleted: "owner_quota=1"},
		{name: "total bytes, oldest first", rules: retention.Rules{Shared: true}, maxBytes: 20,
			values: []string{"docs/a/1:10:4h", "docs/b/1:10:3h", "docs/a/2:10:2h", "docs/b/2:10:1h"},
			left:   "a/2 b/2", deleted: "size=2"},
		{name: "total bytes ignore other kinds", rules: retention.Rules{}, maxBytes: 1,
			values: []string{"docs/a/1:10:4h"},
			left:   "a/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			for _, v := range tt.values {
				parts := strings.Split(v, ":")
				coll, key, _ := strings.Cut(parts[0], "/")
				var n int
				fmt.Sscan(parts[1], &n)
				age, err := time.ParseDuration(parts[2])
				if err != nil {
					t.Fatal(err)
				}
				f.put(coll, key, n, age)
			}
			var told []string
			sw := retention.Sweeper{Store: f.st, MaxBytes: tt.maxBytes,
				Policies: []retention.Policy{{Kind: f.kind("doc", "docs", "parts"), Rules: tt.rules}},
				Deleted:  func(kind, reason string, _ int64) { told = append(told, kind+":"+reason) }}
			rep, err := sw.Sweep(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := f.keys("docs"); got != tt.left {
				t.Errorf("left %q, want %q", got, tt.left)
			}
			var got []string
			for reason, n := range rep.Deleted["doc"] {
				got = append(got, fmt.Sprintf("%s=%d", reason, n))
			}
			slices.Sort(got)
			if strings.Join(got, " ") != tt.deleted {
				t.Errorf("deleted %q, want %q", got, tt.deleted)
			}
			total := 0
			for _, n := range rep.Deleted["doc"] {
				total += n
			}
			if len(told) != total {
				t.Errorf("Deleted was told %v, for %d deletions", told, total)
			}
			if left := f.keys("parts"); strings.Contains(left, "old") || strings.Contains(left, "crashed") {
				t.Errorf("parts of deleted items left: %q", left)
			}
		})
	}
}

// TestSweepSharedAcrossKinds checks that the total bound takes the oldest
// items whatever their kind.
func TestSweepSharedAcrossKinds(t *testing.T) {
	f := newFixture(t)
	f.put("traces", "o/t1", 10, 5*time.Hour)
	f.put("runs", "o/r1", 10, 4*time.Hour)
	f.put("traces", "o/t2", 10, 3*time.Hour)
	f.put("runs", "o/r2", 10, 2*time.Hour)
	f.put("files", "o/f1", 100, 9*time.Hour)
	shared := retention.Rules{Shared: true}
	sw := retention.Sweeper{Store: f.st, MaxBytes: 25, Policies: []retention.Policy{
		{Kind: f.kind("traces", "traces"), Rules: shared},
		{Kind: f.kind("runs", "runs"), Rules: shared},
		{Kind: f.kind("files", "files")},
	}}
	rep, err := sw.Sweep(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := f.keys("traces") + "|" + f.keys("runs") + "|" + f.keys("files"); got != "o/t2|o/r2|o/f1" {
		t.Errorf("left %s", got)
	}
	if rep.Freed != 20 || rep.Kept["traces"] != 10 || rep.Kept["runs"] != 10 || rep.Kept["files"] != 100 {
		t.Errorf("report %+v", rep)
	}
}

func TestLedgerTrim(t *testing.T) {
	f := newFixture(t)
	p := retention.Policy{Kind: f.kind("doc", "docs"), Rules: retention.Rules{OwnerBytes: 30, OwnerItems: 3}}
	l := &retention.Ledger{Store: f.st, Kind: p.Kind}
	f.put("docs", "a/1", 10, 3*time.Hour)
	f.put("docs", "a/2", 10, 2*time.Hour)
	f.put("docs", "a/3", 10, time.Hour)
	f.put("docs", "b/1", 10, 9*time.Hour)
	ctx := context.Background()
	// Rewriting a/3 at the same size fits without deleting anything.
	if n, err := l.Trim(ctx, p, "a", "3", 10); n != 0 || err != nil {
		t.Errorf("trim for a rewrite: %d deleted, %v", n, err)
	}
	// A new 15-byte item needs a/1 and a/2 gone; b is another owner.
	if n, err := l.Trim(ctx, p, "a", "4", 15); n != 2 || err != nil {
		t.Errorf("trim for a new item: %d deleted, %v", n, err)
	}
	if got := f.keys("docs"); got != "a/3 b/1" {
		t.Errorf("left %q", got)
	}
	if n, err := l.Trim(ctx, p, "a", "5", 31); n != 0 || !errors.Is(err, retention.ErrTooLarge) {
		t.Errorf("trim for an item above the share: %d deleted, %v", n, err)
	}
	if got := f.keys("docs"); got != "a/3 b/1" {
		t.Errorf("a refused trim deleted something: %q", got)
	}
	// a/4 is saved; one more item of 10 then needs a/3 gone.
	f.put("docs", "a/4", 15, 0)
	if n, err := l.Trim(ctx, p, "a", "6", 10); n != 1 || err != nil {
		t.Errorf("trim after a counted item: %d deleted, %v", n, err)
	}
	if got := f.keys("docs"); got != "a/4 b/1" {
		t.Errorf("left %q", got)
	}
}

// TestLedgerAdmit checks the quota side: Fits and Admit from what the
// ledger holds, re-read before a refusal, so that a record deleted behind
// its back frees room at once.
func TestLedgerAdmit(t *testing.T) {
	f := newFixture(t)
	l := &retention.Ledger{Store: f.st, Kind: f.kind("doc", "docs", "parts"), Refresh: time.Hour}
	ctx := context.Background()
	f.put("docs", "a/1", 40, time.Hour)
	f.put("parts", "a/1", 10, time.Hour)
	tests := []struct {
		name       string
		do         func() (retention.Usage, bool, error)
		ok         bool
		bytes, n   int64
		afterwards func()
	}{
		{"fits", func() (retention.Usage, bool, error) { return l.Fits(ctx, "a", 50, 100, 0) }, true, 100, 2, nil},
		{"does not fit", func() (retention.Usage, bool, error) { return l.Fits(ctx, "a", 51, 100, 0) }, false, 101, 2, nil},
		// Admitted once written, as the server does.
		{"admitted", func() (retention.Usage, bool, error) {
			f.put("docs", "a/2", 30, 0)
			return l.Admit(ctx, "a", "2", 30, 100, 2)
		}, true, 80, 2, nil},
		{"one item too many", func() (retention.Usage, bool, error) { return l.Admit(ctx, "a", "3", 1, 0, 2) }, false, 81, 3,
			func() { f.st.Delete(ctx, "docs", "a/1"); f.st.Delete(ctx, "parts", "a/1") }},
		// a/1 is gone, which the ledger was not told: a fresh read before
		// refusing finds room.
		{"room made behind its back", func() (retention.Usage, bool, error) { return l.Admit(ctx, "a", "3", 70, 100, 2) }, true, 100, 2, nil},
		{"replacing counts once", func() (retention.Usage, bool, error) { return l.Admit(ctx, "a", "3", 70, 100, 2) }, true, 100, 2, nil},
		{"unbounded", func() (retention.Usage, bool, error) { return l.Fits(ctx, "a", 1<<40, 0, 0) }, true, 0, 0, nil},
	}
	for _, tt := range tests {
		u, ok, err := tt.do()
		if err != nil || ok != tt.ok || u.Bytes != tt.bytes || u.Items != tt.n {
			t.Errorf("%s: %+v %v %v, want %v with %d bytes in %d items", tt.name, u, ok, err, tt.ok, tt.bytes, tt.n)
		}
		if tt.afterwards != nil {
			tt.afterwards()
		}
	}
}
