package recursion

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"

	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/repl"
	"github.com/rlm-project/rlm/repl/symbols"
)

// The whole-run comparison of issue 12: the same scripted S-NIAH workload
// run end to end by our engine (the real REPL: yaegi in a pooled worker
// subprocess, the context offloaded to a file the worker maps) and by an
// in-process harness written here as the baseline: yaegi in the same
// process, `context` a Go string, cells evaluated directly, the
// architecture of XiaoConstantine/rlm-go. The "model" on both sides is
// niahReply, a scripted fake (a test double, not a model) called
// in-process, so the times are the harnesses' own.

// niahNeedle is the line the scripts look for; niahAnswer is what FINAL
// must return.
const (
	niahNeedle = "The secret launch code is 7294015."
	niahAnswer = "7294015"
)

// niahDoc builds a haystack of about size characters of filler lines with
// the needle at 70%.
func niahDoc(size int) string {
	var b strings.Builder
	b.Grow(size + 64)
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa")
	r := rand.New(rand.NewPCG(1, 2))
	needle := niahNeedle
	for line := 0; b.Len() < size; line++ {
		if b.Len() >= size*7/10 && needle != "" {
			b.WriteString(needle + "\n")
			needle = ""
			continue
		}
		fmt.Fprintf(&b, "%06d %s %s %s %s %s %s %s %s\n", line, words[r.IntN(16)], words[r.IntN(16)], words[r.IntN(16)],
			words[r.IntN(16)], words[r.IntN(16)], words[r.IntN(16)], words[r.IntN(16)], words[r.IntN(16)])
	}
	return b.String()
}

// niahCells are the cells of the scripted root, turn by turn. The 3-turn
// script inspects (length and a slice), searches (strings.Index) and
// answers with FINAL of a variable the search cell set; the 10-turn one
// looks around more before the same search and answer.
func niahCells(turns int) []string {
	inspect := `fmt.Println(len(context))
fmt.Println(context[:200])`
	search := `i := strings.Index(context, "launch code is ")
line := context[i:]
line = line[:strings.IndexByte(line, '\n')]
code := strings.TrimSuffix(strings.TrimPrefix(line, "launch code is "), ".")
fmt.Println(i, line)`
	answer := `FINAL(code)`
	if turns == 3 {
		return []string{inspect, search, answer}
	}
	cells := []string{inspect}
	looks := []string{
		`fmt.Println(strings.Count(context, "\n"), "lines")`,
		`fmt.Println(context[len(context)/2 : len(context)/2+200])`,
		`n := strings.Count(context, "alpha")
fmt.Println("alpha:", n)`,
		`j := strings.Index(context, "secret")
fmt.Println("secret at", j)`,
		`fmt.Println(strings.Contains(context, "launch"), strings.LastIndex(context, "papa"))`,
		`k := strings.Index(context[len(context)/3:], "oscar")
fmt.Println("oscar after a third:", k)`,
		`fmt.Println(context[len(context)-200:])`,
	}
	for len(cells) < turns-2 {
		cells = append(cells, looks[(len(cells)-1)%len(looks)])
	}
	return append(cells, search, answer)
}

// niahReply is the scripted root's reply on the given turn (1-based).
func niahReply(cells []string, turn int) string {
	if turn > len(cells) {
		return "FINAL(lost)"
	}
	return fmt.Sprintf("Turn %d: let me look.\n```go\n%s\n```", turn, cells[turn-1])
}

// niahModel is the scripted root as a llm.Client for the engine: it reads
// its turn from the transcript and replies with that turn's cell.
type niahModel struct{ cells []string }

func (m niahModel) Complete(ctx context.Context, req llm.Request) (llm.Completion, error) {
	turn := 1
	for _, msg := range req.Messages {
		if msg.Role == "assistant" {
			turn++
		}
	}
	content := niahReply(m.cells, turn)
	return llm.Completion{Content: content, FinishReason: "stop", Usage: llm.Usage{PromptTokens: 100, CompletionTokens: len(content) / 4}}, nil
}

// inprocHarness is the baseline: an RLM loop over a yaegi interpreter in
// this process. quote binds the context the way rlm-go does (evaluating
// `var context = "<the whole text, quoted>"`); otherwise it is bound as a
// Go string variable without a copy, the best an in-process harness can do.
type inprocHarness struct {
	quote bool
}

var fenceRE = regexp.MustCompile("(?s)```go\n(.*?)```")

// bind makes doc the interpreter's `context`.
func (h inprocHarness) bind(in *interp.Interpreter, doc *string) error {
	if h.quote {
		_, err := in.Eval(`var context = ` + strconv.Quote(*doc))
		return err
	}
	if err := in.Use(interp.Exports{"rlmctx/rlmctx": {"context": reflect.ValueOf(doc).Elem()}}); err != nil {
		return err
	}
	_, err := in.Eval(`import . "rlmctx"`)
	return err
}

