package upstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion/llm"
)

// Credentials of the upstreams below: in the base URL (a password and a
// query key) and in the Authorization header (the API key).
const (
	secretPassword = "pw-S3cret-pass"
	secretQueryKey = "qk-S3cret-query"
	secretAPIKey   = "sk-S3cret-key-0123456789"
	htmlMarker     = "Proxy Error Page"
)

// withCredentials is base (http://host:port or https://...) with a user
// and password and a ?key= query, as an operator may write --upstream.
func withCredentials(base string) string {
	return strings.Replace(base, "://", "://alice:"+secretPassword+"@", 1) + "/v1?key=" + secretQueryKey
}

// leaks returns what of the credentials, the URL or an HTML body text
// holds.
func leaks(text, rawURL string) []string {
	found := credentials(text, rawURL)
	for _, s := range []string{"<html", htmlMarker} {
		if strings.Contains(text, s) {
			found = append(found, s)
		}
	}
	return found
}

// credentials returns what of the credentials or the URL text holds.
func credentials(text, rawURL string) []string {
	var found []string
	for _, s := range []string{secretPassword, secretQueryKey, secretAPIKey, rawURL} {
		if strings.Contains(text, s) {
			found = append(found, s)
		}
	}
	// Any 12 bytes of the key: upstreams quote its end.
	for i := 0; i+12 <= len(secretAPIKey); i++ {
		if piece := secretAPIKey[i : i+12]; strings.Contains(text, piece) {
			found = append(found, piece)
		}
	}
	return found
}

// echoingHTML answers 500 with an HTML page that quotes the request's
// credentials, as a debug page of a proxy might.
func echoingHTML(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusInternalServerError)
	fmt.Fprintf(w, "<html><body><h1>%s</h1><pre>%s %s\nAuthorization: %s</pre></body></html>", htmlMarker, r.Method, r.URL, r.Header.Get("Authorization"))
}

func jsonError(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// hangingListener accepts connections and never answers on them.
func hangingListener(t *testing.T) string {
	t.Helper()
	s, err := fakellm.NewSilent()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s.URL
}

// stallingServer sends the headers of every answer, /models included, and
// then nothing.
func stallingServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// dnsFailing is an HTTP client whose every dial fails as a lookup of a
// name that does not exist does.
func dnsFailing() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}
	return &http.Client{Transport: tr}
}

