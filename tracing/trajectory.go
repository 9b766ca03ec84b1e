package tracing

import (
	"time"

	"github.com/rlm-project/rlm/internal/clip"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
)

// SchemaVersion is the version of the trajectory JSON written by this
// package. It changes when a field changes meaning or goes away; new fields
// do not bump it. Version 2 dropped nodes[].prompt, which repeated the
// prompt of the sub-call that started the node (see Trajectory.Prompt).
const SchemaVersion = 2

// Status says whether a run is still going and, if not, how it ended.
type Status string

const (
	StatusRunning    Status = "running"    // the run has not finished yet
	StatusCompleted  Status = "completed"  // the model gave a FINAL answer
	StatusIncomplete Status = "incomplete" // a limit stopped it (iterations, budget, timeout)
	StatusFailed     Status = "failed"     // an error ended it (upstream model, engine)
	StatusCancelled  Status = "cancelled"  // the caller went away
)

// Trajectory is the full record of one run: the recursion tree and, for every
// node, what its model saw and did. Messages are stored once per node (see
// Node.Transcript) and the run's context is stored by reference only.
type Trajectory struct {
	Version    int                  `json:"version"`
	ID         string               `json:"id"`
	Owner      string               `json:"owner,omitempty"`
	Status     Status               `json:"status"`
	StopReason recursion.StopReason `json:"stop_reason,omitempty"`
	Error      string               `json:"error,omitempty"`
	Answer     string               `json:"answer,omitempty"`
	// Question is what the run was asked: the caller's own words when it
	// gave them (RunInfo.Question), else the last user message of the root
	// model's first call, clipped to MaxQuestionBytes (its head and its
	// tail, where questions usually are).
	Question string `json:"question,omitempty"`
	// Metadata are the caller's labels of the run, such as eval.task,
	// eval.gold and eval.score for runs of rlm eval.
	Metadata   map[string]string `json:"metadata,omitempty"`
	Model      string            `json:"model,omitempty"`     // root model as the caller named it (see docs/tracing.md)
	SubModel   string            `json:"sub_model,omitempty"` // llm_query / child model, named the same way
	Models     []string          `json:"models,omitempty"`    // every upstream model name that answered a call
	Sampling   Sampling          `json:"sampling"`
	Limits     Limits            `json:"limits"`
	Used       Budgets           `json:"used"`
	Context    []ContextRef      `json:"context,omitempty"`
	Started    time.Time         `json:"started"`
	Ended      time.Time         `json:"ended,omitzero"`
	DurationMS float64           `json:"duration_ms"`
	Reward     *Reward           `json:"reward,omitempty"`
	// Pauses are the run's waits for client tool outputs.
	Pauses []*Pause `json:"pauses,omitempty"`
	// Truncated is set when the record is not whole: text fields were cut
	// to the recorder's field limit, or text and sub-call records were left
	// out once the trace reached its size limit.
	Truncated *Truncation `json:"truncated,omitempty"`
	// Nodes are in the order they started; Nodes[0] is the root "0".
	Nodes []*Node `json:"nodes"`
}

// Truncation says what a trajectory left out, under which limits.
type Truncation struct {
	MaxFieldBytes   int   `json:"max_field_bytes"`
	MaxTraceBytes   int64 `json:"max_trace_bytes"`
	CutFields       int   `json:"cut_fields"`        // text fields cut to max_field_bytes
	DroppedFields   int   `json:"dropped_fields"`    // text fields left out once the trace was full
	DroppedBytes    int64 `json:"dropped_bytes"`     // text not kept, both ways
	DroppedSubCalls int   `json:"dropped_sub_calls"` // sub-call records left out once the trace was full
}

// Sampling holds the root model's sampling parameters; nil means "not set".
type Sampling struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	MaxTokens   *int     `json:"max_tokens,omitempty"`
	Stop        []string `json:"stop,omitempty"`
	Seed        *int     `json:"seed,omitempty"`
}

// Limits are the budgets the run was given.
type Limits struct {
	MaxDepth         int     `json:"max_depth,omitempty"`
	MaxIterations    int     `json:"max_iterations,omitempty"`
	MaxLLMCalls      int     `json:"max_llm_calls,omitempty"`
	MaxTotalTokens   int     `json:"max_total_tokens,omitempty"`
	TimeoutMS        float64 `json:"timeout_ms,omitempty"`
	OffloadThreshold int     `json:"offload_threshold,omitempty"`
	Concurrency      int     `json:"concurrency,omitempty"`
}

// Budgets are what the run used of its limits.
type Budgets struct {
	Usage      llm.Usage `json:"usage"`
	LLMCalls   int       `json:"llm_calls"`
	Iterations int       `json:"iterations"` // root turns of the root node
	MaxDepth   int       `json:"max_depth"`
	Nodes      int       `json:"nodes"`
	SubCalls   int       `json:"sub_calls"`
	Cells      int       `json:"cells"`
}

