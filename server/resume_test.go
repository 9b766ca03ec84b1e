package server

import (
	"bufio"
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// openResumeStreams opens n streams of a background response (GET
// ?stream=true), each on its own connection, and waits until each has
// its first event. It returns how many are open, read in the background.
func openResumeStreams(t *testing.T, url, id string, n int) func() int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var mu sync.Mutex
	open := 0
	var started sync.WaitGroup
	for range n {
		started.Add(1)
		go func() {
			tr := &http.Transport{DisableKeepAlives: true}
			defer tr.CloseIdleConnections()
			req, _ := http.NewRequestWithContext(ctx, "GET", url+"/v1/responses/"+id+"?stream=true", nil)
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err != nil {
				started.Done()
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			first := true
			for sc.Scan() {
				if first && strings.HasPrefix(sc.Text(), "data:") {
					mu.Lock()
					open++
					mu.Unlock()
					started.Done()
					first = false
				}
			}
			if first {
				started.Done()
			} else {
				mu.Lock()
				open--
				mu.Unlock()
			}
		}()
	}
	started.Wait()
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return open
	}
}

// healthLatencies times n GETs of /healthz, each on a new connection.
func healthLatencies(t *testing.T, url string, n int) []time.Duration {
	t.Helper()
	var out []time.Duration
	for range n {
		tr := &http.Transport{DisableKeepAlives: true}
		c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		start := time.Now()
		resp, err := c.Get(url + "/healthz")
		if err != nil {
			t.Fatalf("healthz: %v", err)
		}
		resp.Body.Close()
		out = append(out, time.Since(start))
		if resp.StatusCode != 200 {
			t.Fatalf("healthz: %d", resp.StatusCode)
		}
		tr.CloseIdleConnections()
	}
	slices.Sort(out)
	return out
}

// TestResumeStreamsLockNoOneOut is the audit's finding: resume streams of a
// background response count as connections inside a request for the whole
// run, so one key opening as many as --max-conns made /healthz time out.
// Now they are evictable (the client resumes with starting_after), and
// all the streams of one response share one poll of the store. With 1,000
// streams open, /healthz answers within 50 ms at p99; with the connections
// all taken by streams, a new client still gets in.
func TestResumeStreamsLockNoOneOut(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 1,000 connections")
	}
	for _, tt := range []struct {
		name              string
		maxConns, streams int
	}{
		{"1000 streams under the default limit", 0, 1000},
		{"every connection a stream", 64, 64},
	} {
		t.Run(tt.name, func(t *testing.T) {
			block := make(chan struct{})
			t.Cleanup(func() { close(block) })
			ts := startServer(t, Config{MaxConns: tt.maxConns, MaxConnsPerClient: -1, ResponsePoll: 50 * time.Millisecond},
				nil, &fakeRunner{block: block, result: finalResult("x")})
			bg, _ := postResponse(t, ts.URL, "", `{"model":"rlm","input":"q","background":true}`)
			open := openResumeStreams(t, ts.URL, bg.ID, tt.streams)
			if n := open(); n < tt.streams*9/10 {
				t.Fatalf("%d of %d streams open", n, tt.streams)
			}
			lat := healthLatencies(t, ts.URL, 200)
			p99 := lat[len(lat)*99/100]
			t.Logf("%d streams open; /healthz p50 %v, p99 %v", open(), lat[len(lat)/2], p99)
			if p99 > 50*time.Millisecond {
				t.Errorf("/healthz p99 %v with %d resume streams open, want at most 50ms", p99, tt.streams)
			}
			if tt.maxConns > 0 && open() >= tt.streams {
				t.Errorf("all %d streams still open: none was evicted for the health checks", open())
			}
		})
	}
}
