package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/internal/proctest"
)

// subCallsUpstream is a fakellm script (a scripted test double, not a
// model): the root splits its context into 10 pieces and asks llm_query
// about each (10 sub-calls, concurrently), then answers FINAL.
func subCallsUpstream(req fakellm.Request) fakellm.Reply {
	if !strings.Contains(req.System(), "FINAL") {
		return fakellm.Reply{Content: "piece ok"}
	}
	if strings.Contains(req.LastUser(), "answers: 10") {
		return fakellm.Reply{Content: "FINAL(done)"}
	}
	if req.Turn() > 1 {
		return fakellm.Reply{Content: "FINAL(lost)"}
	}
	return fakellm.Reply{Content: fakellm.Code(`import "fmt"
n := len(context) / 10
prompts := make([]string, 10)
for i := range prompts {
	prompts[i] = "summarize: " + context[i*n:i*n+200]
}
fmt.Println("answers:", len(llm_query_batched(prompts)))`)}
}

// procStatus reads a field (in kB) of /proc/self/status.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field+":") {
			f := strings.Fields(line)
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// workGoroutines counts goroutines other than those of idle pooled HTTP
// keep-alive connections (to the upstream and from the benchmark's
// clients), which are a cache, not a leak.
func workGoroutines() int {
	buf := make([]byte, 8<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "net/http.(*persistConn)") || strings.Contains(g, "net/http.(*conn).serve") {
			continue
		}
		n++
	}
	return n
}

// childrenRSS sums the resident memory (kB) of this process's children.
func childrenRSS() int64 {
	var total int64
	pids, _ := proctest.Children()
	for _, pid := range pids {
		st, _ := os.ReadFile("/proc/" + pid + "/status")
		for _, line := range strings.Split(string(st), "\n") {
			if strings.HasPrefix(line, "VmRSS:") {
				n, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
				total += n
			}
		}
	}
	return total
}

// childProcesses counts this process's children (REPL workers).
func childProcesses() int {
	pids, _ := proctest.Children()
	return len(pids)
}

