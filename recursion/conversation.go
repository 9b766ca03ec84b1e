package recursion

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/repl"
)

// A Conversation is a root node's REPL session and transcript kept after
// its run (Request.Keep), so that a later run continues it
// (Request.Continue): the variables, functions and types the model defined
// are still in the session, `context`/`contexts` still hold the first
// run's input, and the model sees its own earlier turns. It holds a REPL
// worker (and its memory) until Close; one run at a time may use it.
// Between runs its worker stands still (keptSession), so that goroutines
// the model's cells left running use no CPU while nobody uses it.
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

// keptSession is a session that can stand still between runs and draw on
// the memory budget of the run that continues it: a *repl.Session. Other
// sessions (tests' own) are kept as they are.
type keptSession interface {
	Pause() error
	Resume() error
	SetBudget(ctx context.Context, b *repl.MemoryBudget) error
}

// take reserves the conversation for one run, whose memory budget (nil:
// none) the session then counts against, and lets its worker go on.
func (c *Conversation) take(ctx context.Context, budget *repl.MemoryBudget) error {
	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		return errors.New("its session was closed")
	case c.busy:
		c.mu.Unlock()
		return errors.New("another run is using it")
	}
	c.busy = true
	c.mu.Unlock()
	if ks, ok := c.sess.(keptSession); ok {
		err := ks.SetBudget(ctx, budget)
		if err == nil {
			err = ks.Resume()
		}
		if err != nil {
			c.mu.Lock()
			c.busy = false
			c.mu.Unlock()
			return fmt.Errorf("its session could not go on: %w", err)
		}
	}
	return nil
}

// done releases the conversation after a run: kept with the run's
// transcript and its worker paused, or closed when the run cannot be
// continued (or the worker cannot be paused). It reports whether it kept
// the conversation.
func (c *Conversation) done(transcript []llm.Message, keep bool) bool {
	if ks, ok := c.sess.(keptSession); ok && keep && ks.Pause() != nil {
		keep = false
	}
	c.mu.Lock()
	c.busy = false
	c.transcript = transcript
	c.mu.Unlock()
	if !keep {
		c.Close()
	}
	return keep
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

func (h *hostSwitch) LLMQueryImage(ctx context.Context, prompt string, images []int) string {
	return h.n.Load().LLMQueryImage(ctx, prompt, images)
}

func (h *hostSwitch) CallTools(ctx context.Context, tool string, args []string) []string {
	return h.n.Load().CallTools(ctx, tool, args)
}

// followUpMessage starts a continued run's turn: the new input, and what
// the session still holds.
func followUpMessage(off *offloaded) string {
	return "Follow-up. Your REPL session is as you left it: every variable, function and type you defined is still there, " +
		"and `context`/`contexts` (and `query`) still hold the first input. The new input is below.\n\n" + off.View
}
