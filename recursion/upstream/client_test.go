package upstream

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion/llm"
)

// The fake upstream here is fakellm, a recording test double, not a model.

func ptr[T any](v T) *T { return &v }

func TestSamplingReachesUpstreamFaithfully(t *testing.T) {
	tests := []struct {
		name    string
		s       llm.Sampling
		present map[string]string // field -> exact JSON
		absent  []string
	}{
		{"temperature zero is sent as zero", llm.Sampling{Temperature: ptr(0.0)}, map[string]string{"temperature": "0"}, []string{"top_p"}},
		{"top_p zero is sent as zero", llm.Sampling{TopP: ptr(0.0), Temperature: ptr(0.7)}, map[string]string{"top_p": "0", "temperature": "0.7"}, nil},
		{"unset stays unset", llm.Sampling{}, nil, []string{"temperature", "top_p", "max_tokens", "seed", "stop"}},
		{"seed, stop, max tokens", llm.Sampling{Seed: ptr(0), Stop: []string{"END"}, MaxTokens: ptr(64)}, map[string]string{"seed": "0", "stop": `["END"]`, "max_tokens": "64"}, nil},
	}
	srv := fakellm.New(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: "hi"} })
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q"), Sampling: tt.s}); err != nil {
				t.Fatal(err)
			}
			got := srv.Requests()[i]
			for k, v := range tt.present {
				if string(got.Fields[k]) != v {
					t.Errorf("%s = %s, want %s (body %s)", k, got.Fields[k], v, got.Body)
				}
			}
			for _, k := range tt.absent {
				if _, ok := got.Fields[k]; ok {
					t.Errorf("%s sent though unset (body %s)", k, got.Body)
				}
			}
		})
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name         string
		opts         []fakellm.Option
		reply        fakellm.Reply
		wantErr      string
		wantAttempts int
		minElapsed   time.Duration
	}{
		{"429 then success", []fakellm.Option{fakellm.WithFailures(2, http.StatusTooManyRequests, "")}, fakellm.Reply{Content: "ok"}, "", 3, 0},
		{"Retry-After is honored", []fakellm.Option{fakellm.WithFailures(1, http.StatusTooManyRequests, "0.4")}, fakellm.Reply{Content: "ok"}, "", 2, 400 * time.Millisecond},
		{"5xx then success", []fakellm.Option{fakellm.WithFailures(1, http.StatusInternalServerError, "")}, fakellm.Reply{Content: "ok"}, "", 2, 0},
		{"400 is not retried", nil, fakellm.Reply{Status: http.StatusBadRequest}, "upstream fake-upstream failed after 1 attempt(s)", 1, 0},
		{"5xx for good", nil, fakellm.Reply{Status: http.StatusBadGateway}, "upstream fake-upstream failed after 3 attempt(s)", 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(func(fakellm.Request) fakellm.Reply { return tt.reply }, tt.opts...)
			defer srv.Close()
			c, err := New(Config{Name: "fake-upstream", BaseURL: srv.URL, MaxRetries: 2, BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			got, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")})
			elapsed := time.Since(start)
			if tt.wantErr == "" && (err != nil || got.Content != "ok") {
				t.Fatalf("got %q, %v", got.Content, err)
			}
			if tt.wantErr != "" {
				var ue *llm.Error
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
			}
			if n := len(srv.Requests()); n != tt.wantAttempts {
				t.Errorf("%d attempts, want %d", n, tt.wantAttempts)
			}
			if elapsed < tt.minElapsed {
				t.Errorf("took %v, want at least %v", elapsed, tt.minElapsed)
			}
		})
	}
}

func TestConnectionErrorIsRetriedThenNamed(t *testing.T) {
	srv := fakellm.New(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{} })
	url := srv.URL
	srv.Close() // nothing listens there any more
	c, _ := New(Config{Name: "gone", BaseURL: url, MaxRetries: 2, BackoffBase: time.Millisecond})
	_, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")})
	var ue *llm.Error
	if !errors.As(err, &ue) || ue.Attempts != 3 || !strings.Contains(err.Error(), "upstream gone") {
		t.Fatalf("got %v", err)
	}
}

func TestPerCallTimeoutAndCancel(t *testing.T) {
	srv := fakellm.New(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: "late"} }, fakellm.WithLatency(2*time.Second))
	defer srv.Close()
	c, _ := New(Config{Name: "slow", BaseURL: srv.URL, Timeout: 50 * time.Millisecond, MaxRetries: 1, BackoffBase: time.Millisecond})
	start := time.Now()
	_, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")})
	if err == nil || time.Since(start) > time.Second {
		t.Fatalf("per-call timeout: err %v after %v", err, time.Since(start))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	c2, _ := New(Config{Name: "slow", BaseURL: srv.URL})
	_, err = c2.Complete(ctx, llm.Request{Model: "m", Messages: userMsg("q")})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancel: got %v", err)
	}
}

func TestLogprobsKept(t *testing.T) {
	srv := fakellm.New(func(fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Content: "ab", Logprobs: []fakellm.Logprob{{Token: "a", Logprob: -0.1}, {Token: "b", Logprob: -2}}}
	})
	defer srv.Close()
	c, _ := New(Config{BaseURL: srv.URL})
	got, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q"), Logprobs: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Logprobs) != 2 || got.Logprobs[1].Token != "b" || got.Logprobs[1].Logprob != -2 {
		t.Fatalf("logprobs %+v", got.Logprobs)
	}
	if string(srv.Requests()[0].Fields["logprobs"]) != "true" {
		t.Error("logprobs not requested")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"3", 3 * time.Second}, {"0.5", 500 * time.Millisecond}, {"junk", 0},
		{now.Add(10 * time.Second).Format(http.TimeFormat), 10 * time.Second},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestResponseModelKept(t *testing.T) {
	tests := []struct{ reported, want string }{
		{"m-2026-11-01", "m-2026-11-01"}, // a dated snapshot of the requested model
		{"", "m"},                        // the fake echoes the requested model
	}
	for _, tt := range tests {
		srv := fakellm.New(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: "ok", Model: tt.reported} })
		c, _ := New(Config{BaseURL: srv.URL})
		got, err := c.Complete(t.Context(), llm.Request{Model: "m", Messages: userMsg("q")})
		srv.Close()
		if err != nil || got.Model != tt.want {
			t.Errorf("reported %q: model %q, %v; want %q", tt.reported, got.Model, err, tt.want)
		}
	}
}

func userMsg(s string) []llm.Message { return []llm.Message{{Role: "user", Content: s}} }
