package recursion

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/recursion/upstream"
	"github.com/rlm-project/rlm/repl"
)

// These tests drive the engine against fakellm, a scripted fake upstream
// over real HTTP (not a model), and funcSandbox, a fake REPL whose cells are
// Go functions. realrepl_test.go runs the same method on the real REPL.

func code(name string) string { return fakellm.Code(name) }

func TestFinalPaths(t *testing.T) {
	long := strings.Repeat("haystack ", 3000) // 27,000 chars: offloaded
	cells := map[string]func(*cellEnv) repl.CellResult{
		"look": func(env *cellEnv) repl.CellResult {
			return repl.CellResult{Output: fmt.Sprintf("%d\n", len(env.context))}
		},
		"answer": func(env *cellEnv) repl.CellResult { return repl.CellResult{Final: final("42")} },
		"set":    func(env *cellEnv) repl.CellResult { env.vars["ans"] = "from var"; return repl.CellResult{} },
		"lookAndAnswer": func(env *cellEnv) repl.CellResult {
			return repl.CellResult{Final: final(fmt.Sprint(strings.Count(env.context, "haystack")))}
		},
	}
	tests := []struct {
		name      string
		input     string
		replies   []string
		want      string
		wantTurns int
		wantInLog string // a message the engine must have sent back
	}{
		{"final in code", long, []string{code("look // context"), code("answer")}, "42", 2, ""},
		{"final after looking in the same cell", long, []string{code("lookAndAnswer // context")}, "", 1, ""},
		{"bare FINAL line", long, []string{code("look // context"), "I know it.\nFINAL(\"the answer\")"}, "the answer", 2, ""},
		{"FINAL_VAR line", long, []string{code("look\n// context"), code("set"), "FINAL_VAR(ans)"}, "from var", 3, ""},
		{"nudge when neither code nor final", "short question", []string{"I think it is 7.", "FINAL(7)"}, "7", 2, "no ```go code block"},
		{"turn-1 safeguard refuses once", long, []string{"FINAL(guess)", code("look // context"), "FINAL(checked)"}, "checked", 3, "FINAL refused"},
		{"safeguard gives in the second time", long, []string{"FINAL(guess)", "FINAL(guess again)"}, "guess again", 2, "FINAL refused"},
		{"no safeguard without offload", "short", []string{"FINAL(quick)"}, "quick", 1, ""},
		// Code is never an answer: a FINAL line of Go code is run, and
		// when it fails the model is told so.
		{"FINAL line of code is run", long, []string{code("look // context"), "FINAL(fmt.Sprint(n))", "FINAL(\"7\")"}, "7", 3, "is Go code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{}}
			for k, v := range cells {
				sb.cells[k] = v
			}
			sb.cells["look\n// context"] = cells["look"]
			sb.cells["look // context"] = cells["look"]
			sb.cells["lookAndAnswer // context"] = cells["lookAndAnswer"]
			e, srv := testEngine(t, sb, rootScript(tt.replies, nil), Config{})
			res, err := e.Run(t.Context(), Request{Messages: userMsg(tt.input)})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == "" {
				want = "3000"
			}
			if res.StopReason != StopFinal || res.Answer != want || res.Iterations != tt.wantTurns {
				t.Fatalf("got answer %q stop %s after %d turns (%s); want %q final after %d", res.Answer, res.StopReason, res.Iterations, res.Error, want, tt.wantTurns)
			}
			reqs := srv.Requests()
			if tt.wantInLog != "" {
				found := false
				for _, m := range reqs[len(reqs)-1].Messages {
					found = found || m.Role == "user" && strings.Contains(m.Content, tt.wantInLog)
				}
				if !found {
					t.Errorf("no message containing %q was sent back", tt.wantInLog)
				}
			}
			if sb.openSessions() != 0 {
				t.Errorf("%d sessions left open", sb.openSessions())
			}
		})
	}
}

func TestTranscriptIsAppendOnly(t *testing.T) {
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"a": func(*cellEnv) repl.CellResult { return repl.CellResult{Output: "one\n"} },
		"b": func(*cellEnv) repl.CellResult { return repl.CellResult{Output: "two\n", Error: "boom at line 2"} },
		"c": func(*cellEnv) repl.CellResult { return repl.CellResult{Final: final("done")} },
	}}
	e, srv := testEngine(t, sb, rootScript([]string{code("a") + "\nand\n" + code("b"), code("c")}, nil), Config{})
	res, err := e.Run(t.Context(), Request{Messages: userMsg("q")})
	if err != nil || res.Answer != "done" {
		t.Fatalf("run: %v %+v", err, res)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first, second := reqs[0].Messages, reqs[1].Messages
	for i := range first {
		if first[i] != second[i] {
			t.Fatalf("message %d was rewritten between turns", i)
		}
	}
	fb := second[len(second)-1].Content
	for _, want := range []string{"Cell 1:\none", "Cell 2:\ntwo", "Error: boom at line 2"} {
		if !strings.Contains(fb, want) {
			t.Errorf("feedback %q lacks %q", fb, want)
		}
	}
	if second[0].Role != "system" || second[0].Content != SystemPrompt() {
		t.Error("first message is not the system prompt")
	}
}

