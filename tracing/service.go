package tracing

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/rlm-project/rlm/recursion"
)

// Config wires a Service. Every field is optional.
type Config struct {
	// Store keeps finished trajectories; nil keeps them only while live.
	Store Store
	// Feed receives every finished trajectory, and each one again when it
	// is given a reward (see Feedback); nil disables the stream.
	Feed Stream
	// Spans draws every run in a tracing system as well (spans.New:
	// OpenTelemetry); nil: none.
	Spans Spans
	// HashLimit is the largest attached document whose SHA-256 is computed
	// for the record (streamed when the run finishes); larger ones are
	// recorded by path and size only. 0 means DefaultHashLimit; negative
	// means never hash.
	HashLimit int64
	// SaveTimeout bounds saving and publishing a finished run, which runs
	// even when the request's context is cancelled. 0 means 30s.
	SaveTimeout time.Duration
	// SaveQueue is how many finished runs may wait to be saved in the
	// background (see Run.FinishInBackground): a run finished while the
	// queue is full is not saved, and counted as dropped. It bounds the
	// memory a store that is down or slow can make the server hold. 0
	// means DefaultSaveQueue.
	SaveQueue int
	// Record bounds each trajectory: one text field and the whole record
	// (see RecordLimits); zero fields mean the defaults.
	Record RecordLimits
	// Logger reports failures that cannot be returned to a caller (a feed
	// that is down); nil means slog.Default().
	Logger *slog.Logger
	// BeforeSave, when set, is called before a trajectory is written to
	// Store (saved, or saved again with a reward) with its encoded size;
	// an error fails the save. rlm serve makes room in the owner's share
	// of the store with it.
	BeforeSave func(ctx context.Context, owner, id string, bytes int64) error
}

// Spans draws runs in a tracing system (OpenTelemetry: package
// tracing/spans) as they are recorded.
type Spans interface {
	// Start begins the spans of a run, under the parent span ctx carries,
	// if any.
	Start(ctx context.Context, info RunInfo) RunSpans
}

// RunSpans are the spans of one run: they observe its events and are
// finished with its record.
type RunSpans interface {
	recursion.Observer
	// Finish ends the spans still open with the run's outcome.
	Finish(t *Trajectory)
}

// DefaultHashLimit is Config.HashLimit's default: 256 MiB.
const DefaultHashLimit = 256 << 20

// Service records runs: it starts a Recorder (and spans) per run, keeps live
// runs visible to the HTTP handlers, and saves and publishes finished ones,
// in the caller's goroutine (Finish) or in the background (Wrap).
type Service struct {
	cfg     Config
	archive *Archive
	mu      sync.Mutex
	live    map[string]*Run // owner + "/" + id, until saved
	saver   saver
}

