// Package retention keeps what a store holds within bounds: records older
// than their kind's age limit, beyond an owner's share, or beyond the total
// the store may keep are deleted, oldest first, and debris (the parts of a
// record whose main value never came, after a crash) is cleared.
//
// A record, an Item, is what a client sees as one thing (an uploaded file,
// a stored completion, a trace) and may be several values: a file is its
// content, its metadata and its text. Kinds describe how values group into
// items and how an item is deleted; Walk gives the sizes and write times.
// A Sweeper applies bounds to a whole store now and then; a Ledger checks
// one owner's share before each write.
package retention

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/rlm-project/rlm/store"
)

// Kind is one sort of record.
type Kind struct {
	// Name names the kind in logs and metrics: files, completions, traces.
	Name string
	// Colls are the collections the kind's values live in, under keys
	// that start with "<owner>/".
	Colls []string
	// Item says which item the value coll/key belongs to, and whether it
	// is the item's main value, the one whose presence makes the item
	// exist for clients (a file's metadata, a trace's summary); ok is
	// false for a value that is none of this kind's.
	Item func(coll, key string) (owner, id string, main, ok bool)
	// Delete removes an item, whichever of its values are left, in the
	// order that keeps what clients see consistent (what lists it first).
	Delete func(ctx context.Context, owner, id string) error
}

// Item is one record of a kind.
type Item struct {
	Owner, ID string
	// Bytes is the size of its values together.
	Bytes int64
	// Modified is the newest write time of its values.
	Modified time.Time
	// Whole says its main value is there.
	Whole bool
}

// Items returns the items of k, only those of owner unless owner is "".
func Items(ctx context.Context, st store.Store, k Kind, owner string) ([]Item, error) {
	prefix := ""
	if owner != "" {
		prefix = owner + "/"
	}
	type ref struct{ owner, id string }
	at := map[ref]int{}
	var items []Item
	for _, coll := range k.Colls {
		err := st.Walk(ctx, coll, prefix, func(in store.Info) bool {
			o, id, main, ok := k.Item(coll, in.Key)
			if !ok {
				return true
			}
			i, seen := at[ref{o, id}]
			if !seen {
				i = len(items)
				at[ref{o, id}] = i
				items = append(items, Item{Owner: o, ID: id})
			}
			it := &items[i]
			it.Bytes += in.Size
			if in.Modified.After(it.Modified) {
				it.Modified = in.Modified
			}
			it.Whole = it.Whole || main
			return true
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k.Name, err)
		}
	}
	return items, nil
}

// Rules are the bounds a sweep keeps one kind in. Zero fields bound nothing.
type Rules struct {
	// MaxAge: items last written longer ago are deleted.
	MaxAge time.Duration
	// OwnerBytes and OwnerItems: an owner's items beyond either are
	// deleted, oldest first.
	OwnerBytes, OwnerItems int64
	// Shared: the kind counts toward the sweep's MaxBytes, and its items
	// are deleted, oldest first across every shared kind, past it.
	Shared bool
}

// Policy is a kind and its rules.
type Policy struct {
	Kind
	Rules
}

// DebrisAge is how old the parts of an item without its main value must be
// before a sweep deletes them: older than any write of a record in progress
// (an upload is written whole before its metadata; a run's record and
// messages within seconds of each other).
const DebrisAge = time.Hour

// Reasons an item is deleted, as Report and the metrics name them.
const (
	ReasonAge    = "age"
	ReasonOwner  = "owner_quota"
	ReasonSize   = "size"
	ReasonDebris = "debris"
)

// Sweeper deletes what its policies do not keep.
type Sweeper struct {
	Store    store.Store
	Policies []Policy
	// MaxBytes bounds the shared kinds' items together; 0: no bound.
	MaxBytes int64
	// Logger gets a line per sweep that deleted something, and failures.
	Logger *slog.Logger
	// Deleted, when set, is told of every item deleted.
	Deleted func(kind, reason string, bytes int64)
}

// Report is what one sweep did.
type Report struct {
	// Deleted counts items deleted by kind, then reason.
	Deleted map[string]map[string]int
	// Freed is the bytes of the items deleted.
	Freed int64
	// Kept is the bytes of the items left, by kind.
	Kept map[string]int64
}

