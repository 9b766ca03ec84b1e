// Package spans draws recorded runs as OpenTelemetry spans (request, node,
// turn, model call, cell, sub-call; GenAI semantic conventions) for
// tracing.Config.Spans, continues the W3C trace context of incoming
// requests, and sets up OTLP export from the standard OTEL_* environment.
package spans

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/rlm-project/rlm/internal/clip"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/tracing"
)

// instrumentationName names the tracer of runs' spans. It is the path of
// the package that drew them first, kept so that queries of a tracing
// backend that name it still find them.
const instrumentationName = "github.com/rlm-project/rlm/tracing"

// Config configures the spans of runs.
type Config struct {
	TracerProvider trace.TracerProvider
	// CaptureContent puts prompt and completion text on model-call and
	// sub-call spans (gen_ai.input.messages, gen_ai.output.messages). Off by
	// default: they can be huge and private.
	CaptureContent bool
}

// Attribute keys. The gen_ai.* keys follow the OpenTelemetry GenAI semantic
// conventions; rlm.* are this project's.
const (
	attrOperation     = "gen_ai.operation.name"
	attrProvider      = "gen_ai.provider.name"
	attrRequestModel  = "gen_ai.request.model"
	attrResponseModel = "gen_ai.response.model"
	attrInputTokens   = "gen_ai.usage.input_tokens"
	attrOutputTokens  = "gen_ai.usage.output_tokens"
	attrFinishReasons = "gen_ai.response.finish_reasons"
	attrInputMessages = "gen_ai.input.messages"
	attrOutputMessage = "gen_ai.output.messages"
	attrConversation  = "gen_ai.conversation.id"
	attrTemperature   = "gen_ai.request.temperature"
	attrTopP          = "gen_ai.request.top_p"
	attrMaxTokens     = "gen_ai.request.max_tokens"
	attrTraceID       = "rlm.trace_id"
	attrNodeID        = "rlm.node.id"
	attrParentID      = "rlm.node.parent_id"
	attrDepth         = "rlm.depth"
	attrTurn          = "rlm.turn"
	attrCell          = "rlm.cell"
	attrSubCallID     = "rlm.subcall.id"
	attrSubCallKind   = "rlm.subcall.kind"
	attrChildID       = "rlm.subcall.child_id"
	attrStopReason    = "rlm.stop_reason"
	attrStatus        = "rlm.status"
	attrOutputBytes   = "rlm.cell.output_bytes"
	attrTruncated     = "rlm.cell.truncated"
	attrRestarted     = "rlm.cell.restarted"
	attrLLMCalls      = "rlm.llm_calls"
)

// Extract returns ctx carrying the remote span context of an incoming
// request's W3C traceparent/tracestate (and baggage) headers, so that the
// spans of a run started with it continue the caller's trace. The gateway
// calls it with the HTTP request's headers for each run's context.
func Extract(ctx context.Context, h http.Header) context.Context {
	return propagator.Extract(ctx, propagation.HeaderCarrier(h))
}

var propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// SetupFromEnv builds a tracer provider from the standard OpenTelemetry
// environment variables, read through getenv (os.Getenv in production):
// tracing is on when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set or OTEL_TRACES_EXPORTER=otlp, and
// off when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none.
// OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL picks "grpc" or "http/protobuf" (the
// default). The exporters read endpoint, headers, TLS and timeout variables
// themselves; the SDK reads OTEL_TRACES_SAMPLER[_ARG] and the resource
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (service.name defaults to
// "rlm"). When off it returns a nil provider and a no-op shutdown.
func SetupFromEnv(ctx context.Context, getenv func(string) string) (*sdktrace.TracerProvider, func(context.Context) error, error) {
	noop := func(context.Context) error { return nil }
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return nil, noop, nil
	}
	exp := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")))
	switch exp {
	case "none":
		return nil, noop, nil
	case "", "otlp":
	default:
		return nil, noop, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: only otlp and none are supported", exp)
	}
	if exp == "" && getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return nil, noop, nil
	}
	proto := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	var exporter sdktrace.SpanExporter
	var err error
	switch proto {
	case "", "http/protobuf":
		exporter, err = otlptracehttp.New(ctx)
	case "grpc":
		exporter, err = otlptracegrpc.New(ctx)
	default:
		return nil, noop, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%q: want grpc or http/protobuf", proto)
	}
	if err != nil {
		return nil, noop, fmt.Errorf("otlp exporter (%s): %w", proto, err)
	}
	// resource.Default caches its first result; read the environment now.
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "rlm")),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES override the default
		resource.WithTelemetrySDK(),
	)
	if err != nil {
		return nil, noop, fmt.Errorf("otel resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	return tp, tp.Shutdown, nil
}

// Tracer draws each run as a tree of spans; it is a tracing.Spans, for
// tracing.Config.Spans.
type Tracer struct {
	tracer  trace.Tracer
	content bool
}

// New returns a Tracer under cfg.
func New(cfg Config) *Tracer {
	return &Tracer{tracer: cfg.TracerProvider.Tracer(instrumentationName), content: cfg.CaptureContent}
}

// Start opens the request span of a run, a child of the span ctx carries
// (see Extract), and returns the run's spans.
func (t *Tracer) Start(ctx context.Context, info tracing.RunInfo) tracing.RunSpans {
	return newRunSpans(ctx, t, info)
}

// runSpans turns a run's events into spans: request → node → turn →
// model call / cell → sub-call → child node. Spans get the events' own
// timestamps, so parallel sub-calls overlap as siblings.
type runSpans struct {
	tracer  trace.Tracer
	content bool
	mu      sync.Mutex
	reqCtx  context.Context
	req     trace.Span
	nodes   map[string]spanRef // node ID
	turns   map[string]spanRef // node ID -> its open turn
	cells   map[string]spanRef // node/turn/cell
	subs    map[string]spanRef // sub-call ID
	childOf map[string]string  // child node ID -> sub-call ID
	ended   bool
}

type spanRef struct {
	ctx  context.Context
	span trace.Span
}

func newRunSpans(ctx context.Context, t *Tracer, info tracing.RunInfo) *runSpans {
	o := &runSpans{
		tracer:  t.tracer,
		content: t.content,
		nodes:   map[string]spanRef{}, turns: map[string]spanRef{}, cells: map[string]spanRef{},
		subs: map[string]spanRef{}, childOf: map[string]string{},
	}
	attrs := []attribute.KeyValue{
		attribute.String(attrTraceID, info.TraceID),
		attribute.String(attrRequestModel, info.Model),
		attribute.String(attrConversation, info.TraceID),
	}
	if s := info.Sampling; s.Temperature != nil {
		attrs = append(attrs, attribute.Float64(attrTemperature, *s.Temperature))
	}
	if s := info.Sampling; s.TopP != nil {
		attrs = append(attrs, attribute.Float64(attrTopP, *s.TopP))
	}
	if s := info.Sampling; s.MaxTokens != nil {
		attrs = append(attrs, attribute.Int(attrMaxTokens, *s.MaxTokens))
	}
	o.reqCtx, o.req = o.tracer.Start(ctx, "rlm.request",
		trace.WithTimestamp(info.Started), trace.WithAttributes(attrs...), trace.WithSpanKind(trace.SpanKindInternal))
	return o
}

func cellKey(node string, turn, cell int) string {
	return node + "/" + strconv.Itoa(turn) + "/" + strconv.Itoa(cell)
}

func (o *runSpans) Observe(ev recursion.Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	at := trace.WithTimestamp(ev.Time)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return
	}
	switch ev.Kind {
	case recursion.EventNodeStart:
		parent := o.reqCtx
		if id, ok := o.childOf[ev.NodeID]; ok {
			parent = o.subs[id].ctx
		} else if p, ok := o.nodes[ev.ParentID]; ok {
			parent = p.ctx
		}
		ctx, span := o.tracer.Start(parent, "rlm.node "+ev.NodeID, at, trace.WithAttributes(
			attribute.String(attrNodeID, ev.NodeID), attribute.String(attrParentID, ev.ParentID), attribute.Int(attrDepth, ev.Depth)))
		o.nodes[ev.NodeID] = spanRef{ctx, span}
	case recursion.EventTurnStart:
		o.endTurn(ev.NodeID, ev.Time)
		ctx, span := o.tracer.Start(o.nodeCtx(ev.NodeID), "rlm.turn", at, trace.WithAttributes(
			attribute.String(attrNodeID, ev.NodeID), attribute.Int(attrDepth, ev.Depth), attribute.Int(attrTurn, ev.Turn)))
		o.turns[ev.NodeID] = spanRef{ctx, span}
	case recursion.EventModelCall:
		if ev.Model != nil {
			o.modelCall(ev)
		}
	case recursion.EventCellStart:
		parent := o.nodeCtx(ev.NodeID)
		if t, ok := o.turns[ev.NodeID]; ok {
			parent = t.ctx
		}
		ctx, span := o.tracer.Start(parent, "rlm.cell", at, trace.WithAttributes(
			attribute.String(attrNodeID, ev.NodeID), attribute.Int(attrDepth, ev.Depth), attribute.Int(attrTurn, ev.Turn), attribute.Int(attrCell, ev.Cell)))
		o.cells[cellKey(ev.NodeID, ev.Turn, ev.Cell)] = spanRef{ctx, span}
	case recursion.EventCellEnd:
		k := cellKey(ev.NodeID, ev.Turn, ev.Cell)
		ref, ok := o.cells[k]
		if !ok {
			return
		}
		delete(o.cells, k)
		if c := ev.CellRun; c != nil {
			ref.span.SetAttributes(attribute.Int(attrOutputBytes, c.OutputBytes), attribute.Bool(attrTruncated, c.Truncated),
				attribute.Bool(attrRestarted, c.Restarted))
			if c.Error != "" {
				ref.span.SetStatus(codes.Error, firstLine(c.Error))
			}
		}
		ref.span.End(at)
	case recursion.EventSubCallStart:
		if ev.SubCall == nil {
			return
		}
		o.subCallStart(ev)
	case recursion.EventSubCallEnd:
		sc := ev.SubCall
		if sc == nil {
			return
		}
		ref, ok := o.subs[sc.ID]
		if !ok {
			// Never saw its start: draw it from its duration.
			ev.Time = ev.Time.Add(-sc.Duration)
			o.subCallStart(ev)
			ev.Time = ev.Time.Add(sc.Duration)
			ref = o.subs[sc.ID]
		}
		delete(o.subs, sc.ID)
		if ev.Model != nil {
			o.chatSpan(ref.ctx, ev)
		}
		if sc.Fallback {
			ref.span.SetAttributes(attribute.Bool("rlm.subcall.fallback", true))
		}
		ref.span.SetAttributes(attribute.Int(attrInputTokens, sc.Usage.PromptTokens), attribute.Int(attrOutputTokens, sc.Usage.CompletionTokens))
		if sc.ChildID != "" {
			ref.span.SetAttributes(attribute.String(attrChildID, sc.ChildID))
		}
		if o.content {
			ref.span.SetAttributes(attribute.String(attrOutputMessage, outputMessages(sc.Response, "")))
		}
		if sc.Err != "" {
			ref.span.SetStatus(codes.Error, firstLine(sc.Err))
		}
		ref.span.End(trace.WithTimestamp(ev.Time))
	case recursion.EventNodeEnd:
		o.endTurn(ev.NodeID, ev.Time)
		ref, ok := o.nodes[ev.NodeID]
		if !ok {
			return
		}
		delete(o.nodes, ev.NodeID)
		if e := ev.End; e != nil {
			ref.span.SetAttributes(attribute.String(attrStopReason, string(e.StopReason)),
				attribute.Int(attrInputTokens, e.Usage.PromptTokens), attribute.Int(attrOutputTokens, e.Usage.CompletionTokens))
			if st := tracing.StatusFor(e.StopReason, ""); st == tracing.StatusFailed || st == tracing.StatusCancelled {
				ref.span.SetStatus(codes.Error, string(e.StopReason))
			}
		}
		ref.span.End(at)
	}
}

