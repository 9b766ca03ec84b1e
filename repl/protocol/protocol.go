// Package protocol is the contract between a REPL host (package repl) and
// its worker processes (package repl/worker): how a worker is started (its
// descriptors and environment), the messages the two exchange and their
// framing, the values those messages carry (Limits, ContextFile,
// CellResult), and the checks both sides make of them. It is the one
// definition both sides import.
package protocol

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// The parent and a worker talk over a dedicated pipe pair (fds 3 and 4 in
// the worker, passed through exec.Cmd.ExtraFiles) so that the worker's own
// stdout and stderr stay free for diagnostics such as Go runtime crash
// reports. Each message is a 4-byte big-endian length followed by JSON.
// Cells and host calls are multiplexed by ID: a worker may have many host
// calls in flight while one cell runs.

// A worker's descriptors: the protocol pipes on InFD (parent to worker)
// and OutFD (worker to parent), and on ContextFD a socket over which the
// parent passes the context file's descriptor (the worker cannot open
// files). A command's own ExtraFiles follow from LastFD+1 on.
const (
	InFD      = 3
	OutFD     = 4
	ContextFD = 5
	LastFD    = ContextFD
)

// Environment variables of a worker process: WorkerEnv=1 turns the binary
// into a worker; ConfineEnv=0 starts it unconfined (benchmarks measure the
// cost of confinement with it); StartMemoryEnv bounds its address space
// until its session sets the limit.
const (
	WorkerEnv      = "RLM_REPL_WORKER"
	ConfineEnv     = "RLM_REPL_CONFINE"
	StartMemoryEnv = "RLM_REPL_START_MEMORY"
)

// WorkerErrPrefix starts the line a worker writes on stderr before it
// exits because it cannot serve (it could not confine itself, or its pipe
// broke); the parent quotes that line to explain the exit.
const WorkerErrPrefix = "repl worker: "

// Message kinds.
const (
	// parent -> worker
	KindInit   = "init"   // Context, Query, Limits, Tools: map the context, apply limits, declare the client's tools
	KindCell   = "cell"   // ID, Code: run a cell
	KindCancel = "cancel" // ID: cancel the cell with this ID
	KindReply  = "reply"  // ID, Results: answer to a host call

	// worker -> parent
	KindReady  = "ready"  // init done (Error set if it failed)
	KindResult = "result" // ID, Result, Clean: a cell finished
	KindLLM    = "llm"    // ID, Cell, Prompts: llm_query call
	KindRLM    = "rlm"    // ID, Cell, Prompts: rlm_query call
	KindTool   = "tool"   // ID, Cell, Tool, Prompts (each call's arguments, JSON): client tool calls
	KindImage  = "image"  // ID, Cell, Prompts (one), Images: llm_query_image call
	KindFatal  = "fatal"  // Error: the worker is about to exit because a limit was hit
)

// MaxMessage bounds one message from the parent so that a corrupt length
// prefix cannot make the worker allocate without bound. Messages from a
// worker are bounded by its Limits (see FrameLimit).
const MaxMessage = 1 << 30

// FrameTooLargeError is a message longer than the reader (or writer)
// accepts. The reader returns it after the 4-byte header, before reading
// or allocating the body.
type FrameTooLargeError struct {
	Kind        string // set by the writer, which knows it
	Size, Limit int64
}

func (e *FrameTooLargeError) Error() string {
	what := "message"
	if e.Kind != "" {
		what = e.Kind + " message"
	}
	return fmt.Sprintf("%s of %d bytes exceeds the limit of %d bytes", what, e.Size, e.Limit)
}

// Message is one message of either direction; Kind says which fields are
// set.
type Message struct {
	Kind    string       `json:"kind"`
	ID      uint64       `json:"id,omitempty"`
	Cell    uint64       `json:"cell,omitempty"`
	Code    string       `json:"code,omitempty"`
	Context *ContextFile `json:"context,omitempty"`
	Query   string       `json:"query,omitempty"`
	Limits  *Limits      `json:"limits,omitempty"`
	Prompts []string     `json:"prompts,omitempty"`
	Tool    string       `json:"tool,omitempty"`   // the client tool a KindTool call calls
	Tools   []string     `json:"tools,omitempty"`  // the client tools of a session (KindInit)
	Images  []string     `json:"images,omitempty"` // KindInit: the session's images, by name; KindImage: unused
	Image   []int        `json:"image,omitempty"`  // KindImage: the images the call shows, by index
	Results []string     `json:"results,omitempty"`
	Result  *CellResult  `json:"result,omitempty"`
	Clean   bool         `json:"clean,omitempty"` // result of a cancelled cell: every goroutine of the cell stopped
	Error   string       `json:"error,omitempty"`
}

