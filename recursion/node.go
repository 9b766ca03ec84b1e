package recursion

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlm-project/rlm/internal/clip"
	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/repl"
)

// Messages the engine writes into a transcript. They are part of the
// training sequence, so they stay short and stable.
const (
	nudgeMessage = "Your reply had no ```go code block and no FINAL. Write Go code in a ```go block to work on the input, " +
		"or finish: call FINAL(answer) in a cell, or write a line FINAL(answer) or FINAL_VAR(variable_name)."
	refuseMessage = "FINAL refused: you have not looked at the offloaded input yet. Inspect `context`/`contexts` with code " +
		"first (it is not in this conversation), then call FINAL again."
	emptyFinalMessage = "FINAL refused: the answer is empty. If the input does not hold the answer, say so in words, " +
		"e.g. FINAL(\"not found\"); otherwise find it with code and call FINAL with it."
	answerNowMessage = "You are out of turns. Reply now with your best answer on one line: FINAL(your answer). Do not write code."
	pythonMessage    = "This REPL runs Go, not Python: your ```python block did not run. Rewrite the cell in Go, in a ```go block."
	toolCallsMessage = "This endpoint has no tools: your tool call was not executed. Write Go code in a ```go block instead " +
		"(llm_query, rlm_query and FINAL are Go functions in the REPL)."
	cutOffMessage = "Your reply was cut off by the token limit inside a code block; that unfinished cell did not run. " +
		"Write shorter cells and less prose."
)

// node is one RLM: a transcript, a REPL session, and the Host that answers
// the session's sub-calls.
type node struct {
	r        *runState
	id       string
	parent   string
	depth    int
	model    string
	sampling llm.Sampling
	client   llm.Client

	turn, cell atomic.Int64 // where the session is, for sub-call events
	children   atomic.Int64

	mu        sync.Mutex
	treeUsage llm.Usage
}

type nodeResult struct {
	answer     string
	reason     StopReason
	err        string
	cause      error // the model call's error, when one ended the node
	iterations int
	treeUsage  llm.Usage
	// statement is true when answer is the one-line statement of what
	// stopped the node (every stop without FINAL).
	statement bool
}

// lookRE finds code that reads the offloaded input.
var lookRE = regexp.MustCompile(`\bcontexts?\b`)

