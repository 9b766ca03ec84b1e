package repl

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// The parent and a worker talk over a dedicated pipe pair (fds 3 and 4 in
// the worker, passed through exec.Cmd.ExtraFiles) so that the worker's own
// stdout and stderr stay free for diagnostics such as Go runtime crash
// reports. Each message is a 4-byte big-endian length followed by JSON.
// Cells and host calls are multiplexed by ID: a worker may have many host
// calls in flight while one cell runs.

// Message kinds.
const (
	// parent -> worker
	kindInit   = "init"   // Context, Limits: map the context, apply limits
	kindCell   = "cell"   // ID, Code: run a cell
	kindCancel = "cancel" // ID: cancel the cell with this ID
	kindReply  = "reply"  // ID, Results: answer to a host call

	// worker -> parent
	kindReady  = "ready"  // init done (Error set if it failed)
	kindResult = "result" // ID, Result: a cell finished
	kindLLM    = "llm"    // ID, Cell, Prompts: llm_query call
	kindRLM    = "rlm"    // ID, Cell, Prompts: rlm_query call
	kindFatal  = "fatal"  // Error: the worker is about to exit because a limit was hit
)

// maxMessage bounds one message from the parent so that a corrupt length
// prefix cannot make the worker allocate without bound. Messages from a
// worker are bounded by its Limits (see Limits.frameLimit).
const maxMessage = 1 << 30

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

type message struct {
	Kind    string       `json:"kind"`
	ID      uint64       `json:"id,omitempty"`
	Cell    uint64       `json:"cell,omitempty"`
	Code    string       `json:"code,omitempty"`
	Context *ContextFile `json:"context,omitempty"`
	Query   string       `json:"query,omitempty"`
	Limits  *Limits      `json:"limits,omitempty"`
	Prompts []string     `json:"prompts,omitempty"`
	Results []string     `json:"results,omitempty"`
	Result  *CellResult  `json:"result,omitempty"`
	Clean   bool         `json:"clean,omitempty"` // result of a cancelled cell: every goroutine of the cell stopped
	Error   string       `json:"error,omitempty"`
}

// msgWriter serialises messages from many goroutines onto one pipe.
type msgWriter struct {
	mu    sync.Mutex
	w     io.Writer
	limit atomic.Int64 // largest body sent; 0: maxMessage
}

func (m *msgWriter) send(msg *message) error {
	// Without HTML escaping, <, > and & stay one byte each: only control
	// characters (and invalid UTF-8) grow, which keeps a call's frame
	// close to the size of its prompts (see Limits.frameLimit).
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	if err := e.Encode(msg); err != nil {
		return fmt.Errorf("encode %s message: %w", msg.Kind, err)
	}
	body := bytes.TrimSuffix(enc.Bytes(), []byte("\n"))
	limit := m.limit.Load()
	if limit <= 0 {
		limit = maxMessage
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

// msgReader reads messages from one pipe; it is used by one goroutine.
type msgReader struct {
	r *bufio.Reader
}

func newMsgReader(r io.Reader) *msgReader { return &msgReader{r: bufio.NewReaderSize(r, 64<<10)} }

// recv reads one message of at most limit bytes. A larger one is refused
// from its header: its body is neither read nor allocated, and the stream
// cannot be read further.
func (m *msgReader) recv(limit int64) (*message, error) {
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
	msg := new(message)
	if err := json.Unmarshal(body, msg); err != nil {
		return nil, fmt.Errorf("decode message: %w", err)
	}
	return msg, nil
}
