package traceapi_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rlm-project/rlm/internal/browsertest"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/traceapi"
	"github.com/rlm-project/rlm/tracing/tracingtest"
)

// artifactDir is where screenshots go: $RLM_ARTIFACTS (kept by CI) or a
// temporary directory.
func artifactDir(t *testing.T) string { return browsertest.ArtifactDir(t) }

// browser starts headless Debian chromium with a fresh profile. It skips the
// test when chromium is missing, unless CI=true.
func browser(t *testing.T) context.Context { return browsertest.Start(t, 1280, 1000) }

// viewerServer serves the viewer and the API the way `rlm serve` does.
func viewerServer(t *testing.T, svc *tracing.Service) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("/v1/", traceapi.New(svc, traceapi.Config{KeepAlive: time.Second}).Handler(ownerOf))
	mux.Handle("/ui/", traceapi.UIHandler())
	mux.Handle("/ui", traceapi.UIHandler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// evalAs evaluates a JavaScript expression in the page.
func evalAs[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

func evalInt(t *testing.T, ctx context.Context, expr string) int {
	t.Helper()
	return evalAs[int](t, ctx, expr)
}

// waitFor polls a JavaScript predicate in the page.
func waitFor(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		msg, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#message").textContent`))
		t.Fatalf("waiting for %s (%s): %v; page message: %q", what, expr, err, msg)
	}
}

// TestViewerBrowser loads recorded runs in headless chromium: the run list,
// the recursion timeline with one bar per node and per llm_query, a click
// into a node, a screenshot, and live updates of a run in progress.
func TestViewerBrowser(t *testing.T) {
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	t0 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	shape := tracingtest.Shape{Start: t0, Turns: 3, Depth: 2, Fanout: 2, LLMPerCell: 3, Parallel: true, ToolCalls: 2}
	run, err := svc.StartRun(t.Context(), tracing.RunInfo{TraceID: "tr_view", Owner: "alice", Model: "fake-root", Started: t0})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := run.Finish(t.Context(), tracingtest.Emit(run.Observer(), shape), nil)
	if err != nil {
		t.Fatal(err)
	}
	tracingtest.SaveRun(t, svc, "alice", "tr_other", t0.Add(-time.Hour), recursion.StopMaxIterations, "fake-root")
	tracingtest.SaveRun(t, svc, "bob", "tr_bobs", t0, recursion.StopFinal, "fake-root")
	srv := viewerServer(t, svc)
	ctx := browser(t)
	dir := artifactDir(t)

	// Assets come from the binary, with the right types.
	for path, typ := range map[string]string{"/ui/": "text/html", "/ui/app.js": "javascript", "/ui/style.css": "text/css"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Type"), typ) {
			t.Errorf("%s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}

	if err := chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/ui/"),
		chromedp.Evaluate[chromedp.Void](`localStorage.setItem("rlm.key", "k-alice")`),
		chromedp.Reload(),
	); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the run list", `document.querySelectorAll("#runs tbody tr").length === 2`)
	if key, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#key").value`)); key != "k-alice" {
		t.Errorf("key field shows %q", key)
	}
	if n := evalInt(t, ctx, `document.querySelectorAll('#runs tbody tr[data-id="tr_bobs"]').length`); n != 0 {
		t.Error("alice's viewer lists bob's run")
	}
	listPNG, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "viewer-list.png"), listPNG, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#runs tbody tr[data-id="tr_view"]`))); err != nil {
		t.Fatal(err)
	}
	want := shape.Expect()
	llm := 0
	for _, n := range tr.Nodes {
		for _, tu := range n.Turns {
			for _, c := range tu.Cells {
				for _, sc := range c.SubCalls {
					if sc.Kind == "llm" {
						llm++
					}
				}
			}
		}
	}
	waitFor(t, ctx, "the timeline", `document.querySelectorAll("#timeline rect.bar.node").length > 0`)
	if n := evalInt(t, ctx, `document.querySelectorAll("#timeline rect.bar.node").length`); n != want.Nodes {
		t.Errorf("timeline has %d node bars, want %d", n, want.Nodes)
	}
	if n := evalInt(t, ctx, `document.querySelectorAll("#timeline rect.bar.subcall").length`); n != llm {
		t.Errorf("timeline has %d sub-call bars, want %d", n, llm)
	}
	// Parallel llm_query calls of one cell sit side by side: same start,
	// different rows.
	if n := evalInt(t, ctx, `(() => {
		const bars = [...document.querySelectorAll("#timeline rect.bar.subcall")];
		const byX = new Map();
		for (const b of bars) { const k = Math.round(+b.getAttribute("x")); byX.set(k, new Set([...(byX.get(k) || []), b.getAttribute("y")])); }
		return Math.max(...[...byX.values()].map((s) => s.size));
	})()`); n < 2 {
		t.Errorf("parallel sub-calls are not side by side (max %d rows at one start)", n)
	}
	// Deeper nodes get another color.
	if n := evalInt(t, ctx, `new Set([...document.querySelectorAll("#timeline rect.bar.node")].map((r) => r.getAttribute("fill"))).size`); n != 3 {
		t.Errorf("%d node colors for 3 depths", n)
	}

	// Click a depth-1 node: its turns, cells and sub-calls show.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#timeline rect.bar.node[data-id="0.1"]`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the node's details", `document.querySelector("#details h2") && document.querySelector("#details h2").textContent.startsWith("Node 0.1")`)
	for expr, want := range map[string]int{
		`document.querySelectorAll("#details details.turn").length`:       1,
		`document.querySelectorAll("#details .cell").length`:              1,
		`document.querySelectorAll("#details .cell .subcall").length`:     2, // rlm_query ×2 to depth 2
		`document.querySelectorAll("#details pre.code").length`:           1,
		`document.querySelectorAll("#timeline rect.bar.selected").length`: 1,
	} {
		if n := evalInt(t, ctx, expr); n != want {
			t.Errorf("%s = %d, want %d", expr, n, want)
		}
	}
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#details").innerText`))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Prompt from parent", "Summarize part 1", "FINAL", "rlm_query"} {
		if !strings.Contains(text, s) {
			t.Errorf("details lack %q", s)
		}
	}

	// The root's first cell called the client's tool twice and waited 2 s.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#timeline rect.bar.node[data-id="0"]`))); err != nil {
		t.Fatal(err)
	}
	// The heading's own text, "Node 0": the node selected before, "Node
	// 0.1", starts the same way, and the count below would read its cells.
	waitFor(t, ctx, "the root's details", `document.querySelector("#details h2") && document.querySelector("#details h2").firstChild.textContent === "Node 0"`)
	if n := evalInt(t, ctx, `document.querySelectorAll('#details .cell .toolcall').length`); n != 2 {
		t.Errorf("the root's cells show %d client tool calls, want 2", n)
	}
	text, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#details").innerText + document.querySelector("#summary").innerText`))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"get_weather", `{"city":"City 2"}`, "sunny, 21 °C", "answered by the client in 2.00 s", "1 pause · waited 2.00 s"} {
		if !strings.Contains(text, s) {
			t.Errorf("the root's details and the summary lack %q", s)
		}
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "viewer-run.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)

	// A failed run: the root's bar says so, and so does the summary.
	failed, err := svc.StartRun(t.Context(), tracing.RunInfo{TraceID: "tr_failed", Owner: "alice", Model: "fake-root", Started: t0})
	if err != nil {
		t.Fatal(err)
	}
	fres := tracingtest.Emit(failed.Observer(), tracingtest.Shape{Start: t0, Turns: 2, Depth: 1, Fanout: 2, Stop: recursion.StopUpstreamError})
	if _, err := failed.Finish(t.Context(), fres, errors.New("upstream: 503")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/ui/#/runs/tr_failed")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the failed run", `document.querySelectorAll('#timeline rect.bar.node.failed[data-id="0"]').length === 1`)
	if n := evalInt(t, ctx, `document.querySelectorAll("#timeline rect.bar.node.completed").length`); n != 2 {
		t.Errorf("%d completed children in the failed run, want 2", n)
	}

	// A run in progress: the viewer follows it over SSE.
	live, err := svc.StartRun(t.Context(), tracing.RunInfo{TraceID: "tr_live", Owner: "alice", Model: "fake-root"})
	if err != nil {
		t.Fatal(err)
	}
	live.Observer().Observe(recursion.Event{Kind: recursion.EventNodeStart, NodeID: "0", Time: time.Now()})
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/ui/#/runs/tr_live")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the live run", `document.querySelectorAll("#timeline rect.bar.node.running").length === 1`)
	liveShape := tracingtest.Shape{Start: time.Now(), Turns: 1, Depth: 1, Fanout: 3}
	res := tracingtest.Emit(live.Observer(), liveShape)
	waitFor(t, ctx, "live children", `document.querySelectorAll("#timeline rect.bar.node").length === 4`)
	if _, err := live.Finish(t.Context(), res, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the end of the live run", `[...document.querySelectorAll("#summary .status")].some((e) => e.textContent === "completed")`)
}

// TestUIRedirects: / and /ui lead to the viewer at /ui/.
func TestUIRedirects(t *testing.T) {
	h := traceapi.UIHandler()
	for path, code := range map[string]int{"/": http.StatusFound, "/ui": http.StatusMovedPermanently} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != code || w.Header().Get("Location") != "/ui/" {
			t.Errorf("GET %s: %d to %q, want %d to /ui/", path, w.Code, w.Header().Get("Location"), code)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/ui/", nil))
	if w.Code != 200 || !strings.Contains(w.Body.String(), "<title>rlm traces</title>") {
		t.Errorf("GET /ui/: %d", w.Code)
	}
}
