package tracing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rlm-project/rlm/internal/clip"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
)

// RunInfo is what the caller knows about a run before it starts: the parts of
// the trajectory that no event carries.
type RunInfo struct {
	TraceID  string
	Owner    string
	Model    string
	Sampling llm.Sampling
	Limits   recursion.Limits
	// Messages and Documents are the run's input. They are recorded by
	// reference (role or path, size, SHA-256), never copied: what the model
	// saw of them is in the root node's transcript.
	Messages  []llm.Message
	Documents []recursion.Document
	Started   time.Time // zero means now
	// Question is what the run is asked, for listings and the viewer;
	// empty means the last user message the root model was first sent
	// (never the request's messages themselves: the input is recorded by
	// reference, and what the model saw of it is in the transcript).
	Question string
	// Metadata labels the run (eval.task, eval.gold, ...); it is copied.
	Metadata map[string]string
}

// Recorder is a recursion.Observer that builds a Trajectory from a run's
// events. It is safe for concurrent use. Live subscribers (the SSE endpoint)
// get a short notice of every event.
type Recorder struct {
	mu       sync.Mutex
	t        *Trajectory
	nodes    map[string]*Node
	subcalls map[string]*SubCall
	// Pending links between a child node and the sub-call that started it,
	// for whichever of the two events arrives second.
	childOf map[string]*SubCall // child node ID -> sub-call seen before the node
	orphans map[string]*Node    // child node ID -> node seen before its sub-call
	models  map[string]bool
	// Size limits: lim bounds fields and the whole record, size is what
	// the record holds so far (JSON bytes, approximately from above), full
	// is set once something was left out for want of room, and sums are
	// hashes of each node's transcript messages as sent (the kept ones may
	// be cut).
	lim      RecordLimits
	size     int64
	full     bool
	seed     maphash.Seed
	sums     map[string][]uint64
	done     bool
	subs     map[chan LiveEvent]struct{}
	finished chan struct{}
}

// LiveEvent is the notice sent to live subscribers: enough to draw progress,
// small enough to send for every event. Viewers fetch the trajectory for
// details.
type LiveEvent struct {
	Kind      string    `json:"kind"` // a recursion.EventKind, or "end" when the run is finished
	Time      time.Time `json:"time"`
	NodeID    string    `json:"node_id,omitempty"`
	Depth     int       `json:"depth"`
	Turn      int       `json:"turn,omitempty"`
	Cell      int       `json:"cell,omitempty"`
	SubCallID string    `json:"sub_call_id,omitempty"`
	Status    Status    `json:"status,omitempty"`
}

// RecordLimits bound the trajectory a Recorder keeps, so that model code
// cannot make the server hold or write without bound (a loop of sub-calls
// with megabyte prompts, a huge FINAL). Zero fields mean the defaults.
type RecordLimits struct {
	// MaxFieldBytes cuts any one text field: a prompt, a response, a
	// message, a cell's code, output or error, an answer.
	MaxFieldBytes int
	// MaxTraceBytes bounds the whole record as JSON: past it text fields
	// are left out and sub-call records are counted but not kept.
	MaxTraceBytes int64
}

// Defaults of RecordLimits.
const (
	DefaultMaxFieldBytes = 4 << 20
	DefaultMaxTraceBytes = 64 << 20
)

func (l RecordLimits) orDefault() RecordLimits {
	if l.MaxFieldBytes <= 0 {
		l.MaxFieldBytes = DefaultMaxFieldBytes
	}
	if l.MaxTraceBytes <= 0 {
		l.MaxTraceBytes = DefaultMaxTraceBytes
	}
	return l
}

// recordOverhead is what one record (node, turn, cell, call, message)
// costs in JSON besides its text: field names, times, numbers.
const recordOverhead = 512

// NewRecorder starts the trajectory of one run with the default limits.
func NewRecorder(info RunInfo) *Recorder { return NewRecorderLimits(info, RecordLimits{}) }