// run answers question about doc: bind the context, then ask the model,
// run its cell, feed the output back, until FINAL. prebuilt, when set, is
// an interpreter built ahead of time (a pool of them, rlm-go's REPLPool);
// otherwise run builds one.
func (h inprocHarness) run(ctx context.Context, model llm.Client, doc, question string, prebuilt *prebuiltInterp) (string, int, error) {
	if prebuilt == nil {
		var err error
		if prebuilt, err = h.prebuild(); err != nil {
			return "", 0, err
		}
	}
	var out bytes.Buffer
	var final string
	in := prebuilt.in
	prebuilt.out, prebuilt.final = &out, &final
	if err := h.bind(in, &doc); err != nil {
		return "", 0, fmt.Errorf("bind context: %w", err)
	}
	msgs := []llm.Message{
		{Role: "system", Content: "You answer with Go cells; `context` holds the document."},
		{Role: "user", Content: fmt.Sprintf("The context is %d characters. %s", len(doc), question)},
	}
	for turn := 1; turn <= 30; turn++ {
		c, err := model.Complete(ctx, llm.Request{Model: "root-model", Messages: msgs})
		if err != nil {
			return "", turn, err
		}
		msgs = append(msgs, llm.Message{Role: "assistant", Content: c.Content})
		m := fenceRE.FindStringSubmatch(c.Content)
		if m == nil {
			msgs = append(msgs, llm.Message{Role: "user", Content: "Write a ```go cell."})
			continue
		}
		out.Reset()
		if _, err := in.EvalWithContext(ctx, m[1]); err != nil {
			fmt.Fprintln(&out, err)
		}
		if final != "" {
			return final, turn, nil
		}
		msgs = append(msgs, llm.Message{Role: "user", Content: "Output:\n" + out.String()})
	}
	return "", 30, fmt.Errorf("no FINAL")
}

// prebuiltInterp is an interpreter with the standard library symbols
// (ours, the allowlisted set), FINAL, and the packages the cells use
// imported, as rlm-go's REPL is when it is created; its output and FINAL
// go to the run that takes it.
type prebuiltInterp struct {
	in    *interp.Interpreter
	out   *bytes.Buffer
	final *string
}

