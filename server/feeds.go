package server

import (
	"context"
	"sync"
	"time"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/store"
)

// A background response's events are read from the store, so that any
// replica can serve its streams. The streams of one response on this
// server share one feed: while anyone listens, one goroutine looks at the
// store every ResponsePoll (is there a newer event? has the record ended?)
// and wakes the listeners when there is something to read, and a run of
// this server wakes them itself as it stores each event. An idle stream
// then costs nothing, and a thousand streams of a response cost one poll,
// not a thousand.

// feeds are the feeds of this server, by owner/id.
type feeds struct {
	s  *Server
	mu sync.Mutex
	m  map[string]*feed
}

// feed wakes the listeners of one response.
type feed struct {
	listeners int
	wake      chan struct{} // closed, and replaced, when there is something new
}

// join adds a listener to the feed of owner's response id, starting its
// poller if it is the first; leave removes it.
func (fs *feeds) join(owner, id string) (f *feed, leave func()) {
	key := owner + "/" + id
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.m == nil {
		fs.m = map[string]*feed{}
	}
	f = fs.m[key]
	if f == nil {
		f = &feed{wake: make(chan struct{})}
		fs.m[key] = f
		go fs.poll(owner, id, key, f)
	}
	f.listeners++
	return f, func() {
		fs.mu.Lock()
		f.listeners--
		fs.mu.Unlock()
	}
}

// changed is closed when the response's events or record may have changed
// since it was called.
func (fs *feeds) changed(f *feed) <-chan struct{} {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return f.wake
}

// notify wakes the listeners of owner's response id, if it has any.
func (fs *feeds) notify(owner, id string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f := fs.m[owner+"/"+id]; f != nil {
		close(f.wake)
		f.wake = make(chan struct{})
	}
}

// poll looks at the store for the feed until it has no listener.
func (fs *feeds) poll(owner, id, key string, f *feed) {
	s := fs.s
	idx := eventsIndex(owner, id)
	last, ended := "", false
	tick := time.NewTicker(s.cfg.ResponsePoll)
	defer tick.Stop()
	for range tick.C {
		fs.mu.Lock()
		if f.listeners == 0 {
			delete(fs.m, key)
			fs.mu.Unlock()
			return
		}
		fs.mu.Unlock()
		ctx, cancel := context.WithTimeout(s.base, s.cfg.StoreTimeout)
		newest := last
		s.store.ScanEntries(ctx, collResponses, idx, "", true, func(e store.Entry) bool { newest = e.Key; return false })
		changed := newest != last
		if !changed && !ended {
			// No new event: has the run ended without one (its server
			// died, and the sweep recorded it)?
			sr, err := s.loadResponse(ctx, owner, id)
			ended = err != nil || api.Terminal(sr.Response.Status)
			changed = ended
		}
		cancel()
		last = newest
		if changed {
			fs.notify(owner, id)
		}
	}
}
