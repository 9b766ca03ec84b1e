package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/store"
)

// A stored run outlives its request but not its server: a server killed
// (SIGKILL, the OOM killer, a power cut) with stored runs in progress
// leaves their records in_progress, and nobody else would ever end them.
// So every server holds a lease in the store, named by its instance id,
// renewed every third of Config.RunLease, and registers each stored run in
// progress in the index runs/in_progress with that id. A sweep, at start and
// at each renewal, records as interrupted the registered runs of instances
// whose lease is no longer held: on the disk store the lease of a dead
// process ends with it, on Redis when its ttl runs out. Runs of a live
// replica, whose lease is held, are never touched, wherever the sweep runs.

const (
	collRuns   = "runs"
	idxRunning = "in_progress"
)

// DefaultRunLease is Config.RunLease's default.
const DefaultRunLease = 30 * time.Second

// runningEntry registers a stored run in progress.
type runningEntry struct {
	Instance string `json:"instance"`
	Owner    string `json:"owner"`
	ID       string `json:"id"`
	Started  int64  `json:"started"`
}

func runningKey(owner, id string) string { return owner + "." + id }

// orphanError is the error of a stored run whose server stopped under it.
func orphanError() api.ErrorObject {
	code := "server_stopped"
	return api.ErrorObject{Type: api.TypeServer, Code: &code,
		Message: "the server stopped (crash or kill) before the run finished; its answer was lost: retry the request"}
}

// upkeep is the server's background work on the store: its lease and the
// sweep of orphaned runs.
type upkeep struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	// renewed is when the lease was last renewed; zero until it is.
	renewed time.Time
}

// startUpkeep starts the lease and sweep loop; stopUpkeep ends it.
func (s *Server) startUpkeep() {
	ctx, cancel := context.WithCancel(context.Background())
	s.upkeep.cancel, s.upkeep.done = cancel, make(chan struct{})
	go func() {
		defer close(s.upkeep.done)
		tick := time.NewTicker(s.cfg.RunLease / 3)
		defer tick.Stop()
		for {
			if err := s.renewLease(ctx); err != nil {
				s.log.Error("renewing this server's lease in the store", "instance", s.instance, "err", err)
			}
			if _, err := s.sweepOrphans(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("sweeping runs orphaned by a stopped server", "err", err)
			}
			s.sessions.expire(time.Now())
			s.paused.expire(time.Now())
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}

// stopUpkeep ends the loop and gives the lease up, once the server's runs
// are over: whatever they left registered is a later sweep's.
func (s *Server) stopUpkeep() {
	s.upkeep.cancel()
	<-s.upkeep.done
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.StoreTimeout)
	defer cancel()
	if err := s.store.ReleaseLease(ctx, s.instance); err != nil {
		s.log.Error("releasing this server's lease in the store", "instance", s.instance, "err", err)
	}
}

func (s *Server) renewLease(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.StoreTimeout)
	defer cancel()
	start := time.Now()
	if err := s.store.RenewLease(ctx, s.instance, s.cfg.RunLease); err != nil {
		return err
	}
	s.upkeep.mu.Lock()
	s.upkeep.renewed = start
	s.upkeep.mu.Unlock()
	return nil
}

// ensureLease makes sure the lease is held for a while before a run is
// registered under it: renewed within half its term, or renewed now.
func (s *Server) ensureLease(ctx context.Context) error {
	s.upkeep.mu.Lock()
	fresh := !s.upkeep.renewed.IsZero() && time.Since(s.upkeep.renewed) < s.cfg.RunLease/2
	s.upkeep.mu.Unlock()
	if fresh {
		return nil
	}
	return s.renewLease(ctx)
}

// registerRun records the stored run id of owner (a completion or a
// response) as in progress on this server.
func (s *Server) registerRun(ctx context.Context, owner, id string, created int64) error {
	if err := s.ensureLease(ctx); err != nil {
		return fmt.Errorf("lease: %w", err)
	}
	b, err := json.Marshal(runningEntry{Instance: s.instance, Owner: owner, ID: id, Started: created})
	if err != nil {
		return err
	}
	return s.store.PutEntry(ctx, collRuns, idxRunning, runningKey(owner, id), b)
}

