package retention

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rlm-project/rlm/store"
)

// DefaultRefresh is how long a Ledger trusts what it read of an owner.
const DefaultRefresh = 30 * time.Second

// Ledger keeps owners' usage of one kind in memory, so that a check before
// each write does not walk the owner's records (a walk of 10,000 records
// takes a tenth of a second or more). An owner's usage is read from the
// store when first needed and again once it is older than Refresh, and is
// updated by the writes this process admits. Whatever would be refused is
// checked again on a fresh read first: records deleted meanwhile, by
// clients, sweeps or other replicas, never cause a refusal. What the
// ledger may miss is the writes of other replicas since its last read.
type Ledger struct {
	Store   store.Store
	Kind    Kind
	Refresh time.Duration // 0: DefaultRefresh

	mu     sync.Mutex
	owners map[string]*ledgerOwner
}

type ledgerOwner struct {
	mu    sync.Mutex
	items map[string]Item // nil until read
	bytes int64
	read  time.Time
}

// Usage is an owner's bytes and items of one kind.
type Usage struct{ Bytes, Items int64 }

// ErrTooLarge is returned by Trim for an item larger than an owner's share.
var ErrTooLarge = errors.New("larger than an owner's whole share")

func (l *Ledger) owner(name string) *ledgerOwner {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.owners == nil {
		l.owners = map[string]*ledgerOwner{}
	}
	o := l.owners[name]
	if o == nil {
		o = &ledgerOwner{}
		l.owners[name] = o
	}
	return o
}

// load reads owner's items afresh when asked to, or when what the ledger
// has is missing or stale. o.mu is held.
func (l *Ledger) load(ctx context.Context, o *ledgerOwner, owner string, fresh bool) error {
	refresh := l.Refresh
	if refresh <= 0 {
		refresh = DefaultRefresh
	}
	if !fresh && o.items != nil && time.Since(o.read) < refresh {
		return nil
	}
	start := time.Now()
	items, err := Items(ctx, l.Store, l.Kind, owner)
	if err != nil {
		return err
	}
	o.items, o.bytes, o.read = make(map[string]Item, len(items)), 0, start
	for _, it := range items {
		o.items[it.ID] = it
		o.bytes += it.Bytes
	}
	return nil
}

// usage is o's usage with item id counted as bytes (not at all when
// bytes < 0).
func (o *ledgerOwner) usage(id string, bytes int64) Usage {
	u := Usage{Bytes: o.bytes, Items: int64(len(o.items))}
	if old, ok := o.items[id]; ok {
		u.Bytes -= old.Bytes
		u.Items--
	}
	if bytes >= 0 {
		u.Bytes += bytes
		u.Items++
	}
	return u
}

func within(u Usage, maxBytes, maxItems int64) bool {
	return (maxBytes <= 0 || u.Bytes <= maxBytes) && (maxItems <= 0 || u.Items <= maxItems)
}

// check reports whether owner's usage with id counted as bytes is within
// the bounds, reading afresh before it says no. o.mu is held.
func (l *Ledger) check(ctx context.Context, o *ledgerOwner, owner, id string, bytes, maxBytes, maxItems int64) (Usage, bool, error) {
	if err := l.load(ctx, o, owner, false); err != nil {
		return Usage{}, false, err
	}
	u := o.usage(id, bytes)
	if within(u, maxBytes, maxItems) {
		return u, true, nil
	}
	if err := l.load(ctx, o, owner, true); err != nil {
		return Usage{}, false, err
	}
	u = o.usage(id, bytes)
	return u, within(u, maxBytes, maxItems), nil
}

// Fits reports whether one more item of bytes would keep owner within
// maxBytes and maxItems (0: no bound), and the usage it would make. It
// counts nothing: Admit does.
func (l *Ledger) Fits(ctx context.Context, owner string, bytes, maxBytes, maxItems int64) (Usage, bool, error) {
	if maxBytes <= 0 && maxItems <= 0 {
		return Usage{}, true, nil
	}
	o := l.owner(owner)
	o.mu.Lock()
	defer o.mu.Unlock()
	return l.check(ctx, o, owner, "\x00new", max(bytes, 0), maxBytes, maxItems)
}

// Admit counts item id of owner as bytes (replacing what it counted for
// id before) if that keeps owner within maxBytes and maxItems, and reports
// whether it did, with the usage it makes.
func (l *Ledger) Admit(ctx context.Context, owner, id string, bytes, maxBytes, maxItems int64) (Usage, bool, error) {
	o := l.owner(owner)
	o.mu.Lock()
	defer o.mu.Unlock()
	u, ok, err := l.check(ctx, o, owner, id, bytes, maxBytes, maxItems)
	if ok && err == nil {
		o.put(owner, id, bytes)
	}
	return u, ok, err
}

// Add counts item id of owner as bytes, whatever the bounds: a write that
// was checked with Fits and is done.
func (l *Ledger) Add(owner, id string, bytes int64) {
	o := l.owner(owner)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.items != nil {
		o.put(owner, id, bytes)
	}
}

func (o *ledgerOwner) put(owner, id string, bytes int64) {
	if old, ok := o.items[id]; ok {
		o.bytes -= old.Bytes
	}
	o.items[id] = Item{Owner: owner, ID: id, Bytes: bytes, Modified: time.Now(), Whole: true}
	o.bytes += bytes
}

// Drop stops counting item id of owner: a write undone, a record deleted.
func (l *Ledger) Drop(owner, id string) {
	o := l.owner(owner)
	o.mu.Lock()
	defer o.mu.Unlock()
	if old, ok := o.items[id]; ok {
		o.bytes -= old.Bytes
		delete(o.items, id)
	}
}

// Trim makes room in owner's share of p for an item of incoming bytes about
// to be written as id (replacing id's values, if it has any): it deletes
// owner's oldest other items, through p's Delete, until the new one fits,
// and counts it. It deletes nothing, and returns ErrTooLarge, when the item
// cannot fit at all.
func (l *Ledger) Trim(ctx context.Context, p Policy, owner, id string, incoming int64) (int, error) {
	if p.OwnerBytes <= 0 && p.OwnerItems <= 0 {
		return 0, nil
	}
	if p.OwnerBytes > 0 && incoming > p.OwnerBytes {
		return 0, fmt.Errorf("%s %s: %d bytes: %w of %d bytes", p.Name, id, incoming, ErrTooLarge, p.OwnerBytes)
	}
	o := l.owner(owner)
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok, err := l.check(ctx, o, owner, id, incoming, p.OwnerBytes, p.OwnerItems)
	if err != nil {
		return 0, err
	}
	deleted := 0
	if !ok {
		others := make([]Item, 0, len(o.items))
		for _, it := range o.items {
			if it.ID != id {
				others = append(others, it)
			}
		}
		_, drop := share(others, p.Rules, incoming, 1)
		for _, it := range drop {
			if err := p.Delete(ctx, owner, it.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return deleted, fmt.Errorf("make room for %s %s: %w", p.Name, id, err)
			}
			o.bytes -= it.Bytes
			delete(o.items, it.ID)
			deleted++
		}
	}
	o.put(owner, id, incoming)
	return deleted, nil
}
