package recursion

import (
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/repl"
)

// TestBatchBeyondBudgetRefusedWhole: a batch with more prompts than calls
// left runs none of them, spends nothing, and is reported by one event.
func TestBatchBeyondBudgetRefusedWhole(t *testing.T) {
	for _, kind := range []string{"llm", "rlm"} {
		t.Run(kind, func(t *testing.T) {
			var answers []string
			sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
				"fan": func(env *cellEnv) repl.CellResult {
					query := env.host.LLMQuery
					if kind == "rlm" {
						query = env.host.RLMQuery
					}
					answers = query(env.ctx, make([]string, 100_000))
					return repl.CellResult{Final: final("done")}
				},
			}}
			script := func(req fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: code("fan")} }
			e, srv := testEngine(t, sb, script, Config{})
			rec := &recorder{}
			res, err := e.Run(t.Context(), Request{Messages: userMsg("q"), Observer: rec, Limits: Limits{MaxLLMCalls: 200}})
			if err != nil || res.Answer != "done" {
				t.Fatalf("%v %+v", err, res)
			}
			if len(answers) != 100_000 || !strings.HasPrefix(answers[99_999], "error: budget exhausted: a call of 100000 prompts needs more than the 199 LLM calls left") {
				t.Fatalf("%d answers, last %q", len(answers), answers[len(answers)-1])
			}
			if res.LLMCalls != 1 || len(srv.Requests()) != 1 {
				t.Errorf("%d calls made, %d upstream requests; want only the root turn", res.LLMCalls, len(srv.Requests()))
			}
			starts, ends := rec.count(EventSubCallStart), rec.count(EventSubCallEnd)
			if starts != 0 || ends != 1 {
				t.Fatalf("%d subcall_start and %d subcall_end events, want 0 and 1", starts, ends)
			}
			for _, ev := range rec.all() {
				if ev.Kind == EventSubCallEnd && (ev.SubCall.Batch != 100_000 || ev.SubCall.Kind != kind || ev.SubCall.Err == "") {
					t.Errorf("refusal event %+v", ev.SubCall)
				}
			}
		})
	}
}

// TestRejectedPromptTokensStaySpent: the prompt's estimate is counted when
// the call is admitted; an upstream that rejects the call without usage
// does not give it back, one that reports usage replaces it, and a call
// that never reached the upstream gives everything back.
func TestRejectedPromptTokensStaySpent(t *testing.T) {
	b := newBudget(0, 1000, time.Time{})
	r, err := b.reserve(300, 100)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.tokensUsed(); got != 400 {
		t.Fatalf("after admission %d tokens counted, want 400", got)
	}
	r.settle(llm.Usage{}, true) // rejected by the upstream: no usage
	if got := b.tokensUsed(); got != 300 {
		t.Fatalf("after a rejection %d tokens counted, want the prompt's 300", got)
	}
	r, _ = b.reserve(300, 100)
	r.settle(llm.Usage{PromptTokens: 250, CompletionTokens: 20, TotalTokens: 270}, true)
	if got := b.tokensUsed(); got != 570 {
		t.Fatalf("after reported usage %d tokens counted, want 570", got)
	}
	r, _ = b.reserve(300, 100)
	r.settle(llm.Usage{}, false) // never sent
	if got := b.tokensUsed(); got != 570 {
		t.Fatalf("after a call that was not made %d tokens counted, want 570", got)
	}
	if _, err := b.reserve(400, 100); err == nil {
		t.Fatal("a call past the token budget was admitted")
	}
}

// TestRejectedHugePromptsExhaustTokens: model code that loops on prompts
// the upstream rejects runs out of tokens instead of calling for ever.
func TestRejectedHugePromptsExhaustTokens(t *testing.T) {
	var answers []string
	sb := &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"loop": func(env *cellEnv) repl.CellResult {
			for range 50 {
				answers = append(answers, env.host.LLMQuery(env.ctx, []string{strings.Repeat("a", 400_000)})[0])
			}
			return repl.CellResult{Final: final("done")}
		},
	}}
	script := func(req fakellm.Request) fakellm.Reply {
		if req.Model == "root-model" {
			return fakellm.Reply{Content: code("loop")}
		}
		return fakellm.Reply{Status: 400}
	}
	e, srv := testEngine(t, sb, script, Config{})
	res, err := e.Run(t.Context(), Request{Messages: userMsg("q"), Limits: Limits{MaxTotalTokens: 1_000_000, MaxLLMCalls: 1000}})
	if err != nil || res.Answer != "done" {
		t.Fatalf("%v %+v", err, res)
	}
	// Each prompt is ~100,000 tokens: after 9 rejected ones (plus the root
	// turn's reservation) the next no longer fits.
	if n := len(srv.Requests()); n > 11 {
		t.Fatalf("%d upstream requests for prompts the upstream rejects; the token budget should stop them near 10", n)
	}
	if last := answers[len(answers)-1]; !strings.Contains(last, "budget exhausted") || !strings.Contains(last, "tokens") {
		t.Fatalf("last answer %q", last)
	}
}