func TestOffloadPlaceholdersAndDocuments(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "report.txt")
	docText := "DOC-HEAD " + strings.Repeat("x", 50_000) + " DOC-TAIL"
	if err := os.WriteFile(doc, []byte(docText), 0o600); err != nil {
		t.Fatal(err)
	}
	long := "LONG-HEAD " + strings.Repeat("é", 20_000) + " LONG-TAIL"
	var seen *cellEnv
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"inspect // context": func(env *cellEnv) repl.CellResult { seen = env; return repl.CellResult{Final: final("ok")} },
	}}
	tmp := t.TempDir()
	e, srv := testEngine(t, sb, rootScript([]string{code("inspect // context")}, nil), Config{TempDir: tmp})
	res, err := e.Run(t.Context(), Request{
		Messages:  []llm.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: long}, {Role: "user", Content: "Which year?"}},
		Documents: []Document{{Name: "report.txt", Path: doc}},
	})
	if err != nil || res.StopReason != StopFinal {
		t.Fatalf("run: %v %+v", err, res)
	}
	if len(seen.contexts) != 2 || seen.contexts[0] != long || seen.contexts[1] != docText {
		t.Fatalf("contexts = %d pieces, want the long message then the document", len(seen.contexts))
	}
	view := srv.Requests()[0].Messages[1].Content
	for _, want := range []string{"contexts[0]", "message 2 (user)", "20020 chars", "LONG-HEAD", "LONG-TAIL",
		"contexts[1]", `document "report.txt"`, "DOC-HEAD", "DOC-TAIL", "Which year?", "be brief"} {
		if !strings.Contains(view, want) {
			t.Errorf("root view lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, strings.Repeat("x", 1000)) {
		t.Error("root view contains the document body")
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
}

// TestOffloadDocumentParts: a document split into parts (a PDF's pages)
// becomes one contexts[i] per part, in order, after the pieces before it,
// with one placeholder for all of them.
func TestOffloadDocumentParts(t *testing.T) {
	dir := t.TempDir()
	pages := []string{"PAGE-ONE first page", "", "PAGE-THREE third page " + strings.Repeat("y", 2000)}
	var file strings.Builder
	var parts []DocumentPart
	for i, p := range pages {
		start := int64(file.Len())
		file.WriteString(p)
		parts = append(parts, DocumentPart{Label: fmt.Sprintf("page %d", i+1), Start: start, End: int64(file.Len())})
		file.WriteString("\f") // between parts: in the file, in no piece
	}
	doc := filepath.Join(dir, "book.pdf.txt")
	if err := os.WriteFile(doc, []byte(file.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(plain, []byte("NOTES"), 0o600); err != nil {
		t.Fatal(err)
	}
	var seen *cellEnv
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"inspect // context": func(env *cellEnv) repl.CellResult { seen = env; return repl.CellResult{Final: final("ok")} },
	}}
	e, srv := testEngine(t, sb, rootScript([]string{code("inspect // context")}, nil), Config{TempDir: t.TempDir()})
	res, err := e.Run(t.Context(), Request{
		Messages:  userMsg("What is on page three?"),
		Documents: []Document{{Name: "notes.txt", Path: plain}, {Name: "book.pdf", Path: doc, Parts: parts}},
	})
	if err != nil || res.StopReason != StopFinal {
		t.Fatalf("run: %v %+v", err, res)
	}
	want := append([]string{"NOTES"}, pages...)
	if !slices.Equal(seen.contexts, want) {
		t.Fatalf("contexts = %q, want %q", seen.contexts, want)
	}
	view := srv.Requests()[0].Messages[1].Content
	for _, w := range []string{"contexts[0]", `document "notes.txt"`, `contexts[1..3], document "book.pdf", 3 parts (page 1 to page 3)`,
		"head of page 1: \"PAGE-ONE", "tail of page 3:", "4 part(s) of the input"} {
		if !strings.Contains(view, w) {
			t.Errorf("root view lacks %q:\n%s", w, view)
		}
	}
}

func TestInvalidRequests(t *testing.T) {
	sb := &funcSandbox{}
	e, _ := testEngine(t, sb, rootScript([]string{"FINAL(x)"}, nil), Config{Models: map[string]string{"rlm": "root-model"}})
	tests := []struct {
		name string
		req  Request
	}{
		{"empty", Request{}},
		{"unknown model", Request{Messages: userMsg("q"), Model: "gpt-nope"}},
		{"unknown sub model", Request{Messages: userMsg("q"), Limits: Limits{SubModel: "nope"}}},
		{"missing document", Request{Documents: []Document{{Name: "a", Path: "/nonexistent/a.txt"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := e.Run(t.Context(), tt.req); err == nil {
				t.Fatal("no error")
			}
		})
	}
	if _, err := New(Config{}); err == nil {
		t.Error("New accepted an empty config")
	}
}

func TestLimitsClampedToMaxima(t *testing.T) {
	e, err := New(Config{Root: &upstream.Client{}, RootModel: "m", Sandbox: &funcSandbox{},
		Defaults: Limits{MaxIterations: 10},
		Max:      Limits{MaxIterations: 20, MaxLLMCalls: 50, Timeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in, want Limits
	}{
		{Limits{}, Limits{MaxDepth: 1, MaxIterations: 10, MaxLLMCalls: 50, MaxTotalTokens: 5_000_000, Timeout: time.Minute, OffloadThreshold: 16_000, Concurrency: 16, MaxFailedTurns: 3}},
		{Limits{MaxIterations: 99, MaxLLMCalls: 7, MaxDepth: -1, Timeout: time.Hour, MaxFailedTurns: 8}, Limits{MaxDepth: 0, MaxIterations: 20, MaxLLMCalls: 7, MaxTotalTokens: 5_000_000, Timeout: time.Minute, OffloadThreshold: 16_000, Concurrency: 16, MaxFailedTurns: 8}},
	}
	for _, tt := range tests {
		if got := e.Limits(tt.in); got != tt.want {
			t.Errorf("Limits(%+v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestMaxDepthRootAlone checks that a negative Max.MaxDepth is a maximum
// of the root alone, whatever depth the request or the defaults ask for,
// while a zero Max.MaxDepth still means no maximum.
func TestMaxDepthRootAlone(t *testing.T) {
	tests := []struct {
		name               string
		defaults, max, req int
		want               int
	}{
		{"max root alone, request deeper", 0, -1, 3, 0},
		{"max root alone, request default", 0, -1, 0, 0},
		{"max root alone, defaults deeper", 2, -1, 0, 0},
		{"max root alone, request root alone", 0, -1, -1, 0},
		{"no maximum", 0, 0, 5, 5},
		{"max 2 clamps", 0, 2, 5, 2},
		{"defaults root alone", -1, 3, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := New(Config{Root: &upstream.Client{}, RootModel: "m", Sandbox: &funcSandbox{},
				Defaults: Limits{MaxDepth: tt.defaults}, Max: Limits{MaxDepth: tt.max}})
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Limits(Limits{MaxDepth: tt.req}).MaxDepth; got != tt.want {
				t.Errorf("MaxDepth %d, want %d", got, tt.want)
			}
		})
	}
}

func TestStopReasons(t *testing.T) {
	looping := code("spin // context") // never finishes
	long := strings.Repeat("needle hay ", 2000)
	tests := []struct {
		name        string
		limits      Limits
		replies     []string
		opts        []fakellm.Option
		cancelAfter time.Duration
		cellDelay   time.Duration
		want        StopReason
		wantAnswer  string
	}{
		{"max iterations then answer-now turn", Limits{MaxIterations: 3},
			[]string{"Partial thought.\n" + looping, "Still looking.\n" + looping, looping, "FINAL(best guess)"}, nil, 0, 0,
			StopMaxIterations, "No answer: the run stopped (max_iterations: *) before FINAL; told to answer at once, the model answered: best guess"},
		{"max iterations then FINAL_VAR", Limits{MaxIterations: 2},
			[]string{code("keep // context"), looping, "FINAL_VAR(best)"}, nil, 0, 0,
			StopMaxIterations, "No answer: the run stopped (max_iterations: *) before FINAL; told to answer at once, the model answered: kept"},
		{"budget calls: last substantive response", Limits{MaxLLMCalls: 2},
			[]string{"Counting lines.\n" + looping, "Almost there.\n" + looping}, nil, 0, 0,
			StopBudgetCalls, "No answer: the run stopped (budget_calls: *) before FINAL; the model's last words: Almost there."},
		{"budget tokens", Limits{MaxTotalTokens: 9000},
			[]string{"Reading.\n" + looping}, nil, 0, 0,
			StopBudgetTokens, "No answer: the run stopped (budget_tokens: *) before FINAL; the model's last words: Reading."},
		{"timeout", Limits{Timeout: 300 * time.Millisecond},
			[]string{"Scanning.\n" + looping}, nil, 0, 100 * time.Millisecond,
			StopTimeout, "No answer: the run stopped (timeout: *) before FINAL; the model's last words: Scanning."},
		{"cancelled", Limits{},
			[]string{"Working.\n" + looping}, nil, 250 * time.Millisecond, 100 * time.Millisecond,
			StopCancelled, "No answer: the run stopped (cancelled: *) before FINAL; the model's last words: Working."},
		{"upstream error", Limits{},
			[]string{"x"}, []fakellm.Option{fakellm.WithFailures(1000, http.StatusBadGateway, "")}, 0, 0,
			StopUpstreamError, "No answer: the run stopped (upstream_error: *) before FINAL; no cell had printed anything yet."},
		// Code is never an answer, nor is prose the model wrote on the way:
		// the answer is one line saying what stopped the run and what the
		// model last said, or the last cell printed.
		{"budget calls, code only", Limits{MaxLLMCalls: 2},
			[]string{looping, looping}, nil, 0, 0,
			StopBudgetCalls, "No answer: the run stopped (budget_calls: *) before FINAL; the last cell printed: nothing yet"},
		{"cancelled, code only", Limits{},
			[]string{looping}, nil, 250 * time.Millisecond, 100 * time.Millisecond,
			StopCancelled, "No answer: the run stopped (cancelled: *) before FINAL; the last cell printed: nothing yet"},
		{"max iterations, answer-now turn writes FINAL in a cell", Limits{MaxIterations: 1},
			[]string{code("keep // context"), code("FINAL(best)")}, nil, 0, 0,
			StopMaxIterations, "No answer: the run stopped (max_iterations: *) before FINAL; told to answer at once, the model answered: kept"},
		{"max iterations, answer-now turn writes code", Limits{MaxIterations: 1},
			[]string{"Found two candidates.\n" + looping, looping}, nil, 0, 0,
			StopMaxIterations, "No answer: the run stopped (max_iterations: *) before FINAL; the model's last words: Found two candidates."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
				"keep // context": func(env *cellEnv) repl.CellResult { env.vars["best"] = "kept"; return repl.CellResult{} },
				"spin // context": func(env *cellEnv) repl.CellResult {
					select {
					case <-time.After(tt.cellDelay):
					case <-env.ctx.Done():
					}
					return repl.CellResult{Output: "nothing yet\n"}
				},
			}}
			e, _ := testEngine(t, sb, rootScript(tt.replies, nil), Config{}, tt.opts...)
			ctx := t.Context()
			if tt.cancelAfter > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.cancelAfter)
				defer cancel()
			}
			rec := &recorder{}
			res, err := e.Run(ctx, Request{Messages: userMsg(long + "\nWhere is the needle?"), Limits: tt.limits, Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			if res.StopReason != tt.want || !matchStar(tt.wantAnswer, res.Answer) {
				t.Fatalf("got %s %q (%s), want %s %q", res.StopReason, res.Answer, res.Error, tt.want, tt.wantAnswer)
			}
			if strings.Contains(res.Answer, "```") {
				t.Errorf("partial answer holds code: %q", res.Answer)
			}
			if res.Error == "" {
				t.Error("no error text for a stop without FINAL")
			}
			evs := rec.all()
			last := evs[len(evs)-1]
			if last.Kind != EventNodeEnd || last.End.StopReason != tt.want {
				t.Errorf("last event %+v, want node_end %s", last, tt.want)
			}
			if sb.openSessions() != 0 {
				t.Errorf("%d sessions left open", sb.openSessions())
			}
		})
	}
}

func TestUpstreamFailureNamesUpstream(t *testing.T) {
	sb := &funcSandbox{}
	e, srv := testEngine(t, sb, func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Status: http.StatusServiceUnavailable} }, Config{})
	res, err := e.Run(t.Context(), Request{Messages: userMsg("q")})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopUpstreamError || !strings.Contains(res.Error, "upstream fake failed after 5 attempt(s)") || !strings.Contains(res.Error, "503") {
		t.Fatalf("got %s: %s", res.StopReason, res.Error)
	}
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("%d attempts, want 1 + 4 retries", n)
	}
}

func TestBudgetReservationUnderConcurrency(t *testing.T) {
	var inFlight, maxInFlight atomic.Int64
	script := func(req fakellm.Request) fakellm.Reply {
		if req.Model == "sub-model" {
			n := inFlight.Add(1)
			for {
				m := maxInFlight.Load()
				if n <= m || maxInFlight.CompareAndSwap(m, n) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
			inFlight.Add(-1)
			return fakellm.Reply{Content: "ok"}
		}
		if req.Turn() == 1 {
			return fakellm.Reply{Content: code("fan")}
		}
		return fakellm.Reply{Content: "FINAL(done)"}
	}
	var answers []string
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"fan": func(env *cellEnv) repl.CellResult {
			prompts := make([]string, 100)
			for i := range prompts {
				prompts[i] = fmt.Sprintf("item %d", i)
			}
			// 100 calls of one prompt at once, as goroutines of model code
			// make them: a batch of 100 would be refused whole.
			answers = make([]string, len(prompts))
			var wg sync.WaitGroup
			for i, p := range prompts {
				wg.Go(func() { answers[i] = env.host.LLMQuery(env.ctx, []string{p})[0] })
			}
			wg.Wait()
			return repl.CellResult{Output: "fanned out\n"}
		},
	}}
	e, srv := testEngine(t, sb, script, Config{})
	// 41 calls: one root turn, then 40 sub-calls of the 100 fit; the
	// second root turn finds the budget spent.
	res, err := e.Run(t.Context(), Request{Messages: userMsg("q"), Limits: Limits{MaxLLMCalls: 41, Concurrency: 100}})
	if err != nil {
		t.Fatal(err)
	}
	ok, refused := 0, 0
	for _, a := range answers {
		switch {
		case a == "ok":
			ok++
		case matchStar("error: budget exhausted: 41/41 LLM calls; left: 0 calls, * tokens, *s of time", a):
			refused++
		default:
			t.Fatalf("unexpected answer %q", a)
		}
	}
	subs := 0
	for _, r := range srv.Requests() {
		if r.Model == "sub-model" {
			subs++
		}
	}
	if ok != 40 || refused != 60 || subs != 40 {
		t.Fatalf("ok=%d refused=%d upstream sub-calls=%d; want 40, 60, 40", ok, refused, subs)
	}
	if maxInFlight.Load() > 40 {
		t.Fatalf("%d calls in flight at once", maxInFlight.Load())
	}
	if res.StopReason != StopBudgetCalls || res.LLMCalls != 41 {
		t.Fatalf("stop %s after %d calls", res.StopReason, res.LLMCalls)
	}
}

func TestConcurrencyLimits(t *testing.T) {
	tests := []struct {
		name             string
		perRequest, glob int
		want             int
	}{
		{"per-request limit", 4, 64, 4},
		{"server-wide limit", 16, 3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
				"fan": func(env *cellEnv) repl.CellResult {
					env.host.LLMQuery(env.ctx, make([]string, 30))
					return repl.CellResult{Final: final("done")}
				},
			}}
			script := rootScript([]string{code("fan")}, nil)
			e, srv := testEngine(t, sb, script, Config{UpstreamConcurrency: tt.glob}, fakellm.WithLatency(20*time.Millisecond))
			if _, err := e.Run(t.Context(), Request{Messages: userMsg("q"), Limits: Limits{Concurrency: tt.perRequest}}); err != nil {
				t.Fatal(err)
			}
			if got := srv.MaxInFlight(); got != tt.want {
				t.Fatalf("max in flight %d, want %d", got, tt.want)
			}
		})
	}
}

