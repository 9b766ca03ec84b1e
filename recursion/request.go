package recursion

import (
	"time"

	"github.com/rlm-project/rlm/recursion/llm"
)

// Request is one RLM run as a caller (the gateway, `rlm query`, `rlm eval`)
// asks for it.
type Request struct {
	// Messages is the conversation. Messages longer than
	// Limits.OffloadThreshold characters are offloaded into the REPL and
	// replaced in the root's view by a placeholder.
	Messages []llm.Message
	// Documents are attached files; they are always offloaded.
	Documents []Document
	// Model is the root model alias; empty means the configured default.
	Model    string
	Sampling llm.Sampling
	// Limits for this run; zero fields take the engine's defaults, and
	// values above the engine's maxima are clamped to them.
	Limits Limits
	// Observer receives the run's events as they happen; may be nil.
	Observer Observer
	// TraceID names the run in traces and stores; empty means generate one.
	TraceID string
	// Keep asks for the root node's REPL session and transcript to be kept
	// after the run, as Result.Conversation, for a follow-up.
	Keep bool
	// Continue, when set, runs the request as a follow-up in a kept
	// conversation: Messages are the new turn's input only (no Documents,
	// nothing long enough to be offloaded: else ErrCannotContinue).
	Continue *Conversation
	// Tools are the client's function tools, which the root's cells call;
	// a call pauses the run until its output comes (see tools.go).
	// ToolChoice is OpenAI's tool_choice; SerialToolCalls hands out one
	// call per pause (parallel_tool_calls false). ToolOutputs are the
	// outputs the client sent for calls of the conversation: a call with
	// the same tool and arguments gets its output without a pause.
	Tools           []Tool
	ToolChoice      ToolChoice
	SerialToolCalls bool
	ToolOutputs     []ToolOutput
	// Answer, when set, is the format the answer must have (structured
	// output): each FINAL of the root is checked against it.
	Answer *AnswerFormat
	// Images are the request's images: the root's cells see them as
	// images[i] and show them to Config.VisionModel with llm_query_image.
	Images []Image
}

// Image is an image of a request: where it is (an https URL, or a data
// URL holding it) and how the model's cells see it named.
type Image struct {
	Name string // e.g. "image/png, 3.2 kB, sent inline"
	URL  string
}

// Document is an attached file whose text lives on local disk. The engine
// maps it into the REPL without reading it into the caller's memory.
type Document struct {
	Name string // shown to the model in the placeholder
	Path string
	// Parts, when set, split the file into consecutive pieces (a PDF's
	// pages), each its own contexts[i], in order; a byte of the file
	// outside every part is not offloaded. Empty: the whole file is one
	// piece.
	Parts []DocumentPart
}

// DocumentPart is the byte range [Start, End) of a Document's file.
type DocumentPart struct {
	Label string // "page 3"
	Start int64
	End   int64
}

// Limits bound a run. They form one budget shared by the whole request tree.
type Limits struct {
	MaxDepth         int           // deepest rlm_query level; 0 is the root alone
	MaxIterations    int           // root turns per RLM node
	MaxLLMCalls      int           // model calls in the whole tree, root turns included
	MaxTotalTokens   int           // prompt plus completion tokens in the whole tree
	Timeout          time.Duration // wall time of the whole tree
	SubModel         string        // model for llm_query and children; empty: the root model
	OffloadThreshold int           // messages longer than this many characters are offloaded
	Concurrency      int           // sub-calls in flight at once for this request
	// MaxFailedTurns stops a node after that many turns in a row in which
	// no cell ran without an error (or no cell ran at all, and no FINAL
	// came): a model that cannot write working code for the input stops
	// early with "No answer: ..." instead of using every turn.
	MaxFailedTurns int
}

// Result is how a run ended.
type Result struct {
	TraceID    string
	Answer     string // the FINAL answer, or the best partial answer
	StopReason StopReason
	Error      string    // what went wrong, for stops other than StopFinal
	Usage      llm.Usage // summed over the whole tree
	Iterations int       // root turns of the root node
	LLMCalls   int       // model calls in the whole tree
	MaxDepth   int       // deepest node that ran
	Duration   time.Duration
	// NodeUsage is the usage of each node's own calls (its turns and its
	// llm_query calls), by node ID.
	NodeUsage map[string]llm.Usage
	// Limits are those the run had, its budgets scaled to its input (see
	// InputBudget).
	Limits Limits
	// ToolCalls are the calls a run paused at (StopReason StopToolCalls);
	// Paused resumes it with their outputs.
	ToolCalls []ToolCall
	Paused    Paused
	// Conversation is the kept root session, for a follow-up, when the
	// request asked to Keep it (or continued one) and the run ended in a
	// state that can go on (not cancelled, not out of time); the caller
	// closes it. Nil otherwise.
	Conversation *Conversation
}