// run drives the node's loop over the input off. The error is only for a
// REPL that cannot start at all.
func (n *node) run(ctx context.Context, off *offloaded) (res nodeResult, err error) {
	r := n.r
	for d := int64(n.depth); ; {
		cur := r.maxDepth.Load()
		if d <= cur || r.maxDepth.CompareAndSwap(cur, d) {
			break
		}
	}
	r.emit(Event{Kind: EventNodeStart, NodeID: n.id, ParentID: n.parent, Depth: n.depth})
	defer func() {
		if off.File != nil {
			os.Remove(off.File.Path)
		}
		if err != nil {
			res = nodeResult{reason: stopReason(ctx, err), err: err.Error()}
		}
		n.mu.Lock()
		res.treeUsage = n.treeUsage.Add(r.usageByNodeID(n.id))
		n.mu.Unlock()
		r.emit(Event{Kind: EventNodeEnd, NodeID: n.id, ParentID: n.parent, Depth: n.depth, End: &NodeEndEvent{
			Answer: res.answer, StopReason: res.reason, Error: res.err, Usage: r.usageByNodeID(n.id),
			TreeUsage: res.treeUsage, Iterations: res.iterations,
		}})
	}()

	if n.depth == 0 && off.File == nil && r.cont == nil && r.e.cfg.NoContextAnswer != "" {
		return nodeResult{answer: r.e.cfg.NoContextAnswer, reason: StopNoContext}, nil
	}
	sess, transcript, gate, err := n.session(ctx, off)
	if err != nil {
		if ctx.Err() != nil {
			return nodeResult{reason: stopReason(ctx, ctx.Err()), err: context.Cause(ctx).Error()}, nil
		}
		return nodeResult{}, fmt.Errorf("start REPL session for node %s: %w", n.id, err)
	}
	defer func() { n.release(ctx, sess, transcript) }()

	var prog progress
	maxIter := r.lim.MaxIterations
	failed := 0 // turns in a row in which no cell worked
	for turn := 1; turn <= maxIter; turn++ {
		if failed > 0 && failed >= r.lim.MaxFailedTurns {
			return n.stop(ctx, sess, transcript, turn-1, StopFailedTurns,
				fmt.Sprintf("%d turns in a row ran no cell without an error", failed), &prog), nil
		}
		n.turn.Store(int64(turn))
		n.cell.Store(0)
		if ctx.Err() != nil {
			return n.stop(ctx, sess, transcript, turn-1, stopReason(ctx, ctx.Err()), context.Cause(ctx).Error(), &prog), nil
		}
		r.emit(Event{Kind: EventTurnStart, NodeID: n.id, ParentID: n.parent, Depth: n.depth, Turn: turn})
		var c llm.Completion
		transcript, c, err = n.complete(ctx, transcript, turn)
		if err != nil {
			res := n.stop(ctx, sess, transcript, turn-1, stopReason(ctx, err), err.Error(), &prog)
			res.cause = err
			return res, nil
		}
		rp := parseReply(c.Content, c.FinishReason)
		resp := rp.visible
		transcript = append(transcript, llm.Message{Role: "assistant", Content: resp})
		prog.sawReply(resp)

		cells := rp.cells
		if len(cells) == 0 {
			fl, ok := parseFinalLine(resp)
			if !ok || rp.cutOff {
				failed++
				transcript = append(transcript, llm.Message{Role: "user", Content: noCodeMessage(rp, c)})
				continue
			}
			if fl.Var == "" && !fl.Code && isIdent(fl.Answer) && assignedInCode(transcript, fl.Answer) {
				// FINAL(value) outside a cell, value a variable of the
				// model's own code: the variable, never the word.
				fl.Var = fl.Answer
			}
			answer, feedback, err := n.lineFinal(ctx, sess, turn, fl)
			if err != nil {
				return n.stop(ctx, sess, transcript, turn, stopReason(ctx, err), err.Error(), &prog), nil
			}
			if feedback == "" && gate.refuse() {
				feedback = refuseMessage
			}
			if feedback == "" && strings.TrimSpace(answer) == "" {
				feedback = emptyFinalMessage
				failed++
			}
			if feedback == "" {
				if answer, feedback = n.answerFeedback(answer); feedback != "" {
					failed++
				}
			}
			if feedback != "" {
				transcript = append(transcript, llm.Message{Role: "user", Content: feedback})
				continue
			}
			return n.settle(answer, off, turn), nil
		}

		var fb strings.Builder
		var final *string
		worked := false
		for i, code := range cells {
			if lookRE.MatchString(code) {
				gate.looked = true
			}
			cr, err := n.runCell(ctx, sess, turn, i+1, code)
			prog.sawCell(cr)
			if err != nil {
				return n.stop(ctx, sess, transcript, turn, stopReason(ctx, err), err.Error(), &prog), nil
			}
			worked = worked || cr.Error == "" || strings.TrimSpace(cr.Output) != ""
			writeFeedback(&fb, i+1, len(cells), cr)
			if cr.Final != nil {
				final = cr.Final
				if i+1 < len(cells) {
					fmt.Fprintf(&fb, "(FINAL was called in cell %d; the %d cell(s) after it did not run.)\n", i+1, len(cells)-i-1)
				}
				break
			}
		}
		// An empty FINAL is no answer: it is refused, and the turn counts
		// as failed, so that a model that keeps giving one stops with "No
		// answer" (StopFailedTurns) instead of answering nothing.
		empty := final != nil && strings.TrimSpace(*final) == ""
		if (worked || final != nil) && !empty {
			failed = 0
		} else {
			failed++
		}
		if final == nil {
			if rp.cutOff {
				fb.WriteString(cutOffMessage + "\n")
			}
			if rp.python > 0 {
				fb.WriteString(pythonMessage + "\n")
			}
		}
		answer, required := "", ""
		if final != nil && !empty {
			answer, required = n.answerFeedback(*final)
		}
		switch {
		case empty:
			fb.WriteString(emptyFinalMessage)
		case final != nil && required != "":
			fb.WriteString(required)
			failed++
		case final != nil && !gate.refuse():
			return n.settle(answer, off, turn), nil
		case final != nil:
			fb.WriteString(refuseMessage)
		}
		transcript = append(transcript, llm.Message{Role: "user", Content: clipWithNote(strings.TrimSpace(fb.String()), r.e.cfg.MaxFeedbackChars)})
	}
	return n.stop(ctx, sess, transcript, maxIter, StopMaxIterations, fmt.Sprintf("no FINAL after %d turns", maxIter), &prog), nil
}