func TestEventsForEveryKind(t *testing.T) {
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"sub": func(env *cellEnv) repl.CellResult {
			a := env.host.LLMQuery(env.ctx, []string{"p1"})
			b := env.host.RLMQuery(env.ctx, []string{"child task"})
			return repl.CellResult{Output: a[0] + "|" + b[0] + "\n"}
		},
		"fin": func(env *cellEnv) repl.CellResult { return repl.CellResult{Final: final("ok")} },
	}}
	script := func(req fakellm.Request) fakellm.Reply {
		switch {
		case req.Model == "root-model" && req.Turn() == 1:
			return fakellm.Reply{Content: code("sub"), Logprobs: []fakellm.Logprob{{Token: "x", Logprob: -0.5}}}
		case req.Model == "root-model":
			return fakellm.Reply{Content: code("fin")}
		case req.System() != "": // the child's turns
			return fakellm.Reply{Content: "FINAL(child says hi)"}
		default:
			return fakellm.Reply{Content: "plain"}
		}
	}
	e, _ := testEngine(t, sb, script, Config{Logprobs: true})
	rec := &recorder{}
	res, err := e.Run(t.Context(), Request{Messages: userMsg("q"), Observer: rec})
	if err != nil || res.Answer != "ok" {
		t.Fatalf("%v %+v", err, res)
	}
	for _, k := range []EventKind{EventNodeStart, EventTurnStart, EventModelCall, EventCellStart, EventCellEnd, EventSubCallStart, EventSubCallEnd, EventNodeEnd} {
		if rec.count(k) == 0 {
			t.Errorf("no %s event", k)
		}
	}
	var sawChild, sawLogprobs bool
	for _, ev := range rec.all() {
		if ev.Kind == EventSubCallEnd && ev.SubCall.Kind == "rlm" {
			if ev.SubCall.ChildID != "0.1" || ev.NodeID != "0" || ev.Turn != 1 || ev.Cell != 1 || ev.SubCall.Response != "child says hi" {
				t.Errorf("rlm sub-call event %+v %+v", ev, ev.SubCall)
			}
		}
		if ev.Kind == EventNodeStart && ev.NodeID == "0.1" {
			sawChild = ev.ParentID == "0" && ev.Depth == 1
		}
		if ev.Kind == EventModelCall && ev.NodeID == "0" && len(ev.Model.Logprobs) == 1 && ev.Model.Logprobs[0].Logprob == -0.5 {
			sawLogprobs = true
		}
	}
	if !sawChild {
		t.Error("no node_start for child 0.1 with parent 0 at depth 1")
	}
	if !sawLogprobs {
		t.Error("logprobs of the root turn were not kept")
	}
	if res.MaxDepth != 1 || res.LLMCalls != 4 {
		t.Errorf("max depth %d, calls %d; want 1, 4", res.MaxDepth, res.LLMCalls)
	}
	if len(res.NodeUsage) != 2 || res.NodeUsage["0"].TotalTokens == 0 || res.NodeUsage["0.1"].TotalTokens == 0 {
		t.Errorf("node usage %+v", res.NodeUsage)
	}
	if sum := res.NodeUsage["0"].Add(res.NodeUsage["0.1"]); sum != res.Usage {
		t.Errorf("tree usage %+v is not the sum of nodes %+v", res.Usage, sum)
	}
}

