package tracing

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultSaveQueue is Config.SaveQueue's default.
const DefaultSaveQueue = 256

// saveWorkers is how many records are saved at once in the background: a
// large record being written does not hold up the small ones behind it.
const saveWorkers = 4

// saver saves finished runs in the background through a bounded queue, so
// that runs' answers never wait on the store, and a store that is down or
// slow costs at most Config.SaveQueue records in memory. Workers start when
// records are queued and end when the queue is empty.
type saver struct {
	svc     *Service
	queue   chan *Run
	ctx     context.Context // cancelled when Close gives up draining
	cancel  context.CancelFunc
	active  int  // workers running; guarded by svc.mu
	closed  bool // guarded by svc.mu
	workers sync.WaitGroup

	saved, failed, dropped atomic.Uint64
	lastOK, lastFail       atomic.Int64 // unix nanoseconds of the last save that worked, and failed
}

func (sv *saver) start(s *Service) {
	sv.svc = s
	sv.queue = make(chan *Run, s.cfg.SaveQueue)
	sv.ctx, sv.cancel = context.WithCancel(context.Background())
}

// enqueue hands r to the workers, or drops it when the queue is full or
// closed.
func (sv *saver) enqueue(r *Run) {
	s := sv.svc
	s.mu.Lock()
	if sv.closed {
		s.mu.Unlock()
		sv.drop(r, "the trace service is closed")
		return
	}
	select {
	case sv.queue <- r:
		r.queued = true
		if sv.active < saveWorkers {
			sv.active++
			sv.workers.Add(1)
			go sv.work()
		}
		s.mu.Unlock()
	default:
		s.mu.Unlock()
		sv.drop(r, fmt.Sprintf("the save queue is full (%d records waiting)", cap(sv.queue)))
	}
}

func (sv *saver) work() {
	defer sv.workers.Done()
	s := sv.svc
	for {
		s.mu.Lock()
		var r *Run
		select {
		case r = <-sv.queue:
		default:
			sv.active--
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		if sv.ctx.Err() != nil {
			sv.drop(r, "shutdown ended before it was saved")
			continue
		}
		ctx, cancel := context.WithTimeout(sv.ctx, s.cfg.SaveTimeout)
		if err := r.save(ctx); err != nil {
			s.cfg.Logger.Error("trace not saved", "trace", r.traj.ID, "err", err)
		}
		cancel()
	}
}

// drop gives r up unsaved: it leaves the live list, and the loss is logged
// and counted.
func (sv *saver) drop(r *Run, why string) {
	s := sv.svc
	s.mu.Lock()
	delete(s.live, r.key)
	s.mu.Unlock()
	sv.dropped.Add(1)
	s.cfg.Logger.Error("trace not saved", "trace", r.traj.ID, "why", why)
	r.err = fmt.Errorf("trace %s not saved: %s", r.traj.ID, why)
	close(r.saved)
}

// note counts the outcome of one save.
func (sv *saver) note(err error) {
	now := time.Now().UnixNano()
	if err != nil {
		sv.failed.Add(1)
		sv.lastFail.Store(now)
		return
	}
	sv.saved.Add(1)
	sv.lastOK.Store(now)
}

// SaveStats counts what became of finished runs' records.
type SaveStats struct {
	Saved   uint64 // saved (and published)
	Failed  uint64 // the store or the feed failed
	Dropped uint64 // never tried: the save queue was full, or the service closed
	Queued  int    // waiting to be saved now
	Cap     int    // Config.SaveQueue
}

// Stats returns the counts of saves so far.
func (s *Service) Stats() SaveStats {
	sv := &s.saver
	return SaveStats{Saved: sv.saved.Load(), Failed: sv.failed.Load(), Dropped: sv.dropped.Load(),
		Queued: len(sv.queue), Cap: cap(sv.queue)}
}

// SaveHealth returns nil while records are being saved, and otherwise why
// not: the last save failed (and none worked since), or the queue is full.
// Its text names no store address; the failures' details are in the log.
func (s *Service) SaveHealth() error {
	sv := &s.saver
	if fail := sv.lastFail.Load(); fail != 0 && fail > sv.lastOK.Load() {
		return fmt.Errorf("the last trace save failed %v ago (%d failed so far; details in the server log)",
			time.Since(time.Unix(0, fail)).Round(time.Second), sv.failed.Load())
	}
	if n := len(sv.queue); n >= cap(sv.queue) {
		return fmt.Errorf("the trace save queue is full (%d records waiting)", n)
	}
	return nil
}

// Flush waits until the runs that were finished in the background before
// the call have been saved (or failed to be), or until ctx is done.
func (s *Service) Flush(ctx context.Context) error {
	s.mu.Lock()
	var waits []chan struct{}
	for _, r := range s.live {
		if r.queued {
			waits = append(waits, r.saved)
		}
	}
	s.mu.Unlock()
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
			return fmt.Errorf("flush traces: %w", ctx.Err())
		}
	}
	return nil
}

// Close stops taking records to save in the background (later ones are
// dropped) and saves those queued until ctx is done; what is still queued
// then is dropped, and saves under way are cancelled. It returns an error
// when records were dropped that way.
func (s *Service) Close(ctx context.Context) error {
	sv := &s.saver
	s.mu.Lock()
	sv.closed = true
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { sv.workers.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	before := sv.dropped.Load()
	sv.cancel()
	<-done // the workers drop the rest at once
	return errors.Join(fmt.Errorf("close traces: %w", ctx.Err()),
		fmt.Errorf("%d records not saved", sv.dropped.Load()-before))
}

// Collectors returns Prometheus series of the background saves:
// rlm_trace_saves_total, rlm_trace_save_failures_total,
// rlm_trace_saves_dropped_total, rlm_trace_save_queue and
// rlm_trace_save_queue_capacity.
func (s *Service) Collectors() []prometheus.Collector {
	stat := func(f func(SaveStats) float64) func() float64 { return func() float64 { return f(s.Stats()) } }
	return []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "rlm_trace_saves_total",
			Help: "Finished runs' records saved to the store (and published to the trajectory stream)."},
			stat(func(st SaveStats) float64 { return float64(st.Saved) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "rlm_trace_save_failures_total",
			Help: "Finished runs' records the store or the trajectory stream failed to take (details in the log)."},
			stat(func(st SaveStats) float64 { return float64(st.Failed) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "rlm_trace_saves_dropped_total",
			Help: "Finished runs' records never saved: the save queue was full, or shutdown ended first."},
			stat(func(st SaveStats) float64 { return float64(st.Dropped) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "rlm_trace_save_queue",
			Help: "Finished runs' records waiting to be saved."},
			stat(func(st SaveStats) float64 { return float64(st.Queued) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "rlm_trace_save_queue_capacity",
			Help: "Records the save queue holds at most (--trace-save-queue)."},
			stat(func(st SaveStats) float64 { return float64(st.Cap) })),
	}
}