// ContextRef identifies a piece of the run's input without copying it: an
// attached document by name, size and hash, or a request message by role
// and hash.
type ContextRef struct {
	Kind string `json:"kind"` // "document" or "message"
	Name string `json:"name,omitempty"`
	// Path is where the server read the document, for hashing it when the
	// run ends. It is never encoded: trajectories reach API clients, the
	// viewer, exports and the trajectory stream, none of which may learn the
	// server's paths (and a temporary file's path means nothing later).
	Path   string `json:"-"`
	Role   string `json:"role,omitempty"`
	Index  int    `json:"index"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256,omitempty"`
	Error  string `json:"error,omitempty"` // why the document could not be hashed
}

// Reward is training signal attached to a stored trajectory after the fact.
type Reward struct {
	Score float64   `json:"score"`
	Label string    `json:"label,omitempty"`
	Time  time.Time `json:"time"`
}

// Node is one RLM in the tree: the root "0" or a child started by rlm_query.
type Node struct {
	ID         string               `json:"id"`
	ParentID   string               `json:"parent_id,omitempty"`
	SubCallID  string               `json:"sub_call_id,omitempty"` // the rlm_query call that started it
	Depth      int                  `json:"depth"`
	Status     Status               `json:"status"`
	StopReason recursion.StopReason `json:"stop_reason,omitempty"`
	Answer     string               `json:"answer,omitempty"`
	Error      string               `json:"error,omitempty"`
	Usage      llm.Usage            `json:"usage"`      // the node's own calls
	TreeUsage  llm.Usage            `json:"tree_usage"` // the node and its descendants
	Iterations int                  `json:"iterations"`
	Started    time.Time            `json:"started"`
	Ended      time.Time            `json:"ended,omitzero"`
	DurationMS float64              `json:"duration_ms"`
	// Transcript holds every distinct message this node's model was sent,
	// once, in order. Model calls refer to a prefix of it by length, so a run
	// of n turns stores O(n) messages, not O(n²).
	Transcript []llm.Message `json:"transcript"`
	Turns      []*Turn       `json:"turns"`
}

// InputView is what the node's model saw first: the messages of its first
// call (system prompt, placeholders for offloaded context, the question).
func (n *Node) InputView() []llm.Message {
	for _, t := range n.Turns {
		for _, c := range t.Calls {
			return n.Messages(c)
		}
	}
	return nil
}

// Messages rebuilds the messages exactly as they were sent in call c.
func (n *Node) Messages(c *ModelCall) []llm.Message {
	p := min(c.Prefix, len(n.Transcript))
	out := make([]llm.Message, 0, p+len(c.Extra))
	out = append(out, n.Transcript[:p]...)
	return append(out, c.Extra...)
}

// Turn is one root-model turn of a node: the model call, then the cells run
// from its response.
type Turn struct {
	N       int          `json:"n"`
	Started time.Time    `json:"started"`
	Calls   []*ModelCall `json:"calls"` // normally one; more when the engine retried
	Cells   []*Cell      `json:"cells"`
}

// ModelCall is one finished call to an upstream model.
type ModelCall struct {
	Model         string `json:"model"`
	ResponseModel string `json:"response_model,omitempty"` // as the upstream reported it
	// The messages sent were Transcript[:Prefix] followed by Extra. Extra is
	// empty unless the engine rewrote earlier messages.
	Prefix       int                `json:"prefix"`
	Extra        []llm.Message      `json:"extra,omitempty"`
	Response     string             `json:"response"`
	FinishReason string             `json:"finish_reason,omitempty"`
	Usage        llm.Usage          `json:"usage"`
	LatencyMS    float64            `json:"latency_ms"`
	Logprobs     []llm.TokenLogprob `json:"logprobs,omitempty"`
	// Reasoning is the upstream's separate reasoning (reasoning_content);
	// it is kept here and never sent back to the model.
	Reasoning  string                `json:"reasoning,omitempty"`
	ToolCalls  []string              `json:"tool_calls,omitempty"` // tools the upstream tried to call
	Compaction *recursion.Compaction `json:"compaction,omitempty"` // the transcript was compacted to fit the window
	Error      string                `json:"error,omitempty"`
	Started    time.Time             `json:"started"`
	Ended      time.Time             `json:"ended"`
}

// Cell is one code cell run from a turn's response.
type Cell struct {
	N           int        `json:"n"`
	Code        string     `json:"code"`
	Output      string     `json:"output"`
	OutputBytes int        `json:"output_bytes"`
	Truncated   bool       `json:"truncated,omitempty"`
	Error       string     `json:"error,omitempty"`
	Final       *string    `json:"final,omitempty"`
	Restarted   bool       `json:"restarted,omitempty"`
	Status      Status     `json:"status"`
	Started     time.Time  `json:"started"`
	Ended       time.Time  `json:"ended,omitzero"`
	DurationMS  float64    `json:"duration_ms"`
	SubCalls    []*SubCall `json:"sub_calls,omitempty"`
	// ToolCalls are the calls of the client's tools the cell made, with
	// their outputs once they came.
	ToolCalls []*ToolCall `json:"tool_calls,omitempty"`
}