func TestBudgetErrorText(t *testing.T) {
	b := newBudget(200, 1000, time.Now().Add(90*time.Second))
	for range 200 {
		if _, err := b.reserve(1, 0); err != nil {
			t.Fatal(err)
		}
	}
	_, err := b.reserve(1, 0)
	var be *BudgetError
	if !errors.As(err, &be) || !matchStar("budget exhausted: 200/200 LLM calls; left: 0 calls, 800 tokens, 1m*s of time", err.Error()) {
		t.Fatalf("got %v", err)
	}
	b = newBudget(0, 1000, time.Time{})
	if _, err := b.reserve(900, 0); err != nil {
		t.Fatal(err)
	}
	_, err = b.reserve(200, 0)
	if !errors.As(err, &be) || err.Error() != "budget exhausted: 900/1000 tokens used, and this call needs about 200; left: no limit on calls, 100 tokens, no time limit" {
		t.Fatalf("got %v", err)
	}
}

func TestDepth(t *testing.T) {
	tests := []struct {
		name       string
		maxDepth   int
		wantAnswer string
		wantDepth  int
		wantKind   string
	}{
		{"child RLM at depth 1", 1, "child:CHILD-INPUT", 1, "rlm"},
		{"fallback to llm_query at max depth", -1, "plain:CHILD-INPUT", 0, "llm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
				"delegate": func(env *cellEnv) repl.CellResult {
					return repl.CellResult{Final: final(env.host.RLMQuery(env.ctx, []string{"CHILD-INPUT"})[0])}
				},
				"child // context": func(env *cellEnv) repl.CellResult { return repl.CellResult{Final: final("child:" + env.context)} },
			}}
			script := func(req fakellm.Request) fakellm.Reply {
				switch {
				case req.Model == "root-model":
					return fakellm.Reply{Content: code("delegate")}
				case req.System() != "": // a child's turn
					return fakellm.Reply{Content: code("child // context")}
				default:
					return fakellm.Reply{Content: "plain:" + req.LastUser()}
				}
			}
			rec := &recorder{}
			// A threshold of 5 offloads the child's 11-character prompt, so the
			// child reads it from its own session's context.
			e, _ := testEngine(t, sb, script, Config{})
			res, err := e.Run(t.Context(), Request{Messages: userMsg("q"), Observer: rec, Limits: Limits{MaxDepth: tt.maxDepth, OffloadThreshold: 5}})
			if err != nil {
				t.Fatal(err)
			}
			// The root's own input ("q") is short, so no safeguard applies.
			if res.Answer != tt.wantAnswer || res.MaxDepth != tt.wantDepth {
				t.Fatalf("answer %q depth %d (%s %s)", res.Answer, res.MaxDepth, res.StopReason, res.Error)
			}
			for _, ev := range rec.all() {
				if ev.Kind == EventSubCallEnd && ev.SubCall.Kind != tt.wantKind {
					t.Errorf("sub-call kind %s, want %s", ev.SubCall.Kind, tt.wantKind)
				}
			}
			if tt.wantKind == "rlm" && sb.sessions != 2 {
				t.Errorf("%d sessions, want the root's and the child's own", sb.sessions)
			}
			if left, _ := os.ReadDir(e.cfg.TempDir); len(left) != 0 {
				t.Errorf("temp files left: %v", left)
			}
		})
	}
}

