package traceapi_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/tracing/traceapi"
)

// TestClientErrors: the client turns the gateway's answers into errors
// that say what the gateway said (its JSON message, or a trailer after an
// export's first lines), and counts exported lines. The handlers stand in
// for a gateway's trace API; cmd/rlm's traces tests run the real one.
func TestClientErrors(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/traces/missing", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":{"message":"trace missing not found","type":"invalid_request_error"}}`))
	})
	mux.HandleFunc("GET /v1/traces/export", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k1" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Trailer", "X-Export-Error")
		w.Write([]byte("{\"a\":1}\n{\"a\":2}\n"))
		w.Header().Set("X-Export-Error", "store read failed")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	c := &traceapi.Client{BaseURL: srv.URL + "/", APIKey: "k1"}
	if _, err := c.Get(t.Context(), "missing"); err == nil || !strings.Contains(err.Error(), "404 Not Found: trace missing not found") {
		t.Errorf("get: %v", err)
	}
	var out bytes.Buffer
	n, err := c.Export(t.Context(), nil, &out)
	if n != 2 || out.String() != "{\"a\":1}\n{\"a\":2}\n" || err == nil || !strings.Contains(err.Error(), "store read failed") {
		t.Errorf("export: %d lines, %q, %v", n, out.String(), err)
	}
	anon := &traceapi.Client{BaseURL: srv.URL}
	if _, err := anon.Export(t.Context(), nil, &out); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("export without a key: %v", err)
	}
}
