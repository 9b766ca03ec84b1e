package recursion

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/rlm-project/rlm/recursion/llm"
)

// refusingModel is a test double for a model with a context of maxLen
// tokens: it refuses turn refuse (1-based) as longer than its context, and
// checks max_tokens up front as a local model does.
type refusingModel struct {
	maxLen, refuse int
	calls          atomic.Int32
	checked        atomic.Int32
}

func (m *refusingModel) refusal(attempts int) error {
	return &llm.Error{Upstream: "local model tiny", Attempts: attempts, Status: 400, Code: llm.CodeContextLength, Param: "max_tokens",
		Message: fmt.Sprintf("This model's maximum context length is %d tokens.", m.maxLen), Reason: "too long"}
}

func (m *refusingModel) Complete(ctx context.Context, req llm.Request) (llm.Completion, error) {
	if int(m.calls.Add(1)) == m.refuse {
		return llm.Completion{}, m.refusal(1)
	}
	return llm.Completion{Content: "Let me think."}, nil // no code, no FINAL: the run goes on
}

func (m *refusingModel) CheckRequest(model string, s llm.Sampling) error {
	m.checked.Add(1)
	if s.MaxTokens != nil && *s.MaxTokens >= m.maxLen {
		return m.refusal(0)
	}
	return nil
}

// TestContextLengthRefusal: a request the root model can never serve is the
// caller's fault, so Run returns it as an error (the gateway answers 400)
// rather than as a run that stopped (502): a max_tokens the model's check
// refuses up front, before the budget sees it, or a first turn the model
// refuses as longer than its context. A later turn refused so is a run
// that stopped on the model's error, as before.
func TestContextLengthRefusal(t *testing.T) {
	huge, small := 1_000_000_000, 100
	for _, tt := range []struct {
		name      string
		maxTokens *int
		refuse    int // the call the model refuses; 0: none
		wantErr   bool
		wantCalls int
	}{
		{"max_tokens past the context", &huge, 0, true, 0},
		{"first turn refused", &small, 1, true, 1},
		{"later turn refused", &small, 2, false, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &refusingModel{maxLen: 8192, refuse: tt.refuse}
			e, err := New(Config{Root: m, RootModel: "tiny", Sandbox: &funcSandbox{}, TempDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			res, err := e.Run(t.Context(), Request{Messages: userMsg("q"), Sampling: llm.Sampling{MaxTokens: tt.maxTokens}, Limits: Limits{MaxIterations: 3}})
			if tt.wantErr != (err != nil) {
				t.Fatalf("err %v, want one: %v (result %s: %s)", err, tt.wantErr, res.StopReason, res.Error)
			}
			if tt.wantErr && !errors.Is(err, llm.ErrContextLengthExceeded) {
				t.Errorf("err %v, want ErrContextLengthExceeded", err)
			}
			if !tt.wantErr && (res.StopReason != StopUpstreamError || errors.Is(err, llm.ErrContextLengthExceeded)) {
				t.Errorf("got %s: %s, want upstream_error", res.StopReason, res.Error)
			}
			if n := int(m.calls.Load()); n != tt.wantCalls {
				t.Errorf("%d model calls, want %d", n, tt.wantCalls)
			}
			if m.checked.Load() != 1 {
				t.Errorf("CheckRequest called %d times, want once", m.checked.Load())
			}
		})
	}
}

// plainModel answers every turn without code or FINAL and checks nothing up
// front, as an upstream does.
type plainModel struct{ calls atomic.Int32 }

func (m *plainModel) Complete(ctx context.Context, req llm.Request) (llm.Completion, error) {
	m.calls.Add(1)
	return llm.Completion{Content: "Let me think."}, nil
}

// TestMaxTokensPastTheWindow: with an upstream, which checks nothing before
// a call, a max_tokens the root model's window (--model-window) can never
// hold is refused before the run as the model would refuse it (the
// gateway answers 400 on max_tokens), instead of running to "No answer"
// when the token budget refuses the first call.
func TestMaxTokensPastTheWindow(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		maxTokens int
		wantErr   bool
	}{{1_000_000_000, true}, {32_000, true}, {1000, false}} {
		m := &plainModel{}
		e, err := New(Config{Root: m, RootModel: "up", Sandbox: &funcSandbox{}, TempDir: t.TempDir(), DefaultContextWindow: 32_000})
		if err != nil {
			t.Fatal(err)
		}
		mt := tt.maxTokens
		_, err = e.Run(t.Context(), Request{Messages: userMsg("q"), Sampling: llm.Sampling{MaxTokens: &mt}, Limits: Limits{MaxIterations: 1}})
		var ue *llm.Error
		if tt.wantErr != (err != nil) {
			t.Fatalf("max_tokens %d: err %v, want one: %v", mt, err, tt.wantErr)
		}
		if tt.wantErr && (!errors.Is(err, llm.ErrContextLengthExceeded) || !errors.As(err, &ue) || ue.Param != "max_tokens" || m.calls.Load() != 0) {
			t.Errorf("max_tokens %d: err %v after %d calls, want a context-length refusal on max_tokens before any", mt, err, m.calls.Load())
		}
	}
}
