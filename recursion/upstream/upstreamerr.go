package upstream

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"syscall"

	"github.com/rlm-project/rlm/recursion/llm"
	openai "github.com/sashabaranov/go-openai"
)

// What a failed upstream call tells its caller is built here. The caller's
// text reaches clients (error messages, partial answers), traces and the
// model itself (an llm_query's error), so it never holds the upstream's URL
// (which may carry a password or a key in its query), the API key, or the
// upstream's raw body (an HTML error page, a debug page echoing headers).
// It says what happened in words of its own: an HTTP status, "connection
// refused", a timeout; the upstream's own error message only when it sent a
// well-formed OpenAI error whose message holds no secret, no URL and no
// markup. The raw error stays in llm.Error.Err for errors.Is and
// errors.As, and goes, scrubbed of secrets, only to the log.

// DefaultName is how errors name an upstream whose Config
// has no Name.
const DefaultName = "the upstream model"

// errUnresponsive is the cause of an attempt cancelled because the upstream
// stayed silent for CheckAfter and then failed a liveness check too.
var errUnresponsive = errors.New("upstream unresponsive")

// secrets are the credentials of one upstream: the API key, the URL's
// password and its query values. scrub removes them from log text;
// safeMessage refuses a message holding any of them, or the host.
type secrets struct {
	values []string // never shown anywhere
	host   string   // not secret, but no client's business
}

func newSecrets(baseURL, key string) secrets {
	s := secrets{}
	add := func(v string) {
		if v == "" {
			return
		}
		for _, form := range []string{v, url.QueryEscape(v), url.PathEscape(v)} {
			s.values = append(s.values, form)
		}
	}
	add(key)
	if u, err := url.Parse(baseURL); err == nil {
		s.host = u.Hostname()
		if pw, ok := u.User.Password(); ok {
			add(pw)
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
			}
		}
	}
	return s
}

// scrub replaces every secret in text, and every piece of 8 bytes or more
// of one: upstreams quote a key's ends ("Incorrect API key provided:
// sk-...wxyz1234abcd"), which are as much the key's as the whole of it.
func (s secrets) scrub(text string) string {
	for _, v := range s.values {
		text = strings.ReplaceAll(text, v, "xxxxx")
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		n := 0
		for _, v := range s.values {
			n = max(n, longestPieceAt(text[i:], v))
		}
		if n >= minSecretPiece {
			b.WriteString("xxxxx")
			i += n
			continue
		}
		b.WriteByte(text[i])
		i++
	}
	return b.String()
}

// minSecretPiece is the shortest piece of a secret that scrub and
// safeMessage treat as the secret.
const minSecretPiece = 8

// longestPieceAt is the length of the longest prefix of text that occurs
// in secret.
func longestPieceAt(text, secret string) int {
	best := 0
	for j := 0; j+best < len(secret); j++ {
		n := 0
		for n < len(text) && j+n < len(secret) && text[n] == secret[j+n] {
			n++
		}
		best = max(best, n)
	}
	return best
}

// maxUpstreamMessage bounds the upstream's own error message a client is
// shown; a longer one is a page or a dump, not a message.
const maxUpstreamMessage = 500

// unsafeMessageRE finds what a message shown to a client must not hold:
// a URL, markup, control characters.
var unsafeMessageRE = regexp.MustCompile(`://|[<>]|[\x00-\x1f\x7f]`)

// safeMessage returns msg when a client may see it, else "". A message
// holding a secret, or any 8 bytes of one (OpenAI's 401 echoes the key's
// ends), is refused whole rather than scrubbed: what is left of it could
// still say too much.
func (s secrets) safeMessage(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" || len(msg) > maxUpstreamMessage || unsafeMessageRE.MatchString(msg) {
		return ""
	}
	if s.host != "" && strings.Contains(strings.ToLower(msg), strings.ToLower(s.host)) {
		return ""
	}
	for _, v := range s.values {
		if strings.Contains(msg, v) {
			return ""
		}
		for i := 0; i+minSecretPiece <= len(v); i++ {
			if strings.Contains(msg, v[i:i+minSecretPiece]) {
				return ""
			}
		}
	}
	return msg
}

