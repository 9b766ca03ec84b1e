package server

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labstack/echo/v5"

	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/traceapi"
	"github.com/rlm-project/rlm/tracing/tracingtest"
)

// TestMetricsAccess reproduces /metrics open to anyone on a server with API
// keys: its access follows MetricsKey and MetricsSeparate.
func TestMetricsAccess(t *testing.T) {
	tests := []struct {
		name       string
		cfg        Config
		key        string
		status     int
		code       string
		separateOK bool // served on ServeMetrics' listener
	}{
		{"open server", Config{}, "", 200, "", false},
		{"keys: not public", Config{Keys: []string{"k"}}, "", 401, "metrics_not_public", false},
		{"keys: an API key is not enough", Config{Keys: []string{"k"}}, "k", 401, "metrics_not_public", false},
		{"keys and a metrics key: none sent", Config{Keys: []string{"k"}, MetricsKey: "m"}, "", 401, "invalid_api_key", false},
		{"keys and a metrics key: API key sent", Config{Keys: []string{"k"}, MetricsKey: "m"}, "k", 401, "invalid_api_key", false},
		{"keys and a metrics key: metrics key sent", Config{Keys: []string{"k"}, MetricsKey: "m"}, "m", 200, "", false},
		{"open server with a metrics key", Config{MetricsKey: "m"}, "", 401, "invalid_api_key", false},
		{"separate listener", Config{Keys: []string{"k"}, MetricsSeparate: true}, "", 200, "", true},
		{"separate listener with a metrics key: none sent", Config{Keys: []string{"k"}, MetricsSeparate: true, MetricsKey: "m"}, "", 401, "invalid_api_key", true},
		{"separate listener with a metrics key", Config{Keys: []string{"k"}, MetricsSeparate: true, MetricsKey: "m"}, "m", 200, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, tt.cfg, nil, nil)
			url := ts.URL
			if tt.separateOK {
				// The API's listener has no /metrics at all.
				if r := do(t, "GET", ts.URL+"/metrics", tt.key, nil); r.Status != 404 {
					t.Errorf("/metrics on the API listener: %d, want 404", r.Status)
				}
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				go ts.ServeMetrics(ln)
				url = "http://" + ln.Addr().String()
				if r := do(t, "GET", url+"/v1/models", "k", nil); r.Status != 404 {
					t.Errorf("the metrics listener serves the API: %d", r.Status)
				}
			}
			r := do(t, "GET", url+"/metrics", tt.key, nil)
			if r.Status != tt.status {
				t.Fatalf("/metrics: %d, want %d: %s", r.Status, tt.status, r.Body)
			}
			if tt.status == 200 && !strings.Contains(string(r.Body), "rlm_runs_in_flight") {
				t.Errorf("no metrics in %s", r.Body)
			}
			if tt.status != 200 {
				checkErrorBody(t, r, "invalid_request_error", "", "")
				if code, _ := r.json(t)["error"].(map[string]any)["code"].(string); code != tt.code {
					t.Errorf("code %q, want %q", code, tt.code)
				}
				if strings.Contains(string(r.Body), "rlm_") {
					t.Errorf("a refused scrape shows metrics: %s", r.Body)
				}
			}
		})
	}
}

// TestNothingOpenWithKeys: on a server with API keys and the trace API and
// viewer mounted as rlm serve mounts them, every route answers 401 without
// a key except the health checks and the viewer's static assets, and those
// assets are the embedded files as they are, with no data in them.
func TestNothingOpenWithKeys(t *testing.T) {
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	api := traceapi.New(svc, traceapi.Config{})
	cfg := Config{Keys: []string{"k"}, Extend: func(e *echo.Echo, v1 *echo.Group, owner func(*echo.Context) string) {
		api.Register(v1, owner)
		traceapi.RegisterUI(e)
	}}
	ts := startServer(t, cfg, nil, nil)
	public := map[string]bool{"GET /healthz": true, "GET /readyz": true, "GET /ui": true, "GET /ui/*": true, "GET /": true}
	seen := 0
	for _, rt := range ts.e.Router().Routes() {
		route := rt.Method + " " + rt.Path
		if public[route] {
			continue
		}
		seen++
		path := strings.NewReplacer(":id", "tr_0123", ":model", "rlm", "*", "x").Replace(rt.Path)
		r := do(t, rt.Method, ts.URL+path, "", strings.NewReader("{}"))
		if r.Status != http.StatusUnauthorized {
			t.Errorf("%s without a key: %d %s", route, r.Status, r.Body)
		}
	}
	if seen < 15 {
		t.Fatalf("only %d guarded routes found; the route walk is broken", seen)
	}
	for _, name := range []string{"index.html", "app.js", "style.css"} {
		want, err := os.ReadFile(filepath.Join("..", "tracing", "traceapi", "ui", name))
		if err != nil {
			t.Fatal(err)
		}
		path := "/ui/" + name
		if name == "index.html" {
			path = "/ui/"
		}
		r := do(t, "GET", ts.URL+path, "", nil)
		if r.Status != 200 || !bytes.Equal(r.Body, want) {
			t.Errorf("%s without a key: %d, %d bytes; want the embedded file as it is (%d bytes)", path, r.Status, len(r.Body), len(want))
		}
	}
}
