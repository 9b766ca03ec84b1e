package server

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// sessionCache keeps the REPL sessions of finished responses, by owner/id,
// so that a follow-up (previous_response_id) continues in the same session:
// the variables the model computed are still there. A session lives for
// SessionTTL after its response ended, at most MaxSessions at once, and
// only on the replica that ran it: a follow-up elsewhere, after the TTL,
// after a restart, or after its session was taken by another follow-up of
// the same response, starts a new session with the earlier turns as
// messages (rlm.session says which, and why).
//
// When it is full, or the REPL memory budget needs room, the session
// closed is the oldest of the owner that keeps the most: one API key's
// responses never push out another's sessions while it keeps more than
// they do.
type sessionCache[S closer] struct {
	ttl      time.Duration
	max      int
	perOwner int // at most this many of one owner; 0: no bound but max
	words    cacheWords

	mu sync.Mutex
	m  map[string]*keptSession[S]
	// gone remembers why sessions left, by key, for the follow-ups that
	// find them gone: the oldest reasons are forgotten first.
	gone      map[string]string
	goneOrder []string
}

// closer is what the cache keeps: a *recursion.Conversation, or a
// *pausedRun (paused.go).
type closer interface{ Close() error }

// cacheWords are how a cache's reasons name its settings and what took an
// entry.
type cacheWords struct {
	ttl, max, perOwner string // the settings of the TTL and of the maxima
	taken              string // why an entry taken is gone
	none               string // why an entry never kept is not there
}

// sessionWords are the kept sessions'.
var sessionWords = cacheWords{ttl: "--session-ttl", max: "--max-sessions",
	taken: "another follow-up of the same response continued its session",
	none:  "this server keeps no REPL session of it: it ran on another replica, or before this server restarted"}

type keptSession[S closer] struct {
	conv    S
	expires time.Time
	kept    time.Time
}

// maxGone bounds the reasons the cache remembers.
const maxGone = 4096

func newSessionCache[S closer](ttl time.Duration, max int, words cacheWords) *sessionCache[S] {
	return &sessionCache[S]{ttl: ttl, max: max, words: words, m: map[string]*keptSession[S]{}, gone: map[string]string{}}
}

// owner of a key "OWNER/ID".
func ownerOfSession(key string) string {
	o, _, _ := strings.Cut(key, "/")
	return o
}

// put keeps conv under key, closing a session when full (see victim).
func (c *sessionCache[S]) put(key string, conv S) {
	for c.perOwner > 0 && c.ownerLen(ownerOfSession(key)) >= c.perOwner &&
		c.evictOwner(ownerOfSession(key), fmt.Sprintf("it was evicted to keep a newer one of the same API key (at most %d each, %s)", c.perOwner, c.words.perOwner)) {
	}
	for c.len() >= c.max && c.evict(fmt.Sprintf("it was evicted to keep a newer one (the server keeps at most %d, %s)", c.max, c.words.max)) {
	}
	now := time.Now()
	c.mu.Lock()
	c.m[key] = &keptSession[S]{conv: conv, expires: now.Add(c.ttl), kept: now}
	delete(c.gone, key)
	c.mu.Unlock()
}

// evictOldest closes a session (see victim), reporting whether there was
// one: the REPL memory budget calls it before a new session would wait for
// memory (see repl.MemoryBudget.SetReclaim), so kept sessions never hold
// memory a run needs.
func (c *sessionCache[S]) evictOldest() bool {
	return c.evict("it was evicted to free REPL memory for another run (--repl-memory-total)")
}

func (c *sessionCache[S]) evict(why string) bool {
	c.mu.Lock()
	key := c.victim()
	ks := c.m[key]
	if ks != nil {
		c.forget(key, why)
	}
	c.mu.Unlock()
	if ks == nil {
		return false
	}
	ks.conv.Close()
	return true
}

// victim is the oldest session of the owner that keeps the most; "" when
// none is kept. Called with c.mu held.
func (c *sessionCache[S]) victim() string {
	count := map[string]int{}
	for k := range c.m {
		count[ownerOfSession(k)]++
	}
	best := ""
	for k, ks := range c.m {
		if best == "" {
			best = k
			continue
		}
		n, bn := count[ownerOfSession(k)], count[ownerOfSession(best)]
		if n > bn || n == bn && ks.kept.Before(c.m[best].kept) {
			best = k
		}
	}
	return best
}

// forget removes key, remembering why. Called with c.mu held.
func (c *sessionCache[S]) forget(key, why string) {
	delete(c.m, key)
	if _, ok := c.gone[key]; !ok {
		c.goneOrder = append(c.goneOrder, key)
	}
	c.gone[key] = why
	for len(c.goneOrder) > maxGone {
		delete(c.gone, c.goneOrder[0])
		c.goneOrder = c.goneOrder[1:]
	}
}

// take removes and returns the session kept under key, if it is there and
// not expired: one follow-up continues a session; another follow-up of the
// same response starts afresh. Without a session it says why.
func (c *sessionCache[S]) take(key string) (conv S, why string) {
	c.mu.Lock()
	ks := c.m[key]
	if ks == nil {
		why = c.gone[key]
		c.mu.Unlock()
		if why == "" {
			why = c.words.none
		}
		return conv, why
	}
	expired := time.Now().After(ks.expires)
	why = c.words.taken
	if expired {
		why = c.expired()
	}
	c.forget(key, why)
	c.mu.Unlock()
	if expired {
		ks.conv.Close()
		return conv, why
	}
	return ks.conv, ""
}

// drop closes the session kept under key, if any.
func (c *sessionCache[S]) drop(key string) {
	if conv, why := c.take(key); why == "" {
		conv.Close()
	}
}

// expire closes the sessions past their TTL; closeAll closes every one.
func (c *sessionCache[S]) expire(now time.Time) {
	c.mu.Lock()
	var gone []S
	for k, ks := range c.m {
		if now.After(ks.expires) {
			gone = append(gone, ks.conv)
			c.forget(k, c.expired())
		}
	}
	c.mu.Unlock()
	for _, conv := range gone {
		conv.Close()
	}
}

func (c *sessionCache[S]) closeAll() {
	c.mu.Lock()
	all := c.m
	c.m = map[string]*keptSession[S]{}
	c.mu.Unlock()
	for _, ks := range all {
		ks.conv.Close()
	}
}

// ownerLen is how many entries owner has.
func (c *sessionCache[S]) ownerLen(owner string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k := range c.m {
		if ownerOfSession(k) == owner {
			n++
		}
	}
	return n
}

// evictOwner closes owner's oldest entry.
func (c *sessionCache[S]) evictOwner(owner, why string) bool {
	c.mu.Lock()
	oldest := ""
	for k, ks := range c.m {
		if ownerOfSession(k) == owner && (oldest == "" || ks.kept.Before(c.m[oldest].kept)) {
			oldest = k
		}
	}
	ks := c.m[oldest]
	if ks != nil {
		c.forget(oldest, why)
	}
	c.mu.Unlock()
	if ks == nil {
		return false
	}
	ks.conv.Close()
	return true
}

func (c *sessionCache[S]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// expired is the reason of an entry past its TTL.
func (c *sessionCache[S]) expired() string {
	return fmt.Sprintf("it expired (kept %v, %s)", c.ttl, c.words.ttl)
}
