// Package traceapi is recorded runs over HTTP: the trace API a gateway
// serves (list, read, follow live, export, score), the Go client that
// reads it (rlm traces --url), and the web viewer, a page that calls it.
package traceapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/export"
)

// Config configures the HTTP endpoints. Zero fields take the defaults.
type Config struct {
	// KeepAlive is the interval of SSE comment lines on an idle event
	// stream; default 15s.
	KeepAlive time.Duration
	// EventBuffer is how many live notices a slow SSE client may lag
	// behind before it misses some; default 256.
	EventBuffer int
	// MaxLabel bounds a feedback label, in bytes; default 256.
	MaxLabel int
	// Logger gets the details of failures (a store that is down), which
	// clients are not shown; default slog.Default().
	Logger *slog.Logger
}

func (c *Config) setDefaults() {
	if c.KeepAlive <= 0 {
		c.KeepAlive = 15 * time.Second
	}
	if c.EventBuffer <= 0 {
		c.EventBuffer = 256
	}
	if c.MaxLabel <= 0 {
		c.MaxLabel = 256
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// API serves the trace endpoints:
//
//	GET  /v1/traces                 list (filters: since, until, model, stop_reason, status, min_reward; limit, cursor)
//	GET  /v1/traces/export          JSONL samples (format=sft|sft-transcript|chat|trl-messages|trl-prompt-completion|verifiers, same filters)
//	GET  /v1/traces/{id}            the trajectory as JSON, live or stored
//	GET  /v1/traces/{id}/events     server-sent events while the run is live
//	POST /v1/traces/{id}/feedback   {"score": 0.8, "label": "correct"}
//
// Every request acts for one owner, named by the gateway's authentication;
// an owner never sees another's runs (404, as for a missing run).
type API struct {
	svc *tracing.Service
	cfg Config
}

// New returns the endpoints over svc.
func New(svc *tracing.Service, cfg Config) *API {
	cfg.setDefaults()
	return &API{svc: svc, cfg: cfg}
}

// route is one endpoint; path is relative to /v1, in ServeMux syntax.
type route struct {
	method, path string
	h            func(w http.ResponseWriter, r *http.Request, owner, id string)
}

func (a *API) routes() []route {
	return []route{
		{http.MethodGet, "/traces", a.list},
		{http.MethodGet, "/traces/export", a.export},
		{http.MethodGet, "/traces/{id}", a.get},
		{http.MethodGet, "/traces/{id}/events", a.events},
		{http.MethodPost, "/traces/{id}/feedback", a.feedback},
	}
}

// Handler returns the endpoints as a plain http.Handler serving /v1/traces...
// (rlm traces serve), on echo as the gateway's are. owner names the caller
// of a request, or fails (the handler answers 401 with the error's text).
func (a *API) Handler(owner func(*http.Request) (string, error)) http.Handler {
	e := echo.New()
	e.HTTPErrorHandler = func(c *echo.Context, err error) { api.WriteError(c.Response(), c.Request(), api.ErrorOf(err)) }
	const ownerKey = "owner"
	g := e.Group("/v1", func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			o, err := owner(c.Request())
			if err != nil {
				writeError(c.Response(), http.StatusUnauthorized, "invalid_api_key", err.Error())
				return nil
			}
			c.Set(ownerKey, o)
			return next(c)
		}
	})
	a.Register(g, func(c *echo.Context) string { o, _ := c.Get(ownerKey).(string); return o })
	return e
}

// Register adds the endpoints to an echo group mounted at /v1 whose
// middleware has already authenticated the caller; owner reads the caller's
// owner from the echo context.
func (a *API) Register(g *echo.Group, owner func(*echo.Context) string) {
	for _, rt := range a.routes() {
		path := strings.ReplaceAll(rt.path, "{id}", ":id")
		g.Add(rt.method, path, func(c *echo.Context) error {
			rt.h(c.Response(), c.Request(), owner(c), c.Param("id"))
			return nil
		})
	}
}

