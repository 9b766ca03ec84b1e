package server

import (
	"sync"
	"time"

	"github.com/rlm-project/rlm/recursion"
)

// sessionCache keeps the REPL sessions of finished responses, by owner/id,
// so that a follow-up (previous_response_id) continues in the same session:
// the variables the model computed are still there. A session lives for
// SessionTTL after its response ended, at most MaxSessions at once (the
// least recently kept is closed for a new one), and only on the replica
// that ran it: a follow-up elsewhere, after the TTL, after a restart, or
// after its session was taken by another follow-up of the same response,
// starts a new session with the earlier turns as messages (rlm.session
// says which).
type sessionCache struct {
	ttl time.Duration
	max int

	mu sync.Mutex
	m  map[string]*keptSession
}

type keptSession struct {
	conv    *recursion.Conversation
	expires time.Time
	kept    time.Time
}

func newSessionCache(ttl time.Duration, max int) *sessionCache {
	return &sessionCache{ttl: ttl, max: max, m: map[string]*keptSession{}}
}

// put keeps conv under key, closing the oldest session when full.
func (c *sessionCache) put(key string, conv *recursion.Conversation) {
	for c.len() >= c.max && c.evictOldest() {
	}
	now := time.Now()
	c.mu.Lock()
	c.m[key] = &keptSession{conv: conv, expires: now.Add(c.ttl), kept: now}
	c.mu.Unlock()
}

// evictOldest closes the session kept longest, reporting whether there was
// one: the REPL memory budget calls it before a new session would wait for
// memory (see repl.MemoryBudget.SetReclaim), so kept sessions never hold
// memory a run needs.
func (c *sessionCache) evictOldest() bool {
	c.mu.Lock()
	oldest := ""
	for k, ks := range c.m {
		if oldest == "" || ks.kept.Before(c.m[oldest].kept) {
			oldest = k
		}
	}
	ks := c.m[oldest]
	delete(c.m, oldest)
	c.mu.Unlock()
	if ks == nil {
		return false
	}
	ks.conv.Close()
	return true
}

// take removes and returns the session kept under key, if it is there and
// not expired: one follow-up continues a session; another follow-up of the
// same response starts afresh.
func (c *sessionCache) take(key string) *recursion.Conversation {
	c.mu.Lock()
	ks := c.m[key]
	delete(c.m, key)
	c.mu.Unlock()
	if ks == nil {
		return nil
	}
	if time.Now().After(ks.expires) {
		ks.conv.Close()
		return nil
	}
	return ks.conv
}

// drop closes the session kept under key, if any.
func (c *sessionCache) drop(key string) {
	if conv := c.take(key); conv != nil {
		conv.Close()
	}
}

// expire closes the sessions past their TTL; closeAll closes every one.
func (c *sessionCache) expire(now time.Time) {
	c.mu.Lock()
	var gone []*recursion.Conversation
	for k, ks := range c.m {
		if now.After(ks.expires) {
			gone = append(gone, ks.conv)
			delete(c.m, k)
		}
	}
	c.mu.Unlock()
	for _, conv := range gone {
		conv.Close()
	}
}

func (c *sessionCache) closeAll() {
	c.mu.Lock()
	all := c.m
	c.m = map[string]*keptSession{}
	c.mu.Unlock()
	for _, ks := range all {
		ks.conv.Close()
	}
}

func (c *sessionCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