// session gives the node its REPL session, its first transcript and its
// FINAL gate: a new session, or, for the root of a follow-up, the kept one
// (its host now this node) with the earlier transcript and the new input.
func (n *node) session(ctx context.Context, off *offloaded) (Session, []llm.Message, finalGate, error) {
	r := n.r
	if n.depth == 0 && r.cont != nil {
		c := r.cont
		c.host.n.Store(n)
		transcript := append(slices.Clip(c.transcript), llm.Message{Role: "user", Content: followUpMessage(off)})
		// The model looked at the input in an earlier run.
		return c.sess, transcript, finalGate{doc: c.doc, looked: true}, nil
	}
	var host repl.Host = n
	var hs *hostSwitch
	if n.depth == 0 && r.keep {
		hs = &hostSwitch{}
		hs.n.Store(n)
		host = hs
	}
	cfg := SessionConfig{Context: off.File, Query: off.Query, Host: host, Limits: r.replLimits, Budget: r.replMemory}
	if n.depth == 0 {
		cfg.Tools = r.tools.names()
		for _, im := range r.images {
			cfg.Images = append(cfg.Images, im.Name)
		}
	}
	sess, err := r.e.cfg.Sandbox.NewSession(ctx, cfg)
	if err != nil {
		return nil, nil, finalGate{}, err
	}
	if n.depth == 0 {
		r.mu.Lock()
		r.rootSess = sess
		r.mu.Unlock()
	}
	if hs != nil {
		r.cont = &Conversation{host: hs, sess: sess, doc: off.File != nil, busy: true}
	}
	input := inputMessage(off)
	if n.depth == 0 {
		input += r.tools.toolsMessage() + answerMessage(r.answer) + imagesMessage(r.images)
	}
	transcript := []llm.Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: input}}
	return sess, transcript, finalGate{doc: off.File != nil}, nil
}

// release ends the node's use of its session: closed, or, for a root that
// keeps it, kept with the node's transcript when the run can go on (it was
// not cancelled and had time left).
func (n *node) release(ctx context.Context, sess Session, transcript []llm.Message) {
	r := n.r
	if n.depth != 0 || r.cont == nil {
		sess.Close()
		return
	}
	if r.cont.done(transcript, ctx.Err() == nil) {
		r.kept = r.cont
	}
}

// finalGate refuses, once, a FINAL from a node that holds a document but
// has run no cell that looks at it: a small model answers from the question
// alone, and one refusal is enough to make it look.
type finalGate struct{ doc, looked, refused bool }

// refuse reports whether a FINAL must be refused now.
func (g *finalGate) refuse() bool {
	if !g.doc || g.looked || g.refused {
		return false
	}
	g.refused = true
	return true
}

// lineFinal resolves a FINAL(answer) or FINAL_VAR(name) written outside a
// cell: the answer, or, when it cannot be used, feedback for the model.
func (n *node) lineFinal(ctx context.Context, sess Session, turn int, fl finalLine) (answer, feedback string, err error) {
	if fl.Var == "" && !fl.Code {
		return fl.Answer, "", nil
	}
	if fl.Var != "" && !isIdent(fl.Var) {
		return "", fmt.Sprintf("FINAL_VAR needs a variable name, got %q.", fl.Var), nil
	}
	// FINAL_VAR(name), or FINAL(code) written outside a cell, which is
	// run: code is never an answer.
	expr, what := fl.Var, "FINAL_VAR("+fl.Var+") failed"
	if fl.Code {
		expr, what = fl.Answer, "FINAL("+fl.Answer+") is Go code, written outside a ```go cell, and running it failed"
	}
	cr, err := n.runCell(ctx, sess, turn, 1, "FINAL("+expr+")")
	if err != nil {
		return "", "", err
	}
	if cr.Final == nil {
		return "", what + ":\n" + cr.Error, nil
	}
	return *cr.Final, "", nil
}