func TestCancellationStopsEverything(t *testing.T) {
	before := runtime.NumGoroutine()
	started := make(chan struct{}, 100)
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"fan": func(env *cellEnv) repl.CellResult {
			out := env.host.LLMQuery(env.ctx, make([]string, 50))
			return repl.CellResult{Output: out[0]}
		},
	}}
	srv := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if req.Model == "sub-model" {
			started <- struct{}{}
			return fakellm.Reply{Content: "late", Delay: 30 * time.Second}
		}
		return fakellm.Reply{Content: code("fan")}
	})
	client, _ := upstream.New(upstream.Config{BaseURL: srv.URL})
	e, _ := New(Config{Root: client, RootModel: "root-model", SubModel: "sub-model", Sandbox: sb, TempDir: t.TempDir()})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; time.Sleep(50 * time.Millisecond); cancel() }()
	start := time.Now()
	res, err := e.Run(ctx, Request{Messages: userMsg("q")})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopCancelled || time.Since(start) > 5*time.Second {
		t.Fatalf("stop %s after %v", res.StopReason, time.Since(start))
	}
	if sb.openSessions() != 0 {
		t.Errorf("%d sessions left open", sb.openSessions())
	}
	client.CloseIdleConnections()
	srv.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines left, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

func TestChildrenBoundedAndBudgeted(t *testing.T) {
	var answers []string
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"fan": func(env *cellEnv) repl.CellResult {
			answers = env.host.RLMQuery(env.ctx, make([]string, 10))
			return repl.CellResult{Final: final("done")}
		},
	}}
	script := func(req fakellm.Request) fakellm.Reply {
		if req.Model == "root-model" {
			return fakellm.Reply{Content: code("fan")}
		}
		return fakellm.Reply{Content: "FINAL(child)", Delay: 10 * time.Millisecond}
	}
	e, _ := testEngine(t, sb, script, Config{})
	// One root turn plus 10 children of one turn each fit in 11 calls (a
	// batch larger than the calls left is refused whole, see
	// TestBatchBeyondBudgetRefusedWhole).
	res, err := e.Run(t.Context(), Request{Messages: userMsg("q"), Limits: Limits{Concurrency: 2, MaxLLMCalls: 11}})
	if err != nil || res.Answer != "done" {
		t.Fatalf("%v %+v", err, res)
	}
	if sb.maxOpen > 3 { // the root's session and two children
		t.Errorf("%d sessions open at once, want at most 3", sb.maxOpen)
	}
	ok := 0
	for _, a := range answers {
		if a == "child" {
			ok++
		} else {
			t.Errorf("answer %q", a)
		}
	}
	if ok != 10 || sb.sessions != 1+10 {
		t.Errorf("%d answered, %d sessions started; want 10, 11", ok, sb.sessions)
	}
}

