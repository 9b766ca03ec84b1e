package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion/upstream"
)

// The upstreams in these tests are test doubles over real HTTP (and TCP),
// not models: each fails in one way an upstream can.

// Credentials of the gateway's upstream: a password and a query key in
// --upstream, and the API key (--upstream-key or OPENAI_API_KEY).
const (
	upPassword = "pw-Sup3r-S3cret"
	upQueryKey = "qk-Sup3r-S3cret"
	upAPIKey   = "sk-Sup3r-S3cret-0123456789"
	upHTML     = "Upstream Proxy Error"
	clientKey  = "client-key"
)

// credURL is base with a user and password and a ?key= query, as an
// operator may write --upstream.
func credURL(base string) string {
	return strings.Replace(base, "://", "://alice:"+upPassword+"@", 1) + "/v1?key=" + upQueryKey
}

// leaked returns what of the upstream's credentials, its URL or, with
// html, its HTML error page text holds.
func leaked(text, rawURL string, html bool) []string {
	secrets := []string{upPassword, upQueryKey, upAPIKey, rawURL}
	if html {
		secrets = append(secrets, "<html", upHTML)
	}
	var found []string
	for _, s := range secrets {
		if strings.Contains(text, s) {
			found = append(found, s)
		}
	}
	return found
}

// upstreamDouble is an upstream that fails as its handler says, or, with
// no handler, a listener that accepts connections and never answers.
func upstreamDouble(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	if h != nil {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	s, err := fakellm.NewSilent()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s.URL
}

// htmlEchoing answers everything 500 with an HTML page quoting the
// request's URL and Authorization header, as a proxy's debug page might.
func htmlEchoing(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusInternalServerError)
	fmt.Fprintf(w, "<html><body><h1>%s</h1><pre>%s %s\nAuthorization: %s</pre></body></html>", upHTML, r.Method, r.URL, r.Header.Get("Authorization"))
}

