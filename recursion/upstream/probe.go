package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// ProbeStatus is what a probe of an upstream found.
type ProbeStatus string

const (
	ProbeOK ProbeStatus = "ok"
	// ProbeUnreachable: no HTTP answer (connection refused, DNS, timeout).
	ProbeUnreachable ProbeStatus = "unreachable"
	// ProbeAuthFailed: the upstream answered 401 or 403: the key is wrong.
	ProbeAuthFailed ProbeStatus = "auth_failed"
	// ProbeModelNotListed: the upstream answers, but does not list a model
	// the server will call.
	ProbeModelNotListed ProbeStatus = "model_not_listed"
	// ProbeNoModelList: the upstream answers, but has no model list (404
	// or a body that is not one); calls may still work.
	ProbeNoModelList ProbeStatus = "no_model_list"
	// ProbeServerError: the upstream answered 5xx or another error status.
	ProbeServerError ProbeStatus = "server_error"
)

// Down reports whether a probe with this status means calls will fail:
// readiness reads it.
func (s ProbeStatus) Down() bool {
	return s == ProbeUnreachable || s == ProbeAuthFailed || s == ProbeServerError
}

// ProbeResult is one probe of the upstream.
type ProbeResult struct {
	Status ProbeStatus
	// Detail is what was seen, for the log: it names the URL redacted
	// (RedactURL) and holds no credential.
	Detail  string
	Missing []string // models asked for that the upstream does not list
	Latency time.Duration
}

// Probe asks the upstream for its models (GET BASE/models) within timeout,
// and checks that each of models is listed. It never retries: it is a
// health check, not a call.
func (c *Client) Probe(ctx context.Context, timeout time.Duration, models ...string) ProbeResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	url := RedactURL(c.endpoint("/models")) // as the log shows it
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint("/models"), nil)
	if err != nil {
		return ProbeResult{Status: ProbeUnreachable, Detail: c.secrets.scrub(err.Error())}
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.hc.Do(req)
	lat := time.Since(start)
	if err != nil {
		detail := fmt.Sprintf("GET %s: %s", url, failureKind(err))
		if errors.Is(err, context.DeadlineExceeded) {
			detail = fmt.Sprintf("no answer within %s", timeout)
		}
		return ProbeResult{Status: ProbeUnreachable, Detail: detail, Latency: lat}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	res := ProbeResult{Latency: lat}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		res.Status, res.Detail = ProbeAuthFailed, fmt.Sprintf("GET %s: %s", url, resp.Status)
		return res
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		res.Status, res.Detail = ProbeNoModelList, fmt.Sprintf("GET %s: %s", url, resp.Status)
		return res
	case resp.StatusCode != http.StatusOK:
		res.Status, res.Detail = ProbeServerError, fmt.Sprintf("GET %s: %s", url, resp.Status)
		return res
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		res.Status, res.Detail = ProbeNoModelList, fmt.Sprintf("GET %s: not a model list", url)
		return res
	}
	ids := make([]string, len(list.Data))
	for i, m := range list.Data {
		ids[i] = m.ID
	}
	for _, m := range models {
		if m != "" && !slices.Contains(ids, m) && !slices.Contains(res.Missing, m) {
			res.Missing = append(res.Missing, m)
		}
	}
	if len(res.Missing) > 0 {
		res.Status = ProbeModelNotListed
		res.Detail = fmt.Sprintf("%s not among the %d model(s) the upstream lists", strings.Join(res.Missing, ", "), len(ids))
		return res
	}
	res.Status, res.Detail = ProbeOK, fmt.Sprintf("%d model(s) listed", len(ids))
	return res
}
