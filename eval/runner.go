package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rlm-project/rlm/internal/clip"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
)

// Engine runs one RLM request; *recursion.Engine implements it.
type Engine interface {
	Run(ctx context.Context, req recursion.Request) (recursion.Result, error)
}

// Model makes one plain chat completion, for the direct baseline;
// *upstream.Client implements it.
type Model interface {
	Complete(ctx context.Context, req llm.Request) (llm.Completion, error)
}

// Tracer records runs, so that results link to their trajectories.
type Tracer interface {
	// StartTrace begins the trace of req, the run that will fill in r (its
	// task, instance, mode, question and gold answer are set; see
	// Result.TraceMetadata). The engine gets the returned trace ID and
	// observer; finish is called with the outcome. A direct baseline call
	// comes as a request without documents whose one message holds the
	// whole input, and reports its events itself.
	StartTrace(ctx context.Context, r Result, req recursion.Request) (traceID string, obs recursion.Observer, finish func(recursion.Result, error) error, err error)
	// Reward attaches a scored run's score to its finished trajectory
	// r.TraceID as the run's reward, so that training exports of the
	// trajectories carry it (rlm train sft --min-reward keeps runs by it).
	Reward(ctx context.Context, r Result) error
}

// Modes of a Result.
const (
	ModeRLM    = "rlm"
	ModeDirect = "direct"
)

// Config configures a Runner.
type Config struct {
	Tasks   []Task
	Lengths []int // tokens; ignored by FixedTasks
	N       int   // instances per task and length (FixedTasks: at most this many)
	Seed    int64
	// Concurrency is how many instances run at once.
	Concurrency int
	// OutDir receives results.jsonl (read back to resume), and the reports.
	OutDir string
	// WorkDir holds the generated contexts while their instance runs;
	// empty means a temporary directory, removed at the end.
	WorkDir string

	Engine Engine
	// Baseline, when set, also asks the model directly with the whole
	// input, for inputs up to ContextWindow tokens.
	Baseline      Model
	BaselineModel string // upstream model name for the baseline
	ContextWindow int

	Model    string // root model alias passed to the engine
	Limits   recursion.Limits
	Sampling llm.Sampling
	// Tracer, when set, records every run as a trajectory: RLM runs, and
	// direct baseline calls as runs of one node with one model call.
	Tracer Tracer
	// Progress receives a live progress bar; nil means none.
	Progress io.Writer
}

// Result is one finished instance in one mode: a line of results.jsonl.
type Result struct {
	Task       string            `json:"task"`
	Tokens     int               `json:"tokens"`
	Index      int               `json:"index"`
	Seed       int64             `json:"seed"`
	Mode       string            `json:"mode"`
	Question   string            `json:"question,omitempty"`
	Gold       string            `json:"gold,omitempty"`
	Answer     string            `json:"answer,omitempty"`
	Score      float64           `json:"score"`
	Skipped    string            `json:"skipped,omitempty"` // why the instance was not run
	Error      string            `json:"error,omitempty"`   // the run failed; resuming retries it
	StopReason string            `json:"stop_reason,omitempty"`
	TraceID    string            `json:"trace_id,omitempty"`
	TraceError string            `json:"trace_error,omitempty"` // the run went fine but its trace was not saved
	Usage      llm.Usage         `json:"usage"`
	LLMCalls   int               `json:"llm_calls"`
	Depth      int               `json:"depth"`
	Iterations int               `json:"iterations"`
	WallSec    float64           `json:"wall_s"`
	Bytes      int64             `json:"context_bytes"`
	Meta       map[string]string `json:"meta,omitempty"`
}

// Key identifies a result across runs: results with the same key are the
// same work.
func (r Result) Key() string {
	return fmt.Sprintf("%s/%d/%d/%d/%s", r.Task, r.Tokens, r.Index, r.Seed, r.Mode)
}

// TraceMetadata labels the trajectory of r's run, so that trace viewers
// show what was asked and what the right answer is: eval.task, eval.mode,
// eval.tokens, eval.index, eval.seed and eval.gold. A Tracer adds
// eval.score (FormatScore) when the run is scored.
func (r Result) TraceMetadata() map[string]string {
	return map[string]string{
		"eval.task": r.Task, "eval.mode": r.Mode, "eval.tokens": strconv.Itoa(r.Tokens),
		"eval.index": strconv.Itoa(r.Index), "eval.seed": strconv.FormatInt(r.Seed, 10), "eval.gold": r.Gold,
	}
}

