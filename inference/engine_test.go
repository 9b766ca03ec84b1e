package inference

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/inference/inferencetest"
	"github.com/rlm-project/rlm/model"
	"github.com/rlm-project/rlm/model/tokenizer"
)

func testModel(t testing.TB, seed uint64) (*model.Model, *tokenizer.Tokenizer) {
	return inferencetest.Model(t, seed)
}

func testEngine(t testing.TB, cfg Config) *Engine {
	t.Helper()
	m, tok := testModel(t, 1)
	cfg.Name = "tiny"
	e, err := New(m, tok, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func prompt(t testing.TB, e *Engine, text string) []int32 {
	ids, err := e.Tokenizer().EncodePrompt([]tokenizer.Message{{Role: "user", Content: text}})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int32, len(ids))
	for i, id := range ids {
		out[i] = int32(id)
	}
	return out
}

func ids(r Result) []int32 {
	var out []int32
	for _, t := range r.Tokens {
		out = append(out, t.ID)
	}
	return out
}

func generate(t testing.TB, e *Engine, req Request) Result {
	t.Helper()
	r, err := e.Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fullLogprobs runs the training forward over prompt+completion and
// returns log-softmax at each completion token.
func fullLogprobs(t *testing.T, m *model.Model, prompt, completion []int32) []float64 {
	return fullLogprobsAt(t, m, prompt, completion, 1)
}

// fullLogprobsAt is fullLogprobs of the logits divided by temp.
func fullLogprobsAt(t *testing.T, m *model.Model, prompt, completion []int32, temp float32) []float64 {
	seq := append(slices.Clone(prompt), completion...)
	T := len(seq)
	b := &model.Batch{B: 1, T: T, IDs: seq, Pos: make([]int32, T), Seg: make([]int32, T)}
	for i := range b.Pos {
		b.Pos[i] = int32(i)
	}
	if err := m.Forward(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	row := make([]float32, m.Cfg.VocabSize)
	var out []float64
	for i, tok := range completion {
		if err := m.Logits(len(prompt)-1+i, row); err != nil {
			t.Fatal(err)
		}
		for j := range row {
			row[j] /= temp
		}
		out = append(out, float64(row[tok])-logSumExp(row))
	}
	return out
}

// TestGreedyMatchesFullForward: the cached engine's greedy completion is
// the one recomputing the whole sequence at each token gives, and its
// logprobs are the log-softmax of the full forward at the sampled tokens.
func TestGreedyMatchesFullForward(t *testing.T) {
	e := testEngine(t, Config{BlockSize: 4})
	p := prompt(t, e, "Count the lines of the context.")
	r := generate(t, e, Request{Prompt: p, MaxTokens: 40, IgnoreEOS: true, Sampling: Sampling{Logprobs: true, TopLogprobs: 3}})
	want, err := e.Model().Greedy(context.Background(), p, 40, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(r), want) {
		t.Fatalf("engine greedy %v\nfull forward greedy %v", ids(r), want)
	}
	lp := fullLogprobs(t, e.Model(), p, want)
	for i, tok := range r.Tokens {
		if math.Abs(tok.Logprob-lp[i]) > 1e-5 {
			t.Errorf("token %d: logprob %g, full forward %g", i, tok.Logprob, lp[i])
		}
		if len(tok.Top) != 3 || tok.Top[0].ID != tok.ID || tok.Top[0].Logprob != tok.Logprob || tok.Top[1].Logprob > tok.Top[0].Logprob {
			t.Errorf("token %d: top logprobs %v do not start with the greedy token %d", i, tok.Top, tok.ID)
		}
	}
	if r.FinishReason != "length" || len(r.Tokens) != 40 {
		t.Errorf("finish %q after %d tokens, want length after 40", r.FinishReason, len(r.Tokens))
	}
	if r2 := generate(t, e, Request{Prompt: p, MaxTokens: 40, IgnoreEOS: true}); !slices.Equal(ids(r2), ids(r)) {
		t.Errorf("greedy not deterministic: %v then %v", ids(r), ids(r2))
	}
}

// TestSampledLogprobsAndSeeds: sampled tokens carry the full forward's
// log-softmax; a seed reproduces a completion, another seed changes it.
func TestSampledLogprobsAndSeeds(t *testing.T) {
	e := testEngine(t, Config{})
	p := prompt(t, e, "Write something.")
	seed := func(s uint64) *uint64 { return &s }
	req := Request{Prompt: p, MaxTokens: 30, IgnoreEOS: true, Sampling: Sampling{Temperature: 0.9, TopP: 0.95, TopK: 50, Seed: seed(7), Logprobs: true}}
	a, b := generate(t, e, req), generate(t, e, req)
	if !slices.Equal(ids(a), ids(b)) {
		t.Fatalf("seed 7 twice: %v then %v", ids(a), ids(b))
	}
	req.Seed = seed(8)
	if c := generate(t, e, req); slices.Equal(ids(a), ids(c)) {
		t.Errorf("seeds 7 and 8 sampled the same %d tokens", len(ids(a)))
	}
	lp := fullLogprobs(t, e.Model(), p, ids(a))
	for i, tok := range a.Tokens {
		if math.Abs(tok.Logprob-lp[i]) > 1e-5 {
			t.Errorf("token %d: logprob %g, full forward %g", i, tok.Logprob, lp[i])
		}
	}

	// Tempered: the same tokens, with logprobs of the logits divided by 0.9.
	req.Seed, req.TemperedLogprobs = seed(7), true
	tempered := generate(t, e, req)
	if !slices.Equal(ids(a), ids(tempered)) {
		t.Fatalf("tempered logprobs changed the sampled tokens")
	}
	lp = fullLogprobsAt(t, e.Model(), p, ids(a), 0.9)
	for i, tok := range tempered.Tokens {
		if math.Abs(tok.Logprob-lp[i]) > 1e-5 {
			t.Errorf("token %d: tempered logprob %g, full forward at temperature 0.9 %g", i, tok.Logprob, lp[i])
		}
	}
}

// TestBatchedEqualsUnbatched: requests run concurrently (decoded in shared
// steps, joining and leaving between steps) get what each gets alone.
func TestBatchedEqualsUnbatched(t *testing.T) {
	seed := func(s uint64) *uint64 { return &s }
	var reqs []Request
	alone := testEngine(t, Config{BlockSize: 8, MaxBatchTokens: 16})
	for i := range 8 {
		reqs = append(reqs, Request{Prompt: prompt(t, alone, fmt.Sprintf("Question %d: %s", i, "abcdefghij"[:i+1])),
			MaxTokens: 5 + 4*i, IgnoreEOS: true, Sampling: Sampling{Temperature: float64(i%2) * 0.8, Seed: seed(uint64(i)), Logprobs: true}})
	}
	var want []Result
	for _, r := range reqs {
		want = append(want, generate(t, alone, r))
	}
	batched := testEngine(t, Config{BlockSize: 8, MaxBatchTokens: 16})
	got := make([]Result, len(reqs))
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = generate(t, batched, r)
		}()
	}
	wg.Wait()
	for i := range reqs {
		if !slices.Equal(ids(got[i]), ids(want[i])) {
			t.Errorf("request %d: batched %v, alone %v", i, ids(got[i]), ids(want[i]))
			continue
		}
		for j := range got[i].Tokens {
			if d := math.Abs(got[i].Tokens[j].Logprob - want[i].Tokens[j].Logprob); d > 1e-5 {
				t.Errorf("request %d token %d: logprob differs by %g", i, j, d)
			}
		}
	}
	if s := batched.Stats(); s.Steps >= alone.Stats().Steps {
		t.Errorf("batched engine took %d steps, one at a time %d: nothing was batched", s.Steps, alone.Stats().Steps)
	}
}

// TestPrefixReuse: an append-only conversation (each turn's prompt extends
// the last one with its completion) reuses the cached blocks, and gets
// exactly what an engine without prefix caching gets.
func TestPrefixReuse(t *testing.T) {
	run := func(e *Engine) ([][]int32, [][]float64) {
		var toks [][]int32
		var lps [][]float64
		msgs := []tokenizer.Message{{Role: "system", Content: "You answer in Go."}}
		for turn := range 5 {
			msgs = append(msgs, tokenizer.Message{Role: "user", Content: fmt.Sprintf("Turn %d: go on.", turn)})
			ids32, err := e.Tokenizer().EncodePrompt(msgs)
			if err != nil {
				t.Fatal(err)
			}
			p := make([]int32, len(ids32))
			for i, id := range ids32 {
				p[i] = int32(id)
			}
			r := generate(t, e, Request{Prompt: p, MaxTokens: 12, IgnoreEOS: true, Sampling: Sampling{Logprobs: true}})
			toks = append(toks, ids(r))
			var lp []float64
			for _, tk := range r.Tokens {
				lp = append(lp, tk.Logprob)
			}
			lps = append(lps, lp)
			msgs = append(msgs, tokenizer.Message{Role: "assistant", Content: r.Text})
		}
		return toks, lps
	}
	with := testEngine(t, Config{BlockSize: 4})
	without := testEngine(t, Config{BlockSize: 4, NoPrefixCache: true})
	a, alp := run(with)
	b, blp := run(without)
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("turn %d: with prefix cache %v, without %v", i, a[i], b[i])
		}
		for j := range alp[i] {
			if d := math.Abs(alp[i][j] - blp[i][j]); d > 1e-5 {
				t.Errorf("turn %d token %d: logprob differs by %g", i, j, d)
			}
		}
	}
	sw, so := with.Stats(), without.Stats()
	t.Logf("prompt tokens %d, from cache %d (%.0f%%); computed %d with reuse, %d without",
		sw.PromptTokens, sw.CachedTokens, 100*float64(sw.CachedTokens)/float64(sw.PromptTokens), sw.ComputedTokens, so.ComputedTokens)
	if sw.CachedTokens < sw.PromptTokens/2 || so.CachedTokens != 0 || sw.ComputedTokens >= so.ComputedTokens {
		t.Errorf("prefix cache saved too little: %+v vs %+v", sw, so)
	}
}

