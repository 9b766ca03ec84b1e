package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/repl"
)

// TestREPLWorkersMetric checks that rlm_repl_workers reports the pool's
// worker processes: one busy while a session is open, and the idle count
// back once it is closed.
func TestREPLWorkersMetric(t *testing.T) {
	pool, err := repl.NewPool(repl.PoolConfig{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ts := startServer(t, Config{Workers: pool}, nil, nil)
	// waitMetrics polls /metrics until it holds every line in want: the
	// pool starts idle workers in the background.
	waitMetrics := func(want ...string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			body := string(do(t, "GET", ts.URL+"/metrics", "", nil).Body)
			missing := ""
			for _, w := range want {
				if !strings.Contains(body, w+"\n") {
					missing = w
					break
				}
			}
			if missing == "" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("metrics lack %q:\n%s", missing, body)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// The pool keeps Size workers ready plus the one it is about to queue.
	waitMetrics(`rlm_repl_workers{state="idle"} 2`, `rlm_repl_workers{state="busy"} 0`)
	sess, err := pool.NewSession(context.Background(), repl.SessionConfig{})
	if err != nil {
		t.Fatal(err)
	}
	waitMetrics(`rlm_repl_workers{state="busy"} 1`)
	sess.Close()
	waitMetrics(`rlm_repl_workers{state="idle"} 2`, `rlm_repl_workers{state="busy"} 0`)
}