// FormatScore writes a score as trace metadata carries it.
func FormatScore(s float64) string { return strconv.FormatFloat(s, 'g', 4, 64) }

// ResultsFile is the name of the results file in Config.OutDir.
const ResultsFile = "results.jsonl"

// ErrRunsFailed is wrapped by Run's error when runs ended with an upstream
// or harness failure rather than an answer. A failure is not a wrong answer:
// it is counted apart (Summary.Failed), never scored, and run again when Run
// is called again with the same output directory.
var ErrRunsFailed = errors.New("runs failed")

type planItem struct {
	task   Task
	tokens int // the length the instance is reported under
	exact  int // its estimated length; differs from tokens for custom tasks, whose lengths are bucketed
	index  int
	modes  []string // modes still to run
}

// Run runs every instance of cfg not already finished in OutDir's results
// file, appending each as it finishes, and returns all results of the
// configured tasks and lengths, old and new.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	if cfg.Engine == nil {
		return nil, errors.New("eval: no engine")
	}
	if cfg.N <= 0 || cfg.Concurrency <= 0 {
		return nil, fmt.Errorf("eval: n (%d) and concurrency (%d) must be positive", cfg.N, cfg.Concurrency)
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("eval: create output directory: %w", err)
	}
	resPath := filepath.Join(cfg.OutDir, ResultsFile)
	old, err := ReadResults(resPath)
	if err != nil {
		return nil, err
	}
	done := map[string]Result{}
	for _, r := range old {
		if r.Error == "" {
			done[r.Key()] = r
		}
	}

	var plan []planItem
	var kept []Result
	modes := []string{ModeRLM}
	if cfg.Baseline != nil {
		modes = append(modes, ModeDirect)
	}
	todo := 0
	for _, t := range cfg.Tasks {
		var items []planItem
		if ft, ok := t.(FixedTask); ok {
			for i := 0; i < min(cfg.N, ft.Len()); i++ {
				n := ft.Tokens(i)
				items = append(items, planItem{task: t, tokens: LengthBucket(n), exact: n, index: i})
			}
		} else {
			for _, l := range cfg.Lengths {
				for i := 0; i < cfg.N; i++ {
					items = append(items, planItem{task: t, tokens: l, exact: l, index: i})
				}
			}
		}
		for _, p := range items {
			for _, m := range modes {
				key := func(tokens int) string {
					return Result{Task: t.Name(), Tokens: tokens, Index: p.index, Seed: cfg.Seed, Mode: m}.Key()
				}
				r, ok := done[key(p.tokens)]
				if !ok && p.exact != p.tokens {
					// A results file written when custom lengths were not
					// yet bucketed keys the run by its exact length.
					r, ok = done[key(p.exact)]
					r.Tokens = p.tokens
				}
				if ok && !(r.Skipped != "" && fitsWindow(cfg, p.exact)) {
					kept = append(kept, r)
				} else {
					p.modes = append(p.modes, m)
				}
			}
			if len(p.modes) > 0 {
				plan = append(plan, p)
				todo += len(p.modes)
			}
		}
	}

	workDir := cfg.WorkDir
	if workDir == "" {
		if workDir, err = os.MkdirTemp("", "rlm-eval-"); err != nil {
			return nil, fmt.Errorf("eval: work directory: %w", err)
		}
		defer os.RemoveAll(workDir)
	} else if err := os.MkdirAll(workDir, 0o755); err != nil {
		return nil, fmt.Errorf("eval: work directory: %w", err)
	}
	if err := dropTornTail(resPath); err != nil {
		return nil, fmt.Errorf("eval: repair results: %w", err)
	}
	out, err := os.OpenFile(resPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("eval: open results: %w", err)
	}
	defer out.Close()

	bar := newProgress(cfg.Progress, modes, todo, kept)
	var (
		mu      sync.Mutex
		results = kept
		werr    error
	)
	record := func(r Result) {
		b, _ := json.Marshal(r)
		mu.Lock()
		defer mu.Unlock()
		if _, err := out.Write(append(b, '\n')); err != nil && werr == nil {
			werr = fmt.Errorf("eval: write results: %w", err)
		}
		results = append(results, r)
		bar.add(r)
	}

	work := make(chan planItem)
	var wg sync.WaitGroup
	for range min(cfg.Concurrency, max(len(plan), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				runItem(ctx, cfg, workDir, p, record)
			}
		}()
	}