// unregisterRun takes a stored run off the runs in progress, once its
// final record is written (or it has none to write).
func (s *Server) unregisterRun(ctx context.Context, owner, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.StoreTimeout)
	defer cancel()
	if err := s.store.DeleteEntry(ctx, collRuns, idxRunning, runningKey(owner, id)); err != nil && !errors.Is(err, store.ErrNotFound) {
		// Harmless: a sweep after this server stops drops it.
		s.log.Error("unregistering a finished stored run", "id", id, "err", err)
	}
}

// sweepOrphans records as interrupted the stored runs in progress of
// servers whose lease is not held, and returns how many it ended.
func (s *Server) sweepOrphans(ctx context.Context) (int, error) {
	var entries []runningEntry
	err := s.store.ScanEntries(ctx, collRuns, idxRunning, "", false, func(e store.Entry) bool {
		var re runningEntry
		if err := json.Unmarshal(e.Value, &re); err != nil || re.Instance == "" || !validID(re.ID, "chatcmpl-") && !validID(re.ID, respPrefix) {
			s.log.Error("skipping an unreadable entry of the stored runs in progress", "key", e.Key, "err", err)
			return true
		}
		entries = append(entries, re)
		return true
	})
	if err != nil {
		return 0, fmt.Errorf("listing stored runs in progress: %w", err)
	}
	alive := map[string]bool{s.instance: true}
	ended := 0
	var errs []error
	for _, re := range entries {
		held, known := alive[re.Instance]
		if !known {
			held, err = s.store.LeaseHeld(ctx, re.Instance)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			alive[re.Instance] = held
		}
		if held {
			continue
		}
		end := s.endOrphan
		if validID(re.ID, respPrefix) {
			end = s.endOrphanResponse
		}
		if err := end(ctx, re); err != nil {
			errs = append(errs, fmt.Errorf("stored run %s: %w", re.ID, err))
			continue
		}
		ended++
	}
	for inst, held := range alive {
		if !held {
			// A dead server's lease file (disk) goes with its runs.
			if err := s.store.ReleaseLease(ctx, inst); err != nil && !errors.Is(err, store.ErrLeaseHeld) {
				errs = append(errs, err)
			}
		}
	}
	if ended > 0 {
		s.log.Warn("stored runs of a stopped server recorded as interrupted", "runs", ended)
		s.m.orphans.Add(float64(ended))
	}
	return ended, errors.Join(errs...)
}

// endOrphan records one orphaned run as interrupted, unless its completion
// is gone or ended, and unregisters it.
func (s *Server) endOrphan(ctx context.Context, re runningEntry) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.StoreTimeout)
	defer cancel()
	key := re.Owner + "/" + re.ID
	_, err := s.store.GetEntry(ctx, collCompletions, re.Owner, completionKey(re.ID))
	switch {
	case errors.Is(err, store.ErrNotFound):
		// Deleted by its client, or never listed (its server died while
		// creating it, before anyone learnt its id): nothing to keep.
		for _, coll := range []string{collCompletions, collMessages} {
			if err := s.store.Delete(ctx, coll, key); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
	case err != nil:
		return err
	default:
		if err := s.interruptRecord(ctx, key); err != nil {
			return err
		}
	}
	err = s.store.DeleteEntry(ctx, collRuns, idxRunning, runningKey(re.Owner, re.ID))
	if errors.Is(err, store.ErrNotFound) {
		return nil // another replica's sweep ended it too
	}
	return err
}

// interruptRecord rewrites an in_progress record as interrupted.
func (s *Server) interruptRecord(ctx context.Context, key string) error {
	rd, err := s.store.Get(ctx, collCompletions, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var comp api.ChatCompletion
	err = json.NewDecoder(rd).Decode(&comp)
	rd.Close()
	if err != nil {
		return fmt.Errorf("reading the record: %w", err)
	}
	if comp.Status != "in_progress" {
		return nil // its run ended; only the entry was left
	}
	comp.Status = "interrupted"
	e := orphanError()
	comp.Error = &e
	b, err := json.Marshal(&comp)
	if err != nil {
		return err
	}
	_, err = s.store.Put(ctx, collCompletions, key, bytes.NewReader(b))
	return err
}