// codeRE is an error code a client may see: OpenAI's are snake_case words.
var codeRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// RedactURL returns raw with its password and the value of every query
// parameter replaced by "xxxxx", for logs. A URL that does not parse is
// returned as "(unparsable URL)": it may be anything.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"xxxxx"}
		}
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// failure is the llm.Error of a call whose last attempt failed with err
// (status: the HTTP status the transport saw, 0 for none).
func (c *Client) failure(err error, status, attempts int) *llm.Error {
	ue := &llm.Error{Upstream: c.label, Attempts: attempts, Status: status, Err: err}
	var (
		apiErr *openai.APIError
		reqErr *openai.RequestError
		se     *streamError
	)
	switch {
	case errors.As(err, &se):
		ue.Reason = "error inside the response stream"
		ue.Message = c.secrets.safeMessage(se.Message)
		if se.Code != 0 {
			ue.Status = se.Code
		}
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0:
		// A well-formed OpenAI error body: its message may be shown.
		ue.Status = apiErr.HTTPStatusCode
		ue.Message = c.secrets.safeMessage(apiErr.Message)
		if code, ok := apiErr.Code.(string); ok && codeRE.MatchString(code) {
			ue.Code = code
		}
		if apiErr.Param != nil && codeRE.MatchString(*apiErr.Param) {
			ue.Param = *apiErr.Param
		}
	case errors.As(err, &reqErr):
		ue.Message = c.secrets.safeMessage(vllmMessage(reqErr.Body))
	}
	if ue.Reason == "" {
		ue.Reason = c.describe(err, ue.Status)
	}
	if ue.Message != "" {
		ue.Reason += ": " + ue.Message
	}
	return ue
}

// vllmMessage reads the message of the error body older vLLM servers send,
// OpenAI's error object at the top level: {"object": "error", "message":
// ...}. Any other body gives "".
func vllmMessage(body []byte) string {
	var e struct {
		Object  string `json:"object"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) != nil || e.Object != "error" {
		return ""
	}
	return e.Message
}

// describe says what went wrong with an attempt in the client's own words:
// nothing of err's text, which may quote the URL or the body.
func (c *Client) describe(err error, status int) string {
	switch {
	case errors.Is(err, errUnresponsive):
		return fmt.Sprintf("no answer for %v, and no answer to a liveness check (GET /models) within %v either", c.cfg.CheckAfter, c.cfg.CheckTimeout)
	case errors.Is(err, errStalled):
		return fmt.Sprintf("no data for %v after the response headers (status %d)", c.cfg.IdleTimeout, status)
	case errors.Is(err, errResponseTooLarge):
		return fmt.Sprintf("response too large: more than %d bytes (the upstream response cap)", c.cfg.MaxResponseBytes)
	case status >= 300:
		return strings.TrimSpace(fmt.Sprintf("HTTP %d %s", status, http.StatusText(status)))
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("no complete answer within %v (the attempt timeout)", c.cfg.Timeout)
	}
	return failureKind(err)
}

// failureKind names the kind of a failure without quoting it.
func failureKind(err error) string {
	var (
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		authErr x509.UnknownAuthorityError
		hostErr x509.HostnameError
		invErr  x509.CertificateInvalidError
		recErr  tls.RecordHeaderError
		alert   tls.AlertError
		netErr  net.Error
		opErr   *net.OpError
	)
	switch {
	case err == nil:
		return "the call failed"
	case errors.Is(err, errNoChoices):
		return "the response has no choices"
	case errors.Is(err, errNotStream):
		return "the response is neither JSON nor an event stream"
	case errors.Is(err, errBadChunk):
		return "a stream chunk is not JSON"
	case errors.Is(err, errStreamCut):
		return "the stream ended before it was complete"
	case errors.As(err, &dnsErr):
		return "the upstream's host name did not resolve"
	case errors.As(err, &certErr), errors.As(err, &authErr), errors.As(err, &hostErr), errors.As(err, &invErr):
		return "TLS handshake failed: the upstream's certificate is not trusted"
	case errors.As(err, &recErr), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		// net/http replaces the RecordHeaderError with an error of text alone.
		return "TLS handshake failed: the upstream does not speak TLS"
	case errors.As(err, &alert):
		return "TLS handshake failed"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection closed before the answer was complete"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	case errors.As(err, &opErr):
		return "the connection failed"
	}
	var (
		syntax  *json.SyntaxError
		typeErr *json.UnmarshalTypeError
	)
	if errors.As(err, &syntax) || errors.As(err, &typeErr) {
		return "the response is not a valid chat completion"
	}
	return "the call failed"
}
