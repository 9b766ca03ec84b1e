package server

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/rlm-project/rlm/recursion"
)

// metrics are the server's Prometheus series, on a registry of their own so
// that two servers in one process (tests) never share counters.
type metrics struct {
	reg          *prometheus.Registry
	requests     *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	errors       *prometheus.CounterVec
	runs         *prometheus.CounterVec
	runsInFlight prometheus.Gauge
	iterations   prometheus.Histogram
	llmCalls     prometheus.Histogram
	subCalls     *prometheus.CounterVec
	tokens       *prometheus.CounterVec
	replSessions prometheus.Gauge
	dropped      prometheus.Counter
	documents    *prometheus.CounterVec
	connsDropped *prometheus.CounterVec
	orphans      prometheus.Counter
}

// newMetrics builds the series; workers, when not nil, is read at each
// scrape for rlm_repl_workers; extra are registered as they are.
func newMetrics(workers WorkerCounter, extra ...prometheus.Collector) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlm_http_requests_total", Help: "HTTP requests by method, route and status code.",
		}, []string{"method", "route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "rlm_http_request_duration_seconds", Help: "HTTP request latency by method and route.",
			Buckets: []float64{.005, .025, .1, .5, 1, 2.5, 5, 15, 30, 60, 120, 300, 900},
		}, []string{"method", "route"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlm_errors_total", Help: "Error responses by kind (invalid_request, auth, not_found, too_large, rate_limit, cancelled, timeout, upstream, not_configured, store, quota, internal).",
		}, []string{"kind"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlm_runs_total", Help: "Finished RLM runs by stop reason.",
		}, []string{"stop_reason"}),
		runsInFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rlm_runs_in_flight", Help: "RLM runs executing now.",
		}),
		iterations: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "rlm_run_iterations", Help: "Root turns per run.", Buckets: prometheus.LinearBuckets(1, 2, 15),
		}),
		llmCalls: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "rlm_run_llm_calls", Help: "Model calls per run, whole tree.", Buckets: prometheus.ExponentialBuckets(1, 2, 12),
		}),
		subCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlm_subcalls_total", Help: "Finished llm_query / rlm_query sub-calls by kind.",
		}, []string{"kind"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlm_tokens_total", Help: "Tokens used by runs, by type (prompt, completion).",
		}, []string{"type"}),
		replSessions: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rlm_repl_sessions", Help: "RLM nodes alive now; each holds one REPL worker session.",
		}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rlm_stream_events_dropped_total", Help: "Progress events not streamed because the client read too slowly.",
		}),
		documents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlm_documents_read_total", Help: "Attached files read for their text, by result: text, HTML or PDF when read, else the refusal's code.",
		}, []string{"result"}),
		connsDropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlm_http_connections_dropped_total", Help: "Client connections closed by the connection limits, by reason: per_client (over --max-conns-per-client, answered 429) or evicted (the oldest connection without a request under way, closed to make room under --max-conns).",
		}, []string{"reason"}),
		orphans: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rlm_orphaned_runs_total", Help: "Stored runs of a server that stopped under them (crash, kill), recorded as interrupted by this one's sweep.",
		}),
	}
	m.reg.MustRegister(m.orphans)
	m.reg.MustRegister(m.requests, m.latency, m.errors, m.runs, m.runsInFlight, m.iterations, m.llmCalls,
		m.subCalls, m.tokens, m.replSessions, m.dropped, m.documents, m.connsDropped,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(extra...)
	if workers != nil {
		// Read at scrape time: the pool is the one place that knows how
		// many processes are alive, including idle ones no run holds.
		for _, st := range []struct {
			state string
			get   func() int
		}{
			{"idle", func() int { idle, _ := workers.Workers(); return idle }},
			{"busy", func() int { _, busy := workers.Workers(); return busy }},
		} {
			m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "rlm_repl_workers", Help: "REPL worker processes alive now, by state (idle: ready for a session; busy: serving one).",
				ConstLabels: prometheus.Labels{"state": st.state},
			}, func() float64 { return float64(st.get()) }))
		}
	}
	return m
}

// recordRun counts a finished run: its stop reason, turns, model calls and
// tokens.
func (m *metrics) recordRun(res recursion.Result) {
	m.runs.WithLabelValues(string(res.StopReason)).Inc()
	m.iterations.Observe(float64(res.Iterations))
	m.llmCalls.Observe(float64(res.LLMCalls))
	m.tokens.WithLabelValues("prompt").Add(float64(res.Usage.PromptTokens))
	m.tokens.WithLabelValues("completion").Add(float64(res.Usage.CompletionTokens))
}