// stubClient is a test double for an upstream, called in-process: tests
// that count goroutines must not share the process with an HTTP server.
type stubClient func(ctx context.Context, req llm.Request) (llm.Completion, error)

func (f stubClient) Complete(ctx context.Context, req llm.Request) (llm.Completion, error) {
	return f(ctx, req)
}

// TestFanOutGoroutinesBounded batches far more prompts than the request may
// have in flight: the goroutines the fan-out holds stay near the limit
// instead of one per prompt.
func TestFanOutGoroutinesBounded(t *testing.T) {
	const prompts, concurrency = 3000, 4
	var answered int
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"fan": func(env *cellEnv) repl.CellResult {
			for _, a := range env.host.LLMQuery(env.ctx, make([]string, prompts)) {
				if a == "ok" {
					answered++
				}
			}
			return repl.CellResult{Output: "fanned out\n"}
		},
	}}
	var mu sync.Mutex
	peak, calls := 0, 0
	client := stubClient(func(ctx context.Context, req llm.Request) (llm.Completion, error) {
		if req.Model == "sub-model" {
			mu.Lock()
			calls++
			// Sample while the other workers are mid-call too.
			if calls%100 == 0 {
				peak = max(peak, runtime.NumGoroutine())
			}
			mu.Unlock()
			time.Sleep(50 * time.Microsecond)
			return llm.Completion{Content: "ok"}, nil
		}
		if len(req.Messages) <= 2 {
			return llm.Completion{Content: code("fan")}, nil
		}
		return llm.Completion{Content: "FINAL(done)"}, nil
	})
	e, err := New(Config{Root: client, RootModel: "root-model", SubModel: "sub-model", Sandbox: sb, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	res, err := e.Run(t.Context(), Request{Messages: userMsg("q"),
		Limits: Limits{Concurrency: concurrency, MaxLLMCalls: prompts + 10, MaxTotalTokens: 1 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopFinal || answered != prompts {
		t.Fatalf("stop %s, %d of %d prompts answered", res.StopReason, answered, prompts)
	}
	if extra := peak - before; extra > 50 {
		t.Errorf("fan-out of %d prompts at concurrency %d held %d extra goroutines", prompts, concurrency, extra)
	}
}

// matchStar reports whether s is pattern with each * standing for any text
// on one line.
func matchStar(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return s == pattern
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, p := range parts[1:] {
		j := strings.Index(s, p)
		if i == len(parts)-2 {
			j = strings.LastIndex(s, p)
			if j < 0 || j+len(p) != len(s) {
				return false
			}
		}
		if j < 0 || strings.Contains(s[:j], "\n") {
			return false
		}
		s = s[j+len(p):]
	}
	return true
}

// TestChildPartialAnswer: a child RLM that stops without FINAL tells its
// parent so, with the prose it wrote, never its code.
func TestChildPartialAnswer(t *testing.T) {
	var got string
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"delegate": func(env *cellEnv) repl.CellResult {
			got = env.host.RLMQuery(env.ctx, []string{"CHILD-INPUT"})[0]
			return repl.CellResult{Final: final("done")}
		},
		"spin": func(env *cellEnv) repl.CellResult { return repl.CellResult{Output: "3 matches so far\n"} },
	}}
	script := func(req fakellm.Request) fakellm.Reply {
		switch {
		case req.Model == "root-model":
			return fakellm.Reply{Content: code("delegate")}
		case strings.Contains(req.LastUser(), "out of turns"):
			return fakellm.Reply{Content: code("spin")}
		case len(req.Messages) <= 2:
			return fakellm.Reply{Content: "The input lists three cities.\n" + code("spin")}
		default:
			return fakellm.Reply{Content: code("spin")}
		}
	}
	e, _ := testEngine(t, sb, script, Config{})
	res, err := e.Run(t.Context(), Request{Messages: userMsg("q"), Limits: Limits{MaxDepth: 1, MaxIterations: 2}})
	if err != nil || res.Answer != "done" {
		t.Fatalf("%v %+v", err, res)
	}
	want := "error: rlm_query: No answer: the run stopped (max_iterations: no FINAL after 2 turns) before FINAL; the model's last words: The input lists three cities."
	if got != want {
		t.Fatalf("child returned %q, want %q", got, want)
	}
}

// TestBudgetsFollowInput: a run that sets no budget over a 6M-token input
// gets budgets scaled to it (InputBudget), so sub-calls that cover the
// input once are not refused part way as under the fixed 5M-token default;
// Config.Max still caps them, and a refusal tells the model what is left.
func TestBudgetsFollowInput(t *testing.T) {
	const chunkChars, chunks = 80_000, 300 // 24 MB: about 6M tokens
	doc := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(doc, []byte(strings.Repeat(strings.Repeat("x", chunkChars-1)+"\n", chunks)), 0o600); err != nil {
		t.Fatal(err)
	}
	var answers []string
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"cover // context": func(env *cellEnv) repl.CellResult {
			var prompts []string
			for i := 0; i < len(env.context); i += chunkChars {
				prompts = append(prompts, env.context[i:min(i+chunkChars, len(env.context))])
			}
			answers = env.host.LLMQuery(env.ctx, prompts)
			return repl.CellResult{Final: final("covered")}
		},
	}}
	client := stubClient(func(ctx context.Context, req llm.Request) (llm.Completion, error) {
		chars := 0
		for _, m := range req.Messages {
			chars += len(m.Content)
		}
		u := llm.Usage{PromptTokens: chars / 4, CompletionTokens: 10, TotalTokens: chars/4 + 10}
		if req.Model == "root-model" {
			return llm.Completion{Content: code("cover // context"), Usage: u}, nil
		}
		return llm.Completion{Content: "NONE", Usage: u}, nil
	})
	tests := []struct {
		name       string
		max        Limits
		wantTokens int
		wantCalls  int
		refused    bool
	}{
		{"scaled", Limits{}, 3 * 6_000_000, 600, false},
		{"capped by the server maximum", Limits{MaxTotalTokens: 4_000_000}, 4_000_000, 600, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answers = nil
			e, err := New(Config{Root: client, RootModel: "root-model", SubModel: "sub-model", Sandbox: sb, TempDir: t.TempDir(), Max: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			res, err := e.Run(t.Context(), Request{Messages: userMsg("Which lines say yes?"), Documents: []Document{{Name: "big.txt", Path: doc}}})
			if err != nil {
				t.Fatal(err)
			}
			// The input is the document plus the question and placeholder
			// in view: a few hundred tokens more than the document.
			l := res.Limits
			if l.MaxTotalTokens < tt.wantTokens || l.MaxTotalTokens > tt.wantTokens+1000 || l.MaxLLMCalls != tt.wantCalls ||
				l.Timeout < 12*time.Minute || l.Timeout > 12*time.Minute+time.Second {
				t.Fatalf("limits %+v for an input of about 6M tokens", l)
			}
			refused := 0
			for _, a := range answers {
				if strings.HasPrefix(a, "error: budget exhausted: ") {
					refused++
					if !strings.Contains(a, "; left: ") || !strings.Contains(a, " calls, ") || !strings.Contains(a, " of time") {
						t.Fatalf("refusal does not say what is left: %q", a)
					}
				}
			}
			if len(answers) != chunks || (refused > 0) != tt.refused {
				t.Fatalf("%d answers, %d refused (stop %s: %s)", len(answers), refused, res.StopReason, res.Error)
			}
		})
	}
}

// TestCallInfo: every model call's context names the node, depth, turn and
// kind of the call, so a recording client can group a node's turns.
func TestCallInfo(t *testing.T) {
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"delegate": func(env *cellEnv) repl.CellResult {
			a := env.host.RLMQuery(env.ctx, []string{"CHILD"})[0]
			b := env.host.LLMQuery(env.ctx, []string{"PLAIN"})[0]
			return repl.CellResult{Final: final(a + "+" + b)}
		},
	}}
	var mu sync.Mutex
	var calls []llm.CallInfo
	client := stubClient(func(ctx context.Context, req llm.Request) (llm.Completion, error) {
		c, ok := llm.CallFrom(ctx)
		if !ok {
			t.Error("a model call without CallInfo")
		}
		mu.Lock()
		calls = append(calls, c)
		mu.Unlock()
		switch {
		case c.Kind == llm.CallLLMQuery:
			return llm.Completion{Content: "plain"}, nil
		case c.Depth == 1:
			return llm.Completion{Content: "FINAL(child)"}, nil
		}
		return llm.Completion{Content: code("delegate")}, nil
	})
	e, err := New(Config{Root: client, RootModel: "m", Sandbox: sb, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(t.Context(), Request{Messages: userMsg("q"), Limits: Limits{MaxDepth: 1}})
	if err != nil || res.Answer != "child+plain" {
		t.Fatalf("%v %+v", err, res)
	}
	if len(calls) != 3 {
		t.Fatalf("calls %+v", calls)
	}
	root, child, plain := calls[0], calls[1], calls[2]
	if root.Kind != llm.CallTurn || root.Depth != 0 || root.Turn != 1 || child.Kind != llm.CallTurn || child.Depth != 1 ||
		child.NodeID == root.NodeID || plain.Kind != llm.CallLLMQuery || plain.NodeID != root.NodeID {
		t.Errorf("calls %+v", calls)
	}
}

// TestOffloadQuery: the REPL's query is the last user message when it
// stayed in view, and empty when that message was offloaded.
func TestOffloadQuery(t *testing.T) {
	long := strings.Repeat("w ", 1000)
	tests := []struct {
		name string
		msgs []llm.Message
		want string
	}{
		{"one short question", []llm.Message{{Role: "user", Content: "Which year?"}}, "Which year?"},
		{"last user message wins", []llm.Message{{Role: "user", Content: "first"}, {Role: "assistant", Content: "ok"}, {Role: "user", Content: "second"}}, "second"},
		{"system and assistant are not the query", []llm.Message{{Role: "user", Content: "q"}, {Role: "assistant", Content: "a"}}, "q"},
		{"offloaded question", []llm.Message{{Role: "user", Content: "short"}, {Role: "user", Content: long}}, ""},
		{"long document then the question", []llm.Message{{Role: "user", Content: long}, {Role: "user", Content: "Which year?"}}, "Which year?"},
		{"empty role is user", []llm.Message{{Content: "untagged"}}, "untagged"},
		{"no user message", []llm.Message{{Role: "system", Content: "be brief"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			off, err := offload(t.TempDir(), tt.msgs, nil, 100, 0)
			if err != nil {
				t.Fatal(err)
			}
			if off.Query != tt.want {
				t.Errorf("query = %q, want %q", off.Query, tt.want)
			}
		})
	}
}

// TestLLMQueryDropsReasoning: llm_query hands code the answer without its
// <think> block, as a root reply's reasoning never runs; the trace keeps
// the response as the upstream sent it.
func TestLLMQueryDropsReasoning(t *testing.T) {
	tests := []struct {
		name, answer, want string
	}{
		{"no reasoning", "positive\nnegative", "positive\nnegative"},
		{"empty block, as Qwen3's template writes it", "<think>\n\n</think>\n\npositive\nnegative", "positive\nnegative"},
		{"reasoning then answer", "<think>the first is glad</think>positive", "positive"},
		{"opened in the prompt, closed in the answer", "weighing it</think>\nneutral", "neutral"},
		{"cut off while reasoning", "<think>let me see", "error: llm_query answer was cut off while the model was still reasoning"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
				"ask": func(env *cellEnv) repl.CellResult {
					got = env.host.LLMQuery(env.ctx, []string{"label these"})[0]
					return repl.CellResult{Final: final("done")}
				},
			}}
			e, _ := testEngine(t, sb, rootScript([]string{code("ask")}, func(string) string { return tt.answer }), Config{})
			rec := &recorder{}
			if _, err := e.Run(t.Context(), Request{Messages: userMsg("q"), Observer: rec}); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("llm_query returned %q, want %q", got, tt.want)
			}
			for _, ev := range rec.all() {
				if ev.Kind == EventSubCallEnd && ev.SubCall.Response != tt.answer {
					t.Errorf("trace response %q, want the answer as sent %q", ev.SubCall.Response, tt.answer)
				}
			}
		})
	}
}