// NewRecorderLimits starts the trajectory of one run under lim.
func NewRecorderLimits(info RunInfo, lim RecordLimits) *Recorder {
	start := info.Started
	if start.IsZero() {
		start = time.Now()
	}
	t := &Trajectory{
		Version:  SchemaVersion,
		ID:       info.TraceID,
		Owner:    info.Owner,
		Status:   StatusRunning,
		Model:    info.Model,
		SubModel: info.Limits.SubModel,
		Sampling: Sampling{
			Temperature: info.Sampling.Temperature, TopP: info.Sampling.TopP,
			MaxTokens: info.Sampling.MaxTokens, Stop: slices.Clone(info.Sampling.Stop), Seed: info.Sampling.Seed,
		},
		Limits: Limits{
			MaxDepth: info.Limits.MaxDepth, MaxIterations: info.Limits.MaxIterations,
			MaxLLMCalls: info.Limits.MaxLLMCalls, MaxTotalTokens: info.Limits.MaxTotalTokens,
			TimeoutMS: ms(info.Limits.Timeout), OffloadThreshold: info.Limits.OffloadThreshold,
			Concurrency: info.Limits.Concurrency,
		},
		Started:  start,
		Nodes:    []*Node{},
		Question: clipQuestion(info.Question),
		Metadata: maps.Clone(info.Metadata),
	}
	for i, m := range info.Messages {
		t.Context = append(t.Context, ContextRef{
			Kind: "message", Role: m.Role, Index: i, Bytes: int64(len(m.Content)), SHA256: hashString(m.Content),
		})
	}
	for i, d := range info.Documents {
		// Documents are hashed when the run finishes, off the request's
		// critical path (see Finish).
		t.Context = append(t.Context, ContextRef{Kind: "document", Name: d.Name, Path: d.Path, Index: i})
	}
	return &Recorder{
		lim:      lim.orDefault(),
		size:     int64(recordOverhead * (4 + len(t.Context))),
		seed:     maphash.MakeSeed(),
		sums:     map[string][]uint64{},
		t:        t,
		nodes:    map[string]*Node{},
		subcalls: map[string]*SubCall{},
		childOf:  map[string]*SubCall{},
		orphans:  map[string]*Node{},
		models:   map[string]bool{},
		subs:     map[chan LiveEvent]struct{}{},
		finished: make(chan struct{}),
	}
}