// ToolCall is a call of a client's function tool made from a cell: the
// run paused at it until the client sent its output (or answered it from
// the conversation, Note says).
type ToolCall struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Arguments string    `json:"arguments"`
	Output    *string   `json:"output,omitempty"`
	Note      string    `json:"note,omitempty"`
	Called    time.Time `json:"called"`
	Answered  time.Time `json:"answered,omitzero"`
}

// Pause is a wait of the run for its client's tool outputs.
type Pause struct {
	Calls   []string  `json:"calls"` // their ids
	Paused  time.Time `json:"paused"`
	Resumed time.Time `json:"resumed,omitzero"`
}

// SubCall is an llm_query or rlm_query call made from a cell.
type SubCall struct {
	ID           string    `json:"id"`
	Kind         string    `json:"kind"`               // "llm" or "rlm"
	Fallback     bool      `json:"fallback,omitempty"` // an rlm_query at max depth answered as llm_query
	Batch        int       `json:"batch,omitempty"`    // a call of this many prompts refused whole, none run
	ChildID      string    `json:"child_id,omitempty"`
	Depth        int       `json:"depth"` // depth of the callee
	Turn         int       `json:"turn"`
	Cell         int       `json:"cell"`
	Model        string    `json:"model,omitempty"`
	FinishReason string    `json:"finish_reason,omitempty"`
	Prompt       string    `json:"prompt"`
	Response     string    `json:"response"`
	Usage        llm.Usage `json:"usage"`
	Error        string    `json:"error,omitempty"`
	Status       Status    `json:"status"`
	Started      time.Time `json:"started"`
	Ended        time.Time `json:"ended,omitzero"`
	DurationMS   float64   `json:"duration_ms"`
	// Logprobs of an llm_query's answer, when the upstream gave them.
	Logprobs []llm.TokenLogprob `json:"logprobs,omitempty"`
}

// Summary is the small part of a trajectory that listings show and filter on.
type Summary struct {
	ID         string               `json:"id"`
	Status     Status               `json:"status"`
	StopReason recursion.StopReason `json:"stop_reason,omitempty"`
	Model      string               `json:"model,omitempty"`
	Models     []string             `json:"models,omitempty"` // upstream models that answered
	Started    time.Time            `json:"started"`
	DurationMS float64              `json:"duration_ms"`
	Usage      llm.Usage            `json:"usage"`
	Nodes      int                  `json:"nodes"`
	SubCalls   int                  `json:"sub_calls"`
	Reward     *Reward              `json:"reward,omitempty"`
	Answer     string               `json:"answer,omitempty"`   // first 200 bytes
	Question   string               `json:"question,omitempty"` // first 200 bytes
	// Metadata is the run's metadata, each value clipped to 200 bytes.
	Metadata map[string]string `json:"metadata,omitempty"`
}

// MaxQuestionBytes bounds Trajectory.Question.
const MaxQuestionBytes = 2000

// previewBytes bounds the texts of a Summary.
const previewBytes = 200

// Summary returns t's listing entry.
func (t *Trajectory) Summary() Summary {
	var meta map[string]string
	if len(t.Metadata) > 0 {
		meta = make(map[string]string, len(t.Metadata))
		for k, v := range t.Metadata {
			meta[k] = preview(v)
		}
	}
	return Summary{
		ID: t.ID, Status: t.Status, StopReason: t.StopReason, Model: t.Model, Models: t.Models,
		Started: t.Started, DurationMS: t.DurationMS, Usage: t.Used.Usage,
		Nodes: len(t.Nodes), SubCalls: t.Used.SubCalls, Reward: t.Reward,
		Answer: preview(t.Answer), Question: preview(t.Question), Metadata: meta,
	}
}

func preview(s string) string {
	if len(s) > previewBytes {
		return clip.Head(s, previewBytes) + "…"
	}
	return s
}

// clipQuestion keeps the head and the tail of a long question: a prompt
// that pastes a document usually asks at its end.
func clipQuestion(s string) string {
	if len(s) <= MaxQuestionBytes {
		return s
	}
	const sep = "\n…\n"
	half := (MaxQuestionBytes - len(sep)) / 2
	return clip.Head(s, half) + sep + clip.Tail(s, half)
}

// Prompt returns the prompt a child node was started with, as its parent
// wrote it: it is stored once, on the rlm_query sub-call that SubCallID
// names. It is empty for the root.
func (t *Trajectory) Prompt(n *Node) string {
	if n.SubCallID == "" {
		return ""
	}
	for _, p := range t.Nodes {
		for _, tu := range p.Turns {
			for _, c := range tu.Cells {
				for _, sc := range c.SubCalls {
					if sc.ID == n.SubCallID {
						return sc.Prompt
					}
				}
			}
		}
	}
	return ""
}

// Node returns the node with the given ID, or nil.
func (t *Trajectory) Node(id string) *Node {
	for _, n := range t.Nodes {
		if n.ID == id {
			return n
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