func openAIError(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// stalling sends the headers of every answer, /models included, then
// nothing.
func stalling(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body) // the server sees the client hang up only once the body is read
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// slowChat answers /models at once and chat completions never.
func slowChat(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	if strings.HasSuffix(r.URL.Path, "/models") {
		io.WriteString(w, `{"data":[{"id":"root-model"}]}`)
		return
	}
	<-r.Context().Done()
}

// timedCall is call with a client timeout, so that a hung gateway fails
// the test instead of holding it.
func timedCall(t *testing.T, limit time.Duration, method, url, body string) httpResult {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+clientKey)
	start := time.Now()
	resp, err := (&http.Client{Timeout: limit}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: no answer within %v: %v", method, url, limit, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return httpResult{resp.StatusCode, resp.Header, b, time.Since(start)}
}

// waitTrace returns the stored trace JSON of id once it is saved.
func waitTrace(t *testing.T, s *served, id string) []byte {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := timedCall(t, 10*time.Second, "GET", s.URL+"/v1/traces/"+id, "")
		if r.status == http.StatusOK {
			return r.body
		}
		if time.Now().After(deadline) {
			t.Fatalf("trace %s not saved: %d %s", id, r.status, r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServeUpstreamFailuresLeakNoSecret reproduces issue 24's leak
// through the real gateway: with --upstream http://alice:PASSWORD@host/v1
// ?key=QUERYKEY and an upstream key, an upstream that fails (an HTML 500
// echoing the request, a 401 quoting the key, a refused connection, an
// untrusted certificate, a hang, a stall, a timeout) put the URL with its
// password, and the upstream's raw body, in the client's error, the stored
// completion, the trace and the log. Now the client, the stored records
// and the trace say what failed in the gateway's words ("the upstream
// model failed after 1 attempt(s): HTTP 500 Internal Server Error"), with
// the upstream's message only when it is a well-formed OpenAI error free of
// secrets; the log names the URL redacted (and may quote the body, cut
// short); and the key, from --upstream-key or OPENAI_API_KEY, appears
// nowhere.
func TestServeUpstreamFailuresLeakNoSecret(t *testing.T) {
	silent := []string{"--upstream-check-after", "300ms", "--upstream-probe-timeout", "300ms"}
	tests := []struct {
		name     string
		upstream func(t *testing.T) string
		args     []string
		keyByEnv bool   // the key from OPENAI_API_KEY rather than --upstream-key
		want     string // in the client's message
	}{
		{"HTML 500 echoing the request", func(t *testing.T) string { return upstreamDouble(t, htmlEchoing) }, nil, false, "HTTP 500 Internal Server Error"},
		{"401 quoting the key", func(t *testing.T) string {
			return upstreamDouble(t, openAIError(401, `{"error":{"message":"Incorrect API key provided: `+upAPIKey+`","type":"invalid_request_error","code":"invalid_api_key"}}`))
		}, nil, true, "HTTP 401 Unauthorized"},
		{"a safe OpenAI error is quoted", func(t *testing.T) string {
			return upstreamDouble(t, openAIError(400, `{"error":{"message":"Unsupported value: temperature","type":"invalid_request_error","code":"unsupported_value"}}`))
		}, nil, false, "HTTP 400 Bad Request: Unsupported value: temperature"},
		{"connection refused", func(t *testing.T) string {
			srv := httptest.NewServer(http.NotFoundHandler())
			srv.Close()
			return srv.URL
		}, nil, true, "connection refused"},
		{"untrusted TLS certificate", func(t *testing.T) string {
			srv := httptest.NewTLSServer(http.NotFoundHandler())
			t.Cleanup(srv.Close)
			return srv.URL
		}, nil, false, "certificate is not trusted"},
		{"accepts and never answers", func(t *testing.T) string { return upstreamDouble(t, nil) }, silent, true, "no answer to a liveness check"},
		{"headers then silence", func(t *testing.T) string { return upstreamDouble(t, stalling) }, silent, false, "no answer to a liveness check"},
		{"attempt timeout", func(t *testing.T) string { return upstreamDouble(t, slowChat) }, []string{"--upstream-timeout", "500ms"}, true, "no complete answer within 500ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rawURL := credURL(tt.upstream(t))
			dataDir := t.TempDir()
			args := []string{"--upstream", rawURL, "--root-model", "root-model", "--upstream-retries", "0",
				"--api-key", clientKey, "--data-dir", dataDir}
			t.Setenv("OPENAI_API_KEY", "")
			if tt.keyByEnv {
				t.Setenv("OPENAI_API_KEY", upAPIKey)
			} else {
				args = append(args, "--upstream-key", upAPIKey)
			}
			s := startServe(t, append(args, tt.args...)...)

			var texts []string // everything a client, a trace or the log got
			stored := timedCall(t, 30*time.Second, "POST", s.URL+"/v1/chat/completions", chatHiStored)
			streamed := timedCall(t, 30*time.Second, "POST", s.URL+"/v1/chat/completions", `{"model":"rlm","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
			texts = append(texts, string(stored.body), string(streamed.body))
			if stored.status != http.StatusBadGateway || errorCode(t, stored.body) != "upstream_error" {
				t.Fatalf("got %d %s, want 502 upstream_error", stored.status, stored.body)
			}
			var e struct {
				Error struct {
					Message      string
					CompletionID string `json:"completion_id"`
				}
			}
			json.Unmarshal(stored.body, &e)
			if !strings.HasPrefix(e.Error.Message, "the run stopped: the upstream model failed after 1 attempt(s): ") || !strings.Contains(e.Error.Message, tt.want) {
				t.Errorf("message %q, want it to name the upstream model and say %q", e.Error.Message, tt.want)
			}
			if !strings.Contains(string(streamed.body), tt.want) {
				t.Errorf("stream does not say %q: %s", tt.want, streamed.body)
			}
			if rec := timedCall(t, 10*time.Second, "GET", s.URL+"/v1/chat/completions/"+e.Error.CompletionID, ""); rec.status != http.StatusOK {
				t.Errorf("stored completion %q: %d %s", e.Error.CompletionID, rec.status, rec.body)
			} else {
				texts = append(texts, string(rec.body))
			}
			for _, r := range []httpResult{stored, streamed} {
				texts = append(texts, string(waitTrace(t, s, r.header.Get("X-RLM-Trace-Id"))))
			}
			// What the store holds on disk: traces, completions.
			filepath.WalkDir(dataDir, func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(path)
					texts = append(texts, string(b))
				}
				return nil
			})
			if err := s.stop(); err != nil {
				t.Fatal(err)
			}
			for i, text := range texts {
				if l := leaked(text, rawURL, true); l != nil {
					t.Errorf("text %d a client or a trace got shows %q:\n%.3000s", i, l, text)
				}
			}
			// The log may quote the upstream's body, cut short, for the
			// operator to see what came back; never a credential.
			log := s.Stderr.String()
			if l := leaked(log, rawURL, false); l != nil {
				t.Errorf("the log shows %q:\n%s", l, log)
			}
			if !strings.Contains(log, "alice:xxxxx@") || !strings.Contains(log, "upstream call failed") {
				t.Errorf("the log does not name the failed call with the URL redacted:\n%s", log)
			}
		})
	}
}

// TestServeSilentUpstreamFailsFast reproduces issue 24's hung upstream
// through the real gateway, with the default settings: an upstream that
// accepts the connection and never answers held each request's run slot
// for 10 minutes (an attempt timeout of 120s, four retries, the run's 10
// minutes). Now the request fails within --upstream-check-after plus
// --upstream-probe-timeout (10s + 5s by default), well under a minute.
func TestServeSilentUpstreamFailsFast(t *testing.T) {
	t.Parallel()
	cfg, err := loadServeConfig(nil, cli.Env{Getenv: func(string) string { return "" }}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	bound := cfg.UpstreamCheck + cfg.ProbeTimeout
	if cfg.UpstreamCheck != upstream.DefaultCheckAfter || cfg.UpstreamCheck <= 0 || bound > 20*time.Second {
		t.Fatalf("defaults: --upstream-check-after %v, --upstream-probe-timeout %v: a silent upstream would hold a request %v", cfg.UpstreamCheck, cfg.ProbeTimeout, bound)
	}
	s := startServe(t, "--upstream", upstreamDouble(t, nil), "--root-model", "root-model", "--api-key", clientKey)
	r := timedCall(t, 45*time.Second, "POST", s.URL+"/v1/chat/completions", chatHi)
	if r.status != http.StatusBadGateway || !strings.Contains(string(r.body), "no answer to a liveness check") {
		t.Fatalf("got %d %s, want 502 naming the silent upstream", r.status, r.body)
	}
	if r.took > bound+5*time.Second || r.took < cfg.UpstreamCheck {
		t.Errorf("failed after %v, want about %v", r.took, bound)
	}
}

// TestServeBuiltinContextLength reproduces issue 24's built-in model
// answers: max_tokens 1,000,000,000 got 200 with no answer (the run's token
// budget refused the call) and 60,000 got 502 (the model refused it as
// longer than its context), where the client is at fault. Now `rlm serve`
// answers 400 context_length_exceeded on max_tokens, as `rlm model serve`
// does, whether max_tokens alone overflows the context (refused before the
// run) or only with the prompt (refused by the first turn).
func TestServeBuiltinContextLength(t *testing.T) {
	s := startServe(t)
	for _, maxTokens := range []int{1_000_000_000, 60_000, 8_190} {
		t.Run(fmt.Sprint(maxTokens), func(t *testing.T) {
			// A document long enough to be offloaded, so that the run
			// reaches a first turn (a bare question is answered without one).
			question := strings.Repeat("The sky over the harbour is blue today. ", 500) + "What colour is the sky?"
			r := call(t, "POST", s.URL+"/v1/chat/completions", "",
				fmt.Sprintf(`{"model":"rlm","max_tokens":%d,"messages":[{"role":"user","content":%q}]}`, maxTokens, question))
			var e struct {
				Error struct {
					Message, Type, Code string
					Param               *string
				}
			}
			if err := json.Unmarshal(r.body, &e); err != nil || r.status != http.StatusBadRequest || e.Error.Code != "context_length_exceeded" ||
				e.Error.Type != "invalid_request_error" || e.Error.Param == nil || *e.Error.Param != "max_tokens" {
				t.Fatalf("got %d %s, want 400 context_length_exceeded on max_tokens", r.status, r.body)
			}
			if !strings.HasPrefix(e.Error.Message, "This model's maximum context length is 8192 tokens.") {
				t.Errorf("message %q, want the model's context length", e.Error.Message)
			}
		})
	}
}