func (o *runSpans) nodeCtx(id string) context.Context {
	if n, ok := o.nodes[id]; ok {
		return n.ctx
	}
	return o.reqCtx
}

func (o *runSpans) endTurn(node string, at time.Time) {
	if t, ok := o.turns[node]; ok {
		delete(o.turns, node)
		t.span.End(trace.WithTimestamp(at))
	}
}

func (o *runSpans) subCallStart(ev recursion.Event) {
	sc := ev.SubCall
	parent := o.nodeCtx(ev.NodeID)
	if c, ok := o.cells[cellKey(ev.NodeID, ev.Turn, ev.Cell)]; ok {
		parent = c.ctx
	}
	name := "rlm.llm_query"
	if sc.Kind == "rlm" {
		name = "rlm.rlm_query"
	}
	attrs := []attribute.KeyValue{
		attribute.String(attrSubCallID, sc.ID), attribute.String(attrSubCallKind, sc.Kind),
		attribute.String(attrNodeID, ev.NodeID), attribute.Int(attrDepth, ev.Depth+1),
		attribute.Int(attrTurn, ev.Turn), attribute.Int(attrCell, ev.Cell),
	}
	if o.content {
		attrs = append(attrs, attribute.String(attrInputMessages, inputMessages([]llm.Message{{Role: "user", Content: sc.Prompt}})))
	}
	ctx, span := o.tracer.Start(parent, name, trace.WithTimestamp(ev.Time), trace.WithAttributes(attrs...))
	o.subs[sc.ID] = spanRef{ctx, span}
	if sc.ChildID != "" {
		o.childOf[sc.ChildID] = sc.ID
	}
}

