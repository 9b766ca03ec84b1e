package hostile

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/store/storetest"
)

// hangingUpstream answers every call a minute late, or never: a run on it
// is in progress until its server goes.
func hangingUpstream(fakellm.Request) fakellm.Reply {
	return fakellm.Reply{Content: "FINAL(too late)", Delay: time.Minute}
}

// startStoredRun sends a store: true request that will not finish and
// returns its stored completion's id once its run is in progress. The
// request's own answer is never read: its server is killed under it.
func startStoredRun(t *testing.T, s *server, up *fakellm.Server) string {
	t.Helper()
	calls := up.Count()
	go func() {
		body := []byte(`{"model":"rlm","store":true,"messages":[{"role":"user","content":"hang"}]}`)
		req, _ := http.NewRequest("POST", s.url+"/v1/chat/completions", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+keyA)
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for up.Count() == calls {
		if time.Now().After(deadline) {
			t.Fatal("the stored run never called the upstream")
		}
		time.Sleep(10 * time.Millisecond)
	}
	status, body := s.do(t, "GET", "/v1/chat/completions?order=desc&limit=1", keyA, nil)
	var page struct {
		Data []struct{ ID, Status string }
	}
	if err := json.Unmarshal(body, &page); status != 200 || err != nil || len(page.Data) != 1 || page.Data[0].Status != "in_progress" {
		t.Fatalf("list while running: %d %s", status, body)
	}
	return page.Data[0].ID
}

// storedState is a stored completion's status and error code, as read
// through s.
func storedState(t *testing.T, s *server, id string) (status, code string) {
	t.Helper()
	st, body := s.do(t, "GET", "/v1/chat/completions/"+id, keyA, nil)
	var c struct {
		Status string
		Error  *struct{ Code string }
	}
	if err := json.Unmarshal(body, &c); st != 200 || err != nil {
		t.Fatalf("GET %s: %d %s", id, st, body)
	}
	if c.Error != nil {
		code = c.Error.Code
	}
	return c.Status, code
}

// waitInterrupted waits until the stored completion id reads interrupted
// through s, for at most within.
func waitInterrupted(t *testing.T, s *server, id string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		status, code := storedState(t, s, id)
		if status == "interrupted" {
			if code != "server_stopped" {
				t.Errorf("interrupted with code %q, want server_stopped", code)
			}
			// And a list shows it so.
			_, body := s.do(t, "GET", "/v1/chat/completions?order=desc&limit=1", keyA, nil)
			if !bytes.Contains(body, []byte(`"status":"interrupted"`)) {
				t.Errorf("listed as %s", body)
			}
			return
		}
		if status != "in_progress" || time.Now().After(deadline) {
			t.Fatalf("%s reads %q %v after its server was killed, want interrupted", id, status, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestKilledServerRunsEnd reproduces issue 24's finding 5: a stored run
// whose server is killed (SIGKILL) stayed in_progress for ever, through
// every restart. Now the server that starts next on the same store
// records it as interrupted: on disk at once (the dead process's lease
// went with it), on Redis once the dead server's lease ran out.
func TestKilledServerRunsEnd(t *testing.T) {
	up := fakellm.New(hangingUpstream)
	defer up.Close()
	t.Run("disk", func(t *testing.T) {
		data := t.TempDir()
		first := startServerIn(t, data, up.URL)
		id := startStoredRun(t, first, up)
		first.kill(t)
		next := startServerIn(t, data, up.URL)
		waitInterrupted(t, next, id, 5*time.Second)
	})
	t.Run("redis", func(t *testing.T) {
		redis := []string{"--store", "redis", "--redis-url", storetest.StartRedis(t), "--run-lease", "1s"}
		first := startServer(t, up.URL, redis...)
		id := startStoredRun(t, first, up)
		first.kill(t)
		next := startServer(t, up.URL, redis...)
		waitInterrupted(t, next, id, 10*time.Second)
	})
}

// TestLiveReplicaRunsKept checks the other side on a shared Redis: a
// replica that starts (and sweeps, every third of a lease) beside a live
// one leaves the live one's run in progress, however long it runs; killed,
// that replica's run is ended by the survivor.
func TestLiveReplicaRunsKept(t *testing.T) {
	up := fakellm.New(hangingUpstream)
	defer up.Close()
	redis := []string{"--store", "redis", "--redis-url", storetest.StartRedis(t), "--run-lease", "1s"}
	a := startServer(t, up.URL, redis...)
	id := startStoredRun(t, a, up)
	b := startServer(t, up.URL, redis...)
	// Three terms of the lease: b sweeps about nine times meanwhile.
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if status, _ := storedState(t, b, id); status != "in_progress" {
			t.Fatalf("the live replica's run reads %q on the other", status)
		}
	}
	a.kill(t)
	waitInterrupted(t, b, id, 10*time.Second)
}
