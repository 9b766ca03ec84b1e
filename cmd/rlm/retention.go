package main

import (
	"fmt"
	"time"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/gateway"
	"github.com/rlm-project/rlm/server"
)

// minRunLease bounds --run-lease from below: a lease is renewed every third
// of it, and a store round trip must fit in that with room to spare.
const minRunLease = time.Second

// checkRetention refuses retention and quota settings that cannot be
// enforced.
func (c *config) checkRetention() error {
	if c.RunLease < minRunLease {
		return fmt.Errorf("run-lease %v: must be at least %v", c.RunLease, minRunLease)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"retention-interval", c.RetentionInterval}, {"trace-max-age", c.TraceMaxAge},
		{"completion-max-age", c.CompletionMaxAge}, {"file-max-age", c.FileMaxAge}} {
		if d.v < 0 {
			return fmt.Errorf("%s %v: must not be negative (0: none)", d.name, d.v)
		}
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"quota-files", c.QuotaFiles}, {"quota-completions", c.QuotaCompletions}, {"quota-traces", c.QuotaTraces}} {
		if n.v < 0 {
			return fmt.Errorf("%s %d: must not be negative (0: no quota)", n.name, n.v)
		}
	}
	// A trace as large as the cap allows must fit in a key's share, or
	// it could never be saved.
	if c.QuotaTraceBytes > 0 && c.QuotaTraceBytes < c.TraceBytes {
		return fmt.Errorf("quota-trace-bytes %s: must be at least max-trace-bytes %s (or 0)", cli.FormatSize(c.QuotaTraceBytes), cli.FormatSize(c.TraceBytes))
	}
	return nil
}

// quota is the server's per-key quota from the settings.
func (c *config) quota() server.Quota {
	return server.Quota{FileBytes: c.QuotaFileBytes, Files: int64(c.QuotaFiles),
		CompletionBytes: c.QuotaCompletionBytes, Completions: int64(c.QuotaCompletions)}
}

// retention is the gateway's retention from the settings.
func (c *config) retention() gateway.RetentionConfig {
	return gateway.RetentionConfig{Interval: c.RetentionInterval, MaxBytes: c.RetentionMaxBytes,
		FileMaxAge: c.FileMaxAge, CompletionMaxAge: c.CompletionMaxAge, TraceMaxAge: c.TraceMaxAge,
		TraceOwnerBytes: c.QuotaTraceBytes, TraceOwnerItems: int64(c.QuotaTraces)}
}