// hashString is the hex SHA-256 of s, hashed through one small buffer:
// []byte(s) would copy a 40 MB message whole.
func hashString(s string) string {
	h := sha256.New()
	var buf [32 << 10]byte
	for len(s) > 0 {
		n := copy(buf[:], s)
		h.Write(buf[:n])
		s = s[n:]
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ID returns the run's trace ID.
func (r *Recorder) ID() string { return r.t.ID }

// Owner returns the owner the run is recorded for.
func (r *Recorder) Owner() string { return r.t.Owner }

// Observe records one event. Events after Finish are ignored.
func (r *Recorder) Observe(ev recursion.Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	live := LiveEvent{Kind: string(ev.Kind), Time: ev.Time, NodeID: ev.NodeID, Depth: ev.Depth, Turn: ev.Turn, Cell: ev.Cell}
	switch ev.Kind {
	case recursion.EventNodeStart:
		r.nodeStart(ev)
	case recursion.EventTurnStart:
		n := r.node(ev)
		n.Turns = append(n.Turns, &Turn{N: ev.Turn, Started: ev.Time})
	case recursion.EventModelCall:
		if ev.Model != nil {
			r.modelCall(ev)
		}
	case recursion.EventCellStart:
		t := r.turn(ev)
		c := &Cell{N: ev.Cell, Status: StatusRunning, Started: ev.Time}
		r.record()
		if ev.CellRun != nil {
			c.Code = r.text(ev.CellRun.Code)
		}
		t.Cells = append(t.Cells, c)
		r.t.Used.Cells++
	case recursion.EventCellEnd:
		r.cellEnd(ev)
	case recursion.EventSubCallStart:
		if ev.SubCall != nil {
			r.subCallStart(ev)
			live.SubCallID = ev.SubCall.ID
		}
	case recursion.EventSubCallEnd:
		if ev.SubCall != nil {
			r.subCallEnd(ev)
			live.SubCallID = ev.SubCall.ID
		}
	case recursion.EventToolCall, recursion.EventToolOutput:
		if ev.Tool != nil && len(ev.Tool.Calls) == 1 {
			r.toolCall(ev)
		}
	case recursion.EventPause:
		if ev.Tool != nil {
			p := &Pause{Paused: ev.Time}
			for _, c := range ev.Tool.Calls {
				p.Calls = append(p.Calls, c.ID)
			}
			r.t.Pauses = append(r.t.Pauses, p)
		}
	case recursion.EventResume:
		if n := len(r.t.Pauses); n > 0 {
			r.t.Pauses[n-1].Resumed = ev.Time
		}
	case recursion.EventNodeEnd:
		n := r.node(ev)
		n.Ended = ev.Time
		n.DurationMS = ms(ev.Time.Sub(n.Started))
		if ev.End != nil {
			n.Answer = r.text(ev.End.Answer)
			n.StopReason = ev.End.StopReason
			n.Error = r.text(ev.End.Error)
			n.Usage = ev.End.Usage
			n.TreeUsage = ev.End.TreeUsage
			n.Iterations = ev.End.Iterations
			n.Status = StatusFor(ev.End.StopReason, ev.End.Error)
		} else {
			n.Status = StatusCompleted
		}
		live.Status = n.Status
	}
	r.publish(live)
}

func (r *Recorder) nodeStart(ev recursion.Event) {
	n := r.nodes[ev.NodeID]
	if n == nil {
		n = r.newNode(ev.NodeID, ev.Time)
	}
	n.ParentID, n.Depth, n.Started = ev.ParentID, ev.Depth, ev.Time
	if sc := r.childOf[ev.NodeID]; sc != nil {
		delete(r.childOf, ev.NodeID)
		n.SubCallID = sc.ID
	} else if ev.ParentID != "" {
		r.orphans[ev.NodeID] = n
	}
	if ev.Depth > r.t.Used.MaxDepth {
		r.t.Used.MaxDepth = ev.Depth
	}
}

// node returns the node an event belongs to, creating it if its start event
// was never seen (an engine bug must not lose the rest of the record).
func (r *Recorder) node(ev recursion.Event) *Node {
	if n := r.nodes[ev.NodeID]; n != nil {
		return n
	}
	n := r.newNode(ev.NodeID, ev.Time)
	n.ParentID, n.Depth = ev.ParentID, ev.Depth
	return n
}

func (r *Recorder) newNode(id string, at time.Time) *Node {
	r.record()
	n := &Node{ID: id, Status: StatusRunning, Started: at, Transcript: []llm.Message{}, Turns: []*Turn{}}
	r.nodes[id] = n
	r.t.Nodes = append(r.t.Nodes, n)
	r.t.Used.Nodes++
	return n
}

func (r *Recorder) turn(ev recursion.Event) *Turn {
	n := r.node(ev)
	for i := len(n.Turns) - 1; i >= 0; i-- {
		if n.Turns[i].N == ev.Turn {
			return n.Turns[i]
		}
	}
	r.record()
	t := &Turn{N: ev.Turn, Started: ev.Time}
	n.Turns = append(n.Turns, t)
	return t
}

func (r *Recorder) cell(ev recursion.Event) *Cell {
	t := r.turn(ev)
	for i := len(t.Cells) - 1; i >= 0; i-- {
		if t.Cells[i].N == ev.Cell {
			return t.Cells[i]
		}
	}
	r.record()
	c := &Cell{N: ev.Cell, Status: StatusRunning, Started: ev.Time}
	t.Cells = append(t.Cells, c)
	r.t.Used.Cells++
	return c
}

func (r *Recorder) modelCall(ev recursion.Event) {
	m := ev.Model
	r.countCall(m)
	n := r.node(ev)
	t := r.turn(ev)
	r.record()
	call := &ModelCall{
		Model: m.Model, ResponseModel: m.ResponseModel, Response: r.text(m.Response), FinishReason: m.FinishReason, Usage: m.Usage,
		LatencyMS: ms(m.Latency), Logprobs: r.logprobs(m.Logprobs), Error: r.text(m.Err), Reasoning: r.text(m.Reasoning), ToolCalls: m.ToolCalls,
		Compaction: m.Compaction, Started: ev.Time.Add(-m.Latency), Ended: ev.Time,
	}
	// The transcript is append-only in the engine: find how much of it was
	// resent and append only the new messages. Messages are compared by a
	// hash of what was sent, since what is kept may be cut.
	sums := r.sums[n.ID]
	p := 0
	for p < len(sums) && p < len(m.Messages) && sums[p] == r.sum(m.Messages[p]) {
		p++
	}
	if p == len(sums) {
		for _, msg := range m.Messages[p:] {
			r.sums[n.ID] = append(r.sums[n.ID], r.sum(msg))
			n.Transcript = append(n.Transcript, r.message(msg))
		}
		call.Prefix = len(m.Messages)
	} else {
		call.Prefix = p
		for _, msg := range m.Messages[p:] {
			call.Extra = append(call.Extra, r.message(msg))
		}
	}
	t.Calls = append(t.Calls, call)
	if r.t.Question == "" && n.ParentID == "" {
		for i := len(m.Messages) - 1; i >= 0; i-- {
			if m.Messages[i].Role == "user" {
				r.t.Question = clipQuestion(m.Messages[i].Content)
				break
			}
		}
	}
	if n.Status == StatusRunning {
		// A running node's usage so far; its end event gives the total.
		n.Usage = n.Usage.Add(m.Usage)
	}
	if n.ID == "0" || n.ParentID == "" {
		r.t.Used.Iterations = max(r.t.Used.Iterations, ev.Turn)
	}
}

func (r *Recorder) cellEnd(ev recursion.Event) {
	c := r.cell(ev)
	c.Ended = ev.Time
	c.Status = StatusCompleted
	if ce := ev.CellRun; ce != nil {
		if ce.Code != "" && c.Code == "" {
			c.Code = r.text(ce.Code)
		}
		c.Output, c.OutputBytes, c.Truncated = r.text(ce.Output), ce.OutputBytes, ce.Truncated
		c.Error, c.Restarted = r.text(ce.Error), ce.Restarted
		if ce.Final != nil {
			f := r.text(*ce.Final)
			c.Final = &f
		}
		c.DurationMS = ms(ce.Duration)
		if ce.Error != "" {
			c.Status = StatusFailed
		}
	}
	if c.DurationMS == 0 {
		c.DurationMS = ms(c.Ended.Sub(c.Started))
	}
}

// toolCall records a client tool call in its cell, or its output.
func (r *Recorder) toolCall(ev recursion.Event) {
	c := r.cell(ev)
	call := ev.Tool.Calls[0]
	for _, tc := range c.ToolCalls {
		if tc.ID == call.ID {
			out := r.text(ev.Tool.Output)
			tc.Output, tc.Answered = &out, ev.Time
			return
		}
	}
	tc := &ToolCall{ID: call.ID, Name: call.Name, Arguments: r.text(call.Arguments), Note: ev.Tool.Note, Called: ev.Time}
	if ev.Tool.Note != "" { // answered at once
		out := r.text(ev.Tool.Output)
		tc.Output, tc.Answered = &out, ev.Time
	}
	c.ToolCalls = append(c.ToolCalls, tc)
}

func (r *Recorder) subCallStart(ev recursion.Event) {
	e := ev.SubCall
	sc := r.subcalls[e.ID]
	if sc == nil {
		if r.full {
			// Counted when it ends (see subCallEnd).
			return
		}
		sc = &SubCall{ID: e.ID, Status: StatusRunning}
		r.record()
		r.subcalls[e.ID] = sc
		c := r.cell(ev)
		c.SubCalls = append(c.SubCalls, sc)
		r.t.Used.SubCalls++
	}
	sc.Kind, sc.Turn, sc.Cell, sc.Started = e.Kind, ev.Turn, ev.Cell, ev.Time
	if sc.Prompt == "" {
		sc.Prompt = r.text(e.Prompt)
	}
	sc.Depth = ev.Depth + 1
	r.linkChild(sc, e.ChildID)
}

func (r *Recorder) linkChild(sc *SubCall, child string) {
	if child == "" || sc.ChildID != "" {
		return
	}
	sc.ChildID = child
	if n := r.orphans[child]; n != nil {
		delete(r.orphans, child)
		n.SubCallID = sc.ID
	} else if n := r.nodes[child]; n == nil {
		r.childOf[child] = sc
	}
}

func (r *Recorder) subCallEnd(ev recursion.Event) {
	e := ev.SubCall
	sc := r.subcalls[e.ID]
	if sc == nil && r.full {
		// The trace is full: the call is counted, not kept.
		r.t.Used.SubCalls++
		r.truncation().DroppedSubCalls++
		if m := ev.Model; m != nil {
			r.countCall(m)
		}
		return
	}
	if sc == nil {
		r.subCallStart(ev)
		sc = r.subcalls[e.ID]
		sc.Started = ev.Time.Add(-e.Duration)
	}
	r.linkChild(sc, e.ChildID)
	sc.Batch = e.Batch
	sc.Response, sc.Usage, sc.Error, sc.Ended = r.text(e.Response), e.Usage, r.text(e.Err), ev.Time
	sc.DurationMS = ms(e.Duration)
	if sc.DurationMS == 0 {
		sc.DurationMS = ms(ev.Time.Sub(sc.Started))
	}
	sc.Fallback = e.Fallback
	if m := ev.Model; m != nil {
		// The engine reports an llm_query's model call on its end event.
		sc.Model, sc.Logprobs, sc.FinishReason = m.Model, r.logprobs(m.Logprobs), m.FinishReason
		r.countCall(m)
		if n := r.nodes[ev.NodeID]; n != nil && n.Status == StatusRunning {
			n.Usage = n.Usage.Add(m.Usage)
		}
	}
	sc.Status = StatusCompleted
	if e.Err != "" {
		sc.Status = StatusFailed
	}
}

func (r *Recorder) countCall(m *recursion.ModelCallEvent) {
	r.t.Used.LLMCalls++
	r.t.Used.Usage = r.t.Used.Usage.Add(m.Usage)
	if m.Model != "" && !r.models[m.Model] {
		r.models[m.Model] = true
		r.t.Models = append(r.t.Models, m.Model)
	}
}

// text is s as the record keeps it: cut to the field limit, or left out
// once the record would pass its size limit. Either is counted in the
// trajectory's Truncated.
func (r *Recorder) text(s string) string {
	return r.keep(s, r.lim.MaxTraceBytes-r.finishReserve(), false)
}

// keep is text under a size limit; final ignores that earlier fields were
// left out (Finish's fields have room kept for them).
func (r *Recorder) keep(s string, limit int64, final bool) string {
	if s == "" {
		return s
	}
	if len(s) > r.lim.MaxFieldBytes {
		head := clip.Head(s, r.lim.MaxFieldBytes)
		tr := r.truncation()
		tr.CutFields++
		tr.DroppedBytes += int64(len(s) - len(head))
		s = head + fmt.Sprintf("\n[cut by the trace: %d of %d bytes kept]", len(head), len(s))
	}
	cost := jsonLen(s)
	if (r.full && !final) || r.size+cost > limit {
		r.full = true
		tr := r.truncation()
		tr.DroppedFields++
		tr.DroppedBytes += int64(len(s))
		return ""
	}
	r.size += cost
	return s
}

// finishReserve is room kept for what Finish records (the run's answer
// and error), which must not be left out because sub-calls filled the
// trace first.
func (r *Recorder) finishReserve() int64 {
	return min(2*int64(r.lim.MaxFieldBytes+256)+recordOverhead, r.lim.MaxTraceBytes/4)
}

// finalText is text for Finish, which may use the room finishReserve kept.
func (r *Recorder) finalText(s string) string { return r.keep(s, r.lim.MaxTraceBytes, true) }

// message is m as the record keeps it.
func (r *Recorder) message(m llm.Message) llm.Message {
	r.record()
	m.Content = r.text(m.Content)
	return m
}

// logprobs are kept while there is room for them.
func (r *Recorder) logprobs(lp []llm.TokenLogprob) []llm.TokenLogprob {
	if len(lp) == 0 {
		return lp
	}
	cost := int64(64 * len(lp))
	for _, p := range lp {
		cost += jsonLen(p.Token)
	}
	if r.full || r.size+cost > r.lim.MaxTraceBytes {
		r.full = true
		r.truncation().DroppedFields++
		return nil
	}
	r.size += cost
	return lp
}

// record counts the overhead of one more record. Records themselves are
// bounded by the run's limits (turns, cells) except sub-calls, which the
// caller checks against full.
func (r *Recorder) record() { r.size += recordOverhead }

func (r *Recorder) sum(m llm.Message) uint64 {
	return maphash.String(r.seed, m.Role) ^ maphash.String(r.seed, m.Content)*31
}

func (r *Recorder) truncation() *Truncation {
	if r.t.Truncated == nil {
		r.t.Truncated = &Truncation{MaxFieldBytes: r.lim.MaxFieldBytes, MaxTraceBytes: r.lim.MaxTraceBytes}
	}
	return r.t.Truncated
}

// jsonLen is the length of s encoded as a JSON string, quotes included:
// encoding/json escapes control characters, quotes, backslashes and <, >, &
// (up to 6 bytes each) and replaces invalid UTF-8 by \ufffd.
func jsonLen(s string) int64 {
	n := int64(len(s)) + 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"', c == '\\', c == '\b', c == '\f', c == '\n', c == '\r', c == '\t':
				n++
			case c < 0x20, c == '<', c == '>', c == '&':
				n += 5
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 5
		case r == '\u2028', r == '\u2029':
			n += 3
		}
		i += size
	}
	return n
}

