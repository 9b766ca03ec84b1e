package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rlm-project/rlm/server"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/store/retention"
	"github.com/rlm-project/rlm/tracing"
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
		return fmt.Errorf("quota-trace-bytes %s: must be at least max-trace-bytes %s (or 0)", formatSize(c.QuotaTraceBytes), formatSize(c.TraceBytes))
	}
	return nil
}

// quota is the server's per-key quota from the settings.
func (c *config) quota() server.Quota {
	return server.Quota{FileBytes: c.QuotaFileBytes, Files: int64(c.QuotaFiles),
		CompletionBytes: c.QuotaCompletionBytes, Completions: int64(c.QuotaCompletions)}
}

// storeRetention keeps the gateway's store within the retention and quota
// settings: a sweep every --retention-interval, and room made in a key's
// share of traces before each trace is saved.
type storeRetention struct {
	sweeper  retention.Sweeper
	interval time.Duration
	traces   retention.Policy
	// ledger counts each key's traces, so that a save need not walk them.
	ledger *retention.Ledger
	log    *slog.Logger

	deleted      *prometheus.CounterVec
	deletedBytes *prometheus.CounterVec
	kept         *prometheus.GaugeVec
	failures     prometheus.Counter
}

func newRetention(c *config, st store.Store, log *slog.Logger) *storeRetention {
	files, completions := server.RecordKinds(st)
	r := &storeRetention{
		interval: c.RetentionInterval,
		log:      log,
		traces: retention.Policy{Kind: traceKind(st), Rules: retention.Rules{MaxAge: c.TraceMaxAge,
			OwnerBytes: c.QuotaTraceBytes, OwnerItems: int64(c.QuotaTraces), Shared: true}},
		deleted: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rlm_retention_deleted_total",
			Help: "Records deleted by retention, by kind (files, completions, traces) and reason (age, size, owner_quota, debris)."},
			[]string{"kind", "reason"}),
		deletedBytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rlm_retention_deleted_bytes_total",
			Help: "Bytes of the records deleted by retention, by kind."}, []string{"kind"}),
		kept: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rlm_retention_kept_bytes",
			Help: "Bytes of the records in the store after the last sweep, by kind."}, []string{"kind"}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{Name: "rlm_retention_sweep_failures_total",
			Help: "Sweeps of the store that failed in part (details in the log)."}),
	}
	r.ledger = &retention.Ledger{Store: st, Kind: r.traces.Kind}
	r.sweeper = retention.Sweeper{Store: st, MaxBytes: c.RetentionMaxBytes, Logger: log, Deleted: r.count,
		Policies: []retention.Policy{
			{Kind: files, Rules: retention.Rules{MaxAge: c.FileMaxAge}},
			{Kind: completions, Rules: retention.Rules{MaxAge: c.CompletionMaxAge, Shared: true}},
			r.traces,
		}}
	return r
}

// traceKind is the traces in st as retention sees them: a trajectory and
// the summary that lists it.
func traceKind(st store.Store) retention.Kind {
	archive := tracing.NewArchive(st, func(err error) bool { return errors.Is(err, store.ErrNotFound) })
	return retention.Kind{
		Name:  "traces",
		Colls: []string{tracing.Collection},
		Item: func(_, key string) (string, string, bool, bool) {
			return tracing.ParseKey(key)
		},
		Delete: func(ctx context.Context, owner, id string) error {
			err := archive.Delete(ctx, owner, id)
			if errors.Is(err, tracing.ErrNotFound) {
				return nil // a summary without its trajectory: gone now
			}
			return err
		},
	}
}

func (r *storeRetention) count(kind, reason string, bytes int64) {
	r.deleted.WithLabelValues(kind, reason).Inc()
	r.deletedBytes.WithLabelValues(kind).Add(float64(bytes))
}

func (r *storeRetention) collectors() []prometheus.Collector {
	return []prometheus.Collector{r.deleted, r.deletedBytes, r.kept, r.failures}
}

// beforeSave makes room in the owner's share of traces for one of n bytes
// (tracing.Config.BeforeSave).
func (r *storeRetention) beforeSave(ctx context.Context, owner, id string, n int64) error {
	deleted, err := r.ledger.Trim(ctx, r.traces, owner, id, n)
	if deleted > 0 {
		r.deleted.WithLabelValues("traces", retention.ReasonOwner).Add(float64(deleted))
	}
	return err
}

// start sweeps now and every interval until ctx is done or the returned
// stop is called, which waits for a sweep under way.
func (r *storeRetention) start(ctx context.Context) (stop func()) {
	if r.interval <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(r.interval)
		defer tick.Stop()
		for {
			r.sweep(ctx)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}

func (r *storeRetention) sweep(ctx context.Context) {
	rep, err := r.sweeper.Sweep(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		r.failures.Inc()
		r.log.Error("sweeping the store", "err", err)
	}
	for kind, n := range rep.Kept {
		r.kept.WithLabelValues(kind).Set(float64(n))
	}
}