feed:
	for _, p := range plan {
		select {
		case work <- p:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	bar.finish()
	if werr != nil {
		return results, werr
	}
	if err := ctx.Err(); err != nil {
		return results, fmt.Errorf("eval: interrupted (%d of %d runs left; run again to resume): %w", todo-bar.count(), len(kept)+todo, err)
	}
	var failed []Result
	for _, r := range results {
		if r.Error != "" {
			failed = append(failed, r)
		}
	}
	if len(failed) > 0 {
		return results, fmt.Errorf("eval: %w: %d of %d ended with an upstream or harness error, not an answer "+
			"(first: %s: %s); run the same command again to retry them",
			ErrRunsFailed, len(failed), len(results), failed[0].Key(), clip.Ellipsis(failed[0].Error, 300))
	}
	return results, nil
}

// contextLengthExceeded recognises an upstream's refusal of a prompt longer
// than its context window: OpenAI's and vLLM's wording, and this project's
// own models' (inference.RequestError says the same).
func contextLengthExceeded(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "maximum context length") || strings.Contains(s, "context_length_exceeded")
}

func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// fitsWindow reports whether the direct baseline runs an input of tokens
// tokens. A result skipped under a smaller --model-window is run again
// when the window grows, rather than resumed as skipped.
func fitsWindow(cfg Config, tokens int) bool {
	return cfg.ContextWindow <= 0 || tokens <= cfg.ContextWindow
}

// runItem generates one instance and runs it in each of its modes. Runs cut
// short by ctx are not recorded, so that resuming runs them again.
func runItem(ctx context.Context, cfg Config, workDir string, p planItem, record func(Result)) {
	base := Result{Task: p.task.Name(), Tokens: p.tokens, Index: p.index, Seed: cfg.Seed}
	needCtx := false
	for _, m := range p.modes {
		if m == ModeRLM || fitsWindow(cfg, p.exact) {
			needCtx = true
		}
	}
	var inst Instance
	path := filepath.Join(workDir, fmt.Sprintf("%s-%d-%d-%d.txt", strings.ReplaceAll(base.Task, ":", "_"), p.tokens, p.index, cfg.Seed))
	if needCtx {
		var err error
		inst, err = generateFile(ctx, p.task, path, Spec{Tokens: p.tokens, Index: p.index, Seed: cfg.Seed})
		defer os.Remove(path)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			for _, m := range p.modes {
				r := base
				r.Mode, r.Error = m, err.Error()
				record(r)
			}
			return
		}
		base.Question, base.Gold, base.Bytes, base.Meta = inst.Question, inst.Answer, inst.Bytes, inst.Meta
	}
	for _, m := range p.modes {
		r := base
		r.Mode = m
		start := time.Now()
		switch {
		case m == ModeDirect && !fitsWindow(cfg, p.exact):
			r.Skipped = fmt.Sprintf("input of %d tokens exceeds the context window of %d", p.exact, cfg.ContextWindow)
		case m == ModeDirect:
			runDirect(ctx, cfg, path, inst, &r)
		default:
			runRLM(ctx, cfg, path, inst, &r)
		}
		if ctx.Err() != nil {
			return
		}
		r.WallSec = time.Since(start).Seconds()
		if r.Error == "" && r.Skipped == "" {
			s, err := Score(inst, r.Answer)
			if err != nil {
				r.Error = fmt.Sprintf("score: %v", err)
			}
			r.Score = s
		}
		if cfg.Tracer != nil && r.TraceID != "" && r.Error == "" && r.Skipped == "" && r.TraceError == "" {
			if err := cfg.Tracer.Reward(ctx, r); err != nil {
				r.TraceError = fmt.Sprintf("attach reward: %v", err)
			}
		}
		record(r)
	}
}

