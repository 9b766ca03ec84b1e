package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v5"
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
			return &apiError{Status: http.StatusRequestTimeout, Type: "invalid_request_error", Code: "request_timeout", Kind: "timeout",
				Message: fmt.Sprintf("the request body arrived slower than %d bytes/s on average (after the first %v); the connection is closed",
					s.cfg.MinBodyRate, s.cfg.BodyRateGrace)}
		}
		return err
	}
}