// usageByNodeID is one node's own usage.
func (r *runState) usageByNodeID(id string) llm.Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nodeUsage[id]
}

// progress is what a node has produced so far that a partial answer can be
// made of: the last prose the model wrote and the last output a cell printed.
type progress struct {
	prose    string
	output   string
	answered string // the answer given when told the run was out of turns
}

func (p *progress) sawReply(resp string) {
	if prose := stripCode(resp); prose != "" {
		p.prose = prose
	}
}

func (p *progress) sawCell(cr repl.CellResult) {
	if out := strings.TrimSpace(cr.Output); out != "" {
		p.output = out
	}
}

// maxStatementOutput bounds the cell output quoted in a one-line partial answer.
const maxStatementOutput = 300

// partialAnswer is the answer of a node that stopped without FINAL: one
// line saying what stopped the run and what was found so far (the answer
// the model gave when told it was out of turns, else the last prose it
// wrote, else the last cell's output). Code is never an answer, and neither
// is a fragment the model wrote before it stopped: whatever the reason, a
// run without FINAL answers "No answer: ...".
func (p *progress) partialAnswer(reason StopReason, errText string) string {
	s := fmt.Sprintf("No answer: the run stopped (%s: %s) before FINAL", reason, oneLine(errText))
	switch {
	case p.answered != "":
		return s + "; told to answer at once, the model answered: " + clipLine(p.answered)
	case p.prose != "":
		return s + "; the model's last words: " + clipLine(p.prose)
	case p.output != "":
		return s + "; the last cell printed: " + clipLine(p.output)
	}
	return s + "; no cell had printed anything yet."
}

// clipLine is s on one line, cut to maxStatementOutput bytes at a rune
// boundary.
func clipLine(s string) string {
	out := oneLine(s)
	if len(out) > maxStatementOutput {
		out = clip.Head(out, maxStatementOutput) + "…"
	}
	return out
}

// stop ends a node without FINAL. When the reason leaves budget and time
// (the node ran out of turns, or of tokens but a last call still fits), the
// model gets one last turn to answer now, and the partial answer quotes
// what it answered: the run still ended without FINAL, and says so.
func (n *node) stop(ctx context.Context, sess Session, transcript []llm.Message, turns int, reason StopReason, errText string, prog *progress) nodeResult {
	res := nodeResult{reason: reason, err: errText, iterations: turns}
	if ctx.Err() == nil && (reason == StopMaxIterations || reason == StopBudgetTokens) {
		turn := turns + 1
		n.turn.Store(int64(turn))
		n.r.emit(Event{Kind: EventTurnStart, NodeID: n.id, ParentID: n.parent, Depth: n.depth, Turn: turn})
		msgs := append(slices.Clip(transcript), llm.Message{Role: "user", Content: answerNowMessage})
		if _, c, err := n.complete(ctx, msgs, turn); err == nil {
			res.iterations = turn
			rp := parseReply(c.Content, c.FinishReason)
			if prog.answered = n.lastWord(ctx, sess, turn, rp); prog.answered == "" {
				prog.sawReply(rp.visible)
			}
		}
	}
	res.answer = prog.partialAnswer(reason, errText)
	res.statement = true
	return res
}

// lastWord is what the model answered when told it was out of turns: the
// FINAL of a cell it wrote anyway (FINAL(value) names a variable there),
// else of a FINAL line; "" if it gave none.
func (n *node) lastWord(ctx context.Context, sess Session, turn int, rp reply) string {
	for i, code := range rp.cells {
		cr, err := n.runCell(ctx, sess, turn, i+1, code)
		if err != nil {
			return ""
		}
		if cr.Final != nil {
			return *cr.Final
		}
	}
	fl, ok := parseFinalLine(rp.visible)
	if !ok {
		return ""
	}
	answer, _, err := n.lineFinal(ctx, sess, turn, fl)
	if err != nil {
		return ""
	}
	return answer
}

// noCodeMessage is the reply to a response that ran nothing and gave no
// FINAL: the most specific reason first.
func noCodeMessage(rp reply, c llm.Completion) string {
	switch {
	case rp.cutOff:
		return cutOffMessage
	case len(c.ToolCalls) > 0:
		return toolCallsMessage
	case rp.python > 0:
		return pythonMessage
	}
	return nudgeMessage
}