// StatusFor maps how a run, a node or a call ended to a Status: its stop
// reason, or, without one, whether it failed (errText).
func StatusFor(stop recursion.StopReason, errText string) Status {
	switch stop {
	case recursion.StopFinal:
		return StatusCompleted
	case recursion.StopCancelled:
		return StatusCancelled
	case recursion.StopUpstreamError:
		return StatusFailed
	case recursion.StopMaxIterations, recursion.StopBudgetCalls, recursion.StopBudgetTokens, recursion.StopTimeout:
		return StatusIncomplete
	}
	if errText != "" {
		return StatusFailed
	}
	return StatusCompleted
}

// Finish closes the record with the run's result and returns it. runErr is
// the error the engine returned, if any; a cancelled ctx error marks the run
// cancelled. Anything still open (nodes, cells, sub-calls of a run that was
// cut short) is closed with the run's status, so the record is complete.
// Finish may be called once; later calls return the same trajectory.
func (r *Recorder) Finish(res recursion.Result, runErr error) *Trajectory {
	end := time.Now()
	r.mu.Lock()
	if r.done {
		t := r.t
		r.mu.Unlock()
		return t
	}
	t := r.t
	if res.TraceID != "" && t.ID == "" {
		t.ID = res.TraceID
	}
	t.Ended = end
	t.DurationMS = ms(end.Sub(t.Started))
	if res.Duration > 0 {
		t.DurationMS = ms(res.Duration)
		t.Ended = t.Started.Add(res.Duration)
	}
	t.Answer = r.finalText(res.Answer)
	t.StopReason = res.StopReason
	t.Error = r.finalText(res.Error)
	if l := res.Limits; l.MaxLLMCalls > 0 || l.MaxTotalTokens > 0 || l.Timeout > 0 {
		// The budgets the run had, scaled to its input once the engine knew it.
		t.Limits.MaxLLMCalls, t.Limits.MaxTotalTokens, t.Limits.TimeoutMS = l.MaxLLMCalls, l.MaxTotalTokens, ms(l.Timeout)
	}
	if runErr != nil {
		if t.Error == "" {
			t.Error = runErr.Error()
		} else if !strings.Contains(t.Error, runErr.Error()) {
			t.Error += ": " + runErr.Error()
		}
		if t.StopReason == "" && (errors.Is(runErr, context.Canceled) || errors.Is(runErr, context.DeadlineExceeded)) {
			t.StopReason = recursion.StopCancelled
			if errors.Is(runErr, context.DeadlineExceeded) {
				t.StopReason = recursion.StopTimeout
			}
		}
	}
	t.Error = hidePaths(t.Error, t.Context)
	for _, n := range t.Nodes {
		n.Error = hidePaths(n.Error, t.Context)
	}
	t.Status = StatusFor(t.StopReason, t.Error)
	if runErr != nil && t.Status == StatusCompleted {
		t.Status = StatusFailed
	}
	if res.Usage != (llm.Usage{}) {
		t.Used.Usage = res.Usage
	}
	if res.LLMCalls > 0 {
		t.Used.LLMCalls = res.LLMCalls
	}
	if res.Iterations > 0 {
		t.Used.Iterations = res.Iterations
	}
	t.Used.MaxDepth = max(t.Used.MaxDepth, res.MaxDepth)
	open := t.Status
	if open == StatusCompleted || open == StatusIncomplete {
		// The run ended normally but this part never reported its end.
		open = StatusCancelled
	}
	for _, n := range t.Nodes {
		for _, tu := range n.Turns {
			for _, c := range tu.Cells {
				for _, sc := range c.SubCalls {
					if sc.Status == StatusRunning {
						sc.Status, sc.Ended = open, t.Ended
						sc.DurationMS = ms(t.Ended.Sub(sc.Started))
					}
				}
				if c.Status == StatusRunning {
					c.Status, c.Ended = open, t.Ended
					c.DurationMS = ms(t.Ended.Sub(c.Started))
				}
			}
		}
		if n.Status == StatusRunning {
			n.Status, n.Ended = open, t.Ended
			n.DurationMS = ms(t.Ended.Sub(n.Started))
			if n.StopReason == "" {
				n.StopReason = t.StopReason
			}
		}
	}
	if root := t.Node("0"); root != nil {
		if t.Model == "" {
			// The caller left the model to the engine's default.
			for _, tu := range root.Turns {
				for _, c := range tu.Calls {
					if t.Model == "" {
						t.Model = c.Model
					}
				}
			}
		}
		if t.Answer == "" {
			t.Answer = root.Answer
		}
		if t.StopReason == "" {
			t.StopReason = root.StopReason
			t.Status = StatusFor(t.StopReason, t.Error)
		}
	}
	r.done = true
	r.publish(LiveEvent{Kind: "end", Time: end, Status: t.Status})
	for ch := range r.subs {
		close(ch)
		delete(r.subs, ch)
	}
	close(r.finished)
	r.mu.Unlock()
	return t
}

