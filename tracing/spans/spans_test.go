package spans_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/spans"
	"github.com/rlm-project/rlm/tracing/tracingtest"
)

// runSpans records the spans of a synthetic run of shape s.
func runSpans(t *testing.T, ctx context.Context, s tracingtest.Shape, content bool) []sdktrace.ReadOnlySpan {
	t.Helper()
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	svc := tracing.NewService(tracing.Config{Spans: spans.New(spans.Config{TracerProvider: tp, CaptureContent: content})})
	run, err := svc.StartRun(ctx, tracing.RunInfo{Owner: "alice", Model: "fake-root", Started: time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	res := tracingtest.Emit(run.Observer(), s)
	if _, err := run.Finish(ctx, res, nil); err != nil {
		t.Fatal(err)
	}
	return sr.Ended()
}

func attrOf(s sdktrace.ReadOnlySpan, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// TestSpanTreeParallelDepth2 checks the span tree of a run whose root starts
// parallel rlm_query children that start parallel children of their own.
func TestSpanTreeParallelDepth2(t *testing.T) {
	shape := tracingtest.Shape{Turns: 2, Depth: 2, Fanout: 2, LLMPerCell: 3, Parallel: true}
	ended := runSpans(t, t.Context(), shape, false)
	want := shape.Expect()
	byID := map[string]sdktrace.ReadOnlySpan{}
	count := map[string]int{}
	for _, s := range ended {
		byID[s.SpanContext().SpanID().String()] = s
		count[strings.Fields(s.Name())[0]]++
	}
	parent := func(s sdktrace.ReadOnlySpan) sdktrace.ReadOnlySpan { return byID[s.Parent().SpanID().String()] }
	name := func(s sdktrace.ReadOnlySpan) string {
		if s == nil {
			return "<none>"
		}
		return strings.Fields(s.Name())[0]
	}
	wantCounts := map[string]int{
		"rlm.request": 1, "rlm.node": want.Nodes, "rlm.cell": want.Cells, "chat": want.ModelCalls,
		"rlm.rlm_query": 2*2 + 4*2, // root: 2 turns × 2; each of 4 depth-1 children: 1 turn × 2
	}
	wantCounts["rlm.llm_query"] = want.SubCalls - wantCounts["rlm.rlm_query"]
	for k, v := range wantCounts {
		if count[k] != v {
			t.Errorf("%d %s spans, want %d (all: %v)", count[k], k, v, count)
		}
	}
	traceID := ended[0].SpanContext().TraceID()
	for _, s := range ended {
		if s.SpanContext().TraceID() != traceID {
			t.Fatalf("span %s in another trace", s.Name())
		}
		if s.EndTime().Before(s.StartTime()) {
			t.Errorf("span %s ends before it starts", s.Name())
		}
		p := parent(s)
		wantParent := map[string][]string{
			"rlm.node":      {"rlm.request", "rlm.rlm_query"},
			"rlm.turn":      {"rlm.node"},
			"rlm.cell":      {"rlm.turn"},
			"rlm.rlm_query": {"rlm.cell"},
			"rlm.llm_query": {"rlm.cell"},
			"chat":          {"rlm.turn", "rlm.llm_query"},
		}[name(s)]
		if wantParent != nil && !contains(wantParent, name(p)) {
			t.Errorf("%s is under %s, want one of %v", s.Name(), name(p), wantParent)
		}
		if p != nil && (s.StartTime().Before(p.StartTime()) || s.EndTime().After(p.EndTime())) {
			t.Errorf("%s [%v, %v] is outside its parent %s [%v, %v]", s.Name(), s.StartTime(), s.EndTime(), p.Name(), p.StartTime(), p.EndTime())
		}
		if name(s) == "rlm.node" {
			d, _ := attrOf(s, "rlm.depth")
			id, _ := attrOf(s, "rlm.node.id")
			if int(d.AsInt64()) != strings.Count(id.AsString(), ".") {
				t.Errorf("node %s has depth %d", id.AsString(), d.AsInt64())
			}
			// A child node hangs under the rlm_query that started it.
			if d.AsInt64() > 0 {
				child, _ := attrOf(p, "rlm.subcall.child_id")
				if child.AsString() != id.AsString() {
					t.Errorf("node %s under sub-call for %q", id.AsString(), child.AsString())
				}
			}
		}
	}
	// Sibling sub-calls of one cell overlap in time: they ran in parallel.
	siblings := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range ended {
		if n := name(s); n == "rlm.rlm_query" || n == "rlm.llm_query" {
			siblings[s.Parent().SpanID().String()] = append(siblings[s.Parent().SpanID().String()], s)
		}
	}
	depth2 := 0
	for _, group := range siblings {
		if len(group) < 2 {
			t.Errorf("a cell has %d sub-calls", len(group))
			continue
		}
		a, b := group[0], group[1]
		if !a.StartTime().Before(b.EndTime()) || !b.StartTime().Before(a.EndTime()) {
			t.Errorf("siblings %s and %s do not overlap", a.Name(), b.Name())
		}
		if d, _ := attrOf(a, "rlm.depth"); d.AsInt64() == 3 {
			depth2++ // llm_query calls made by depth-2 nodes
		}
	}
	if depth2 != 8 {
		t.Errorf("%d depth-2 cells with parallel sub-calls, want 8", depth2)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestModelCallAttributes(t *testing.T) {
	for _, content := range []bool{false, true} {
		ended := runSpans(t, t.Context(), tracingtest.Shape{Turns: 1}, content)
		var chat sdktrace.ReadOnlySpan
		for _, s := range ended {
			if strings.HasPrefix(s.Name(), "chat ") {
				chat = s
			}
		}
		if chat == nil {
			t.Fatal("no model-call span")
		}
		wants := map[string]string{
			"gen_ai.operation.name":      "chat",
			"gen_ai.request.model":       "fake-root",
			"gen_ai.response.model":      "fake-root-2026-11-01",
			"gen_ai.usage.input_tokens":  "100",
			"gen_ai.usage.output_tokens": "20",
		}
		if fr, _ := attrOf(chat, "gen_ai.response.finish_reasons"); fmt.Sprint(fr.AsStringSlice()) != "[stop]" {
			t.Errorf("finish reasons = %v", fr.AsStringSlice())
		}
		for k, v := range wants {
			got, ok := attrOf(chat, k)
			if !ok || got.Emit() != v {
				t.Errorf("%s = %q, want %q", k, got.Emit(), v)
			}
		}
		if d := chat.EndTime().Sub(chat.StartTime()); d != 300*time.Millisecond {
			t.Errorf("model-call span lasts %v, want the call's latency", d)
		}
		in, hasIn := attrOf(chat, "gen_ai.input.messages")
		_, hasOut := attrOf(chat, "gen_ai.output.messages")
		if hasIn != content || hasOut != content {
			t.Errorf("content capture %v: input %v output %v", content, hasIn, hasOut)
		}
		if content && !strings.Contains(in.AsString(), "Answer the question") {
			t.Errorf("input messages = %s", in.AsString())
		}
	}
}

// TestTraceparentContinued checks that a run continues the trace of an
// incoming W3C traceparent header.
func TestTraceparentContinued(t *testing.T) {
	h := http.Header{}
	h.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	ended := runSpans(t, spans.Extract(t.Context(), h), tracingtest.Shape{Turns: 1}, false)
	for _, s := range ended {
		if got := s.SpanContext().TraceID().String(); got != "4bf92f3577b34da6a3ce929d0e0e4736" {
			t.Fatalf("span %s in trace %s", s.Name(), got)
		}
		if s.Name() == "rlm.request" {
			if s.Parent().SpanID().String() != "00f067aa0ba902b7" || !s.Parent().IsRemote() {
				t.Errorf("request span's parent = %v", s.Parent())
			}
		}
	}
}

// TestSetupFromEnvOff checks that tracing stays off unless configured.
func TestSetupFromEnvOff(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		on      bool
		wantErr bool
	}{
		{"nothing set", map[string]string{}, false, false},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true, false},
		{"disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_SDK_DISABLED": "true"}, false, false},
		{"exporter none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_TRACES_EXPORTER": "none"}, false, false},
		{"bad protocol", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "carrier-pigeon"}, false, true},
		{"bad exporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp, shutdown, err := spans.SetupFromEnv(t.Context(), func(k string) string { return tc.env[k] })
			if (err != nil) != tc.wantErr || (tp != nil) != tc.on {
				t.Errorf("provider %v, err %v", tp != nil, err)
			}
			shutdown(t.Context())
		})
	}
}