// complete makes one turn's model call and reports it. The transcript is
// compacted first when it would not fit the model's context window; the
// compacted transcript is returned for the turns that follow.
func (n *node) complete(ctx context.Context, transcript []llm.Message, turn int) ([]llm.Message, llm.Completion, error) {
	transcript, compaction := n.r.e.compact(n.model, transcript, n.sampling)
	msgs := slices.Clip(transcript)
	start := time.Now()
	c, err := n.r.complete(llm.WithCall(ctx, llm.CallInfo{NodeID: n.id, Depth: n.depth, Turn: turn, Kind: llm.CallTurn}), n.id, n.client, llm.Request{Model: n.model, Messages: msgs, Sampling: n.sampling})
	var be *BudgetError
	if errors.As(err, &be) {
		return transcript, c, err // refused before the call: nothing to report
	}
	ev := &ModelCallEvent{Model: n.model, ResponseModel: c.Model, Messages: msgs, Response: c.Content, FinishReason: c.FinishReason,
		Usage: c.Usage, Latency: time.Since(start), Logprobs: c.Logprobs, Reasoning: c.Reasoning, ToolCalls: c.ToolCalls,
		Compaction: compaction}
	if err != nil {
		ev.Err = err.Error()
	}
	n.r.emit(Event{Kind: EventModelCall, NodeID: n.id, ParentID: n.parent, Depth: n.depth, Turn: turn, Model: ev})
	return transcript, c, err
}

// runCell runs one cell and reports it. The error is the sandbox's (the
// run was cancelled or the session broke), not the model code's.
func (n *node) runCell(ctx context.Context, sess Session, turn, cell int, code string) (repl.CellResult, error) {
	n.cell.Store(int64(cell))
	r := n.r
	r.emit(Event{Kind: EventCellStart, NodeID: n.id, ParentID: n.parent, Depth: n.depth, Turn: turn, Cell: cell,
		CellRun: &CellEvent{Code: code}})
	start := time.Now()
	cr, err := sess.Run(ctx, code)
	if cr.Duration == 0 {
		cr.Duration = time.Since(start)
	}
	ev := &CellEvent{Code: code, Output: cr.Output, OutputBytes: cr.OutputBytes, Truncated: cr.Truncated,
		Error: cr.Error, Final: cr.Final, Restarted: cr.Restarted, Duration: cr.Duration}
	if err != nil {
		ev.Error = err.Error()
	}
	r.emit(Event{Kind: EventCellEnd, NodeID: n.id, ParentID: n.parent, Depth: n.depth, Turn: turn, Cell: cell, CellRun: ev})
	if err != nil {
		if ctx.Err() != nil {
			return cr, context.Cause(ctx)
		}
		// A broken session is the model's problem to see, not a stop: the
		// next cell may get a fresh worker.
		cr.Error = fmt.Sprintf("REPL failure: %v", err)
	}
	return cr, nil
}

func writeFeedback(b *strings.Builder, i, total int, cr repl.CellResult) {
	if total > 1 {
		fmt.Fprintf(b, "Cell %d:\n", i)
	}
	out := strings.TrimRight(cr.Output, "\n")
	switch {
	case out != "":
		b.WriteString(out)
		b.WriteByte('\n')
	case cr.Error == "":
		b.WriteString("(no output)\n")
	}
	if cr.Error != "" {
		fmt.Fprintf(b, "Error: %s\n", strings.TrimRight(cr.Error, "\n"))
	}
	if cr.Restarted {
		b.WriteString("The REPL restarted: your variables are lost; context, contexts and the functions are still there.\n")
	}
}

// inputMessage is the first user message of a node: its input with the
// offloaded parts replaced by placeholders.
func inputMessage(off *offloaded) string {
	var b strings.Builder
	if len(off.Pieces) > 0 {
		total := 0
		for _, p := range off.Pieces {
			total += p.Chars
		}
		fmt.Fprintf(&b, "%d part(s) of the input (%d chars, ~%d tokens) are offloaded to the REPL as contexts[0..%d]; "+
			"`context` holds all of them. Placeholders below mark where they were.\n\n",
			len(off.Pieces), total, llm.EstimateTokens(total), len(off.Pieces)-1)
	} else {
		b.WriteString("Nothing is offloaded: the whole input is below and `context` is empty.\n\n")
	}
	b.WriteString(off.View)
	return b.String()
}