// ContextFile is the offloaded input of a session: a file the worker maps
// read-only and exposes as the Go string `context`, and byte ranges of it
// exposed as `contexts[i]` (slices of the same memory, no copies).
type ContextFile struct {
	Path   string
	Pieces []Range
}

// Range is a half-open byte range [Start, End) of a ContextFile.
type Range struct{ Start, End int64 }

// CellResult is what running one cell produced, phrased for the model.
type CellResult struct {
	Output      string        // stdout and stderr, interleaved, truncated to Limits.MaxOutput with a visible note
	OutputBytes int           // size of the output before truncation
	Truncated   bool          // Output was cut
	Error       string        // compile error, panic or limit message, with the cell's own line numbers; empty on success
	Final       *string       // set when the cell called FINAL
	Restarted   bool          // the worker died or was killed and a fresh one replaced it: the model's variables are lost
	Duration    time.Duration // wall time of the cell
}

// ErrorStrings answers n prompts of a host call with one error, the way
// both sides answer a call that failed or was refused: a string starting
// with "error: ". The strings share their bytes, so a refused batch of a
// million prompts costs only its slice.
func ErrorStrings(n int, why string) []string {
	r := make([]string, n)
	msg := "error: " + why
	for i := range r {
		r[i] = msg
	}
	return r
}

// Writer serialises messages from many goroutines onto one pipe.
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	limit atomic.Int64 // largest body sent; 0: MaxMessage
}

// NewWriter returns a Writer onto w that sends bodies of up to MaxMessage
// bytes.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// SetLimit sets the largest body Send sends; 0 means MaxMessage.
func (m *Writer) SetLimit(n int64) { m.limit.Store(n) }

// Send writes one message, or refuses it with a FrameTooLargeError,
// writing nothing, when its body is over the limit.
func (m *Writer) Send(msg *Message) error {
	// Without HTML escaping, <, > and & stay one byte each: only control
	// characters (and invalid UTF-8) grow, which keeps a call's frame
	// close to the size of its prompts (see FrameLimit).
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	if err := e.Encode(msg); err != nil {
		return fmt.Errorf("encode %s message: %w", msg.Kind, err)
	}
	body := bytes.TrimSuffix(enc.Bytes(), []byte("\n"))
	limit := m.limit.Load()
	if limit <= 0 {
		limit = MaxMessage
	}
	if int64(len(body)) > limit {
		return &FrameTooLargeError{Kind: msg.Kind, Size: int64(len(body)), Limit: limit}
	}
	buf := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(buf, uint32(len(body)))
	copy(buf[4:], body)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.w.Write(buf); err != nil {
		return fmt.Errorf("write %s message: %w", msg.Kind, err)
	}
	return nil
}

// Reader reads messages from one pipe; it is used by one goroutine.
type Reader struct {
	r *bufio.Reader
}

// NewReader returns a Reader of the messages on r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64<<10)} }

// Recv reads one message of at most limit bytes. A larger one is refused
// from its header: its body is neither read nor allocated, and the stream
// cannot be read further.
func (m *Reader) Recv(limit int64) (*Message, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(m.r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if int64(n) > limit {
		return nil, &FrameTooLargeError{Size: int64(n), Limit: limit}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(m.r, body); err != nil {
		return nil, fmt.Errorf("read message body: %w", err)
	}
	msg := new(Message)
	if err := json.Unmarshal(body, msg); err != nil {
		return nil, fmt.Errorf("decode message: %w", err)
	}
	return msg, nil
}

// CallName is how errors and the model name a host call of kind: its
// function's name.
func CallName(kind, tool string) string {
	switch kind {
	case KindLLM:
		return "llm_query"
	case KindRLM:
		return "rlm_query"
	case KindTool:
		return "tool " + tool
	case KindImage:
		return "llm_query_image"
	}
	return kind
}
