package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/rlm-project/rlm/api"
)

// TestDisconnect: a request that is not stored is cancelled when its client
// goes away (no more upstream spending); a stored one runs to the end and
// can be fetched afterwards, showing in_progress while it runs.
func TestDisconnect(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "json", true: "stream"}[stream]
		t.Run(name+"/not stored is cancelled", func(t *testing.T) {
			fr := &fakeRunner{result: finalResult("x"), block: make(chan struct{}), started: make(chan struct{}, 1), finished: make(chan error, 1)}
			defer close(fr.block)
			ts := startServer(t, Config{}, nil, fr)
			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-fr.started; cancel() }()
			extra := ""
			if stream {
				extra = `"stream":true`
			}
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/chat/completions", chatBody(extra))
			if resp, err := http.DefaultClient.Do(req); err == nil {
				// Streams answer headers at once; the body read fails.
				buf := make([]byte, 1<<16)
				for err == nil {
					_, err = resp.Body.Read(buf)
				}
				resp.Body.Close()
			}
			select {
			case err := <-fr.finished:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("run ended with ctx error %v, want Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the run was not cancelled when its client went away")
			}
		})
		t.Run(name+"/stored continues", func(t *testing.T) {
			fr := &fakeRunner{result: finalResult("kept"), block: make(chan struct{}), started: make(chan struct{}, 1), finished: make(chan error, 1)}
			ts := startServer(t, Config{}, nil, fr)
			ctx, cancel := context.WithCancel(context.Background())
			extra := `"store":true`
			if stream {
				extra += `,"stream":true`
			}
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/chat/completions", chatBody(extra))
			var id string
			done := make(chan struct{})
			go func() {
				defer close(done)
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					resp.Body.Close()
				}
			}()
			<-fr.started
			// Find the stored completion while it runs.
			keys, err := ts.store.List(context.Background(), collCompletions, openOwner+"/")
			if err != nil || len(keys) != 1 {
				t.Fatalf("stored completions %q, %v", keys, err)
			}
			id = keys[0][len(openOwner)+1:]
			if st := getStored(t, ts, id); st.Status != "in_progress" {
				t.Errorf("status while running %q", st.Status)
			}
			cancel()
			<-done
			time.Sleep(50 * time.Millisecond)
			select {
			case err := <-fr.finished:
				t.Fatalf("stored run ended when its client left (%v)", err)
			default:
			}
			close(fr.block)
			if err := <-fr.finished; err != nil {
				t.Errorf("stored run's context: %v", err)
			}
			deadline := time.Now().Add(5 * time.Second)
			for {
				st := getStored(t, ts, id)
				if st.Status == "completed" {
					if *st.Choices[0].Message.Content != "kept" || st.Usage.TotalTokens != 120 {
						t.Errorf("stored completion %+v", st)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("stored completion stuck at %q", st.Status)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

func getStored(t *testing.T, ts *testServer, id string) api.ChatCompletion {
	t.Helper()
	resp := do(t, "GET", ts.URL+"/v1/chat/completions/"+id, "", nil)
	if resp.Status != 200 {
		t.Fatalf("GET stored %s: %d %s", id, resp.Status, resp.Body)
	}
	var c api.ChatCompletion
	if err := json.Unmarshal(resp.Body, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGracefulShutdown: runs that finish within the grace period answer
// normally; runs still going at its end are cancelled, and stored ones are
// recorded as interrupted.
func TestGracefulShutdown(t *testing.T) {
	t.Run("drains", func(t *testing.T) {
		fr := &fakeRunner{result: finalResult("drained"), block: make(chan struct{}), started: make(chan struct{}, 1)}
		ts := startServer(t, Config{}, nil, fr)
		got := make(chan response, 1)
		go func() { got <- do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody("")) }()
		<-fr.started
		shut := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			shut <- ts.Shutdown(ctx)
		}()
		time.Sleep(50 * time.Millisecond)
		// New connections are refused while draining.
		if _, err := http.Get(ts.URL + "/healthz"); err == nil {
			t.Error("a new connection was accepted during shutdown")
		}
		close(fr.block)
		if r := <-got; r.Status != 200 || r.json(t)["choices"] == nil {
			t.Errorf("in-flight request: %d %s", r.Status, r.Body)
		}
		if err := <-shut; err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	t.Run("grace expires", func(t *testing.T) {
		fr := &fakeRunner{result: finalResult("never"), block: make(chan struct{}), started: make(chan struct{}, 2), finished: make(chan error, 2)}
		defer close(fr.block)
		ts := startServer(t, Config{}, nil, fr)
		plain := make(chan response, 1)
		go func() { plain <- do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody("")) }()
		stored := make(chan response, 1)
		go func() { stored <- do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody(`"store":true`)) }()
		<-fr.started
		<-fr.started
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		if err := ts.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("Shutdown took %v with a 100ms grace", d)
		}
		for range 2 {
			if err := <-fr.finished; !errors.Is(err, context.Canceled) {
				t.Errorf("run ctx %v, want Canceled", err)
			}
		}
		for _, ch := range []chan response{plain, stored} {
			r := <-ch
			if r.Status != 503 && r.Status != 0 {
				t.Errorf("interrupted request got %d %s", r.Status, r.Body)
			}
		}
		keys, _ := ts.store.List(context.Background(), collCompletions, "")
		if len(keys) != 1 {
			t.Fatalf("stored completions %q", keys)
		}
		rd, err := ts.store.Get(context.Background(), collCompletions, keys[0])
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		var c api.ChatCompletion
		json.NewDecoder(rd).Decode(&c)
		if c.Status != "interrupted" || c.Error == nil {
			t.Errorf("stored run after shutdown: status %q error %+v", c.Status, c.Error)
		}
	})
}