// TestFailedTurnsStopEarly: a model whose cells keep failing (issue 26: the
// built-in model wrote broken Go for 31 turns on real text) stops after
// MaxFailedTurns turns with "No answer: ...", not at max_iterations. A
// turn that printed something, or a turn with no code, counts as it
// should: output is progress; a reply with neither code nor FINAL is not.
func TestFailedTurnsStopEarly(t *testing.T) {
	long := strings.Repeat("haystack ", 3000)
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"broken // context": func(*cellEnv) repl.CellResult {
			return repl.CellResult{Error: "1:5: raw string literal not terminated"}
		},
		"partial // context": func(*cellEnv) repl.CellResult {
			return repl.CellResult{Output: "found 3\n", Error: "runtime error: index out of range"}
		},
		"empty // context": func(*cellEnv) repl.CellResult {
			return repl.CellResult{Output: "value:\n", Final: final(" ")}
		},
	}}
	tests := []struct {
		name      string
		replies   []string
		limits    Limits
		wantTurns int
	}{
		{"every cell fails", []string{code("broken // context")}, Limits{}, 3},
		{"prose without code counts too", []string{"Let me think.", code("broken // context")}, Limits{}, 3},
		{"output resets the count", []string{code("broken // context"), code("broken // context"), code("partial // context"), code("broken // context")}, Limits{}, 6},
		{"the limit is a setting", []string{code("broken // context")}, Limits{MaxFailedTurns: 5}, 5},
		// An empty FINAL is no answer, from a cell or a FINAL line, even
		// though the cell printed something.
		{"empty FINAL in a cell", []string{code("empty // context")}, Limits{}, 3},
		{"empty FINAL line", []string{code("partial // context"), "FINAL()"}, Limits{}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := testEngine(t, sb, rootScript(tt.replies, nil), Config{})
			res, err := e.Run(t.Context(), Request{Messages: userMsg(long + "\nWhere is the needle?"), Limits: tt.limits})
			if err != nil {
				t.Fatal(err)
			}
			if res.StopReason != StopFailedTurns || res.Iterations != tt.wantTurns || !strings.HasPrefix(res.Answer, "No answer: the run stopped (failed_turns: ") {
				t.Fatalf("stop %s after %d turns, answer %q; want failed_turns after %d turns", res.StopReason, res.Iterations, res.Answer, tt.wantTurns)
			}
		})
	}
}

// TestNoContextAnswer: with Config.NoContextAnswer, a request with nothing
// to read is answered at once, with no model call and no REPL session; a
// request with a document runs as usual.
func TestNoContextAnswer(t *testing.T) {
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"look // context": func(env *cellEnv) repl.CellResult { return repl.CellResult{Final: final("read")} },
	}}
	const msg = "This model answers questions about an attached document."
	e, srv := testEngine(t, sb, rootScript([]string{code("look // context")}, nil), Config{NoContextAnswer: msg})
	res, err := e.Run(t.Context(), Request{Messages: userMsg("What is the capital of France?")})
	if err != nil || res.Answer != msg || res.StopReason != StopNoContext || res.LLMCalls != 0 {
		t.Fatalf("no document: %v %+v", err, res)
	}
	if srv.Count() != 0 || sb.sessions != 0 {
		t.Fatalf("%d model calls and %d REPL sessions for a question without a document", srv.Count(), sb.sessions)
	}
	res, err = e.Run(t.Context(), Request{Messages: userMsg(strings.Repeat("haystack ", 3000) + "\nWhere?")})
	if err != nil || res.Answer != "read" || res.StopReason != StopFinal {
		t.Fatalf("with a document: %v %+v", err, res)
	}
}
