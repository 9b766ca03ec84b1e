package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/store"
	"github.com/rlm-project/rlm/store/storetest"
)

// sharedStores returns two handles on one new store, as two servers (or a
// server and its successor) sharing it have: a disk directory, and a real
// redis-server.
func sharedStores(t *testing.T) map[string]func(t *testing.T) (a, b store.Store) {
	return map[string]func(t *testing.T) (store.Store, store.Store){
		"disk": func(t *testing.T) (store.Store, store.Store) {
			dir := t.TempDir()
			a, err := store.OpenDisk(dir)
			if err != nil {
				t.Fatal(err)
			}
			b, err := store.OpenDisk(dir)
			if err != nil {
				t.Fatal(err)
			}
			return a, b
		},
		"redis": func(t *testing.T) (store.Store, store.Store) {
			url := storetest.StartRedis(t)
			open := func() store.Store {
				r, err := store.OpenRedis(context.Background(), store.RedisConfig{URL: url, CacheDir: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { r.Close() })
				return r
			}
			return open(), open()
		},
	}
}

// storedStatus reads a stored completion's status and error code.
func storedStatus(t *testing.T, url, id string) (status, code string) {
	t.Helper()
	resp := do(t, "GET", url+"/v1/chat/completions/"+id, "", nil)
	if resp.Status != 200 {
		t.Fatalf("GET %s: %d %s", id, resp.Status, resp.Body)
	}
	var c struct {
		Status string
		Error  *api.ErrorObject
	}
	if err := json.Unmarshal(resp.Body, &c); err != nil {
		t.Fatal(err)
	}
	if c.Error != nil && c.Error.Code != nil {
		code = *c.Error.Code
	}
	return c.Status, code
}

// crash stops a server's upkeep as a kill would: no record written, no
// lease released. On the disk store the kernel would drop its lock with
// the process; dropLock does that.
func (s *Server) crash(dropLock func(instance string)) {
	s.upkeep.cancel()
	<-s.upkeep.done
	if dropLock != nil {
		dropLock(s.instance)
	}
}

// TestOrphanedRunsInterrupted reproduces a stored run left in_progress for
// ever by a server that died under it: the next server over the same store
// records it as interrupted (at once on disk, where the dead server's lock
// went with it; within the lease on Redis), and lists it so. A run of a
// server that is alive is left alone.
func TestOrphanedRunsInterrupted(t *testing.T) {
	for name, open := range sharedStores(t) {
		t.Run(name, func(t *testing.T) {
			stA, stB := open(t)
			cfg := Config{RunLease: 600 * time.Millisecond}
			fr := &fakeRunner{result: finalResult("never"), block: make(chan struct{}), started: make(chan struct{}, 2)}
			a := startServer(t, cfg, stA, fr)
			answers := make(chan response, 2)
			defer func() {
				close(fr.block)
				<-answers
				<-answers
			}()
			for range 2 {
				go func() { answers <- do(t, "POST", a.URL+"/v1/chat/completions", "", chatBody(`"store":true`)) }()
				<-fr.started
			}
			ids := getPage(t, a.URL+"/v1/chat/completions", "").ids(t)
			if len(ids) != 2 {
				t.Fatalf("running completions listed: %v", ids)
			}

			// A server starting beside a live one leaves its runs alone.
			b := startServer(t, cfg, stB, nil)
			if n, err := b.sweepOrphans(context.Background()); n != 0 || err != nil {
				t.Fatalf("a sweep beside a live server ended %d runs, %v", n, err)
			}
			if status, _ := storedStatus(t, b.URL, ids[0]); status != "in_progress" {
				t.Fatalf("a live server's run reads %q", status)
			}

			var drop func(string)
			if name == "disk" {
				drop = func(inst string) { stA.ReleaseLease(context.Background(), inst) }
			}
			a.crash(drop)
			c := startServer(t, cfg, stB, nil)
			deadline := time.Now().Add(10 * time.Second)
			for _, id := range ids {
				for {
					status, code := storedStatus(t, c.URL, id)
					if status == "interrupted" {
						if code != "server_stopped" {
							t.Errorf("orphan %s: error code %q", id, code)
						}
						break
					}
					if status != "in_progress" || time.Now().After(deadline) {
						t.Fatalf("orphan %s reads %q, want interrupted", id, status)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			p := getPage(t, c.URL+"/v1/chat/completions", "")
			for i, raw := range p.Data {
				var v struct{ Status string }
				json.Unmarshal(raw, &v)
				if v.Status != "interrupted" {
					t.Errorf("listed %s as %q", ids[i], v.Status)
				}
			}
			// The sweep writes the record, then drops the registration.
			for {
				var left []string
				stB.ScanEntries(context.Background(), collRuns, idxRunning, "", false, func(e store.Entry) bool {
					left = append(left, e.Key)
					return true
				})
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("still registered in progress: %v", left)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestSweepOrphanCases checks what a sweep does with each state a dead
// server can leave a registered run in.
func TestSweepOrphanCases(t *testing.T) {
	const owner = "open"
	inProgress := func(id string) string {
		return fmt.Sprintf(`{"id":%q,"object":"chat.completion","created":1,"model":"rlm","choices":[],"rlm":{"trace_id":"trace-x"},"status":"in_progress"}`, id)
	}
	tests := []struct {
		name      string
		record    func(id string) string // "" for none
		summary   bool
		alive     bool
		wantState string // status of the record after, "gone" or "same"
	}{
		{"in progress", inProgress, true, false, "interrupted"},
		{"finished, entry left", func(id string) string {
			return strings.Replace(inProgress(id), "in_progress", "completed", 1)
		}, true, false, "completed"},
		{"deleted by its client", nil, false, false, "gone"},
		{"created but never listed", inProgress, false, false, "gone"},
		{"its server is alive", inProgress, true, true, "in_progress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, err := store.OpenDisk(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			s := startServer(t, Config{}, d, nil)
			id := s.newCompletionID()
			key := owner + "/" + id
			dead := "rlm-dead"
			if tt.alive {
				other, _ := store.OpenDisk(d.Dir())
				if err := other.RenewLease(ctx, dead, time.Hour); err != nil {
					t.Fatal(err)
				}
				// The lease is a lock on a file that other keeps open: were
				// other collected, its finalizer would close the file and
				// drop the lock mid-test (seen in CI).
				t.Cleanup(func() { other.ReleaseLease(ctx, dead) })
			}
			if tt.record != nil {
				d.Put(ctx, collCompletions, key, strings.NewReader(tt.record(id)))
				d.Put(ctx, collMessages, key, strings.NewReader(`{"role":"user"}`+"\n"))
			}
			if tt.summary {
				d.PutEntry(ctx, collCompletions, owner, completionKey(id), []byte(`{"created":1,"model":"rlm"}`))
			}
			b, _ := json.Marshal(runningEntry{Instance: dead, Owner: owner, ID: id})
			d.PutEntry(ctx, collRuns, idxRunning, runningKey(owner, id), b)

			if _, err := s.sweepOrphans(ctx); err != nil {
				t.Fatal(err)
			}
			got := "gone"
			if rd, err := d.Get(ctx, collCompletions, key); err == nil {
				var c api.ChatCompletion
				json.NewDecoder(rd).Decode(&c)
				rd.Close()
				got = c.Status
			}
			if got != tt.wantState {
				t.Errorf("record after the sweep: %q, want %q", got, tt.wantState)
			}
			_, err = d.GetEntry(ctx, collRuns, idxRunning, runningKey(owner, id))
			if registered := err == nil; registered != tt.alive {
				t.Errorf("still registered: %v, want %v", registered, tt.alive)
			}
			if tt.wantState == "gone" {
				if keys, _ := d.List(ctx, collMessages, ""); len(keys) != 0 {
					t.Errorf("messages left: %v", keys)
				}
			}
		})
	}
}

// TestShutdownBeforeServe checks that a Shutdown that comes before Serve
// has begun still stops it: Serve returns at once instead of serving for
// ever (a signal at start-up; test servers torn down at once).
func TestShutdownBeforeServe(t *testing.T) {
	t.Parallel()
	st, err := store.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, st, &fakeRunner{result: finalResult("42")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	for _, serve := range []func(net.Listener) error{s.Serve, s.ServeMetrics} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- serve(ln) }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve after Shutdown: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Serve after Shutdown is still serving")
		}
		ln.Close()
	}
}

// TestShutdownReleasesLease checks that a server shut down cleanly gives its
// lease up, so that the runs it could not finish are ended by the next
// sweep at once rather than after the lease's term.
func TestShutdownReleasesLease(t *testing.T) {
	for name, open := range sharedStores(t) {
		t.Run(name, func(t *testing.T) {
			st, other := open(t)
			s := startServer(t, Config{}, st, nil)
			// Serving for sure, so that the lease is the running server's.
			do(t, "GET", s.URL+"/healthz", "", nil)
			ctx := context.Background()
			if err := s.ensureLease(ctx); err != nil {
				t.Fatal(err)
			}
			if held, err := other.LeaseHeld(ctx, s.instance); err != nil || !held {
				t.Fatalf("a running server's lease: held %v, %v", held, err)
			}
			sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			if err := s.Shutdown(sctx); err != nil {
				t.Fatal(err)
			}
			if held, err := other.LeaseHeld(ctx, s.instance); err != nil || held {
				t.Errorf("a shut down server's lease: held %v, %v", held, err)
			}
		})
	}
}