// hidePaths replaces the server paths of the run's documents in s (an
// error text) by the documents' names: a trajectory is shown to API clients,
// who must not learn where the server keeps files.
func hidePaths(s string, refs []ContextRef) string {
	for _, ref := range refs {
		if ref.Kind == "document" && ref.Path != "" && strings.Contains(s, ref.Path) {
			s = strings.ReplaceAll(s, ref.Path, fmt.Sprintf("<document %d %q>", ref.Index, ref.Name))
		}
	}
	return s
}

// withoutPath is err's text without the file name an *fs.PathError adds.
func withoutPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// hashDocuments fills in the size and SHA-256 of the run's documents,
// streaming each file; files larger than limit (or all, when limit < 0) get
// their size only. A file that cannot be read is noted, not fatal.
func hashDocuments(ctx context.Context, t *Trajectory, limit int64) {
	for i := range t.Context {
		ref := &t.Context[i]
		if ref.Kind != "document" || ref.SHA256 != "" {
			continue
		}
		if err := ctx.Err(); err != nil {
			ref.Error = err.Error()
			continue
		}
		f, err := os.Open(ref.Path)
		if err != nil {
			ref.Error = withoutPath(err)
			continue
		}
		if fi, err := f.Stat(); err == nil && (limit < 0 || fi.Size() > limit) {
			ref.Bytes = fi.Size()
			f.Close()
			continue
		}
		h := sha256.New()
		n, err := io.Copy(h, f)
		f.Close()
		ref.Bytes = n
		if err != nil {
			ref.Error = withoutPath(err)
			continue
		}
		ref.SHA256 = hex.EncodeToString(h.Sum(nil))
	}
}

