package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/rlm-project/rlm/recursion/upstream"
)

// ProbeConfig configures the probes of the upstream (GET /models): one at
// start, whose outcome is logged, and with Ready one every Interval, which
// /readyz follows and whose changes are logged.
type ProbeConfig struct {
	// Timeout bounds one probe; it must be positive.
	Timeout time.Duration
	// Ready makes /readyz report not ready while the last probe found the
	// upstream down (unreachable, key refused, 5xx).
	Ready bool
	// Interval is the time between probes with Ready; it must then be
	// positive.
	Interval time.Duration
}

func (c ProbeConfig) check() error {
	if c.Timeout <= 0 {
		return fmt.Errorf("probe timeout %v: must be positive", c.Timeout)
	}
	if c.Ready && c.Interval <= 0 {
		return fmt.Errorf("probe interval %v: must be positive when readiness follows the upstream", c.Interval)
	}
	return nil
}

// upstreamProber probes the upstream (GET /models) at start, logs what it
// found, and, when readiness asks for it, probes again periodically and
// logs every change.
type upstreamProber struct {
	client  *upstream.Client
	url     string // redacted (recursion.RedactURL): it goes to the log
	models  []string
	timeout time.Duration
	log     *slog.Logger

	mu   sync.Mutex
	last *upstream.ProbeResult
}

// probe runs one probe, keeps its result and logs it when it differs from
// the last one.
func (p *upstreamProber) probe(ctx context.Context) upstream.ProbeResult {
	res := p.client.Probe(ctx, p.timeout, p.models...)
	p.mu.Lock()
	changed := p.last == nil || p.last.Status != res.Status
	p.last = &res
	p.mu.Unlock()
	if changed && ctx.Err() == nil {
		logProbe(p.log, p.url, res)
	}
	return res
}

// run probes now and then every interval until ctx ends; interval 0
// probes once.
func (p *upstreamProber) run(ctx context.Context, interval time.Duration) {
	p.probe(ctx)
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.probe(ctx)
		}
	}
}

// ready is the /readyz check: an error while the last probe found the
// upstream down, or before the first one ended. Its text names no address.
func (p *upstreamProber) ready(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.last == nil:
		return errors.New("upstream not probed yet")
	case p.last.Status.Down():
		return fmt.Errorf("upstream %s", p.last.Status)
	}
	return nil
}

// logProbe writes one probe's outcome: what is wrong, loudly, and what
// will happen because of it. The hints name rlm's flags: operators read
// this log, and the flags are what they would change.
func logProbe(log *slog.Logger, url string, res upstream.ProbeResult) {
	attrs := []any{"upstream", url, "status", string(res.Status), "detail", res.Detail, "latency", res.Latency.Round(time.Millisecond)}
	switch res.Status {
	case upstream.ProbeOK:
		log.Info("upstream ok", attrs...)
	case upstream.ProbeNoModelList:
		log.Info("upstream answers but lists no models; model names are not checked", attrs...)
	case upstream.ProbeModelNotListed:
		log.Warn("UPSTREAM DOES NOT LIST A CONFIGURED MODEL: calls to it will likely fail; check --root-model, --sub-model and --models", attrs...)
	case upstream.ProbeAuthFailed:
		log.Warn("UPSTREAM REFUSED THE KEY: every call will fail; check --upstream-key (or OPENAI_API_KEY)", attrs...)
	case upstream.ProbeUnreachable:
		log.Warn("UPSTREAM UNREACHABLE: calls fail until it answers; check --upstream (or OPENAI_BASE_URL)", attrs...)
	default:
		log.Warn("UPSTREAM ERROR: it answered the probe with an error", attrs...)
	}
}