func (o *runSpans) modelCall(ev recursion.Event) {
	parent := o.nodeCtx(ev.NodeID)
	if t, ok := o.turns[ev.NodeID]; ok {
		parent = t.ctx
	}
	o.chatSpan(parent, ev)
}

// chatSpan draws one finished model call, ending at the event's time.
func (o *runSpans) chatSpan(parent context.Context, ev recursion.Event) {
	m := ev.Model
	depth := ev.Depth
	if ev.Kind == recursion.EventSubCallEnd {
		depth++ // an llm_query's call is one level below the node that made it
	}
	attrs := []attribute.KeyValue{
		attribute.String(attrOperation, "chat"),
		attribute.String(attrProvider, "openai"),
		attribute.String(attrRequestModel, m.Model),
		attribute.Int(attrInputTokens, m.Usage.PromptTokens),
		attribute.Int(attrOutputTokens, m.Usage.CompletionTokens),
		attribute.String(attrNodeID, ev.NodeID),
		attribute.Int(attrDepth, depth),
		attribute.Int(attrTurn, ev.Turn),
	}
	if m.FinishReason != "" {
		attrs = append(attrs, attribute.StringSlice(attrFinishReasons, []string{m.FinishReason}))
	}
	if m.ResponseModel != "" {
		attrs = append(attrs, attribute.String(attrResponseModel, m.ResponseModel))
	}
	if o.content {
		attrs = append(attrs, attribute.String(attrInputMessages, inputMessages(m.Messages)),
			attribute.String(attrOutputMessage, outputMessages(m.Response, m.FinishReason)))
	}
	_, span := o.tracer.Start(parent, "chat "+m.Model, trace.WithTimestamp(ev.Time.Add(-m.Latency)),
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	if m.Err != "" {
		span.SetStatus(codes.Error, firstLine(m.Err))
	}
	span.End(trace.WithTimestamp(ev.Time))
}

// Finish ends every span still open (a run cut short) at the run's end and
// closes the request span with the outcome.
func (o *runSpans) Finish(t *tracing.Trajectory) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return
	}
	o.ended = true
	at := trace.WithTimestamp(t.Ended)
	for _, m := range []map[string]spanRef{o.subs, o.cells, o.turns, o.nodes} {
		for _, ref := range m {
			ref.span.SetAttributes(attribute.String(attrStatus, string(t.Status)))
			ref.span.End(at)
		}
	}
	o.req.SetAttributes(
		attribute.String(attrStatus, string(t.Status)),
		attribute.String(attrStopReason, string(t.StopReason)),
		attribute.Int(attrInputTokens, t.Used.Usage.PromptTokens),
		attribute.Int(attrOutputTokens, t.Used.Usage.CompletionTokens),
		attribute.Int(attrLLMCalls, t.Used.LLMCalls),
	)
	if t.Status == tracing.StatusFailed || t.Status == tracing.StatusCancelled {
		msg := t.Error
		if msg == "" {
			msg = string(t.StopReason)
		}
		o.req.SetStatus(codes.Error, firstLine(msg))
	}
	o.req.End(at)
}

// inputMessages encodes messages in the GenAI conventions' JSON shape.
func inputMessages(ms []llm.Message) string {
	type part struct {
		Type    string `json:"type"`
		Content string `json:"content"`
	}
	type msg struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	out := make([]msg, len(ms))
	for i, m := range ms {
		out[i] = msg{Role: m.Role, Parts: []part{{Type: "text", Content: m.Content}}}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func outputMessages(text, finish string) string {
	b, _ := json.Marshal([]map[string]any{{
		"role": "assistant", "finish_reason": finish,
		"parts": []map[string]string{{"type": "text", "content": text}},
	}})
	return string(b)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return clip.Head(s, 200)
}