// LLMQuery implements repl.Host: one plain model call per prompt, all at once.
func (n *node) LLMQuery(ctx context.Context, prompts []string) []string {
	if out, refused := n.refuseBatch("llm", prompts); refused {
		return out
	}
	return n.fanOut(ctx, prompts, n.llmCall)
}

// refuseBatch refuses, as a whole and with one event, a call with more
// prompts than the budget has calls left: none of them could all run, and
// refusing each alone would cost an event and a trace record per prompt.
func (n *node) refuseBatch(kind string, prompts []string) ([]string, bool) {
	r := n.r
	be := r.budget.refuseCalls(len(prompts))
	if be == nil {
		return nil, false
	}
	r.emit(Event{Kind: EventSubCallEnd, NodeID: n.id, ParentID: n.parent, Depth: n.depth,
		Turn: int(n.turn.Load()), Cell: int(n.cell.Load()),
		SubCall: &SubCallEvent{ID: fmt.Sprintf("s%d", r.subCalls.Add(1)), Kind: kind, Batch: len(prompts), Err: be.Error()}})
	why := "error: " + be.Error()
	out := make([]string, len(prompts))
	for i := range out {
		out[i] = why // one string shared by every element
	}
	return out, true
}

// RLMQuery implements repl.Host: one child RLM per prompt, all at once; at
// the maximum depth, plain model calls instead.
func (n *node) RLMQuery(ctx context.Context, prompts []string) []string {
	if out, refused := n.refuseBatch("rlm", prompts); refused {
		return out
	}
	if n.depth+1 > n.r.lim.MaxDepth {
		return n.fanOut(ctx, prompts, func(ctx context.Context, p string) string {
			return n.subCall(ctx, p, true)
		})
	}
	return n.fanOut(ctx, prompts, n.childCall)
}

// fanOut runs call for every prompt with as many workers as the request
// may have calls in flight: more could only wait on the request's
// semaphore, and a goroutine per prompt would let model code that batches
// a million prompts hold a million goroutines.
func (n *node) fanOut(ctx context.Context, prompts []string, call func(context.Context, string) string) []string {
	out := make([]string, len(prompts))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(len(prompts), max(n.r.lim.Concurrency, 1)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(prompts) {
					return
				}
				out[i] = call(ctx, prompts[i])
			}
		})
	}
	wg.Wait()
	return out
}

func (n *node) llmCall(ctx context.Context, prompt string) string {
	return n.subCall(ctx, prompt, false)
}

// subCall is one llm_query (or an rlm_query that fell back to one).
func (n *node) subCall(ctx context.Context, prompt string, fallback bool) string {
	return n.plainCall(ctx, prompt, fallback, n.r.subModel, []llm.Message{{Role: "user", Content: prompt}})
}

// subCallWith is one plain call of model with msgs, as llm_query makes
// it (llm_query_image).
func (n *node) subCallWith(ctx context.Context, prompt, model string, msgs []llm.Message) string {
	return n.plainCall(ctx, prompt, false, model, msgs)
}