// Snapshot encodes the trajectory as it stands, live or finished. A live
// run's duration_ms is its time so far, by the server's clock, so that
// viewers need not trust their own.
func (r *Recorder) Snapshot() ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.done {
		r.t.DurationMS = ms(time.Since(r.t.Started))
	}
	b, err := json.Marshal(r.t)
	if err != nil {
		return nil, fmt.Errorf("encode trajectory %s: %w", r.t.ID, err)
	}
	return b, nil
}

// Done is closed when Finish has been called.
func (r *Recorder) Done() <-chan struct{} { return r.finished }

// Subscribe returns a channel of live notices, closed when the run finishes
// or cancel is called. A subscriber that does not keep up misses notices
// rather than slowing the run; the final "end" notice is always delivered
// when there is room. The channel is nil if the run is already finished.
func (r *Recorder) Subscribe(buffer int) (<-chan LiveEvent, func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return nil, func() {}
	}
	ch := make(chan LiveEvent, max(buffer, 1))
	r.subs[ch] = struct{}{}
	return ch, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if _, ok := r.subs[ch]; ok {
			delete(r.subs, ch)
			close(ch)
		}
	}
}

func (r *Recorder) publish(ev LiveEvent) {
	for ch := range r.subs {
		select {
		case ch <- ev:
		default:
			if ev.Kind == "end" {
				// Make room: the end matters more than any progress notice.
				select {
				case <-ch:
				default:
				}
				select {
				case ch <- ev:
				default:
				}
			}
		}
	}
}