// BenchmarkServeLoad: 50 concurrent chat requests, each with a 1 MB
// context and 10 sub-calls to a fake upstream that takes 50 ms per call,
// through rlm serve with the real engine and REPL workers. Baseline: the
// same request alone on the idle server, measured in the same run.
// Reports throughput, p50/p99 latency (absolute and as ratios to the
// baseline), peak RSS of the server process and the goroutine and REPL
// worker counts before and after.
func BenchmarkServeLoad(b *testing.B) {
	const clients = 50
	up := fakellm.New(subCallsUpstream, fakellm.WithLatency(50*time.Millisecond))
	defer up.Close()
	s := startServeB(b, append(upstreamArgs(up.URL), "--max-concurrent", "64", "--queue-wait", "60s", "--repl-workers", "2")...)
	ctx1MB := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	body, _ := json.Marshal(map[string]any{"model": "rlm", "messages": []map[string]string{{"role": "user", "content": "Summarize the pieces.\n" + ctx1MB}}})
	post := func() (time.Duration, error) {
		start := time.Now()
		resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		var c struct {
			Choices []struct{ Message struct{ Content string } }
			RLM     struct {
				LLMCalls int `json:"llm_calls"`
			}
		}
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || resp.StatusCode != 200 {
			return 0, fmt.Errorf("status %d: %v", resp.StatusCode, err)
		}
		if len(c.Choices) != 1 || c.Choices[0].Message.Content != "done" || c.RLM.LLMCalls != 12 {
			return 0, fmt.Errorf("unexpected answer %+v", c)
		}
		return time.Since(start), nil
	}
	// Warm up and measure the baseline: one request alone.
	var base []time.Duration
	for range 3 {
		d, err := post()
		if err != nil {
			b.Fatal(err)
		}
		base = append(base, d)
	}
	sort.Slice(base, func(i, j int) bool { return base[i] < base[j] })
	baseline := base[1]
	time.Sleep(500 * time.Millisecond)
	goBefore, workersBefore, allBefore := workGoroutines(), childProcesses(), runtime.NumGoroutine()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // reset the peak RSS
	rssBefore := procStatus("VmRSS")

	// Sample the REPL workers' memory and count while the load runs.
	var peakWorkersRSS int64
	var peakWorkers int
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-tick.C:
				peakWorkersRSS = max(peakWorkersRSS, childrenRSS())
				peakWorkers = max(peakWorkers, childProcesses())
			}
		}
	}()
	var lats []time.Duration
	var mu sync.Mutex
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		var wg sync.WaitGroup
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d, err := post()
				if err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				lats = append(lats, d)
				mu.Unlock()
			}()
		}
		wg.Wait()
		total += time.Since(start)
	}
	b.StopTimer()
	close(stopSampling)
	<-sampled
	peak := procStatus("VmHWM")
	sort.Slice(lats, func(i, j int) bool { return lats[i] < lats[j] })
	if len(lats) == 0 {
		b.Fatal("no request succeeded")
	}
	p50, p99 := lats[len(lats)/2], lats[(len(lats)*99)/100]
	// Let pools and idle connections settle, then compare with the start.
	http.DefaultClient.CloseIdleConnections()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && (workGoroutines() > goBefore+5 || childProcesses() > workersBefore) {
		time.Sleep(100 * time.Millisecond)
	}
	goAfter, workersAfter, allAfter := workGoroutines(), childProcesses(), runtime.NumGoroutine()
	b.ReportMetric(float64(len(lats))/total.Seconds(), "req/s")
	b.ReportMetric(float64(p50.Milliseconds()), "p50-ms")
	b.ReportMetric(float64(p99.Milliseconds()), "p99-ms")
	b.ReportMetric(float64(baseline.Milliseconds()), "alone-ms")
	b.ReportMetric(float64(p50)/float64(baseline), "p50/alone")
	b.ReportMetric(float64(p99)/float64(baseline), "p99/alone")
	b.ReportMetric(float64(peak)/1024, "peak-rss-MB")
	b.ReportMetric(float64(rssBefore)/1024, "rss-before-MB")
	b.ReportMetric(float64(peakWorkersRSS)/1024, "workers-peak-rss-MB")
	b.ReportMetric(float64(peakWorkers), "workers-peak")
	b.ReportMetric(float64(goBefore), "goroutines-before")
	b.ReportMetric(float64(goAfter), "goroutines-after")
	b.ReportMetric(float64(allBefore), "all-goroutines-before")
	b.ReportMetric(float64(allAfter), "all-goroutines-after")
	b.ReportMetric(float64(workersBefore), "workers-before")
	b.ReportMetric(float64(workersAfter), "workers-after")
	if goAfter > goBefore+5 || workersAfter > workersBefore {
		b.Errorf("not back to baseline: goroutines %d -> %d, REPL workers %d -> %d", goBefore, goAfter, workersBefore, workersAfter)
	}
}

// startServeB is startServe for benchmarks.
func startServeB(b *testing.B, args ...string) *served {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout := &lineWaiter{ch: make(chan string, 1)}
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	args = append([]string{"--listen", "127.0.0.1:0", "--data-dir", b.TempDir(), "--log-level", "warn"}, args...)
	go func() { done <- runServe(ctx, cli.Env{}, args, stdout, stderr) }()
	var line string
	select {
	case line = <-stdout.ch:
	case err := <-done:
		b.Fatalf("rlm serve: %v\n%s", err, stderr.String())
	}
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("rlm serve: %v", err)
		}
	})
	return &served{URL: strings.TrimSpace(strings.TrimPrefix(line, "listening on ")), Stderr: stderr}
}

type lineWaiter struct {
	once sync.Once
	ch   chan string
}

func (l *lineWaiter) Write(p []byte) (int, error) {
	l.once.Do(func() { l.ch <- string(p) })
	return len(p), nil
}