// TestPreemption: more concurrent work than the cache holds; sequences are
// preempted and recomputed, and each result equals the one it gets alone.
func TestPreemption(t *testing.T) {
	m, tok := testModel(t, 1)
	// 12 blocks of 4 tokens: one sequence of up to 48 tokens fits alone.
	small, err := New(m, tok, Config{Name: "tiny", KVCacheTokens: 48, BlockSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	var reqs []Request
	for i := range 5 {
		p := prompt(t, small, fmt.Sprintf("Q%d", i))
		reqs = append(reqs, Request{Prompt: p, MaxTokens: 40 - len(p), IgnoreEOS: true})
	}
	var want [][]int32
	for _, r := range reqs {
		want = append(want, ids(generate(t, small, r)))
	}
	got := make([][]int32, len(reqs))
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = ids(generate(t, small, r))
		}()
	}
	wg.Wait()
	for i := range reqs {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("request %d: under memory pressure %v, alone %v", i, got[i], want[i])
		}
	}
	s := small.Stats()
	t.Logf("%+v", s)
	if s.Preemptions == 0 {
		t.Error("no preemption: the test did not fill the cache")
	}
	if s.KVBlocksHeld != 0 {
		t.Errorf("%d blocks still held after every request ended", s.KVBlocksHeld)
	}
}

