package recursion

import (
	"time"

	"github.com/rlm-project/rlm/recursion/llm"
)

// EventKind names a step of a run, in the order a node goes through them.
type EventKind string

const (
	EventNodeStart    EventKind = "node_start"    // an RLM node (root or child) starts
	EventTurnStart    EventKind = "turn_start"    // a root-model turn of a node starts
	EventModelCall    EventKind = "model_call"    // a model call of a turn finished
	EventCellStart    EventKind = "cell_start"    // a code cell starts running
	EventCellEnd      EventKind = "cell_end"      // a code cell finished
	EventSubCallStart EventKind = "subcall_start" // llm_query / rlm_query started
	EventSubCallEnd   EventKind = "subcall_end"   // llm_query / rlm_query finished
	EventNodeEnd      EventKind = "node_end"      // a node finished with an answer or a stop reason
	EventToolCall     EventKind = "tool_call"     // a cell called a client tool (Tool: the call)
	EventToolOutput   EventKind = "tool_output"   // the client's output reached the call
	EventPause        EventKind = "pause"         // the run paused for its tool calls (Tools: the calls)
	EventResume       EventKind = "resume"        // the run resumed with their outputs
)

// Event is one step of a run. Node IDs are unique within a run; the root is
// "0" and children are "0.1", "0.1.2" and so on. Fields that do not apply to
// a kind are zero.
type Event struct {
	Kind     EventKind
	Time     time.Time
	NodeID   string
	ParentID string // node that made the sub-call that started this node
	Depth    int
	Turn     int // 1-based turn within the node
	Cell     int // 1-based cell within the turn
	SubCall  *SubCallEvent
	Model    *ModelCallEvent // model_call; also subcall_end of an "llm" call
	CellRun  *CellEvent
	End      *NodeEndEvent
	Tool     *ToolEvent // tool_call, tool_output, pause, resume
}

// ToolEvent describes a client tool call, or the calls of a pause.
type ToolEvent struct {
	Calls  []ToolCall
	Output string // tool_output: the client's output
	// Note says how a call was answered when it was not by a pause
	// ("answered from the conversation").
	Note string
}

// ModelCallEvent describes one finished call to an upstream model.
type ModelCallEvent struct {
	Model string // as requested
	// ResponseModel is the model the upstream says answered (often a dated
	// snapshot of Model); empty when it did not say.
	ResponseModel string
	Messages      []llm.Message // exactly as sent
	Response      string
	FinishReason  string
	Usage         llm.Usage
	Latency       time.Duration
	Logprobs      []llm.TokenLogprob // when the upstream returned them
	// Reasoning is the upstream's separate reasoning text
	// (reasoning_content: vLLM's reasoning parser, DeepSeek). It is kept
	// here, never sent back to the model.
	Reasoning string
	// ToolCalls names the tools the upstream answered with; the engine
	// offers none and tells the model so.
	ToolCalls []string
	// Compaction is set when the transcript was compacted to fit the
	// model's context window before this call.
	Compaction *Compaction
	Err        string
}

// Compaction records how a transcript was shrunk to fit a context window:
// the outputs of the oldest cells were elided; the system prompt, the
// input, every cell's code and the latest output were kept.
type Compaction struct {
	WindowTokens   int `json:"window_tokens"`   // the model's context window
	ElidedMessages int `json:"elided_messages"` // feedback messages whose output was elided
	CharsBefore    int `json:"chars_before"`    // characters of the transcript before and after
	CharsAfter     int `json:"chars_after"`
}

// CellEvent describes a code cell.
type CellEvent struct {
	Code        string
	Output      string
	OutputBytes int
	Truncated   bool
	Error       string
	Final       *string
	Restarted   bool
	Duration    time.Duration
}

// SubCallEvent describes an llm_query or rlm_query call made from a cell.
type SubCallEvent struct {
	ID      string // unique within the run
	Kind    string // "llm" or "rlm"
	ChildID string // node ID of the child RLM for "rlm" calls
	// Fallback is set on an rlm_query made at the maximum depth, which
	// was answered as an llm_query (Kind "llm").
	Fallback bool
	// Batch is set on the one event of a batch refused as a whole (more
	// prompts than calls left): the number of prompts, none of which ran.
	Batch    int
	Prompt   string
	Response string
	Usage    llm.Usage
	Duration time.Duration
	Err      string
}

// NodeEndEvent describes how a node finished.
type NodeEndEvent struct {
	Answer     string
	StopReason StopReason
	Error      string    // what went wrong, for stops other than StopFinal
	Usage      llm.Usage // the node's own calls: its turns and its llm_query calls
	TreeUsage  llm.Usage // the node and all its descendants
	Iterations int
}

// Observer receives the events of a run as they happen. Events of one node
// arrive in order; events of parallel sub-calls interleave. Implementations
// must be safe for concurrent use and must not block for long.
type Observer interface {
	Observe(Event)
}

// StopReason says why a run or node ended.
type StopReason string

const (
	StopFinal         StopReason = "final"          // the model called FINAL
	StopMaxIterations StopReason = "max_iterations" // the node used all its turns
	StopBudgetCalls   StopReason = "budget_calls"   // the tree used all its LLM calls
	StopBudgetTokens  StopReason = "budget_tokens"  // the tree used all its tokens
	StopTimeout       StopReason = "timeout"        // the tree ran out of wall time
	StopCancelled     StopReason = "cancelled"      // the caller went away
	StopUpstreamError StopReason = "upstream_error" // the upstream model failed for good
	StopFailedTurns   StopReason = "failed_turns"   // turn after turn, every cell failed (Limits.MaxFailedTurns)
	StopNoContext     StopReason = "no_context"     // nothing to read: answered with Config.NoContextAnswer
	StopToolCalls     StopReason = "tool_calls"     // the run waits for the outputs of client tool calls (Result.Paused)
	StopInvalidAnswer StopReason = "invalid_answer" // no FINAL matched the response format (Request.Answer) before the run stopped
	// StopNoAnswer: with Config.GroundedAnswers, the model's FINAL said the
	// input holds no answer, or its answer does not occur in the input.
	StopNoAnswer StopReason = "no_answer"
)
