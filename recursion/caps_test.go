package recursion

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// TestInputREPLLimits: the bytes of one call follow the input, twice its
// size, with the configured cap as a floor and the worker's memory as a
// ceiling; the other limits are kept.
func TestInputREPLLimits(t *testing.T) {
	t.Parallel()
	d := repl.DefaultLimits()
	for _, tc := range []struct {
		name  string
		l     repl.Limits
		input int64
		want  int64
	}{
		{"small input: the default", repl.Limits{}, 1 << 20, d.MaxCallBytes},
		{"40M characters", repl.Limits{}, 40_000_000, 80_000_000},
		{"a configured floor", repl.Limits{MaxCallBytes: 200 << 20}, 40_000_000, 200 << 20},
		{"at most the worker's memory", repl.Limits{MemoryBytes: 64 << 20}, 40_000_000, 64 << 20},
		{"a floor above the memory", repl.Limits{MaxCallBytes: 128 << 20, MemoryBytes: 64 << 20}, 40_000_000, 128 << 20},
	} {
		got := InputREPLLimits(tc.l, tc.input)
		if got.MaxCallBytes != tc.want {
			t.Errorf("%s: MaxCallBytes %d, want %d", tc.name, got.MaxCallBytes, tc.want)
		}
		got.MaxCallBytes = tc.l.MaxCallBytes
		if got != tc.l {
			t.Errorf("%s: other limits changed: %+v", tc.name, got)
		}
	}
}

// limitsSandbox records the limits each session is given.
type limitsSandbox struct {
	Sandbox
	mu  sync.Mutex
	got []repl.Limits
}

func (s *limitsSandbox) NewSession(ctx context.Context, cfg SessionConfig) (Session, error) {
	s.mu.Lock()
	s.got = append(s.got, cfg.Limits)
	s.mu.Unlock()
	return s.Sandbox.NewSession(ctx, cfg)
}

// TestSessionLimitsFollowInput: a run's REPL sessions get the call cap of
// its input, not the configured floor alone.
func TestSessionLimitsFollowInput(t *testing.T) {
	t.Parallel()
	sb := &limitsSandbox{Sandbox: &funcSandbox{cells: map[string]func(*cellEnv) repl.CellResult{
		"done": func(*cellEnv) repl.CellResult { return repl.CellResult{Final: final("done")} },
	}}}
	script := func(req fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: code("done")} }
	e, _ := testEngine(t, sb, script, Config{REPLLimits: repl.Limits{MaxCallBytes: 1 << 10}})
	doc := filepath.Join(t.TempDir(), "doc.txt")
	os.WriteFile(doc, []byte(strings.Repeat("x", 10_000)), 0o600)
	if _, err := e.Run(t.Context(), Request{Messages: []llm.Message{{Role: "user", Content: "q"}},
		Documents: []Document{{Name: "doc.txt", Path: doc}}}); err != nil {
		t.Fatal(err)
	}
	if len(sb.got) != 1 || sb.got[0].MaxCallBytes < 20_000 {
		t.Errorf("session limits %+v: want a call cap of twice the input (about 20,000 bytes)", sb.got)
	}
}

// TestNoAnswerNote: Config.NoAnswerNote ends the answer of a run the
// model could not finish, and only of such a run.
func TestNoAnswerNote(t *testing.T) {
	t.Parallel()
	const note = "(a bigger model is needed)"
	for _, tc := range []struct {
		reply string
		want  StopReason
	}{
		{"I am not sure.", StopFailedTurns},
		{"FINAL(42)", StopFinal},
	} {
		script := func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: tc.reply} }
		e, _ := testEngine(t, &funcSandbox{}, script, Config{NoAnswerNote: note})
		res, err := e.Run(t.Context(), Request{Messages: []llm.Message{{Role: "user", Content: strings.Repeat("x", 20_000) + "\nq"}}})
		if err != nil {
			t.Fatal(err)
		}
		if res.StopReason != tc.want || strings.HasSuffix(res.Answer, " "+note) != (tc.want != StopFinal) {
			t.Errorf("reply %q: stop %s, answer %q", tc.reply, res.StopReason, res.Answer)
		}
	}
}