func TestStopsAndLimits(t *testing.T) {
	e := testEngine(t, Config{})
	p := prompt(t, e, "Say something long.")
	full := generate(t, e, Request{Prompt: p, MaxTokens: 30, IgnoreEOS: true})
	// A stop string taken from the middle of the greedy text.
	text := full.Text
	if len(text) < 12 {
		t.Fatalf("greedy text %q too short for the test", text)
	}
	stop := text[8:11]
	cut := text[:stringsIndex(text, stop)]
	var streamed string
	r, err := e.Generate(context.Background(), Request{Prompt: p, MaxTokens: 30, IgnoreEOS: true, Stop: []string{"NEVER", stop}},
		func(d Delta) error { streamed += d.Text; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != cut || streamed != cut || r.FinishReason != "stop" {
		t.Errorf("stop %q: text %q, streamed %q, finish %q; want %q, stop", stop, r.Text, streamed, r.FinishReason, cut)
	}
	if !slices.Equal(ids(r), ids(full)[:len(r.Tokens)]) || e.Tokenizer().Decode(toInts(ids(r)))[:len(cut)] != cut {
		t.Errorf("token ids of the stopped completion are not the prefix that produced its text")
	}
	// A stop token: the first greedy token ends the completion at once.
	first := full.Tokens[0].ID
	r = generate(t, e, Request{Prompt: p, MaxTokens: 30, StopTokenIDs: []int32{first}})
	if len(r.Tokens) != 1 || r.FinishReason != "stop" {
		t.Errorf("stop token: %d tokens, finish %q", len(r.Tokens), r.FinishReason)
	}
}

func stringsIndex(s, sub string) int {
	for i := range len(s) - len(sub) + 1 {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func toInts(x []int32) []int {
	out := make([]int, len(x))
	for i, v := range x {
		out[i] = int(v)
	}
	return out
}

func TestBadRequests(t *testing.T) {
	e := testEngine(t, Config{MaxModelLen: 64})
	p := prompt(t, e, "hi")
	for _, tc := range []struct {
		req   Request
		param string
	}{
		{Request{}, "prompt"},
		{Request{Prompt: []int32{99999}}, "prompt"},
		{Request{Prompt: p, MaxTokens: 64}, "max_tokens"},
		{Request{Prompt: make([]int32, 64)}, "messages"},
		{Request{Prompt: p, Sampling: Sampling{Temperature: -1}}, "temperature"},
		{Request{Prompt: p, Sampling: Sampling{TopP: 1.5}}, "top_p"},
		{Request{Prompt: p, Sampling: Sampling{TopK: -2}}, "top_k"},
		{Request{Prompt: p, Sampling: Sampling{TopLogprobs: 21}}, "top_logprobs"},
		{Request{Prompt: p, MaxTokens: -1}, "max_tokens"},
	} {
		_, err := e.Generate(context.Background(), tc.req, nil)
		var re *RequestError
		if !errors.As(err, &re) || re.Param != tc.param {
			t.Errorf("%+v: err %v, want a RequestError on %s", tc.req, err, tc.param)
		}
	}
}

// TestQueueBounds: with one sequence slot busy, a second request waits and
// times out, and one more than the queue holds is refused at once.
func TestQueueBounds(t *testing.T) {
	e := testEngine(t, Config{MaxSeqs: 1, MaxQueued: 1, QueueWait: 50 * time.Millisecond})
	p := prompt(t, e, "hi")
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := e.Generate(ctx, Request{Prompt: p, MaxTokens: 8000, IgnoreEOS: true}, func(Delta) error {
			select {
			case <-started:
			default:
				close(started)
			}
			return nil
		})
		done <- err
	}()
	<-started
	waitErr := make(chan error, 1)
	go func() {
		_, err := e.Generate(context.Background(), Request{Prompt: p, MaxTokens: 4}, nil)
		waitErr <- err
	}()
	for e.Stats().Waiting == 0 {
		time.Sleep(time.Millisecond)
	}
	if _, err := e.Generate(context.Background(), Request{Prompt: p, MaxTokens: 4}, nil); !errors.Is(err, ErrQueueFull) {
		t.Errorf("third request: %v, want ErrQueueFull", err)
	}
	if err := <-waitErr; !errors.Is(err, ErrQueueTimeout) {
		t.Errorf("waiting request: %v, want ErrQueueTimeout", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled request: %v", err)
	}
	for e.Stats().KVBlocksHeld != 0 || e.Stats().Running != 0 {
		time.Sleep(time.Millisecond)
	}
}

// TestSetWeights: weights swapped in memory give what an engine started on
// the new weights gives, the prefix cache computed with the old weights is
// not reused, and a swap while a request runs is refused.
func TestSetWeights(t *testing.T) {
	e := testEngine(t, Config{BlockSize: 4})
	other, _ := testModel(t, 2)
	fresh, err := New(other, e.Tokenizer(), Config{BlockSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	req := Request{Prompt: prompt(t, e, "Say something long enough to fill blocks."), MaxTokens: 10, IgnoreEOS: true}
	before := generate(t, e, req)
	if err := e.SetWeights(other.Params); err != nil {
		t.Fatal(err)
	}
	cachedBefore := e.Stats().CachedTokens
	after := generate(t, e, req)
	want := generate(t, fresh, req)
	if !slices.Equal(ids(after), ids(want)) {
		t.Fatalf("after SetWeights %v, engine on the new weights %v", ids(after), ids(want))
	}
	if slices.Equal(ids(before), ids(after)) {
		t.Errorf("the two models agree (%v): the test shows nothing", ids(before))
	}
	if got := e.Stats().CachedTokens; got != cachedBefore {
		t.Errorf("%d prompt tokens came from blocks cached under the old weights", got-cachedBefore)
	}

	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Generate(ctx, Request{Prompt: req.Prompt, IgnoreEOS: true}, func(Delta) error {
			select {
			case <-started:
			default:
				close(started)
			}
			return nil
		})
	}()
	<-started
	if err := e.SetWeights(other.Params); !errors.Is(err, ErrBusy) {
		t.Errorf("SetWeights during a request: %v, want ErrBusy", err)
	}
	cancel()
	<-done
}

// TestCloseEndsEverySequence: closing an engine with several sequences
// running, and some waiting, ends each of them with ErrClosed. (Close once
// walked e.running while finishing sequences deleted themselves from it in
// place, and reached the nil the delete leaves at the end.)
func TestCloseEndsEverySequence(t *testing.T) {
	for _, tc := range []struct{ running, waiting int }{{3, 0}, {4, 2}} {
		t.Run(fmt.Sprintf("%d running %d waiting", tc.running, tc.waiting), func(t *testing.T) {
			m, tok := testModel(t, 1)
			e, err := New(m, tok, Config{Name: "tiny", MaxSeqs: 4})
			if err != nil {
				t.Fatal(err)
			}
			p := prompt(t, e, "hi")
			n := tc.running + tc.waiting
			errs := make(chan error, n)
			for range n {
				go func() {
					_, err := e.Generate(context.Background(), Request{Prompt: p, MaxTokens: 8000, IgnoreEOS: true}, nil)
					errs <- err
				}()
			}
			for st := e.Stats(); st.Running < tc.running || st.Waiting < tc.waiting; st = e.Stats() {
				time.Sleep(time.Millisecond)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			for range n {
				if err := <-errs; !errors.Is(err, ErrClosed) {
					t.Errorf("request after Close: %v, want ErrClosed", err)
				}
			}
		})
	}
}

// logSumExp of a logits row, in float64: the test's own, independent of
// the engine's sampling path.
func logSumExp(row []float32) float64 {
	m := float32(math.Inf(-1))
	for _, x := range row {
		m = max(m, x)
	}
	var s float64
	for _, x := range row {
		s += math.Exp(float64(x - m))
	}
	return float64(m) + math.Log(s)
}