// writeError answers an error in the OpenAI error format the rest of the
// gateway uses.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	typ := api.TypeInvalidRequest
	switch {
	case status == http.StatusUnauthorized:
		typ = api.TypeAuthentication
	case status >= 500:
		typ = api.TypeServer
	}
	api.WriteError(w, nil, &api.Error{Status: status, Type: typ, Code: code, Message: msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) { api.WriteJSON(w, status, v) }

// internalMessage is all a client learns of a failure of the server
// itself: the error's text can hold store paths and addresses.
const internalMessage = "internal error; details are in the server log"

// fail answers err with the status it calls for. Errors that are not the
// client's are logged, with the trace id when the request names one, and
// answered with internalMessage, as the rest of the gateway does.
func (a *API) fail(w http.ResponseWriter, r *http.Request, id string, err error) {
	switch {
	case errors.Is(err, tracing.ErrNotFound):
		writeError(w, http.StatusNotFound, "trace_not_found", err.Error())
	case errors.Is(err, tracing.ErrInvalid), errors.Is(err, export.ErrFormat):
		writeError(w, http.StatusBadRequest, "invalid_request", err.Error())
	default:
		a.logFailure(r, id, err)
		writeError(w, http.StatusInternalServerError, "internal_error", internalMessage)
	}
}

func (a *API) logFailure(r *http.Request, id string, err error) {
	attrs := []any{"method", r.Method, "path", r.URL.Path, "err", err}
	if id != "" {
		attrs = append(attrs, "trace", id)
	}
	a.cfg.Logger.ErrorContext(r.Context(), "trace API request failed", attrs...)
}

// ParseFilter reads a Filter from query parameters: since and until
// (RFC 3339 or Unix seconds), model, stop_reason, status, min_reward, limit,
// cursor.
func ParseFilter(q map[string][]string) (tracing.Filter, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return strings.TrimSpace(v[0])
		}
		return ""
	}
	var f tracing.Filter
	var err error
	if f.Since, err = parseTime(get("since")); err != nil {
		return f, fmt.Errorf("since: %w", err)
	}
	if f.Until, err = parseTime(get("until")); err != nil {
		return f, fmt.Errorf("until: %w", err)
	}
	f.Model, f.StopReason, f.Status, f.Cursor = get("model"), get("stop_reason"), get("status"), get("cursor")
	if v := get("min_reward"); v != "" {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) {
			return f, fmt.Errorf("min_reward %q: %w", v, tracing.ErrInvalid)
		}
		f.MinReward = &x
	}
	if v := get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > tracing.MaxPageSize {
			return f, fmt.Errorf("limit %q: want 1 to %d: %w", v, tracing.MaxPageSize, tracing.ErrInvalid)
		}
		f.Limit = n
	}
	return f, nil
}

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not RFC 3339, a date or Unix seconds: %w", s, tracing.ErrInvalid)
}

