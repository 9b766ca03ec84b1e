package traceapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/tracing"
)

// Client reads and annotates a gateway's recorded runs over its trace API
// (API's routes: /v1/traces and below), as `rlm traces --url` does.
type Client struct {
	// BaseURL is the gateway's address, e.g. http://127.0.0.1:8080.
	BaseURL string
	// APIKey, when set, is sent as a bearer token; the gateway shows each
	// key the runs made with it.
	APIKey string
	// HTTP makes the requests; nil means http.DefaultClient.
	HTTP *http.Client
}

// List returns one page of runs matching q (the API's query parameters:
// limit, after, status, model, since, ...).
func (c *Client) List(ctx context.Context, q url.Values) (tracing.Page, error) {
	resp, err := c.do(ctx, http.MethodGet, "/v1/traces?"+q.Encode(), nil)
	if err != nil {
		return tracing.Page{}, err
	}
	defer resp.Body.Close()
	var p tracing.Page
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return p, fmt.Errorf("decode trace list: %w", err)
	}
	return p, nil
}

// Get returns one run's trajectory as the gateway stores it (JSON).
func (c *Client) Get(ctx context.Context, id string) ([]byte, error) {
	resp, err := c.do(ctx, http.MethodGet, "/v1/traces/"+url.PathEscape(id), nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("read trace %s: %w", id, err)
	}
	return b, nil
}

// Export streams the training samples of the runs matching q to w, one
// JSON line each, and returns how many lines it wrote. A failure after the
// first line comes in the response's trailer, and is returned.
func (c *Client) Export(ctx context.Context, q url.Values, w io.Writer) (int, error) {
	resp, err := c.do(ctx, http.MethodGet, "/v1/traces/export?"+q.Encode(), nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	lc := &lineCounter{w: w}
	if _, err := io.Copy(lc, resp.Body); err != nil {
		return lc.n, fmt.Errorf("export: %w", err)
	}
	if msg := resp.Trailer.Get("X-Export-Error"); msg != "" {
		return lc.n, fmt.Errorf("export failed on the server: %s", msg)
	}
	return lc.n, nil
}

// Feedback records a score and a label on a run.
func (c *Client) Feedback(ctx context.Context, id string, score float64, label string) error {
	b, err := json.Marshal(map[string]any{"score": score, "label": label})
	if err != nil {
		return fmt.Errorf("feedback: %w", err)
	}
	resp, err := c.do(ctx, http.MethodPost, "/v1/traces/"+url.PathEscape(id)+"/feedback", strings.NewReader(string(b)))
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// do sends one request and turns a non-200 answer into an error holding
// the gateway's own message.
func (c *Client) do(ctx context.Context, method, path string, body io.Reader) (*http.Response, error) {
	base := strings.TrimRight(c.BaseURL, "/")
	req, err := http.NewRequestWithContext(ctx, method, base+path, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, base+path, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		var e api.ErrorResponse
		msg := strings.TrimSpace(string(b))
		if json.Unmarshal(b, &e) == nil && e.Error.Message != "" {
			msg = e.Error.Message
		}
		return nil, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, msg)
	}
	return resp, nil
}

// lineCounter counts the lines written through it.
type lineCounter struct {
	w io.Writer
	n int
}

func (c *lineCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += bytes.Count(p[:n], []byte{'\n'})
	return n, err
}