func (h inprocHarness) prebuild() (*prebuiltInterp, error) {
	p := &prebuiltInterp{}
	var out bytes.Buffer
	var final string
	p.out, p.final = &out, &final
	w := writerFunc(func(b []byte) (int, error) { return p.out.Write(b) })
	in := interp.New(interp.Options{Stdout: w, Stderr: w})
	if err := in.Use(symbols.Symbols); err != nil {
		return nil, err
	}
	if err := in.Use(interp.Exports{"rlmbase/rlmbase": {
		"FINAL": reflect.ValueOf(func(v any) { *p.final = fmt.Sprint(v) }),
	}}); err != nil {
		return nil, err
	}
	if _, err := in.Eval("import \"fmt\"\nimport \"strings\"\nimport \"strconv\"\nimport . \"rlmbase\""); err != nil {
		return nil, err
	}
	p.in = in
	return p, nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// ourRun is one whole run through the engine on the real REPL.
func ourRun(ctx context.Context, e *Engine, doc, question string) (string, int, error) {
	res, err := e.Run(ctx, Request{Messages: []llm.Message{{Role: "user", Content: doc}, {Role: "user", Content: question}}})
	if err != nil {
		return "", 0, err
	}
	if res.StopReason != StopFinal {
		return "", res.Iterations, fmt.Errorf("stopped: %s %s", res.StopReason, res.Error)
	}
	return res.Answer, res.Iterations, nil
}

// waitIdle waits until the pool is at rest: want idle workers and the one
// the filler holds, none busy, and then a moment more, since a worker
// counts as idle from its start, before it has built its interpreter. A
// warm run starts on a full pool and no refill competes with the other
// harness's run.
func waitIdle(tb testing.TB, p *repl.Pool, want int) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		idle, busy := p.Workers()
		if idle >= want+1 && busy == 0 {
			time.Sleep(settle)
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("pool did not refill: %d idle, %d busy", idle, busy)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// settle is how long waitIdle lets new workers build their interpreters:
// about 30 ms of CPU each on the 2-core machine of BENCHMARKS.md.
const settle = 150 * time.Millisecond

const niahQuestion = "What is the secret launch code?"

func TestInProcBaselineSameFinal(t *testing.T) {
	doc := niahDoc(100_000)
	pool, err := repl.NewPool(repl.PoolConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for _, turns := range []int{3, 10} {
		cells := niahCells(turns)
		model := niahModel{cells}
		e, err := New(Config{Root: model, RootModel: "root-model", Sandbox: PoolSandbox(pool), TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		ours, ourTurns, err := ourRun(t.Context(), e, doc, niahQuestion)
		if err != nil {
			t.Fatalf("ours, %d turns: %v", turns, err)
		}
		pre, err := inprocHarness{}.prebuild()
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range []struct {
			name string
			h    inprocHarness
			pre  *prebuiltInterp
		}{{"quoted", inprocHarness{quote: true}, nil}, {"bound", inprocHarness{}, nil}, {"bound prebuilt", inprocHarness{}, pre}} {
			base, baseTurns, err := h.h.run(t.Context(), model, doc, niahQuestion, h.pre)
			if err != nil {
				t.Fatalf("baseline %s, %d turns: %v", h.name, turns, err)
			}
			if ours != niahAnswer || base != ours || ourTurns != turns || baseTurns != turns {
				t.Errorf("%d-turn script: ours FINAL %q after %d turns, baseline (%s) %q after %d; want %q after %d",
					turns, ours, ourTurns, h.name, base, baseTurns, niahAnswer, turns)
			}
		}
	}
}

// BenchmarkWholeRunInProc runs, interleaved, our whole run and the
// in-process baseline's on the same document and script, b.N times each,
// and reports the medians and their ratio (ours / baseline). cold: ours
// starts a new pool inside the timing (a server's first request: process
// start, interpreter build, mapping), the baseline builds its interpreter
// inside it. warm: ours starts on a full pool, the baseline takes an
// interpreter built ahead (rlm-go's REPLPool). Both bind the context inside
// the timing. Sizes 100K, 1M, 10M characters; 3- and 10-turn scripts.
func BenchmarkWholeRunInProc(b *testing.B) {
	for _, size := range []int{100_000, 1_000_000, 10_000_000} {
		doc := niahDoc(size)
		for _, turns := range []int{3, 10} {
			for _, mode := range []string{"warm", "cold"} {
				b.Run(fmt.Sprintf("size=%s/turns=%d/%s", sizeName(size), turns, mode), func(b *testing.B) {
					benchWholeRun(b, doc, turns, mode == "cold")
				})
			}
		}
	}
}

func sizeName(n int) string {
	if n >= 1_000_000 {
		return fmt.Sprintf("%dM", n/1_000_000)
	}
	return fmt.Sprintf("%dK", n/1_000)
}

func benchWholeRun(b *testing.B, doc string, turns int, cold bool) {
	model := niahModel{niahCells(turns)}
	dir := b.TempDir()
	newEngine := func(p *repl.Pool) *Engine {
		e, err := New(Config{Root: model, RootModel: "root-model", Sandbox: PoolSandbox(p), TempDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	const poolSize = 2 // PoolConfig's default, as serve runs it
	var pool *repl.Pool
	if !cold {
		var err error
		if pool, err = repl.NewPool(repl.PoolConfig{Size: poolSize}); err != nil {
			b.Fatal(err)
		}
		defer pool.Close()
	}
	check := func(who, got string, n int, err error) {
		if err != nil || got != niahAnswer || n != turns {
			b.Fatalf("%s: FINAL %q after %d turns (%v), want %q after %d", who, got, n, err, niahAnswer, turns)
		}
	}
	var ours, bound, quoted []time.Duration
	ctx := b.Context()
	b.ResetTimer()
	for i := range b.N {
		// Alternate which harness goes first, so neither always runs
		// right after the other's garbage.
		runOurs := func() {
			if cold {
				start := time.Now()
				p, err := repl.NewPool(repl.PoolConfig{Size: poolSize})
				if err != nil {
					b.Fatal(err)
				}
				got, n, err := ourRun(ctx, newEngine(p), doc, niahQuestion)
				ours = append(ours, time.Since(start))
				check("ours", got, n, err)
				p.Close()
				return
			}
			waitIdle(b, pool, poolSize)
			start := time.Now()
			got, n, err := ourRun(ctx, newEngine(pool), doc, niahQuestion)
			ours = append(ours, time.Since(start))
			check("ours", got, n, err)
			waitIdle(b, pool, poolSize)
		}
		runBase := func(h inprocHarness, into *[]time.Duration) {
			var pre *prebuiltInterp
			if !cold {
				var err error
				if pre, err = h.prebuild(); err != nil {
					b.Fatal(err)
				}
			}
			start := time.Now()
			got, n, err := h.run(ctx, model, doc, niahQuestion, pre)
			*into = append(*into, time.Since(start))
			check("baseline", got, n, err)
		}
		if i%2 == 0 {
			runOurs()
			runBase(inprocHarness{}, &bound)
			runBase(inprocHarness{quote: true}, &quoted)
		} else {
			runBase(inprocHarness{quote: true}, &quoted)
			runBase(inprocHarness{}, &bound)
			runOurs()
		}
	}
	b.StopTimer()
	med := func(d []time.Duration) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[len(s)/2]
	}
	b.ReportMetric(float64(med(ours).Microseconds()), "ours-us")
	b.ReportMetric(float64(med(bound).Microseconds()), "inproc-us")
	b.ReportMetric(float64(med(quoted).Microseconds()), "inproc-quoted-us")
	b.ReportMetric(float64(med(ours))/float64(med(bound)), "ours/inproc")
	b.ReportMetric(float64(med(ours))/float64(med(quoted)), "ours/inproc-quoted")
}
