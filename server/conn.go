package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rlm-project/rlm/api"
)

// Connection limits: what a client that sends slowly, or not at all, may
// hold. Request bodies have no fixed deadline, since a large upload on a
// slow link may take hours; instead they must keep up a minimum average
// rate (as Kestrel's MinRequestBodyDataRate does), so a body trickled a
// byte at a time is cut while a slow but steady upload goes through.

// errBodyTooSlow is what reading a body that fell below the minimum rate
// returns.
var errBodyTooSlow = errors.New("request body arrived too slowly")

// rateReader reads a request body under a moving read deadline: by time t
// the body must have delivered rate*(t-start-grace) bytes. The deadline is
// the connection's (set through http.ResponseController), so a read blocked
// on a silent client ends when it passes.
type rateReader struct {
	body    io.ReadCloser
	rc      *http.ResponseController
	start   time.Time
	grace   time.Duration
	rate    int64 // bytes per second
	length  int64 // the declared length, or -1
	n       int64
	done    bool // EOF or too slow: the deadline is no longer moved
	tooSlow bool
}

func newRateReader(w http.ResponseWriter, body io.ReadCloser, length, rate int64, grace time.Duration) *rateReader {
	if length <= 0 {
		length = -1
	}
	r := &rateReader{body: body, rc: http.NewResponseController(w), start: time.Now(), grace: grace, rate: rate, length: length}
	r.rc.SetReadDeadline(r.deadline())
	return r
}

func (r *rateReader) deadline() time.Time {
	return r.start.Add(r.grace + time.Duration(float64(r.n)/float64(r.rate)*float64(time.Second)))
}

func (r *rateReader) Read(p []byte) (int, error) {
	if r.tooSlow {
		return 0, errBodyTooSlow
	}
	n, err := r.body.Read(p)
	r.n += int64(n)
	var ne net.Error
	switch {
	case err == nil && (r.length < 0 || r.n < r.length):
		if !r.done {
			r.rc.SetReadDeadline(r.deadline())
		}
	case err == nil || err == io.EOF:
		// The body is over (or its last declared byte has come): clear
		// the deadline. The server goes on reading the connection in the
		// background to notice a client that hangs up during a run, and
		// a deadline passing then would read as one.
		if !r.done {
			r.done = true
			r.rc.SetReadDeadline(time.Time{})
		}
	case errors.As(err, &ne) && ne.Timeout():
		// The deadline stays in the past, so that the server does not
		// wait on the rest of the body either: it closes the connection.
		r.tooSlow, r.done = true, true
		err = fmt.Errorf("%w: %w", errBodyTooSlow, err)
	}
	return n, err
}

func (r *rateReader) Close() error { return r.body.Close() }

// limitBodyRate puts every request body under the minimum rate. A handler
// that failed because its body was cut gets 408 instead of whatever it
// made of the short body.
func (s *Server) limitBodyRate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		req := c.Request()
		if req.Body == nil || req.Body == http.NoBody {
			return next(c)
		}
		br := newRateReader(c.Response(), req.Body, req.ContentLength, s.cfg.MinBodyRate, s.cfg.BodyRateGrace)
		req.Body = br
		err := next(c)
		if br.tooSlow && err != nil {
			return &api.Error{Status: http.StatusRequestTimeout, Type: "invalid_request_error", Code: "request_timeout", Kind: "timeout",
				Message: fmt.Sprintf("the request body arrived slower than %d bytes/s on average (after the first %v); the connection is closed",
					s.cfg.MinBodyRate, s.cfg.BodyRateGrace)}
		}
		return err
	}
}

// Connections. netutil.LimitListener bounded them in all, but a connection
// that trickles its headers held its slot until ReadHeaderTimeout cut it,
// and reconnected: enough of them (from one address or many) left a new
// client, a health probe included, waiting in the listen backlog. The
// connLimiter bounds the connections of one client address, and when all
// MaxConns are open it makes room by closing the connection that has
// waited longest without a request under way (still sending its headers,
// or idle between requests); only when every connection is inside a
// request does a new one wait.

// connLimiter is the API's listener under Config.MaxConns and
// Config.MaxConnsPerClient. Its connState method must be the
// http.Server's ConnState hook: it tells which connections are inside a
// request.
type connLimiter struct {
	net.Listener
	max       int
	perClient int // 0 or less: no bound
	retry     int // the Retry-After of a refusal, seconds
	dropped   *prometheus.CounterVec

	mu      sync.Mutex
	open    map[*limitedConn]struct{}
	clients map[netip.Prefix]int
	freed   chan struct{} // a slot came free, or may be made (buffered, 1)
	closed  chan struct{}
	once    sync.Once
}

// limitedConn is a connection the connLimiter admitted.
type limitedConn struct {
	net.Conn
	l      *connLimiter
	client netip.Prefix
	// Guarded by l.mu: whether no request is under way (headers still
	// coming, or idle), and since when; whether it carries a stream its
	// client can resume (see setResumable), and since when.
	waiting        bool
	since          time.Time
	resumable      bool
	resumableSince time.Time
}

// setResumable marks c as carrying (or no longer carrying) a stream of a
// background response, which its client can resume from its last event
// (GET /v1/responses/{id}?stream=true&starting_after=N). When every
// connection is inside a request, such a connection is closed to make
// room for a new one: a client holding many streams open cannot lock
// everyone else out.
func (c *limitedConn) setResumable(on bool) {
	c.l.mu.Lock()
	c.resumable, c.resumableSince = on, time.Now()
	c.l.mu.Unlock()
	if on {
		c.l.wake() // a waiting Accept may evict it
	}
}

