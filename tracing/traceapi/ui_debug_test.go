package traceapi_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/tracing"
	"github.com/rlm-project/rlm/tracing/tracingtest"
)

// wideAnswer is what child i of the wide run answers: NONE, except three.
func wideAnswer(id string) string {
	switch id {
	case "0.7", "0.42", "0.77":
		return "found: key " + id
	}
	return "NONE"
}

// wideLatency spreads the children's model calls from 100 to 550 ms.
func wideLatency(id string) time.Duration {
	i, _ := strconv.Atoi(strings.TrimPrefix(id, "0."))
	return time.Duration(100+(i%10)*50) * time.Millisecond
}

func evalStr(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	return evalAs[string](t, ctx, expr)
}

func evalBool(t *testing.T, ctx context.Context, expr string) bool {
	t.Helper()
	return evalAs[bool](t, ctx, expr)
}

func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", filepath.Join(dir, name))
}

// open loads url as a fresh page, as a person following a link does.
func open(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
}

func click(t *testing.T, ctx context.Context, css string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(css))); err != nil {
		t.Fatalf("click %s: %v", css, err)
	}
}

// TestViewerDebugging walks the viewer as a person debugging recursion
// trees does, in headless chromium: a run of 100 children (compact timeline,
// a URL per node and sub-call that reloads to the same selection, links
// between a child and its parent's sub-call, find, aggregate), a failed
// run, a live run, an eval run with a wrong answer, compare and feedback.
// Screenshots go to $RLM_ARTIFACTS.
func TestViewerDebugging(t *testing.T) {
	svc := tracing.NewService(tracing.Config{Store: tracingtest.NewMemStore()})
	t0 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	finish := func(info tracing.RunInfo, shape tracingtest.Shape, runErr error) *tracing.Trajectory {
		t.Helper()
		info.Owner, info.Model = "alice", "fake-root"
		run, err := svc.StartRun(t.Context(), info)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := run.Finish(t.Context(), tracingtest.Emit(run.Observer(), shape), runErr)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	wide := finish(tracing.RunInfo{TraceID: "tr_wide", Started: t0, Question: "Which of the 100 parts mention the key?"},
		tracingtest.Shape{Start: t0, Turns: 1, Depth: 1, Fanout: 100, Parallel: true, ChildAnswer: wideAnswer, ChildLatency: wideLatency}, nil)
	if len(wide.Nodes) != 101 {
		t.Fatalf("wide run has %d nodes", len(wide.Nodes))
	}
	finish(tracing.RunInfo{TraceID: "tr_failed", Started: t0.Add(time.Minute)},
		tracingtest.Shape{Start: t0.Add(time.Minute), Turns: 3, Depth: 1, Fanout: 2, Stop: recursion.StopUpstreamError}, errors.New("upstream: 503"))
	// An eval run whose direct answer is wrong; its question tries HTML.
	xss := `<img src=x onerror="document.title='pwned'"> what is the key?`
	evalRun := finish(tracing.RunInfo{TraceID: "tr_eval", Started: t0.Add(2 * time.Minute), Question: xss,
		Metadata: map[string]string{"eval.task": "sniah", "eval.mode": "direct", "eval.tokens": "8192", "eval.gold": "7431"}},
		tracingtest.Shape{Start: t0.Add(2 * time.Minute), Turns: 1}, nil)
	if _, err := svc.Annotate(t.Context(), "alice", evalRun.ID, &tracing.Reward{Score: 0, Label: "eval sniah 8K #0 direct"}, map[string]string{"eval.score": "0"}); err != nil {
		t.Fatal(err)
	}
	// A live run, 3 s in, with its first model call done and 5 children
	// under way.
	liveStart := time.Now().Add(-3 * time.Second)
	live, err := svc.StartRun(t.Context(), tracing.RunInfo{TraceID: "tr_live", Owner: "alice", Model: "fake-root", Started: liveStart, Question: "still thinking?"})
	if err != nil {
		t.Fatal(err)
	}
	obs := live.Observer()
	obs.Observe(recursion.Event{Kind: recursion.EventNodeStart, NodeID: "0", Time: liveStart})
	obs.Observe(recursion.Event{Kind: recursion.EventTurnStart, NodeID: "0", Turn: 1, Time: liveStart})
	obs.Observe(recursion.Event{Kind: recursion.EventModelCall, NodeID: "0", Turn: 1, Time: liveStart.Add(time.Second),
		Model: &recursion.ModelCallEvent{Model: "fake-root", Response: "```go\nrlm_query_batched(parts)\n```", Latency: time.Second,
			Messages: []llm.Message{{Role: "system", Content: "You are an RLM."}, {Role: "user", Content: "still thinking?"}},
			Usage:    llm.Usage{PromptTokens: 1200, CompletionTokens: 34, TotalTokens: 1234}}})
	obs.Observe(recursion.Event{Kind: recursion.EventCellStart, NodeID: "0", Turn: 1, Cell: 1, Time: liveStart.Add(time.Second), CellRun: &recursion.CellEvent{Code: "rlm_query_batched(parts)"}})
	for i := 1; i <= 5; i++ {
		id, child := fmt.Sprintf("sc-live-%d", i), fmt.Sprintf("0.%d", i)
		at := liveStart.Add(time.Second + time.Duration(i)*10*time.Millisecond)
		obs.Observe(recursion.Event{Kind: recursion.EventSubCallStart, NodeID: "0", Turn: 1, Cell: 1, Time: at,
			SubCall: &recursion.SubCallEvent{ID: id, Kind: "rlm", ChildID: child, Prompt: "part " + strconv.Itoa(i)}})
		obs.Observe(recursion.Event{Kind: recursion.EventNodeStart, NodeID: child, ParentID: "0", Depth: 1, Time: at})
	}

	srv := viewerServer(t, svc)
	ctx := browser(t)
	dir := artifactDir(t)
	base := srv.URL + "/ui/"
	if err := chromedp.Do(ctx, chromedp.Navigate(base), chromedp.Evaluate[chromedp.Void](`localStorage.setItem("rlm.key", "k-alice")`)); err != nil {
		t.Fatal(err)
	}

	// The list: question and answer previews, live progress, verdicts.
	open(t, ctx, base)
	waitFor(t, ctx, "the run list", `document.querySelectorAll("#runs tbody tr").length === 4`)
	row := func(id, css string) string {
		return evalStr(t, ctx, fmt.Sprintf(`document.querySelector('#runs tr[data-id=%q] %s').textContent`, id, css))
	}
	if q, a := row("tr_wide", "td.question"), row("tr_wide", "td.answer"); q != "Which of the 100 parts mention the key?" || a != "42" {
		t.Errorf("wide run row: question %q answer %q", q, a)
	}
	if b := row("tr_eval", ".status"); b != "wrong" {
		t.Errorf("a wrong eval answer shows %q, want the verdict wrong", b)
	}
	if q := row("tr_eval", "td.question"); q != xss || evalInt(t, ctx, `document.querySelectorAll("#runs img, #runs script").length`) != 0 {
		t.Errorf("the question is not shown as text: %q", q)
	}
	if d, tok := row("tr_live", "td.duration"), row("tr_live", "td.tokens"); !strings.HasSuffix(d, " s") || tok != "1.2k" {
		t.Errorf("live run listed with duration %q and %q tokens; want its time so far and 1.2k", d, tok)
	}
	first := row("tr_live", "td.duration")
	waitFor(t, ctx, "the live duration to count", fmt.Sprintf(`document.querySelector('#runs tr[data-id="tr_live"] td.duration').textContent !== %q`, first))
	screenshot(t, ctx, dir, "viewer-list.png")

	// The wide run: one collapsed row for 100 children, details beside.
	open(t, ctx, base+"#/runs/tr_wide")
	waitFor(t, ctx, "the wide run", `document.querySelectorAll("#timeline rect.group").length === 1`)
	if n := evalInt(t, ctx, `+document.querySelector("#timeline rect.group").dataset.count`); n != 100 {
		t.Errorf("group of %d calls, want 100", n)
	}
	if h := evalInt(t, ctx, `document.querySelector("#timeline svg").getBoundingClientRect().height`); h > 200 {
		t.Errorf("collapsed timeline of 100 children is %d px tall", h)
	}
	if !evalBool(t, ctx, `(() => { const tl = document.querySelector("#timeline").getBoundingClientRect(), d = document.querySelector("#details").getBoundingClientRect();
		return d.left >= tl.right - 1 && Math.abs(d.top - tl.top) < 5; })()`) {
		t.Error("the details panel is not beside the timeline")
	}
	legend := evalStr(t, ctx, `[...document.querySelectorAll("#legend span.depth")].map((e) => e.textContent).join("|")`)
	if legend != "depth 0: 1 node|depth 1: 100 nodes" {
		t.Errorf("legend %q", legend)
	}
	screenshot(t, ctx, dir, "viewer-wide.png")
	click(t, ctx, "#timeline rect.group")
	waitFor(t, ctx, "the opened group", `document.querySelectorAll("#timeline rect.bar.node").length === 101`)
	if h := evalInt(t, ctx, `document.querySelector("#timeline").getBoundingClientRect().height`); h > 1000 {
		t.Errorf("opened timeline takes %d px of the page; it should scroll in its box", h)
	}
	screenshot(t, ctx, dir, "viewer-wide-open.png")

	// A node's URL reloads to that node, opening its group; the node links
	// to the sub-call that started it, and that sub-call back to it.
	open(t, ctx, base+"#/runs/tr_wide/node/0.42")
	waitFor(t, ctx, "node 0.42 from its URL", `document.querySelector("#details h2") && document.querySelector("#details h2").textContent.startsWith("Node 0.42")`)
	if n := evalInt(t, ctx, `document.querySelectorAll('#timeline rect.bar.node.selected[data-id="0.42"]').length`); n != 1 {
		t.Errorf("node 0.42 is not selected in the timeline (%d)", n)
	}
	if !evalBool(t, ctx, `(() => { const b = document.querySelector("#timeline").getBoundingClientRect(), r = document.querySelector("#timeline rect.bar.selected").getBoundingClientRect();
		return r.top >= b.top && r.bottom <= b.bottom; })()`) {
		t.Error("the selected node is scrolled out of the timeline's view")
	}
	parent := evalStr(t, ctx, `document.querySelector("#details .parent a.call-link").getAttribute("href")`)
	if parent != "#/runs/tr_wide/call/sc-0-1-1-42" {
		t.Errorf("link to the parent sub-call: %q", parent)
	}
	// The system prompt is shown once, folded, not in every node.
	if n := evalInt(t, ctx, `document.querySelectorAll("#details details.sysprompt").length`); n != 1 {
		t.Errorf("%d system prompt blocks", n)
	}
	if s := evalStr(t, ctx, `document.querySelector("#details").innerText`); strings.Contains(s, "You are an RLM") || !strings.Contains(s, "the same in 101 nodes") {
		t.Errorf("system prompt not deduplicated:\n%s", s)
	}
	click(t, ctx, "#details details.sysprompt summary")
	waitFor(t, ctx, "the opened system prompt", `(document.querySelector("#details details.sysprompt pre") || {}).textContent === "You are an RLM. The context is in the REPL variable `+"`context`"+`."`)
	screenshot(t, ctx, dir, "viewer-node.png")
	click(t, ctx, "#details .parent a.call-link")
	waitFor(t, ctx, "the parent sub-call", `location.hash === "#/runs/tr_wide/call/sc-0-1-1-42" && document.querySelector("#details h2").textContent === "Sub-call sc-0-1-1-42"`)
	if n := evalInt(t, ctx, `document.querySelectorAll('#timeline rect.bar.node.selected').length`); n != 0 {
		t.Errorf("a node is still selected after moving to a sub-call")
	}
	click(t, ctx, `#details a.node-link[href$="/node/0.42"]`)
	waitFor(t, ctx, "back to the child", `location.hash === "#/runs/tr_wide/node/0.42" && document.querySelector("#details h2").textContent.startsWith("Node 0.42")`)
	open(t, ctx, base+"#/runs/tr_wide/call/sc-0-1-1-7")
	waitFor(t, ctx, "a sub-call from its URL", `document.querySelector("#details h2") && document.querySelector("#details h2").textContent === "Sub-call sc-0-1-1-7"`)
	if s := evalStr(t, ctx, `document.querySelector("#details").innerText`); !strings.Contains(s, "found: key 0.7") || !strings.Contains(s, "made by node 0") {
		t.Errorf("sub-call details:\n%s", s)
	}

	// The root's bar is split into model time, cell time and waiting.
	open(t, ctx, base+"#/runs/tr_wide/node/0")
	waitFor(t, ctx, "the root", `document.querySelector("#details .split-times") !== null`)
	split := evalStr(t, ctx, `document.querySelector("#details .split-times").textContent`)
	// One 300 ms model call, then a cell that waits on the children
	// (whose starts overlap) but for its last 10 ms.
	wantWait := fmtMS(wide.Nodes[0].DurationMS - 300 - 10)
	if split != "model 300 ms · cell 10 ms · waiting on sub-calls "+wantWait {
		t.Errorf("root time split %q, want model 300 ms, cell 10 ms and waiting %s", split, wantWait)
	}
	for _, seg := range []string{"seg-model", "seg-cell", "seg-wait"} {
		if n := evalInt(t, ctx, fmt.Sprintf(`document.querySelectorAll('#timeline rect.%s[data-node="0"]').length`, seg)); n == 0 {
			t.Errorf("the root's bar has no %s segment", seg)
		}
	}

	// Find: which sub-calls answered something other than NONE?
	open(t, ctx, base+"#/runs/tr_wide?q="+strings.ReplaceAll("kind:rlm -answer=NONE", " ", "%20"))
	waitFor(t, ctx, "the found sub-calls", `document.querySelector("#details .found-count") !== null`)
	found := evalStr(t, ctx, `[...document.querySelectorAll("#details ol.matches li")].map((e) => e.dataset.id).join(",")`)
	if found != "sc-0-1-1-7,sc-0-1-1-42,sc-0-1-1-77" {
		t.Errorf("find kind:rlm -answer=NONE found %q", found)
	}
	if v := evalStr(t, ctx, `document.querySelector("#search").value`); v != "kind:rlm -answer=NONE" {
		t.Errorf("search box shows %q after a reload", v)
	}
	if s := evalStr(t, ctx, `document.querySelector("#timeline .grouplabel").textContent`); !strings.Contains(s, "3 match") {
		t.Errorf("the collapsed group does not count its matches: %q", s)
	}
	// Typing a filter updates the results and the URL.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("#search").value = ""`), chromedp.SendKeys(chromedp.CSS("#search"), "answer:found")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "typed filter", `location.hash === "#/runs/tr_wide?q=answer%3Afound" && document.querySelectorAll("#details ol.matches li").length === 6`)
	screenshot(t, ctx, dir, "viewer-find.png")

	// Aggregate: answers grouped with counts, a latency histogram.
	open(t, ctx, base+"#/runs/tr_wide/aggregate")
	waitFor(t, ctx, "the aggregate", `document.querySelectorAll("#details table.answers tbody tr").length > 0`)
	groups := evalStr(t, ctx, `[...document.querySelectorAll("#details table.answers tbody tr")].map((r) => r.dataset.answer + "=" + r.querySelector(".count").textContent).join("|")`)
	if groups != "NONE=97|found: key 0.42=1|found: key 0.7=1|found: key 0.77=1" {
		t.Errorf("answer groups %q", groups)
	}
	if n := evalInt(t, ctx, `[...document.querySelectorAll("#details svg.histogram rect.hbar")].reduce((a, r) => a + +r.dataset.count, 0)`); n != 100 {
		t.Errorf("histogram counts %d calls, want 100", n)
	}
	if n := evalInt(t, ctx, `document.querySelectorAll("#details svg.histogram rect.hbar").length`); n < 5 {
		t.Errorf("histogram of 10 latencies has %d bins", n)
	}
	screenshot(t, ctx, dir, "viewer-aggregate.png")

	// The failed run: the bar says so, turn ticks stay clear of the labels.
	open(t, ctx, base+"#/runs/tr_failed")
	waitFor(t, ctx, "the failed run", `document.querySelectorAll('#timeline rect.bar.node.failed[data-id="0"]').length === 1`)
	if s := evalStr(t, ctx, `document.querySelector('#summary [data-field="error"]').textContent`); !strings.Contains(s, "503") {
		t.Errorf("failed run's error: %q", s)
	}
	if n := evalInt(t, ctx, `document.querySelectorAll("#timeline rect.tick").length`); n < 3 {
		t.Errorf("%d turn ticks, want at least the root's 3", n)
	}
	if n := evalInt(t, ctx, `(() => {
		const boxes = [...document.querySelectorAll("#timeline .barlabel")].map((e) => e.getBBox());
		let hits = 0;
		for (const tk of document.querySelectorAll("#timeline rect.tick")) {
			const b = tk.getBBox();
			for (const l of boxes) if (b.x < l.x + l.width && l.x < b.x + b.width && b.y < l.y + l.height && l.y < b.y + b.height) hits++;
		}
		return hits;
	})()`); n != 0 {
		t.Errorf("%d turn ticks cover bar labels", n)
	}
	screenshot(t, ctx, dir, "viewer-failed.png")
	// Feedback from the viewer reaches the stored run.
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`#feedback input[name="score"]`), "0.5"),
		chromedp.SendKeys(chromedp.CSS(`#feedback input[name="label"]`), "checked by hand")); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#feedback button")
	waitFor(t, ctx, "feedback saved", `document.querySelector("#feedback-status").textContent === "saved: score 0.5 (checked by hand)"`)
	if tr, err := svc.Archive().Load(t.Context(), "alice", "tr_failed"); err != nil || tr.Reward == nil || tr.Reward.Score != 0.5 || tr.Reward.Label != "checked by hand" {
		t.Errorf("feedback not stored: %+v %v", tr, err)
	}

	// The eval run: task, gold answer, score, and red for a wrong answer.
	open(t, ctx, base+"#/runs/tr_eval")
	waitFor(t, ctx, "the eval run", `!document.querySelector("#eval").hidden`)
	if !evalBool(t, ctx, `document.querySelector("#eval").classList.contains("verdict-wrong") && document.querySelector("#timeline rect.bar.node.wrong") !== null`) {
		t.Error("a wrong eval answer is not marked wrong")
	}
	if s := evalStr(t, ctx, `document.querySelector("#eval").innerText`); !strings.Contains(s, "sniah") || !strings.Contains(s, "7431") || !strings.Contains(s, "wrong") {
		t.Errorf("eval box: %q", s)
	}
	if evalStr(t, ctx, `document.title`) != "rlm traces" || evalInt(t, ctx, `document.querySelectorAll("main img").length`) != 0 {
		t.Error("the run's question was rendered as HTML")
	}

	// The live run: time so far, tokens so far, and it follows the run.
	open(t, ctx, base+"#/runs/tr_live")
	waitFor(t, ctx, "the live run", `document.querySelectorAll("#timeline rect.bar.node.running").length === 6`)
	if s := evalStr(t, ctx, `document.querySelector('#summary [data-field="tokens"]').textContent`); !strings.Contains(s, "1.2k") {
		t.Errorf("live tokens %q", s)
	}
	dur := evalStr(t, ctx, `document.querySelector('#summary [data-field="duration"] .elapsed').textContent`)
	if !strings.HasSuffix(dur, " s") {
		t.Errorf("live duration %q", dur)
	}
	screenshot(t, ctx, dir, "viewer-live.png")
	for i := 1; i <= 5; i++ {
		child, at := fmt.Sprintf("0.%d", i), time.Now()
		obs.Observe(recursion.Event{Kind: recursion.EventNodeEnd, NodeID: child, ParentID: "0", Depth: 1, Time: at,
			End: &recursion.NodeEndEvent{Answer: "NONE", StopReason: recursion.StopFinal}})
		obs.Observe(recursion.Event{Kind: recursion.EventSubCallEnd, NodeID: "0", Turn: 1, Cell: 1, Time: at,
			SubCall: &recursion.SubCallEvent{ID: fmt.Sprintf("sc-live-%d", i), Kind: "rlm", ChildID: child, Response: "NONE"}})
	}
	waitFor(t, ctx, "children finishing live", `document.querySelectorAll("#timeline rect.bar.node.completed").length === 5`)
	if _, err := live.Finish(t.Context(), recursion.Result{StopReason: recursion.StopFinal, Answer: "no key"}, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the end of the live run", `document.querySelector('#summary [data-field="status"] .status').textContent === "completed"`)

	// Compare two runs picked in the list.
	open(t, ctx, base)
	waitFor(t, ctx, "the run list", `document.querySelectorAll("#runs tbody tr").length === 4`)
	click(t, ctx, `#runs input.pick[data-id="tr_wide"]`)
	click(t, ctx, `#runs input.pick[data-id="tr_failed"]`)
	click(t, ctx, "#compare")
	// In the list's order, newest first.
	waitFor(t, ctx, "the comparison", `location.hash === "#/compare/tr_failed/tr_wide" && document.querySelectorAll("#compare-view svg").length === 2`)
	if s := evalStr(t, ctx, `[...document.querySelector('#compare-view tr[data-field="status"]').cells].map((c) => c.textContent).join("|")`); s != "status|failed|completed" {
		t.Errorf("compare status row %q", s)
	}
	if !evalBool(t, ctx, `document.querySelector('#compare-view tr[data-field="nodes"]').classList.contains("differs")`) {
		t.Error("differing node counts are not marked")
	}
	screenshot(t, ctx, dir, "viewer-compare.png")
}

// fmtMS formats milliseconds as the viewer does.
func fmtMS(ms float64) string {
	switch {
	case ms < 1000:
		return strconv.Itoa(int(ms+0.5)) + " ms"
	case ms < 10000:
		return strconv.FormatFloat(ms/1000, 'f', 2, 64) + " s"
	case ms < 60000:
		return strconv.FormatFloat(ms/1000, 'f', 1, 64) + " s"
	}
	return fmt.Sprintf("%dm %ds", int(ms/60000), int(float64(int(ms)%60000)/1000+0.5))
}
