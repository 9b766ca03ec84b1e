package repl

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/proctest"
)

// TestNoLeaks runs 1,000 sessions (several at a time, each running a cell
// with a host call) and checks that goroutines, child processes and open
// file descriptors return to their baseline.
func TestNoLeaks(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	cf, err := WriteContext(t.TempDir(), []string{"alpha", "beta"})
	if err != nil {
		t.Fatal(err)
	}
	baseG, baseFD, baseKids := runtime.NumGoroutine(), countFDs(t), countChildren(t)

	p, err := NewPool(PoolConfig{Size: 4, Limits: testLimits()})
	if err != nil {
		t.Fatal(err)
	}
	const workers = 4
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	next := make(chan int)
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := oneSession(p, cf, i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		if i%250 == 0 && i > 0 {
			t.Logf("%d sessions in %v", i, time.Since(start))
		}
		select {
		case next <- i:
		case err := <-errs:
			close(next)
			wg.Wait()
			p.Close()
			t.Fatal(err)
		}
	}
	close(next)
	wg.Wait()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d sessions in %v", n, time.Since(start))

	// Reaped processes and closed pipes are immediate; goroutines may need
	// a moment to return.
	deadline := time.Now().Add(5 * time.Second)
	for {
		g, fd, kids := runtime.NumGoroutine(), countFDs(t), countChildren(t)
		if g <= baseG && fd <= baseFD && kids <= baseKids {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("leak: goroutines %d (baseline %d), fds %d (%d), children %d (%d)\n%s", g, baseG, fd, baseFD, kids, baseKids, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func oneSession(p *Pool, cf *ContextFile, i int) error {
	s, err := p.NewSession(context.Background(), SessionConfig{Context: cf, Host: &echoHost{}})
	if err != nil {
		return fmt.Errorf("session %d: %w", i, err)
	}
	defer s.Close()
	r, err := s.Run(context.Background(), `fmt.Print(contexts[1], llm_query("q"))`)
	if err != nil {
		return fmt.Errorf("session %d: %w", i, err)
	}
	if r.Output != "betallm:Q" || r.Error != "" {
		return fmt.Errorf("session %d: output %q, error %q", i, r.Output, r.Error)
	}
	return nil
}

func countFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	return len(ents)
}

// countChildren counts the live child processes of this process.
func countChildren(t *testing.T) int {
	pids, err := proctest.Children()
	if err != nil {
		t.Skip(err)
	}
	return len(pids)
}