// plainCall makes a sub-call of model with msgs, recorded with prompt.
func (n *node) plainCall(ctx context.Context, prompt string, fallback bool, model string, msgs []llm.Message) string {
	r := n.r
	id := fmt.Sprintf("s%d", r.subCalls.Add(1))
	turn, cell := int(n.turn.Load()), int(n.cell.Load())
	base := Event{NodeID: n.id, ParentID: n.parent, Depth: n.depth, Turn: turn, Cell: cell}
	req := llm.Request{Model: model, Messages: msgs, Sampling: r.subSamp}
	res, err := r.admit(req)
	if err != nil {
		// Refused before it started: one event, without the prompt, so
		// that code looping on refused calls fills no trace with prompts.
		ev := base
		ev.Kind = EventSubCallEnd
		ev.SubCall = &SubCallEvent{ID: id, Kind: "llm", Fallback: fallback, Err: err.Error()}
		r.emit(ev)
		return "error: " + err.Error()
	}
	ev := base
	ev.Kind = EventSubCallStart
	ev.SubCall = &SubCallEvent{ID: id, Kind: "llm", Prompt: prompt, Fallback: fallback}
	r.emit(ev)

	start := time.Now()
	c, err := r.call(llm.WithCall(ctx, llm.CallInfo{NodeID: n.id, Depth: n.depth, Turn: turn, Kind: llm.CallLLMQuery}), res, n.id, r.e.cfg.Sub, req)
	// The code gets the answer without reasoning blocks (a Qwen3-style
	// model served without a reasoning parser writes them into the
	// content); the trace keeps the response as it came.
	out, open := stripThink(c.Content)
	if open && out == "" {
		out = "error: llm_query answer was cut off while the model was still reasoning (finish_reason " + c.FinishReason + "); ask for a shorter answer or raise the completion tokens"
	}
	sc := &SubCallEvent{ID: id, Kind: "llm", Prompt: prompt, Fallback: fallback, Response: c.Content, Usage: c.Usage, Duration: time.Since(start)}
	if err != nil {
		out = "error: llm_query failed: " + err.Error()
		sc.Err = err.Error()
	}
	ev = base
	ev.Kind = EventSubCallEnd
	ev.SubCall = sc
	ev.Model = &ModelCallEvent{Model: r.subModel, ResponseModel: c.Model, Messages: msgs, Response: c.Content, FinishReason: c.FinishReason,
		Usage: c.Usage, Latency: sc.Duration, Logprobs: c.Logprobs, Err: sc.Err}
	r.emit(ev)
	return out
}

// childCall is one rlm_query: a child RLM at depth+1 whose input is prompt,
// under the same offload rule as the root's input.
func (n *node) childCall(ctx context.Context, prompt string) string {
	r := n.r
	id := fmt.Sprintf("s%d", r.subCalls.Add(1))
	childID := fmt.Sprintf("%s.%d", n.id, n.children.Add(1))
	turn, cell := int(n.turn.Load()), int(n.cell.Load())
	base := Event{NodeID: n.id, ParentID: n.parent, Depth: n.depth, Turn: turn, Cell: cell}
	ev := base
	ev.Kind = EventSubCallStart
	ev.SubCall = &SubCallEvent{ID: id, Kind: "rlm", ChildID: childID, Prompt: prompt}
	r.emit(ev)

	start := time.Now()
	sc := &SubCallEvent{ID: id, Kind: "rlm", ChildID: childID, Prompt: prompt}
	var out string
	sem := r.childSem[n.depth+1]
	if err := sem.acquire(ctx); err != nil {
		out = "error: rlm_query failed: " + err.Error()
		sc.Err = err.Error()
	} else if err := r.budget.exhausted(); err != nil {
		sem.release()
		out = "error: " + err.Error()
		sc.Err = err.Error()
	} else if off, err := offload(r.dir, []llm.Message{{Role: "user", Content: prompt}}, nil, r.lim.OffloadThreshold, r.e.viewLimit(r.subModel, r.subSamp)); err != nil {
		sem.release()
		out = "error: rlm_query failed: " + err.Error()
		sc.Err = err.Error()
	} else {
		child := &node{r: r, id: childID, parent: n.id, depth: n.depth + 1, model: r.subModel, sampling: r.subSamp, client: r.e.cfg.Sub}
		res, err := child.run(ctx, off)
		sem.release()
		n.mu.Lock()
		n.treeUsage = n.treeUsage.Add(res.treeUsage)
		n.mu.Unlock()
		sc.Usage = res.treeUsage
		switch {
		case err != nil:
			out = "error: rlm_query failed: " + err.Error()
			sc.Err = err.Error()
		case res.reason != StopFinal && res.statement:
			out = "error: rlm_query: " + res.answer
			sc.Err = res.err
		case res.reason != StopFinal:
			out = fmt.Sprintf("error: rlm_query stopped (%s: %s); partial answer: %s", res.reason, res.err, res.answer)
			sc.Err = res.err
		default:
			out = res.answer
		}
	}
	sc.Response = out
	sc.Duration = time.Since(start)
	ev = base
	ev.Kind = EventSubCallEnd
	ev.SubCall = sc
	r.emit(ev)
	return out
}
