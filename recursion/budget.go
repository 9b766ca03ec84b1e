package recursion

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rlm-project/rlm/recursion/llm"
)

// BudgetError is a call refused because the request tree's budget would be
// exceeded. Its message says what is left, so model code that sees it
// (prefixed with "error: ") can decide what still fits.
type BudgetError struct {
	Reason StopReason // StopBudgetCalls or StopBudgetTokens
	Used   int
	Max    int
	Need   int // tokens the refused call would have reserved (StopBudgetTokens)
	// Batch is set when a call of this many prompts was refused whole,
	// for wanting more calls than were left.
	Batch int
	// What the tree has left: calls and tokens (-1: no limit), and wall
	// time (-1: no deadline).
	CallsLeft, TokensLeft int
	TimeLeft              time.Duration
}

func (e *BudgetError) Error() string {
	var s string
	if e.Reason == StopBudgetTokens {
		s = fmt.Sprintf("budget exhausted: %d/%d tokens used, and this call needs about %d", e.Used, e.Max, e.Need)
	} else if e.Batch > 1 {
		s = fmt.Sprintf("budget exhausted: a call of %d prompts needs more than the %d LLM calls left (%d/%d used); none of it ran",
			e.Batch, e.CallsLeft, e.Used, e.Max)
	} else {
		s = fmt.Sprintf("budget exhausted: %d/%d LLM calls", e.Used, e.Max)
	}
	left := func(n int, unit string) string {
		if n < 0 {
			return "no limit on " + unit
		}
		return fmt.Sprintf("%d %s", n, unit)
	}
	t := "no time limit"
	if e.TimeLeft >= 0 {
		t = e.TimeLeft.Round(time.Second).String() + " of time"
	}
	return fmt.Sprintf("%s; left: %s, %s, %s", s, left(e.CallsLeft, "calls"), left(e.TokensLeft, "tokens"), t)
}

// budget is shared by every node of one request tree. Calls reserve before
// they start, so many calls in flight at once can never overshoot the call
// limit; tokens are reserved as an estimate and settled with the usage the
// upstream reports. The prompt's estimate is spent at admission: a call the
// upstream rejected without reporting usage keeps it, so model code cannot
// send huge prompts for free by making the upstream refuse them.
type budget struct {
	maxCalls, maxTokens int

	mu       sync.Mutex
	deadline time.Time // zero: none
	calls    int       // reserved or made
	tokens   int       // settled usage plus outstanding estimates
	usage    llm.Usage
	made     int // calls that reached the upstream
}

type reservation struct {
	b      *budget
	tokens int // prompt estimate plus the completion reserved
	prompt int // prompt estimate, kept when no usage is reported
	done   bool
}

func newBudget(maxCalls, maxTokens int, deadline time.Time) *budget {
	return &budget{maxCalls: maxCalls, maxTokens: maxTokens, deadline: deadline}
}

// setDeadline moves the deadline: a run's clock stops while it waits for
// client tools.
func (b *budget) setDeadline(t time.Time) {
	b.mu.Lock()
	b.deadline = t
	b.mu.Unlock()
}

// refusal is the error of a call refused for reason; b.mu is held.
func (b *budget) refusal(reason StopReason, need int) *BudgetError {
	e := &BudgetError{Reason: reason, Used: b.calls, Max: b.maxCalls, Need: need, CallsLeft: -1, TokensLeft: -1, TimeLeft: -1}
	if reason == StopBudgetTokens {
		e.Used, e.Max = b.tokens, b.maxTokens
	}
	if b.maxCalls > 0 {
		e.CallsLeft = max(b.maxCalls-b.calls, 0)
	}
	if b.maxTokens > 0 {
		e.TokensLeft = max(b.maxTokens-b.tokens, 0)
	}
	if !b.deadline.IsZero() {
		e.TimeLeft = max(time.Until(b.deadline), 0)
	}
	return e
}

// reserve claims one call and the tokens of its prompt (estimated) and of
// its completion, or refuses with a *BudgetError when either would go over.
func (b *budget) reserve(promptTokens, completionTokens int) (*reservation, error) {
	estTokens := promptTokens + completionTokens
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.maxCalls > 0 && b.calls >= b.maxCalls {
		return nil, b.refusal(StopBudgetCalls, 0)
	}
	if b.maxTokens > 0 && b.tokens+estTokens > b.maxTokens {
		return nil, b.refusal(StopBudgetTokens, estTokens)
	}
	b.calls++
	b.tokens += estTokens
	return &reservation{b: b, tokens: estTokens, prompt: promptTokens}, nil
}

// settle replaces the estimate with the actual usage. A call that reached
// the upstream but got no usage back (rejected, failed) keeps its prompt
// estimate and returns only the completion reserve. A call that never
// reached the upstream (made false) gives everything back, its call too.
func (r *reservation) settle(u llm.Usage, made bool) {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.done {
		return
	}
	r.done = true
	spent := u.TotalTokens
	if made && spent == 0 {
		spent = r.prompt
	}
	b.tokens += spent - r.tokens
	b.usage = b.usage.Add(u)
	if made {
		b.made++
	} else {
		b.calls--
	}
}

// refuseCalls returns the refusal of a host call of n prompts when fewer
// than n calls are left, or nil.
func (b *budget) refuseCalls(n int) *BudgetError {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.maxCalls <= 0 || n <= b.maxCalls-b.calls {
		return nil
	}
	e := b.refusal(StopBudgetCalls, 0)
	e.Batch = n
	return e
}

// exhausted returns the error a call would get when no call is left, so
// that work which only makes calls (a child RLM) is not started for nothing.
func (b *budget) exhausted() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.maxCalls > 0 && b.calls >= b.maxCalls {
		return b.refusal(StopBudgetCalls, 0)
	}
	return nil
}

// callsLeft is the number of calls that may still be reserved; -1 when
// calls are not limited.
func (b *budget) callsLeft() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.maxCalls <= 0 {
		return -1
	}
	return max(b.maxCalls-b.calls, 0)
}

// tokensUsed is the tokens counted so far: settled usage, kept prompt
// estimates of rejected calls and outstanding reservations.
func (b *budget) tokensUsed() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tokens
}

func (b *budget) snapshot() (calls int, usage llm.Usage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.made, b.usage
}

// semaphore bounds concurrent upstream calls.
type semaphore chan struct{}

func (s semaphore) acquire(ctx context.Context) error {
	if s == nil {
		return nil
	}
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (s semaphore) release() {
	if s != nil {
		<-s
	}
}