// NewService returns a Service.
func NewService(cfg Config) *Service {
	if cfg.SaveTimeout <= 0 {
		cfg.SaveTimeout = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.HashLimit == 0 {
		cfg.HashLimit = DefaultHashLimit
	}
	if cfg.SaveQueue <= 0 {
		cfg.SaveQueue = DefaultSaveQueue
	}
	s := &Service{cfg: cfg, live: map[string]*Run{}}
	if cfg.Store != nil {
		s.archive = NewArchive(cfg.Store)
		s.archive.beforeSave = cfg.BeforeSave
	}
	s.saver.start(s)
	return s
}

// Archive returns the store of finished runs, or nil when none is configured.
func (s *Service) Archive() *Archive { return s.archive }

// Run is one recorded run. Pass Observer() to the engine (in
// recursion.Request.Observer, fanned out with any other observer) and call
// Finish when the engine returns.
type Run struct {
	svc      *Service
	rec      *Recorder
	spans    RunSpans
	observer recursion.Observer
	key      string
	once     sync.Once
	traj     *Trajectory
	err      error
	// saved is closed once the run's record has been saved, or has failed
	// to be, or was dropped; queued says it waits for that in the
	// background. Both are guarded by the Service's mu.
	saved  chan struct{}
	queued bool
}

// NewTraceID returns a random trace ID: "trace-" and 24 hex digits, the
// form the gateway gives its runs, so that IDs look the same whichever
// command recorded the run.
func NewTraceID() string {
	var b [12]byte
	rand.Read(b[:])
	return "trace-" + hex.EncodeToString(b[:])
}

// StartRun starts recording a run. info.TraceID is generated when empty (use
// Run.ID for recursion.Request.TraceID); info.Owner must be a ValidName. ctx
// carries the parent span, if any (see spans.Extract): the run's spans
// continue it.
func (s *Service) StartRun(ctx context.Context, info RunInfo) (*Run, error) {
	if info.TraceID == "" {
		info.TraceID = NewTraceID()
	}
	if !ValidName(info.Owner) {
		return nil, fmt.Errorf("start trace: owner %q: %w", info.Owner, ErrInvalid)
	}
	if !ValidName(info.TraceID) {
		return nil, fmt.Errorf("start trace: id %q: %w", info.TraceID, ErrInvalid)
	}
	if info.Started.IsZero() {
		info.Started = time.Now()
	}
	r := &Run{svc: s, rec: NewRecorderLimits(info, s.cfg.Record), key: info.Owner + "/" + info.TraceID, saved: make(chan struct{})}
	r.observer = r.rec
	if s.cfg.Spans != nil {
		r.spans = s.cfg.Spans.Start(ctx, info)
		r.observer = Fanout(r.rec, r.spans)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.live[r.key]; dup {
		return nil, fmt.Errorf("start trace %s: already running", info.TraceID)
	}
	s.live[r.key] = r
	return r, nil
}

// ID returns the run's trace ID.
func (r *Run) ID() string { return r.rec.ID() }

// Observer returns the observer to give the engine.
func (r *Run) Observer() recursion.Observer { return r.observer }

// Recorder returns the run's recorder.
func (r *Run) Recorder() *Recorder { return r.rec }

// Saved is closed once the run's record has been saved after Finish or
// FinishInBackground, or has failed to be, or was dropped.
func (r *Run) Saved() <-chan struct{} { return r.saved }

// Finish completes the record with the engine's result (and error, if it
// returned one), saves it, publishes it to the feed and ends the spans. It
// works even when ctx is already cancelled, so a cancelled run still leaves a
// record. Calling it again, or after FinishInBackground, returns the first
// call's outcome once the record is saved.
func (r *Run) Finish(ctx context.Context, res recursion.Result, runErr error) (*Trajectory, error) {
	r.once.Do(func() {
		r.traj = r.complete(ctx, res, runErr)
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.svc.cfg.SaveTimeout)
		defer cancel()
		r.save(sctx)
	})
	<-r.saved
	return r.traj, r.err
}

// FinishInBackground completes the record as Finish does, and returns it at
// once: saving and publishing happen in the background, so that a store
// that is slow or down does not hold up the run's answer. The run stays
// live (readable through the Service) until it is saved. When the save
// queue is full (Config.SaveQueue) or the Service is closed, the record is
// not saved; the loss is logged and counted (Stats). Calling Finish or
// FinishInBackground again returns the same record.
func (r *Run) FinishInBackground(ctx context.Context, res recursion.Result, runErr error) *Trajectory {
	r.once.Do(func() {
		r.traj = r.complete(ctx, res, runErr)
		r.svc.saver.enqueue(r)
	})
	return r.traj
}

// complete closes the record and the spans. Documents are hashed here, not
// in the background: they are the caller's files, which may be gone once
// the run's answer is out.
func (r *Run) complete(ctx context.Context, res recursion.Result, runErr error) *Trajectory {
	s := r.svc
	t := r.rec.Finish(res, runErr)
	if r.spans != nil {
		r.spans.Finish(t)
	}
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.SaveTimeout)
	defer cancel()
	hashDocuments(hctx, t, s.cfg.HashLimit)
	return t
}

// save writes the record to the archive and the feed, takes the run off
// the live list, and sets r.err and closes r.saved.
func (r *Run) save(ctx context.Context) error {
	s := r.svc
	t := r.traj
	var errs []error
	if s.archive != nil {
		if _, err := s.archive.Save(ctx, t); err != nil {
			errs = append(errs, err)
		}
	}
	// The record stays live until it is saved, so that readers never see a
	// gap between the live run and the stored one.
	s.mu.Lock()
	delete(s.live, r.key)
	s.mu.Unlock()
	if s.cfg.Feed != nil {
		if err := publish(ctx, s.cfg.Feed, t); err != nil {
			s.cfg.Logger.Warn("trajectory feed", "trace", t.ID, "err", err)
			errs = append(errs, err)
		}
	}
	r.err = errors.Join(errs...)
	s.saver.note(r.err)
	close(r.saved)
	return r.err
}