func generateFile(ctx context.Context, t Task, path string, spec Spec) (Instance, error) {
	f, err := os.Create(path)
	if err != nil {
		return Instance{}, fmt.Errorf("create context file: %w", err)
	}
	inst, err := t.Generate(ctx, f, spec)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write context file: %w", cerr)
	}
	return inst, err
}

// instanceSampling gives each instance its own sampling seed, derived from
// the configured one and what the instance is: one seed shared by every
// instance would hand them all the same random stream, so that runs of
// similar prompts sample alike and a score measures one draw, not n.
func instanceSampling(s llm.Sampling, inst Instance) llm.Sampling {
	if s.Seed == nil {
		return s
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%d\x00%d\x00%d", *s.Seed, inst.Task, inst.Tokens, inst.Seed, inst.Index)
	seed := int(h.Sum64() >> 33) // non-negative, and within an int32 for upstreams that want one
	s.Seed = &seed
	return s
}

// RLMRequest is the RLM request of an instance whose context was written
// to path: the question, with the context attached as the document
// context.txt (and inst.Documents after it as context2.txt, ...), or,
// for an inline instance, the question and the context in one message.
// Training (training/rl) asks exactly what evaluation asks.
func RLMRequest(inst Instance, path string) (recursion.Request, error) {
	if inst.Inline != "" {
		doc, err := os.ReadFile(path)
		if err != nil {
			return recursion.Request{}, fmt.Errorf("read context: %w", err)
		}
		msg := string(doc) + "\n\n" + inst.Question
		if inst.Inline == InlineQuestionFirst {
			msg = inst.Question + "\n\n" + string(doc)
		}
		return recursion.Request{Messages: []llm.Message{{Role: "user", Content: msg}}}, nil
	}
	docs := []recursion.Document{{Name: "context.txt", Path: path}}
	about := "the attached document context.txt"
	if len(inst.Documents) > 0 {
		docs[0].Name = "context1.txt"
		for i, p := range inst.Documents {
			docs = append(docs, recursion.Document{Name: fmt.Sprintf("context%d.txt", i+2), Path: p})
		}
		about = fmt.Sprintf("in the %d attached documents", len(docs))
	}
	return recursion.Request{
		Messages:  []llm.Message{{Role: "user", Content: inst.Question + "\n\nThe text this question is about is " + about + "."}},
		Documents: docs,
	}, nil
}

func runRLM(ctx context.Context, cfg Config, path string, inst Instance, r *Result) {
	req, err := RLMRequest(inst, path)
	if err != nil {
		r.Error = err.Error()
		return
	}
	req.Model, req.Sampling, req.Limits = cfg.Model, instanceSampling(cfg.Sampling, inst), cfg.Limits
	var finish func(recursion.Result, error) error
	if cfg.Tracer != nil {
		id, obs, fin, err := cfg.Tracer.StartTrace(ctx, *r, req)
		if err != nil {
			r.Error = fmt.Sprintf("start trace: %v", err)
			return
		}
		req.TraceID, req.Observer, finish = id, obs, fin
	}
	res, err := cfg.Engine.Run(ctx, req)
	if finish != nil {
		if ferr := finish(res, err); ferr != nil {
			r.TraceError = ferr.Error()
		}
	}
	if err != nil {
		r.Error = fmt.Sprintf("engine: %v", err)
		return
	}
	r.Answer, r.StopReason, r.TraceID = res.Answer, string(res.StopReason), res.TraceID
	r.Usage, r.LLMCalls, r.Depth, r.Iterations = res.Usage, res.LLMCalls, res.MaxDepth, res.Iterations
	switch res.StopReason {
	case recursion.StopUpstreamError, recursion.StopCancelled:
		// The model was cut off by something other than its own work
		// or its budget: scoring its partial answer would count an
		// outage as a wrong answer.
		r.Error = fmt.Sprintf("%s: %s", res.StopReason, res.Error)
	}
}

// runDirect asks the baseline model once with the whole input. With a
// Tracer the call is recorded like an RLM run, as a trajectory of one node
// with one turn, one model call and no cells, so that direct results link
// to what the model was sent and answered just as RLM results do.
func runDirect(ctx context.Context, cfg Config, path string, inst Instance, r *Result) {
	doc, err := os.ReadFile(path)
	if err != nil {
		r.Error = fmt.Sprintf("read context: %v", err)
		return
	}
	msgs := []llm.Message{{Role: "user", Content: "Read the following text and answer the question after it.\n\n" +
		string(doc) + "\n\n" + inst.Question}}
	var (
		obs    recursion.Observer
		finish func(recursion.Result, error) error
	)
	if cfg.Tracer != nil {
		req := recursion.Request{Messages: msgs, Model: cfg.BaselineModel, Sampling: instanceSampling(cfg.Sampling, inst)}
		id, o, fin, err := cfg.Tracer.StartTrace(ctx, *r, req)
		if err != nil {
			r.Error = fmt.Sprintf("start trace: %v", err)
			return
		}
		r.TraceID, obs, finish = id, o, fin
	}
	emit := func(ev recursion.Event) {
		if obs != nil {
			ev.Time, ev.NodeID = time.Now(), "0"
			obs.Observe(ev)
		}
	}
	start := time.Now()
	emit(recursion.Event{Kind: recursion.EventNodeStart})
	emit(recursion.Event{Kind: recursion.EventTurnStart, Turn: 1})
	c, err := cfg.Baseline.Complete(ctx, llm.Request{Model: cfg.BaselineModel, Messages: msgs, Sampling: instanceSampling(cfg.Sampling, inst)})
	call := &recursion.ModelCallEvent{Model: cfg.BaselineModel, Messages: msgs, Response: c.Content, FinishReason: c.FinishReason,
		Usage: c.Usage, Latency: time.Since(start), Logprobs: c.Logprobs}
	switch {
	case err != nil && contextLengthExceeded(err):
		// The input fit the window by its estimate (4 characters a token)
		// but not by the model's tokenizer: skipped as too long, as the
		// chart promises, not a failure to retry.
		call.Err = err.Error()
		r.Skipped = "the prompt does not fit the model's context window (" + oneLineErr(err) + ")"
	case err != nil:
		call.Err = err.Error()
		r.Error = fmt.Sprintf("direct: %v", err)
	default:
		r.Answer, r.Usage, r.LLMCalls, r.StopReason = c.Content, c.Usage, 1, "direct"
		if c.FinishReason != "" && c.FinishReason != "stop" {
			r.StopReason = "direct_" + c.FinishReason
		}
	}
	emit(recursion.Event{Kind: recursion.EventModelCall, Turn: 1, Model: call})
	if finish == nil {
		return
	}
	res := recursion.Result{TraceID: r.TraceID, Answer: r.Answer, StopReason: recursion.StopReason(r.StopReason),
		Usage: c.Usage, Iterations: 1, LLMCalls: 1, Duration: time.Since(start)}
	if err != nil {
		res.StopReason, res.Error = recursion.StopUpstreamError, call.Err
		if ctx.Err() != nil {
			res.StopReason = recursion.StopCancelled
		}
	}
	emit(recursion.Event{Kind: recursion.EventNodeEnd, End: &recursion.NodeEndEvent{Answer: res.Answer, StopReason: res.StopReason,
		Error: res.Error, Usage: c.Usage, TreeUsage: c.Usage, Iterations: 1}})
	if ferr := finish(res, err); ferr != nil {
		r.TraceError = ferr.Error()
	}
}

// ReadResults reads a results file. A missing file has no results; a torn
// last line (an interrupted write) is ignored.
func ReadResults(path string) ([]Result, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("eval: read results: %w", err)
	}
	defer f.Close()
	var out []Result
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var bad error
	for line := 1; sc.Scan(); line++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if bad != nil {
			return nil, bad // a bad line that was not the last one
		}
		var r Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			bad = fmt.Errorf("eval: %s:%d: %w", path, line, err)
			continue
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: read results: %w", err)
	}
	return out, nil
}

// dropTornTail truncates a results file after its last newline, removing
// the half-written line an interrupted write left, so that new lines are
// not appended to it.
func dropTornTail(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	end := fi.Size()
	buf := make([]byte, 64<<10)
	for pos := end; pos > 0; {
		n := int64(len(buf))
		if pos < n {
			n = pos
		}
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			if pos+int64(i)+1 == end {
				return nil
			}
			return f.Truncate(pos + int64(i) + 1)
		}
	}
	return f.Truncate(0)
}
