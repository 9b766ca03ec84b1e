package tracing

import (
	"context"
	"errors"

	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/recursion/llm"
)

// Runner runs one RLM request; *recursion.Engine implements it (and so does
// the gateway's server.Runner).
type Runner interface {
	Run(ctx context.Context, req recursion.Request) (recursion.Result, error)
}

type ownerKey struct{}

// WithOwner returns ctx naming the owner a wrapped Runner records runs for.
func WithOwner(ctx context.Context, owner string) context.Context {
	return context.WithValue(ctx, ownerKey{}, owner)
}

// DefaultOwner is the owner of runs whose context names none: the
// gateway's owner when it runs without API keys.
const DefaultOwner = "open"

// Wrap returns a Runner that records every run of r: it starts a Run with
// the request's parameters, the owner from WithOwner and the parent span
// the context carries (see spans.Extract), fans the run's observer out with
// the request's own, and finishes the record when r returns, whatever
// happened. The request's TraceID is kept (generated when empty). The
// record is saved in the background (Run.FinishInBackground): the run's
// answer never waits on the store. A run that cannot be recorded (bad
// owner or ID, or one already running) still runs, unrecorded.
func (s *Service) Wrap(r Runner) Runner { return &wrapped{svc: s, next: r} }

type wrapped struct {
	svc  *Service
	next Runner
}

func (w *wrapped) Run(ctx context.Context, req recursion.Request) (recursion.Result, error) {
	owner, _ := ctx.Value(ownerKey{}).(string)
	if owner == "" {
		owner = DefaultOwner
	}
	lim := req.Limits
	if l, ok := w.next.(interface {
		Limits(recursion.Limits) recursion.Limits
	}); ok {
		lim = l.Limits(lim) // the limits the run really gets, defaults filled in
	}
	run, err := w.svc.StartRun(ctx, RunInfo{
		TraceID: req.TraceID, Owner: owner, Model: req.Model, Sampling: req.Sampling, Limits: lim,
		Messages: req.Messages, Documents: req.Documents, Question: lastUserMessage(req.Messages),
	})
	if err != nil {
		w.svc.cfg.Logger.Warn("trace not recorded", "trace", req.TraceID, "err", err)
		return w.next.Run(ctx, req)
	}
	req.TraceID = run.ID()
	req.Observer = Fanout(req.Observer, run.Observer())
	res, err := w.next.Run(ctx, req)
	return finishOrFollow(ctx, run, res, err)
}

// finishOrFollow finishes the record of a run that ended, and follows one
// that paused for client tools: its record stays open (its events, the
// pause included, keep coming) until the run resumed from the pause ends.
func finishOrFollow(ctx context.Context, run *Run, res recursion.Result, err error) (recursion.Result, error) {
	if res.TraceID == "" {
		res.TraceID = run.ID()
	}
	if err == nil && res.StopReason == recursion.StopToolCalls && res.Paused != nil {
		res.Paused = &followedPause{next: res.Paused, run: run}
		return res, nil
	}
	run.FinishInBackground(ctx, res, err)
	return res, err
}

// followedPause is a paused run whose record is still open.
type followedPause struct {
	next recursion.Paused
	run  *Run
}

func (p *followedPause) Resume(ctx context.Context, outputs map[string]string) (recursion.Result, error) {
	res, err := p.next.Resume(ctx, outputs)
	if errors.Is(err, recursion.ErrNotPaused) || errors.As(err, new(*recursion.MissingOutputsError)) {
		return res, err // still paused, or not ours to finish
	}
	return finishOrFollow(ctx, p.run, res, err)
}

func (p *followedPause) Close() {
	p.next.Close()
	p.run.FinishInBackground(context.Background(), recursion.Result{TraceID: p.run.ID(), StopReason: recursion.StopCancelled,
		Error: "the run paused for client tool outputs that never came"}, nil)
}

// lastUserMessage is what the user asked: the text of the last user
// message, without the documents attached to it (which the model's first
// prompt would show as placeholders before it).
func lastUserMessage(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}
