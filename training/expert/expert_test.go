package expert

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/eval"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/upstream"
	"github.com/rlm-project/rlm/repl"
)

func TestMain(m *testing.M) {
	repl.MaybeRunWorker()
	os.Exit(m.Run())
}

// runExpert runs tasks through the real engine and the real REPL, with the
// expert served over HTTP as the upstream for root turns and sub-calls.
func runExpert(t *testing.T, cfg eval.Config) []eval.Result {
	t.Helper()
	pool, err := repl.NewPool(repl.PoolConfig{})
	if err != nil {
		t.Fatalf("start REPL pool: %v", err)
	}
	t.Cleanup(func() { pool.Close() })
	srv := httptest.NewServer(Policy{Seed: 1}.Handler())
	t.Cleanup(srv.Close)
	client, err := upstream.New(upstream.Config{Name: "expert", BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := recursion.New(recursion.Config{Root: client, RootModel: ModelName, Sandbox: recursion.PoolSandbox(pool), TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Engine = eng
	cfg.OutDir = t.TempDir()
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := eval.Run(ctx, cfg)
	if err != nil {
		t.Fatalf("eval: %v", err)
	}
	return res
}

// TestExpertSucceedsOnHeldOut is the expert's success rate on seeds and
// question phrasings that training data does not use: at least 0.99 of
// the runs must end in FINAL with a fully correct answer: lookups in one
// turn (the general cell ends with FINAL), the other families after
// looking at the input first, label-count with sub-calls.
func TestExpertSucceedsOnHeldOut(t *testing.T) {
	out := eval.PhrasingsHeldOut
	n := 13
	if testing.Short() {
		n = 3
	}
	res := runExpert(t, eval.Config{
		Tasks: []eval.Task{&eval.SNIAH{Depth: -1, Phrasings: out}, &eval.SNIAH{Depth: -1, UUID: true, Keys: 4, Phrasings: out},
			eval.Records{Phrasings: out}, eval.LabelCount{Phrasings: out}, &eval.Docs{Phrasings: out}},
		Lengths: []int{8 << 10, 32 << 10}, N: n, Seed: 7,
	})
	if want := 5 * 2 * n; len(res) != want {
		t.Fatalf("%d results, want %d", len(res), want)
	}
	ok := 0
	for _, r := range res {
		if r.Score == 1 && r.StopReason == string(recursion.StopFinal) {
			ok++
		} else {
			t.Logf("failed: %s: score %v, stop %s, answer %q, gold %q, question %q", r.Key(), r.Score, r.StopReason, r.Answer, r.Gold, r.Question)
		}
		lookup := strings.HasPrefix(r.Task, "sniah") || strings.HasPrefix(r.Task, "docs")
		if lookup && r.Iterations != 1 {
			t.Errorf("%s: a lookup answered in %d turns, want 1", r.Key(), r.Iterations)
		}
		if !lookup && r.Iterations < 2 {
			t.Errorf("%s: answered in %d turn(s), without looking first", r.Key(), r.Iterations)
		}
		if strings.HasPrefix(r.Task, "label-count") && r.LLMCalls <= r.Iterations {
			t.Errorf("%s: %d model calls in %d turns: no sub-calls", r.Key(), r.LLMCalls, r.Iterations)
		}
	}
	rate := float64(ok) / float64(len(res))
	t.Logf("expert success rate on held-out seed and phrasings: %d/%d = %.3f", ok, len(res), rate)
	if rate < 0.99 {
		t.Errorf("success rate %.3f, want at least 0.99", rate)
	}
}

// TestExpertLongInputs runs each family at 1M tokens (sniah also at 10M):
// the cells must stay correct and within budget when the input is large.
func TestExpertLongInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and searches up to 40 MB inputs")
	}
	in := eval.PhrasingsHeldIn
	res := runExpert(t, eval.Config{
		Tasks:   []eval.Task{&eval.SNIAH{Depth: -1, Phrasings: in}, eval.Records{Phrasings: in}, eval.LabelCount{Phrasings: in}, &eval.Docs{Phrasings: in}},
		Lengths: []int{1 << 20}, N: 2, Seed: 7, Concurrency: 1,
	})
	res = append(res, runExpert(t, eval.Config{
		Tasks:   []eval.Task{&eval.SNIAH{Depth: -1, UUID: true, Keys: 2, Phrasings: in}},
		Lengths: []int{10 << 20}, N: 1, Seed: 7, Concurrency: 1,
	})...)
	for _, r := range res {
		t.Logf("%s: score %v, %d turns, %d calls, %.1fs", r.Key(), r.Score, r.Iterations, r.LLMCalls, r.WallSec)
		if r.Score != 1 {
			t.Errorf("%s: score %v, stop %s, answer %q, gold %q", r.Key(), r.Score, r.StopReason, r.Answer, r.Gold)
		}
	}
}

// TestParseEveryPhrasing checks that the expert understands every wording
// of every family, held-in and held-out, from the question alone.
func TestParseEveryPhrasing(t *testing.T) {
	for _, set := range []string{eval.PhrasingsHeldIn, eval.PhrasingsHeldOut} {
		for _, task := range []eval.Task{&eval.SNIAH{Depth: -1, Phrasings: set}, &eval.SNIAH{Depth: -1, UUID: true, Phrasings: set},
			eval.Records{Phrasings: set}, eval.LabelCount{Phrasings: set}, &eval.Docs{Phrasings: set}} {
			for i := range 60 {
				inst, err := task.Generate(context.Background(), &strings.Builder{}, eval.Spec{Tokens: 1 << 10, Index: i, Seed: 3})
				if err != nil {
					t.Fatal(err)
				}
				q, ok := parse(inst.Question)
				m := inst.Meta
				var want question
				switch {
				case strings.HasPrefix(inst.Task, "sniah"), strings.HasPrefix(inst.Task, "docs"):
					want = question{family: "lookup", key: m["key"]}
				case m["kind"] == "count":
					want = question{family: "count", field: m["field"], value: m["value"]}
				case m["kind"] == "extract":
					want = question{family: "extract", field: m["field"], value: m["id"]}
				default:
					want = question{family: "labels", label: m["label"]}
				}
				if !ok || q != want {
					t.Fatalf("%s: parsed %q as %+v (%v), want %+v", inst.Task, inst.Question, q, ok, want)
				}
			}
		}
	}
}

// TestCellStylesVary checks that the expert writes several different
// programs for the families that look first, so that a model cannot just
// memorize one, and one general program for lookups, in several voices.
func TestCellStylesVary(t *testing.T) {
	for _, task := range []eval.Task{&eval.SNIAH{Depth: -1, Phrasings: eval.PhrasingsHeldIn}, eval.Records{Phrasings: eval.PhrasingsHeldIn},
		eval.LabelCount{Phrasings: eval.PhrasingsHeldIn}, &eval.Docs{Phrasings: eval.PhrasingsHeldIn}} {
		inspect, search := map[string]bool{}, map[string]bool{}
		for i := range 40 {
			inst, err := task.Generate(context.Background(), &strings.Builder{}, eval.Spec{Tokens: 1 << 10, Index: 2 * i, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			msgs := []Message{{Role: "system", Content: recursion.SystemPrompt()}, {Role: "user", Content: inst.Question}}
			first := Policy{Seed: 1}.Reply(msgs)
			switch task.(type) {
			case *eval.SNIAH, *eval.Docs:
				// One general lookup cell (lookupCell) at once: a model
				// of a million parameters learns one method that works
				// on any document better than several narrow ones, and
				// writes it from the question alone.
				prose, code, _ := strings.Cut(first, "```go\n")
				if code != strings.TrimSpace(lookupCell)+"\n```" {
					t.Fatalf("%s: first turn is not the lookup cell:\n%s", task.Name(), first)
				}
				inspect[prose] = true
				continue
			}
			msgs = append(msgs, Message{Role: "assistant", Content: first}, Message{Role: "user", Content: "8192 chars"})
			second := Policy{Seed: 1}.Reply(msgs)
			if !strings.Contains(first, "```go") || !strings.Contains(second, "```go") {
				t.Fatalf("turns without a cell:\n%s\n%s", first, second)
			}
			if strings.Contains(first, "FINAL") {
				t.Fatalf("first turn answers without looking:\n%s", first)
			}
			if again := (Policy{Seed: 1}).Reply(msgs); again != second {
				t.Fatal("the same conversation got two different replies")
			}
			inspect[strings.SplitN(first, "```", 2)[1]] = true
			search[strings.SplitN(second, "```", 3)[1]] = true
		}
		want := 3
		switch task.(type) {
		case eval.LabelCount:
			want = 2 // one program, with chunk sizes and prompts varied
		case *eval.SNIAH, *eval.Docs:
			want = 0 // the lookup cell is the first turn
		}
		if len(inspect) < 3 || len(search) < want {
			t.Errorf("%s: %d inspect and %d search styles in 40 instances", task.Name(), len(inspect), len(search))
		}
	}
}

func TestUnknownQuestionAndSubCall(t *testing.T) {
	p := Policy{}
	got := p.Reply([]Message{{Role: "system", Content: recursion.SystemPrompt()}, {Role: "user", Content: "  "}})
	if !strings.Contains(got, "FINAL(unsupported question)") {
		t.Errorf("empty question: %q", got)
	}
	sub := p.Reply([]Message{{Role: "user", Content: labelPrompts[0] + "\n\n" +
		"Date: Jan 02, 2022 || User: 12345 || Instance: I cannot recommend the tent to anyone.\n" +
		"Date: Jan 03, 2022 || User: 12345 || Instance: Nothing about the kettle was a disappointment."}})
	if want := "I cannot recommend the tent to anyone. | negative\nNothing about the kettle was a disappointment. | positive"; sub != want {
		t.Errorf("sub-call on record lines: %q, want %q", sub, want)
	}
	sub = p.Reply([]Message{{Role: "user", Content: labelPrompts[1] + "\n\n" +
		"The kettle comes in three colours and two sizes.\nI cannot recommend the tent to anyone.\n"}})
	if want := "The kettle comes in three colours and two sizes. | neutral\nI cannot recommend the tent to anyone. | negative"; sub != want {
		t.Errorf("sub-call on comments: %q, want %q", sub, want)
	}
}

// TestExpertHandlesNotFound gives the expert inputs that lack what the
// question asks for: its cells must notice and answer that there is none
// ("No answer" for a lookup, at once: lookup gives "" for a key the text
// does not hold; "not found" for a record, after a look and a search)
// rather than invent a value.
func TestExpertHandlesNotFound(t *testing.T) {
	dir := t.TempDir()
	hay := strings.Repeat("The grass is green. The sky is blue.\n", 600)
	recs := "The following lines are order records.\n" + strings.Repeat("ID: 100001 | name: Alice Novak | city: Lisbon | product: kettle | quantity: 3\n", 200)
	lines := []string{}
	for i, c := range []struct{ ctx, q string }{
		{hay, "What is the special magic number for brave-falcon mentioned in the provided text? Answer with the number itself."},
		{hay, "Quote the special magic uuid that the provided text assigns to calm-raven."},
		{recs, "What is the name of the record with ID 999999? Give your final answer in the form 'Answer: value'."},
	} {
		answer, scorer := "not found", "contains"
		if i < 2 {
			answer, scorer = "No answer", "absent"
		}
		p := filepath.Join(dir, fmt.Sprintf("ctx%d.txt", i))
		if err := os.WriteFile(p, []byte(c.ctx), 0o644); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(map[string]any{"context_file": p, "question": c.q, "answer": answer, "scorer": scorer})
		lines = append(lines, string(b))
	}
	file := filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := eval.LoadCustom(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runExpert(t, eval.Config{Tasks: []eval.Task{task}, N: 3, Seed: 1}) {
		if r.Score != 1 || r.StopReason != string(recursion.StopFinal) {
			t.Errorf("%s: answer %q (stop %s), want none", r.Question, r.Answer, r.StopReason)
		}
		if want := 1; strings.Contains(r.Question, "record") {
			if r.Iterations < 3 { // look, search, then conclude
				t.Errorf("%s: concluded after %d turns", r.Question, r.Iterations)
			}
		} else if r.Iterations != want {
			t.Errorf("%s: %d turns, want %d (the lookup cell)", r.Question, r.Iterations, want)
		}
	}
}
