package repl

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sync"
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

// maxMessage bounds one message so that a corrupt length prefix cannot make
// the reader allocate without bound.
const maxMessage = 1 << 30

type message struct {
	Kind    string       `json:"kind"`
	ID      uint64       `json:"id,omitempty"`
	Cell    uint64       `json:"cell,omitempty"`
	Code    string       `json:"code,omitempty"`
	Context *ContextFile `json:"context,omitempty"`
	Limits  *Limits      `json:"limits,omitempty"`
	Prompts []string     `json:"prompts,omitempty"`
	Results []string     `json:"results,omitempty"`
	Result  *CellResult  `json:"result,omitempty"`
	Clean   bool         `json:"clean,omitempty"` // result of a cancelled cell: every goroutine of the cell stopped
	Error   string       `json:"error,omitempty"`
}

// msgWriter serialises messages from many goroutines onto one pipe.
type msgWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (m *msgWriter) send(msg *message) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encode %s message: %w", msg.Kind, err)
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

func (m *msgReader) recv() (*message, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(m.r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > maxMessage {
		return nil, fmt.Errorf("message of %d bytes exceeds the limit of %d", n, maxMessage)
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