// TestUpstreamFailuresLeakNoSecret reproduces issue 24's leak: a failed
// call's error, which reaches clients, traces and the model, quoted the
// upstream's URL (with its password and query key) and its HTML error
// body, which may echo the API key. Now every way an upstream can fail
// gives an error in the client's own words, the upstream's message only
// when it is a well-formed OpenAI error free of secrets, and a log line
// with the URL redacted and the credentials scrubbed.
func TestUpstreamFailuresLeakNoSecret(t *testing.T) {
	tests := []struct {
		name     string
		upstream func(t *testing.T) (base string, hc *http.Client)
		cfg      Config
		want     string // in the error
		wantCode string
	}{
		{"HTML 500 echoing the credentials", serve(echoingHTML), Config{}, "HTTP 500 Internal Server Error", ""},
		{"OpenAI 401 quoting the key", serve(jsonError(401, `{"error":{"message":"Incorrect API key provided: `+secretAPIKey+`.","type":"invalid_request_error","code":"invalid_api_key"}}`)),
			Config{}, "HTTP 401 Unauthorized", "invalid_api_key"},
		{"OpenAI 401 quoting the key's end", serve(jsonError(401, `{"error":{"message":"Incorrect API key provided: sk-***key-0123456789.","type":"invalid_request_error"}}`)),
			Config{}, "HTTP 401 Unauthorized", ""},
		{"error message naming the URL", serve(jsonError(502, `{"error":{"message":"upstream connect error to http://10.0.0.7:8000/v1","type":"server_error"}}`)),
			Config{}, "HTTP 502 Bad Gateway", ""},
		{"error message holding markup", serve(jsonError(503, `{"error":{"message":"<b>down</b>","type":"server_error"}}`)),
			Config{}, "HTTP 503 Service Unavailable", ""},
		{"a safe OpenAI error is quoted", serve(jsonError(400, `{"error":{"message":"This model's maximum context length is 128 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`)),
			Config{}, "HTTP 400 Bad Request: This model's maximum context length is 128 tokens.", "context_length_exceeded"},
		{"an error inside the stream quoting the key", serve(func(w http.ResponseWriter, r *http.Request) {
			sse(w, `data: {"error":{"message":"bad key `+secretAPIKey+`","code":"401"}}`+"\n\n")
		}), Config{Stream: true}, "error inside the response stream", ""},
		{"a 200 that is an HTML page", serve(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><title>"+htmlMarker+"</title>"+r.Header.Get("Authorization")+"</html>\n")
		}), Config{Stream: true}, "neither JSON nor an event stream", ""},
		{"a chunk that is HTML", serve(func(w http.ResponseWriter, r *http.Request) { sse(w, "data: <html>"+htmlMarker+"\n\n") }),
			Config{Stream: true}, "a stream chunk is not JSON", ""},
		{"connection refused", func(t *testing.T) (string, *http.Client) {
			srv := httptest.NewServer(http.NotFoundHandler())
			srv.Close()
			return srv.URL, nil
		}, Config{}, "connection refused", ""},
		{"DNS failure", func(t *testing.T) (string, *http.Client) { return "http://no-such-host.invalid", dnsFailing() },
			Config{}, "host name did not resolve", ""},
		{"untrusted TLS certificate", func(t *testing.T) (string, *http.Client) {
			srv := httptest.NewTLSServer(http.NotFoundHandler())
			t.Cleanup(srv.Close)
			return srv.URL, nil
		}, Config{}, "certificate is not trusted", ""},
		{"TLS to a plain HTTP server", func(t *testing.T) (string, *http.Client) {
			srv := httptest.NewServer(http.NotFoundHandler())
			t.Cleanup(srv.Close)
			return strings.Replace(srv.URL, "http://", "https://", 1), nil
		}, Config{}, "does not speak TLS", ""},
		{"attempt timeout", serve(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // the server sees the client hang up only once the body is read
			if strings.HasSuffix(r.URL.Path, "/models") {
				return // alive: the silence check passes
			}
			<-r.Context().Done()
		}), Config{Timeout: 300 * time.Millisecond, CheckAfter: 100 * time.Millisecond}, "no complete answer within 300ms", ""},
		{"accepts and never answers", func(t *testing.T) (string, *http.Client) { return hangingListener(t), nil },
			Config{CheckAfter: 100 * time.Millisecond, CheckTimeout: 100 * time.Millisecond}, "no answer to a liveness check", ""},
		{"headers then silence", func(t *testing.T) (string, *http.Client) { return stallingServer(t), nil },
			Config{CheckAfter: 100 * time.Millisecond, CheckTimeout: 100 * time.Millisecond}, "no answer to a liveness check", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, hc := tt.upstream(t)
			rawURL := withCredentials(base)
			var log bytes.Buffer
			cfg := tt.cfg
			cfg.BaseURL, cfg.APIKey, cfg.HTTPClient, cfg.MaxRetries = rawURL, secretAPIKey, hc, -1
			cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")})
			var ue *llm.Error
			if !errors.As(err, &ue) {
				t.Fatalf("got %v, want an llm.Error", err)
			}
			if !strings.HasPrefix(err.Error(), DefaultName+" failed") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to start %q and say %q", err, DefaultName, tt.want)
			}
			if ue.Code != tt.wantCode {
				t.Errorf("code %q, want %q", ue.Code, tt.wantCode)
			}
			if l := leaks(err.Error(), rawURL); l != nil {
				t.Errorf("the error shows %q: %v", l, err)
			}
			// The log may quote the body, to tell the operator what came
			// back, but never a credential nor the URL unredacted.
			if l := credentials(log.String(), rawURL); l != nil {
				t.Errorf("the log shows %q:\n%s", l, log.String())
			}
			if !strings.Contains(log.String(), "upstream call failed") || !strings.Contains(log.String(), "alice:xxxxx@") {
				t.Errorf("the log does not name the failure with the URL redacted:\n%s", log.String())
			}
		})
	}
}

// serve is an upstream that answers every request with h.
func serve(h http.HandlerFunc) func(t *testing.T) (string, *http.Client) {
	return func(t *testing.T) (string, *http.Client) {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL, nil
	}
}

