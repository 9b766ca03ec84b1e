package server

import (
	"strings"
	"testing"
	"time"
)

// fakeConv is a kept session that records being closed.
type fakeConv struct{ closed bool }

func (f *fakeConv) Close() error { f.closed = true; return nil }

// TestSessionCacheFairEviction: a full cache closes the oldest session of
// the owner that keeps the most, so one key's follow-ups never push out
// another key's sessions while it keeps more; a follow-up that finds a
// session gone is told the one reason it is gone.
func TestSessionCacheFairEviction(t *testing.T) {
	t.Parallel()
	c := newSessionCache[*fakeConv](time.Hour, 3, sessionWords)
	bob := &fakeConv{}
	c.put("bob/r1", bob)
	var alice []*fakeConv
	for i := range 5 {
		conv := &fakeConv{}
		alice = append(alice, conv)
		c.put("alice/r"+string(rune('0'+i)), conv)
	}
	if bob.closed {
		t.Fatal("alice's follow-ups closed bob's only session")
	}
	if got, why := c.take("bob/r1"); got != bob || why != "" {
		t.Fatalf("bob's session: %v %q", got, why)
	}
	for i, conv := range alice[:3] {
		if !conv.closed {
			t.Errorf("alice's session %d is still open; her oldest should have made room", i)
		}
	}
	if _, why := c.take("alice/r0"); !strings.Contains(why, "--max-sessions") {
		t.Errorf("evicted session's reason %q, want it to name --max-sessions", why)
	}
	if _, why := c.take("bob/r1"); !strings.Contains(why, "another follow-up") {
		t.Errorf("taken session's reason %q", why)
	}
	if _, why := c.take("carol/x"); !strings.Contains(why, "another replica") {
		t.Errorf("unknown session's reason %q", why)
	}
	c.evictOldest()
	if _, why := c.take("alice/r3"); !strings.Contains(why, "REPL memory") {
		t.Errorf("reclaimed session's reason %q", why)
	}
}

// TestSessionCacheExpiry: a session past its TTL is closed and its
// follow-up told so.
func TestSessionCacheExpiry(t *testing.T) {
	t.Parallel()
	c := newSessionCache[*fakeConv](time.Minute, 4, sessionWords)
	conv := &fakeConv{}
	c.put("a/r", conv)
	c.expire(time.Now().Add(2 * time.Minute))
	if !conv.closed {
		t.Fatal("expired session still open")
	}
	if _, why := c.take("a/r"); !strings.Contains(why, "expired") || !strings.Contains(why, "--session-ttl") {
		t.Errorf("reason %q", why)
	}
}
