package recursion

import (
	"context"
	"fmt"
	"sync"
)

// BudgetError is a call refused because the request tree's budget would be
// exceeded. Its message is what model code sees.
type BudgetError struct {
	Reason StopReason // StopBudgetCalls or StopBudgetTokens
	Used   int
	Max    int
}

func (e *BudgetError) Error() string {
	unit := "LLM calls"
	if e.Reason == StopBudgetTokens {
		unit = "tokens"
	}
	return fmt.Sprintf("budget exhausted: %d/%d %s", e.Used, e.Max, unit)
}

// budget is shared by every node of one request tree. Calls reserve before
// they start, so many calls in flight at once can never overshoot the call
// limit; tokens are reserved as an estimate and settled with the usage the
// upstream reports.
type budget struct {
	maxCalls, maxTokens int

	mu     sync.Mutex
	calls  int // reserved or made
	tokens int // settled usage plus outstanding estimates
	usage  Usage
	made   int // calls that reached the upstream
}

type reservation struct {
	b      *budget
	tokens int
	done   bool
}

func newBudget(maxCalls, maxTokens int) *budget {
	return &budget{maxCalls: maxCalls, maxTokens: maxTokens}
}

// reserve claims one call and estTokens tokens, or refuses with a
// *BudgetError when either would go over.
func (b *budget) reserve(estTokens int) (*reservation, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.maxCalls > 0 && b.calls >= b.maxCalls {
		return nil, &BudgetError{Reason: StopBudgetCalls, Used: b.calls, Max: b.maxCalls}
	}
	if b.maxTokens > 0 && b.tokens+estTokens > b.maxTokens {
		return nil, &BudgetError{Reason: StopBudgetTokens, Used: b.tokens, Max: b.maxTokens}
	}
	b.calls++
	b.tokens += estTokens
	return &reservation{b: b, tokens: estTokens}, nil
}

// settle replaces the estimate with the actual usage. A call that never
// reached the upstream (made false) gives its call back too.
func (r *reservation) settle(u Usage, made bool) {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.done {
		return
	}
	r.done = true
	b.tokens += u.TotalTokens - r.tokens
	b.usage = b.usage.Add(u)
	if made {
		b.made++
	} else {
		b.calls--
	}
}

// exhausted returns the error a call would get when no call is left, so
// that work which only makes calls (a child RLM) is not started for nothing.
func (b *budget) exhausted() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.maxCalls > 0 && b.calls >= b.maxCalls {
		return &BudgetError{Reason: StopBudgetCalls, Used: b.calls, Max: b.maxCalls}
	}
	return nil
}

func (b *budget) snapshot() (calls int, usage Usage) {
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
