package recursion

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/rlm-project/rlm/recursion/llm"
)

// A Conversation is a root node's REPL session and transcript kept after
// its run (Request.Keep), so that a later run continues it
// (Request.Continue): the variables, functions and types the model defined
// are still in the session, `context`/`contexts` still hold the first
// run's input, and the model sees its own earlier turns. It holds a REPL
// worker (and its memory) until Close; one run at a time may use it.
type Conversation struct {
	host *hostSwitch

	mu         sync.Mutex
	sess       Session
	transcript []llm.Message
	doc        bool // the session holds an offloaded input
	busy       bool
	closed     bool
}

// ErrCannotContinue is returned (wrapped) by Engine.Run for a Continue it
// cannot honour: the follow-up attaches documents or holds text long enough
// to be offloaded (a kept session's context cannot grow), or the
// conversation is closed or in use. The caller runs the follow-up afresh.
var ErrCannotContinue = errors.New("cannot continue the conversation")

// Close ends the session. It is safe to call more than once, and while a
// run uses the conversation: that run's cells then fail.
func (c *Conversation) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return c.sess.Close()
}

// take reserves the conversation for one run.
func (c *Conversation) take() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		return errors.New("its session was closed")
	case c.busy:
		return errors.New("another run is using it")
	}
	c.busy = true
	return nil
}

// done releases the conversation after a run: kept with the run's
// transcript, or closed when the run cannot be continued.
func (c *Conversation) done(transcript []llm.Message, keep bool) {
	c.mu.Lock()
	c.busy = false
	c.transcript = transcript
	c.mu.Unlock()
	if !keep {
		c.Close()
	}
}

// hostSwitch answers a kept session's sub-calls with the root node of the
// run that uses the session now.
type hostSwitch struct{ n atomic.Pointer[node] }

func (h *hostSwitch) LLMQuery(ctx context.Context, prompts []string) []string {
	return h.n.Load().LLMQuery(ctx, prompts)
}

func (h *hostSwitch) RLMQuery(ctx context.Context, prompts []string) []string {
	return h.n.Load().RLMQuery(ctx, prompts)
}

// followUpMessage starts a continued run's turn: the new input, and what
// the session still holds.
func followUpMessage(off *offloaded) string {
	return "Follow-up. Your REPL session is as you left it: every variable, function and type you defined is still there, " +
		"and `context`/`contexts` (and `query`) still hold the first input. The new input is below.\n\n" + off.View
}
