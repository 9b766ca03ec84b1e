package upstream

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/recursion/llm"
)

// faultyUpstream is a real HTTP server (a test double for an upstream, not
// a model) whose first bad attempts misbehave as fault says and whose later
// ones answer a valid completion "ok".
type faultyUpstream struct {
	*httptest.Server
	mu       sync.Mutex
	attempts int
}

func newFaultyUpstream(t *testing.T, bad int, fault func(w http.ResponseWriter, r *http.Request)) *faultyUpstream {
	t.Helper()
	u := &faultyUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		u.mu.Lock()
		u.attempts++
		n := u.attempts
		u.mu.Unlock()
		if n <= bad {
			fault(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *faultyUpstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.attempts
}

// stallAfterHeaders sends 200 and the headers, then body (if any), then
// nothing until the client hangs up.
func stallAfterHeaders(body string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, body)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// trickle sends 200 and a byte every gap, never finishing the body before
// the client hangs up: it is never idle, only slow.
func trickle(gap time.Duration) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		tick := time.NewTicker(gap)
		defer tick.Stop()
		for {
			io.WriteString(w, " ")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
		}
	}
}

func errorBody(status int, body string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// TestUpstreamFaultsRetried reproduces two failures that were not retried:
// a 5xx whose body is {"error":"a string"} (go-openai's nested error has
// status 0, which hid the 5xx) and a 200 whose body stalls after the
// headers. Each must be retried within the configured attempts: it
// succeeds when the upstream recovers in time, and fails naming the
// attempts when it does not.
func TestUpstreamFaultsRetried(t *testing.T) {
	tests := []struct {
		name  string
		fault func(w http.ResponseWriter, r *http.Request)
		cfg   Config
	}{
		{"5xx with a string error", errorBody(http.StatusInternalServerError, `{"error":"model overloaded"}`), Config{}},
		{"503 with a string error", errorBody(http.StatusServiceUnavailable, `{"error":"busy"}`), Config{}},
		{"5xx with a non-JSON body", errorBody(http.StatusBadGateway, `<html>bad gateway</html>`), Config{}},
		{"5xx with a null error", errorBody(http.StatusInternalServerError, `{"error":null}`), Config{}},
		{"200 headers then silence", stallAfterHeaders(""), Config{IdleTimeout: 100 * time.Millisecond}},
		{"200 and half a body then silence", stallAfterHeaders(`{"id":"c1","choices":[`), Config{IdleTimeout: 100 * time.Millisecond}},
		{"5xx headers then silence", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, Config{IdleTimeout: 100 * time.Millisecond}},
		// Never idle, but past the attempt's whole timeout.
		{"200 trickled past the attempt timeout", trickle(20 * time.Millisecond), Config{Timeout: 300 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// stream=true: the client asked for a stream and the upstream
			// answered JSON, which must be read the same.
			for _, mode := range []struct{ recovers, stream bool }{{true, false}, {false, false}, {true, true}, {false, true}} {
				recovers := mode.recovers
				t.Run(fmt.Sprintf("recovers=%v/stream=%v", recovers, mode.stream), func(t *testing.T) {
					const retries = 2
					bad := retries // the last attempt succeeds
					if !recovers {
						bad = retries + 1
					}
					up := newFaultyUpstream(t, bad, tt.fault)
					cfg := tt.cfg
					cfg.Name, cfg.BaseURL, cfg.MaxRetries, cfg.Stream = "faulty", up.URL, retries, mode.stream
					cfg.BackoffBase, cfg.BackoffMax = time.Millisecond, 2*time.Millisecond
					c, err := New(cfg)
					if err != nil {
						t.Fatal(err)
					}
					got, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")})
					if recovers {
						if err != nil || got.Content != "ok" {
							t.Fatalf("got %q, %v; want ok after %d failed attempts", got.Content, err, bad)
						}
					} else {
						var ue *llm.Error
						if !errors.As(err, &ue) || ue.Attempts != retries+1 {
							t.Fatalf("got %v; want an llm.Error after %d attempts", err, retries+1)
						}
					}
					if n := up.count(); n != retries+1 {
						t.Errorf("upstream saw %d attempts, want %d", n, retries+1)
					}
				})
			}
		})
	}
}

// TestUpstreamStallIsNamed: the error of a call whose body stalled says so,
// with the idle timeout, so that an operator can tell it from a slow model.
func TestUpstreamStallIsNamed(t *testing.T) {
	up := newFaultyUpstream(t, 1, stallAfterHeaders(""))
	c, _ := New(Config{Name: "stalls", BaseURL: up.URL, MaxRetries: -1, IdleTimeout: 50 * time.Millisecond})
	_, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")})
	if !errors.Is(err, errStalled) || !strings.Contains(err.Error(), "no data for 50ms") {
		t.Fatalf("got %v; want a stall naming the idle timeout", err)
	}
}

// TestUpstreamClientErrorsNotRetried: the status the transport saw decides,
// whatever the body says; 4xx are the request's fault and a complete 200
// that does not parse is not a transient failure.
func TestUpstreamClientErrorsNotRetried(t *testing.T) {
	tests := []struct {
		name  string
		fault func(w http.ResponseWriter, r *http.Request)
	}{
		{"400 with a string error", errorBody(http.StatusBadRequest, `{"error":"bad"}`)},
		{"401 with an OpenAI error", errorBody(http.StatusUnauthorized, `{"error":{"message":"no key","type":"invalid_request_error"}}`)},
		{"404 with a non-JSON body", errorBody(http.StatusNotFound, `not here`)},
		{"200 that is not JSON", errorBody(http.StatusOK, `<html>login</html>`)},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", tt.name, stream), func(t *testing.T) {
				up := newFaultyUpstream(t, 10, tt.fault)
				c, _ := New(Config{BaseURL: up.URL, MaxRetries: 3, BackoffBase: time.Millisecond, Stream: stream})
				if _, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")}); err == nil {
					t.Fatal("no error")
				}
				if n := up.count(); n != 1 {
					t.Errorf("%d attempts, want 1", n)
				}
			})
		}
	}
}
