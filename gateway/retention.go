package gateway

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rlm-project/rlm/server"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/store/retention"
	"github.com/rlm-project/rlm/tracing"
)

// RetentionConfig bounds what the store keeps: sweeps delete records past
// their age and the oldest past the total, and each trace saved first
// makes room in its owner's share. Zero fields mean no bound. The quotas
// of files and stored completions are the server's (server.Quota).
type RetentionConfig struct {
	// Interval is the time between sweeps, the first at New; 0: none.
	Interval time.Duration
	// MaxBytes bounds traces and stored completions of every owner
	// together.
	MaxBytes int64
	// The ages past which records are deleted.
	FileMaxAge, CompletionMaxAge, TraceMaxAge time.Duration
	// TraceOwnerBytes and TraceOwnerItems bound one owner's traces.
	TraceOwnerBytes, TraceOwnerItems int64
}

// storeRetention keeps the gateway's store within its RetentionConfig: a
// sweep every Interval, and room made in an owner's share of traces before
// each trace is saved.
type storeRetention struct {
	sweeper  retention.Sweeper
	interval time.Duration
	traces   retention.Policy
	// ledger counts each owner's traces, so that a save need not walk them.
	ledger *retention.Ledger
	log    *slog.Logger

	deleted      *prometheus.CounterVec
	deletedBytes *prometheus.CounterVec
	kept         *prometheus.GaugeVec
	failures     prometheus.Counter
}

func newRetention(c RetentionConfig, st store.Store, log *slog.Logger) *storeRetention {
	files, completions := server.RecordKinds(st)
	r := &storeRetention{
		interval: c.Interval,
		log:      log,
		traces: retention.Policy{Kind: traceKind(st), Rules: retention.Rules{MaxAge: c.TraceMaxAge,
			OwnerBytes: c.TraceOwnerBytes, OwnerItems: c.TraceOwnerItems, Shared: true}},
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
	r.sweeper = retention.Sweeper{Store: st, MaxBytes: c.MaxBytes, Logger: log, Deleted: r.count,
		Policies: []retention.Policy{
			{Kind: files, Rules: retention.Rules{MaxAge: c.FileMaxAge}},
			{Kind: completions, Rules: retention.Rules{MaxAge: c.CompletionMaxAge, Shared: true}},
			// Responses are kept as long as stored completions.
			{Kind: server.ResponseKind(st), Rules: retention.Rules{MaxAge: c.CompletionMaxAge, Shared: true}},
			r.traces,
		}}
	return r
}

// traceKind is the traces in st as retention sees them: a trajectory and
// the summary that lists it.
func traceKind(st store.Store) retention.Kind {
	archive := tracing.NewArchive(st)
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

// run sweeps now and every interval until ctx is done; it returns at once
// when there is no interval.
func (r *storeRetention) run(ctx context.Context) {
	if r.interval <= 0 {
		return
	}
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