// Live returns owner's running run id, or nil.
func (s *Service) Live(owner, id string) *Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live[owner+"/"+id]
}

func (s *Service) liveSummaries(owner string) []Summary {
	s.mu.Lock()
	runs := make([]*Run, 0, len(s.live))
	for _, r := range s.live {
		if r.rec.Owner() == owner {
			runs = append(runs, r)
		}
	}
	s.mu.Unlock()
	out := make([]Summary, 0, len(runs))
	for _, r := range runs {
		r.rec.mu.Lock()
		sum := r.rec.t.Summary()
		if !r.rec.done {
			sum.DurationMS = ms(time.Since(sum.Started)) // time so far
		}
		r.rec.mu.Unlock()
		out = append(out, sum)
	}
	return out
}

// List returns a page of owner's runs, live and stored, newest first.
func (s *Service) List(ctx context.Context, owner string, f Filter) (Page, error) {
	if !ValidName(owner) {
		return Page{}, fmt.Errorf("owner %q: %w", owner, ErrInvalid)
	}
	var all []Summary
	if s.archive != nil {
		var err error
		if all, err = s.archive.Summaries(ctx, owner, f); err != nil {
			return Page{}, err
		}
	}
	seen := make(map[string]bool, len(all))
	for _, x := range all {
		seen[x.ID] = true
	}
	for _, x := range s.liveSummaries(owner) {
		if !seen[x.ID] && f.Match(x) {
			all = append(all, x)
		}
	}
	sortSummaries(all)
	return paginate(all, f)
}

// Raw returns the JSON of owner's run id, live or stored.
func (s *Service) Raw(ctx context.Context, owner, id string) ([]byte, error) {
	if _, _, err := keys(owner, id); err != nil {
		return nil, err
	}
	if r := s.Live(owner, id); r != nil {
		return r.rec.Snapshot()
	}
	if s.archive == nil {
		return nil, fmt.Errorf("trace %s: %w", id, ErrNotFound)
	}
	return s.archive.Raw(ctx, owner, id)
}

// Feedback attaches a reward to owner's stored run id. With a feed, the
// rewarded trajectory is appended to the stream again, so that trainers
// reading the stream see rewards that come after the run (the entry's id
// says which earlier entry it supersedes). The reward is kept even when the
// feed is down; that is only logged.
func (s *Service) Feedback(ctx context.Context, owner, id string, r Reward) (*Trajectory, error) {
	return s.Annotate(ctx, owner, id, &r, nil)
}

// Annotate is Feedback with metadata: it attaches r, when not nil, and
// merges meta into the stored run's metadata (an empty value removes a
// key), then republishes the run as Feedback does. rlm eval uses it to
// record each run's score and gold answer.
func (s *Service) Annotate(ctx context.Context, owner, id string, r *Reward, meta map[string]string) (*Trajectory, error) {
	if _, _, err := keys(owner, id); err != nil {
		return nil, err
	}
	if s.archive == nil {
		return nil, fmt.Errorf("trace %s: %w", id, ErrNotFound)
	}
	t, err := s.archive.Annotate(ctx, owner, id, r, meta)
	if err != nil {
		return nil, err
	}
	if s.cfg.Feed != nil {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.SaveTimeout)
		defer cancel()
		if err := publish(pctx, s.cfg.Feed, t); err != nil {
			s.cfg.Logger.Warn("trajectory feed", "trace", t.ID, "err", err)
		}
	}
	return t, nil
}

// Fanout returns an Observer that passes every event to each of obs in
// turn; nil observers are skipped.
func Fanout(obs ...recursion.Observer) recursion.Observer {
	var list fanout
	for _, o := range obs {
		if o != nil {
			list = append(list, o)
		}
	}
	if len(list) == 1 {
		return list[0]
	}
	return list
}

type fanout []recursion.Observer

func (f fanout) Observe(ev recursion.Event) {
	for _, o := range f {
		o.Observe(ev)
	}
}