// collector is a minimal OTLP receiver (HTTP and gRPC) that keeps the spans
// it is sent.
type collector struct {
	coltracepb.UnimplementedTraceServiceServer
	mu      sync.Mutex
	spans   []string
	service string
}

func (c *collector) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.Key == "service.name" {
				c.service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				c.spans = append(c.spans, s.Name)
			}
		}
	}
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/traces" {
		http.NotFound(w, r)
		return
	}
	b, err := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(b, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp, _ := c.Export(r.Context(), &req)
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// TestOTLPExport sends a run's spans to a real OTLP receiver over HTTP and
// gRPC, configured from the standard environment variables.
func TestOTLPExport(t *testing.T) {
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			col := &collector{}
			var endpoint string
			if protocol == "grpc" {
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				srv := grpc.NewServer()
				coltracepb.RegisterTraceServiceServer(srv, col)
				go srv.Serve(l)
				t.Cleanup(srv.Stop)
				endpoint = "http://" + l.Addr().String()
			} else {
				srv := httptest.NewServer(col)
				t.Cleanup(srv.Close)
				endpoint = srv.URL
			}
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
			t.Setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
			t.Setenv("OTEL_SERVICE_NAME", "rlm-test")
			t.Setenv("OTEL_TRACES_SAMPLER", "always_on")
			tp, shutdown, err := spans.SetupFromEnv(t.Context(), func(k string) string { return envLookup(k) })
			if err != nil || tp == nil {
				t.Fatalf("setup: %v", err)
			}
			svc := tracing.NewService(tracing.Config{Spans: spans.New(spans.Config{TracerProvider: tp})})
			run, err := svc.StartRun(t.Context(), tracing.RunInfo{Owner: "alice", Model: "fake-root"})
			if err != nil {
				t.Fatal(err)
			}
			res := tracingtest.Emit(run.Observer(), tracingtest.Shape{Turns: 1, Depth: 1, Fanout: 2, Parallel: true})
			if _, err := run.Finish(t.Context(), res, nil); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if err := shutdown(ctx); err != nil {
				t.Fatalf("flush: %v", err)
			}
			col.mu.Lock()
			defer col.mu.Unlock()
			if col.service != "rlm-test" {
				t.Errorf("service.name = %q", col.service)
			}
			got := strings.Join(col.spans, ",")
			for _, want := range []string{"rlm.request", "rlm.node 0", "rlm.node 0.1", "rlm.node 0.2", "rlm.rlm_query", "chat fake-root"} {
				if !strings.Contains(got, want) {
					t.Errorf("receiver lacks %s in %s", want, got)
				}
			}
		})
	}
}

func envLookup(k string) string { return os.Getenv(k) }
