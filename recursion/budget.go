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
// upstream reports. The prompt's estimate is spent at admission: a call the
// upstream rejected without reporting usage keeps it, so model code cannot
// send huge prompts for free by making the upstream refuse them.
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
	tokens int // prompt estimate plus the completion reserved
	prompt int // prompt estimate, kept when no usage is reported
	done   bool
}

func newBudget(maxCalls, maxTokens int) *budget {
	return &budget{maxCalls: maxCalls, maxTokens: maxTokens}
}

// reserve claims one call and the tokens of its prompt (estimated) and of
// its completion, or refuses with a *BudgetError when either would go over.
func (b *budget) reserve(promptTokens, completionTokens int) (*reservation, error) {
	estTokens := promptTokens + completionTokens
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
	return &reservation{b: b, tokens: estTokens, prompt: promptTokens}, nil
}

// settle replaces the estimate with the actual usage. A call that reached
// the upstream but got no usage back (rejected, failed) keeps its prompt
// estimate and returns only the completion reserve. A call that never
// reached the upstream (made false) gives everything back, its call too.
func (r *reservation) settle(u Usage, made bool) {
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