// TestBaseURLQueryIsSent: a base URL with a query (an ?api-version=, a
// ?key=) sends it with every request, after the path, where go-openai
// alone would append the path to the query.
func TestBaseURLQueryIsSent(t *testing.T) {
	var got []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"data":[{"id":"m"}]}`)
			return
		}
		if r.Header.Get("Accept") == "text/event-stream" {
			sse(w, chunk("ok", "stop")+"data: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	for _, stream := range []bool{false, true} {
		c, err := New(Config{BaseURL: srv.URL + "/v1/?api-version=2024-10-21&key=k1", Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")}); err != nil {
			t.Fatal(err)
		}
		if res := c.Probe(t.Context(), time.Second, "m"); res.Status != ProbeOK {
			t.Fatalf("probe: %+v", res)
		}
	}
	for _, g := range got {
		if g != "/v1/chat/completions?api-version=2024-10-21&key=k1" && g != "/v1/models?api-version=2024-10-21&key=k1" {
			t.Errorf("request to %s", g)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://api.openai.com/v1":                          "https://api.openai.com/v1",
		"http://user:pw@host:8000/v1":                        "http://user:xxxxx@host:8000/v1",
		"https://host/v1?key=abc&api-version=1":              "https://host/v1?api-version=xxxxx&key=xxxxx",
		"https://u:p@host/openai?api_key=sk-1#frag":          "https://u:xxxxx@host/openai?api_key=xxxxx#frag",
		"http://host/%zz":                                    "(unparsable URL)",
		"http://user@host/v1":                                "http://user@host/v1",
		"http://user:pw@host/v1?token=t&token=u&signature=s": "http://user:xxxxx@host/v1?signature=xxxxx&token=xxxxx",
	} {
		if got := RedactURL(raw); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", raw, got, want)
		}
	}
}

// TestSilentUpstreamFailsFast reproduces issue 24's hung upstream: one
// that accepts the connection and never answers, or sends the headers and
// then nothing, held each attempt for the whole attempt timeout (120s by
// default), and every retry as long again. Now a call fails after
// CheckAfter of silence plus a failed liveness check, without retry; an
// upstream that is slow but answers the check is waited for.
func TestSilentUpstreamFailsFast(t *testing.T) {
	const after, check = 200 * time.Millisecond, 200 * time.Millisecond
	for _, tt := range []struct {
		name string
		base func(t *testing.T) string
	}{{"accepts and never answers", hangingListener}, {"headers then silence", stallingServer}} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", tt.name, stream), func(t *testing.T) {
				c, err := New(Config{BaseURL: tt.base(t), Stream: stream, MaxRetries: 4,
					CheckAfter: after, CheckTimeout: check, BackoffBase: time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				_, err = c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")})
				took := time.Since(start)
				var ue *llm.Error
				if !errors.As(err, &ue) || !errors.Is(err, errUnresponsive) || ue.Attempts != 1 {
					t.Fatalf("got %v; want an unresponsive upstream after 1 attempt", err)
				}
				if took > after+check+time.Second {
					t.Errorf("took %v, want about %v", took, after+check)
				}
			})
		}
	}

	t.Run("slow but alive", func(t *testing.T) {
		var models atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/models") {
				models.Add(1)
				io.WriteString(w, `{"data":[]}`)
				return
			}
			time.Sleep(5 * after) // a long completion: nothing before it is done
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
		}))
		defer srv.Close()
		c, _ := New(Config{BaseURL: srv.URL, MaxRetries: -1, CheckAfter: after, CheckTimeout: check})
		// Concurrent calls silent at once share their checks.
		const calls = 8
		var wg sync.WaitGroup
		errs := make(chan error, calls)
		for range calls {
			wg.Go(func() {
				got, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")})
				if err == nil && got.Content != "ok" {
					err = fmt.Errorf("got %q", got.Content)
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		// 5 periods of silence: about 4 checks, shared by the 8 calls.
		if n := models.Load(); n < 2 || n > 8 {
			t.Errorf("%d liveness checks for %d calls silent for %v, want them shared (about 4)", n, calls, 5*after)
		}
	})

	t.Run("never checked", func(t *testing.T) {
		base := hangingListener(t)
		c, _ := New(Config{BaseURL: base, MaxRetries: -1, CheckAfter: -1, Timeout: 500 * time.Millisecond})
		_, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")})
		if err == nil || errors.Is(err, errUnresponsive) || !strings.Contains(err.Error(), "no complete answer within 500ms") {
			t.Fatalf("got %v; want the attempt timeout alone", err)
		}
	})
}