// Sweep applies the policies once: debris and items past their age first,
// then owners' shares, then the total of the shared kinds. A failure to
// delete one item is logged and the sweep goes on; the errors are returned
// together.
func (s *Sweeper) Sweep(ctx context.Context) (Report, error) {
	rep := Report{Deleted: map[string]map[string]int{}, Kept: map[string]int64{}}
	now := time.Now()
	var errs []error
	del := func(p Policy, it Item, reason string) bool {
		if err := p.Delete(ctx, it.Owner, it.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			errs = append(errs, fmt.Errorf("delete %s %s/%s: %w", p.Name, it.Owner, it.ID, err))
			return false
		}
		if rep.Deleted[p.Name] == nil {
			rep.Deleted[p.Name] = map[string]int{}
		}
		rep.Deleted[p.Name][reason]++
		rep.Freed += it.Bytes
		if s.Deleted != nil {
			s.Deleted(p.Name, reason, it.Bytes)
		}
		return true
	}
	type owned struct {
		p  Policy
		it Item
	}
	var shared []owned
	var sharedBytes int64
	for _, p := range s.Policies {
		rep.Kept[p.Name] = 0
		items, err := Items(ctx, s.Store, p.Kind, "")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var kept []Item
		for _, it := range items {
			age := now.Sub(it.Modified)
			switch {
			case !it.Whole && age > DebrisAge:
				if !del(p, it, ReasonDebris) {
					kept = append(kept, it)
				}
			case p.MaxAge > 0 && age > p.MaxAge:
				if !del(p, it, ReasonAge) {
					kept = append(kept, it)
				}
			default:
				kept = append(kept, it)
			}
		}
		if p.OwnerBytes > 0 || p.OwnerItems > 0 {
			kept = s.trimOwners(p, kept, func(it Item) bool { return del(p, it, ReasonOwner) })
		}
		for _, it := range kept {
			rep.Kept[p.Name] += it.Bytes
			if p.Shared {
				shared = append(shared, owned{p, it})
				sharedBytes += it.Bytes
			}
		}
	}
	if s.MaxBytes > 0 && sharedBytes > s.MaxBytes {
		slices.SortFunc(shared, func(a, b owned) int { return a.it.Modified.Compare(b.it.Modified) })
		for _, o := range shared {
			if sharedBytes <= s.MaxBytes {
				break
			}
			if del(o.p, o.it, ReasonSize) {
				sharedBytes -= o.it.Bytes
				rep.Kept[o.p.Name] -= o.it.Bytes
			}
		}
	}
	if s.Logger != nil && rep.Freed > 0 {
		s.Logger.Info("retention sweep", "deleted", rep.Deleted, "freed_bytes", rep.Freed, "kept_bytes", rep.Kept)
	}
	if err := errors.Join(errs...); err != nil {
		return rep, fmt.Errorf("retention sweep: %w", err)
	}
	return rep, nil
}

// trimOwners deletes, with del, each owner's oldest items beyond the
// policy's share, and returns the items kept.
func (s *Sweeper) trimOwners(p Policy, items []Item, del func(Item) bool) []Item {
	byOwner := map[string][]Item{}
	for _, it := range items {
		byOwner[it.Owner] = append(byOwner[it.Owner], it)
	}
	var kept []Item
	for _, its := range byOwner {
		keep, drop := share(its, p.Rules, 0, 0)
		kept = append(kept, keep...)
		for _, it := range drop {
			if !del(it) {
				kept = append(kept, it)
			}
		}
	}
	return kept
}

// share splits one owner's items into those its share keeps, newest first,
// after room for n0 more items of bytes0 bytes, and those beyond it.
func share(items []Item, r Rules, bytes0, n0 int64) (keep, drop []Item) {
	slices.SortFunc(items, func(a, b Item) int {
		return cmp.Or(b.Modified.Compare(a.Modified), cmp.Compare(b.ID, a.ID))
	})
	bytes, n := bytes0, n0
	for _, it := range items {
		if (r.OwnerBytes > 0 && bytes+it.Bytes > r.OwnerBytes) || (r.OwnerItems > 0 && n+1 > r.OwnerItems) {
			drop = append(drop, it)
			continue
		}
		bytes += it.Bytes
		n++
		keep = append(keep, it)
	}
	return keep, drop
}