func (a *API) list(w http.ResponseWriter, r *http.Request, owner, id string) {
	f, err := ParseFilter(r.URL.Query())
	if err != nil {
		a.fail(w, r, id, err)
		return
	}
	p, err := a.svc.List(r.Context(), owner, f)
	if err != nil {
		a.fail(w, r, id, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

func (a *API) get(w http.ResponseWriter, r *http.Request, owner, id string) {
	b, err := a.svc.Raw(r.Context(), owner, id)
	if err != nil {
		a.fail(w, r, id, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

func (a *API) feedback(w http.ResponseWriter, r *http.Request, owner, id string) {
	var body struct {
		Score *float64 `json:"score"`
		Label string   `json:"label"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "feedback body: "+err.Error())
		return
	}
	switch {
	case body.Score == nil:
		writeError(w, http.StatusBadRequest, "invalid_request", `feedback needs a numeric "score"`)
		return
	case math.IsNaN(*body.Score) || math.IsInf(*body.Score, 0):
		writeError(w, http.StatusBadRequest, "invalid_request", "score must be finite")
		return
	case len(body.Label) > a.cfg.MaxLabel:
		writeError(w, http.StatusBadRequest, "invalid_request", fmt.Sprintf("label is longer than %d bytes", a.cfg.MaxLabel))
		return
	}
	if run := a.svc.Live(owner, id); run != nil {
		select {
		case <-run.Recorder().Done():
			// Finished, and being saved in the background: the reward
			// goes on the saved record.
			select {
			case <-run.Saved():
			case <-r.Context().Done():
				return
			}
		default:
			writeError(w, http.StatusConflict, "trace_running", "the run is still going; send feedback when it has finished")
			return
		}
	}
	t, err := a.svc.Feedback(r.Context(), owner, id, tracing.Reward{Score: *body.Score, Label: body.Label})
	if err != nil {
		a.fail(w, r, id, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": t.ID, "object": "trace.feedback", "reward": t.Reward})
}

func (a *API) export(w http.ResponseWriter, r *http.Request, owner, id string) {
	q := r.URL.Query()
	f, err := ParseFilter(q)
	if err != nil {
		a.fail(w, r, id, err)
		return
	}
	format := q.Get("format")
	if format == "" {
		format = export.FormatSFT
	}
	if _, err := export.Samples(&tracing.Trajectory{}, format); err != nil {
		a.fail(w, r, id, err)
		return
	}
	// Errors after the first line can only cut the stream short; the
	// trailer says whether it is complete.
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="traces-`+format+`.jsonl"`)
	w.Header().Set("Trailer", "X-Export-Samples, X-Export-Error")
	cw := &countWriter{w: w}
	var st export.Stats
	if arch := a.svc.Archive(); arch != nil { // a Service without a store has no runs to export
		st, err = export.Write(r.Context(), arch, owner, f, format, cw)
	}
	if err != nil && cw.n == 0 {
		// Nothing sent yet: a plain error response is still possible.
		h := w.Header()
		h.Del("Trailer")
		h.Del("Content-Disposition")
		a.fail(w, r, id, err)
		return
	}
	w.Header().Set("X-Export-Samples", strconv.Itoa(st.Samples))
	if err != nil {
		a.logFailure(r, id, err)
		w.Header().Set("X-Export-Error", internalMessage)
	}
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// events streams a live run's progress as server-sent events: one event per
// engine event (event: node_start, model_call, ...; data: a LiveEvent), then
// "end" when the run finishes. For a finished run it sends "end" at once.
func (a *API) events(w http.ResponseWriter, r *http.Request, owner, id string) {
	run := a.svc.Live(owner, id)
	var ch <-chan tracing.LiveEvent
	cancel := func() {}
	if run != nil {
		ch, cancel = run.Recorder().Subscribe(a.cfg.EventBuffer)
	}
	defer cancel()
	if ch == nil {
		// Finished (or never existed): answer from the store.
		b, err := a.svc.Raw(r.Context(), owner, id)
		if err != nil {
			a.fail(w, r, id, err)
			return
		}
		var t struct {
			Status tracing.Status `json:"status"`
		}
		json.Unmarshal(b, &t)
		writeEvent(api.NewEventStream(w), tracing.LiveEvent{Kind: "end", Time: time.Now(), Status: t.Status})
		return
	}
	es := api.NewEventStream(w)
	es.Comment("live")
	tick := time.NewTicker(a.cfg.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			if es.Comment("keep-alive") != nil {
				return
			}
		case ev, ok := <-ch:
			if !ok {
				return
			}
			if writeEvent(es, ev) != nil || ev.Kind == "end" {
				return
			}
		}
	}
}

// writeEvent sends a live event named by its kind.
func writeEvent(es *api.EventStream, ev tracing.LiveEvent) error {
	b, _ := json.Marshal(ev)
	return es.Event(string(ev.Kind), b)
}