// connKey is the request context's key for its *limitedConn.
type connKey struct{}

// connOf is the connection a request came on, nil when it came through no
// connLimiter (a test's handler).
func connOf(ctx context.Context) *limitedConn {
	lc, _ := ctx.Value(connKey{}).(*limitedConn)
	return lc
}

func newConnLimiter(ln net.Listener, max, perClient, retry int, dropped *prometheus.CounterVec) *connLimiter {
	return &connLimiter{Listener: ln, max: max, perClient: perClient, retry: retry, dropped: dropped,
		open: map[*limitedConn]struct{}{}, clients: map[netip.Prefix]int{},
		freed: make(chan struct{}, 1), closed: make(chan struct{})}
}

// Accept returns the next connection the limits admit; refused ones are
// answered and closed here, without reaching the server.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := l.admit(c); lc != nil {
			return lc, nil
		}
	}
}

// admit counts c under the limits, making room or waiting for it when
// all MaxConns are open; nil when c was refused or the listener closed.
func (l *connLimiter) admit(c net.Conn) *limitedConn {
	client := clientOf(c.RemoteAddr())
	l.mu.Lock()
	if l.perClient > 0 && client.IsValid() && l.clients[client] >= l.perClient {
		l.mu.Unlock()
		l.dropped.WithLabelValues("per_client").Inc()
		go refuse(c, l.perClient, l.retry)
		return nil
	}
	for len(l.open) >= l.max {
		victim := l.oldestWaiting()
		if victim == nil {
			victim = l.resumableVictim()
		}
		if victim != nil {
			l.forget(victim)
			l.dropped.WithLabelValues("evicted").Inc()
			l.mu.Unlock()
			victim.Conn.Close()
			l.mu.Lock()
			continue
		}
		l.mu.Unlock()
		select {
		case <-l.freed:
		case <-l.closed:
			c.Close()
			return nil
		}
		l.mu.Lock()
	}
	lc := &limitedConn{Conn: c, l: l, client: client, waiting: true, since: time.Now()}
	l.open[lc] = struct{}{}
	l.clients[client]++
	l.mu.Unlock()
	return lc
}

// oldestWaiting is the open connection that has waited longest without a
// request under way, or nil. l.mu is held.
func (l *connLimiter) oldestWaiting() *limitedConn {
	var oldest *limitedConn
	for c := range l.open {
		if c.waiting && (oldest == nil || c.since.Before(oldest.since)) {
			oldest = c
		}
	}
	return oldest
}

// resumableVictim is the oldest resumable stream of the client address
// that holds the most connections, or nil. l.mu is held.
func (l *connLimiter) resumableVictim() *limitedConn {
	var victim *limitedConn
	for c := range l.open {
		if !c.resumable {
			continue
		}
		if victim == nil {
			victim = c
			continue
		}
		n, vn := l.clients[c.client], l.clients[victim.client]
		if n > vn || n == vn && c.resumableSince.Before(victim.resumableSince) {
			victim = c
		}
	}
	return victim
}

// forget takes c out of the counts and wakes a waiting Accept. l.mu is
// held; c may already be forgotten.
func (l *connLimiter) forget(c *limitedConn) {
	if _, ok := l.open[c]; !ok {
		return
	}
	delete(l.open, c)
	if l.clients[c.client]--; l.clients[c.client] <= 0 {
		delete(l.clients, c.client)
	}
	l.wake()
}

// connState follows each connection through the server: inside a request
// from the end of its headers (StateActive) to its answer (StateIdle).
func (l *connLimiter) connState(c net.Conn, st http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch st {
	case http.StateActive, http.StateHijacked:
		lc.waiting = false
	case http.StateIdle:
		lc.waiting, lc.since = true, time.Now()
		l.wake() // a waiting Accept may take its place
	}
}

// wake tells a waiting Accept that it may find room.
func (l *connLimiter) wake() {
	select {
	case l.freed <- struct{}{}:
	default:
	}
}

// Close stops Accept, a waiting one included.
func (l *connLimiter) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.l.mu.Lock()
	c.l.forget(c)
	c.l.mu.Unlock()
	return err
}

// clientOf is the address a connection is counted under: an IPv4 address,
// or an IPv6 /64 (the block one host is given, and can pick addresses in).
// A connection without an IP address (a Unix socket) has none, and no
// per-client bound.
func clientOf(a net.Addr) netip.Prefix {
	var ip netip.Addr
	if ta, ok := a.(*net.TCPAddr); ok {
		ip = ta.AddrPort().Addr().Unmap()
	}
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p
	}
	return netip.PrefixFrom(ip, ip.BitLen())
}

// refuse answers a connection over its client's limit with 429 in
// OpenAI's error JSON and closes it. The request is read (briefly) first,
// so that the close does not reset the connection before the client has
// read the answer.
func refuse(c net.Conn, limit, retry int) {
	defer c.Close()
	e := api.Error{Type: api.TypeRateLimit, Code: "rate_limit_exceeded",
		Message: fmt.Sprintf("too many connections from your address: at most %d at once; retry later", limit)}
	body, _ := json.Marshal(e.Body())
	c.SetDeadline(time.Now().Add(time.Second))
	fmt.Fprintf(c, "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: %d\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		retry, len(body), body)
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	io.CopyN(io.Discard, c, 64<<10)
}
