package upstream

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// TestProbe checks each outcome of a probe against fakellm (a scripted fake
// upstream, not a model) and plain HTTP test servers.
func TestProbe(t *testing.T) {
	reply := func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: "hi"} }
	listed := fakellm.New(reply, fakellm.WithModels("k", "gpt-a", "gpt-b"))
	defer listed.Close()
	unlisted := fakellm.New(reply)
	defer unlisted.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) }))
	defer broken.Close()
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer stalled.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()

	tests := []struct {
		name, url, key string
		models         []string
		want           ProbeStatus
		detail         string
	}{
		{"ok", listed.URL, "k", []string{"gpt-a", "gpt-b"}, ProbeOK, "2 model(s) listed"},
		{"model not listed", listed.URL, "k", []string{"gpt-a", "gpt-c"}, ProbeModelNotListed, "gpt-c not among the 2 model(s)"},
		{"auth failure", listed.URL, "wrong", []string{"gpt-a"}, ProbeAuthFailed, "401"},
		{"no model list", unlisted.URL, "", []string{"gpt-a"}, ProbeNoModelList, "404"},
		{"server error", broken.URL + "/v1", "", nil, ProbeServerError, "502"},
		{"unreachable", deadURL + "/v1", "", nil, ProbeUnreachable, "refused"},
		{"stalled", stalled.URL + "/v1", "", nil, ProbeUnreachable, "no answer within 200ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(Config{BaseURL: tt.url, APIKey: tt.key})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res := c.Probe(t.Context(), 200*time.Millisecond, tt.models...)
			if res.Status != tt.want || !strings.Contains(res.Detail, tt.detail) {
				t.Fatalf("got %s %q, want %s containing %q", res.Status, res.Detail, tt.want, tt.detail)
			}
			if time.Since(start) > 2*time.Second {
				t.Errorf("probe took %v with a 200ms timeout", time.Since(start))
			}
			if down := tt.want == ProbeUnreachable || tt.want == ProbeAuthFailed || tt.want == ProbeServerError; res.Status.Down() != down {
				t.Errorf("Down() = %v", res.Status.Down())
			}
		})
	}
}
