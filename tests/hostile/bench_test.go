package hostile

import (
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// rssSafety stops a server whose resident set passes it, so that measuring
// a build without the caps cannot take the machine down; the benchmark
// then reports the kill.
const rssSafety = 6 << 30

// BenchmarkConcurrentAttacks runs the four attacks of issue 10 at once
// against one `rlm serve` process (the binary TestMain built, or
// $RLM_HOSTILE_BINARY: bench/hostile.sh runs it for a build without the
// caps too), while a trivial request is sent every 200 ms. It reports the
// server's peak RSS (VmHWM, polled with VmRSS every 20 ms), the bytes its
// data directory grew by per request and its largest file, and the trivial
// requests' latency. The upstream is fakellm, a scripted test double.
// $RLM_HOSTILE_FLAGS adds flags to rlm serve (e.g. --repl-workers 8).
func BenchmarkConcurrentAttacks(b *testing.B) {
	const ctxBytes = 50 << 20 // the largest legitimate context in flight: the assign attack's
	context := strings.Repeat("x", ctxBytes)
	for i := 0; i < b.N; i++ {
		up := fakellm.New(rootScript, fakellm.WithoutRecording())
		s := startServer(b, up.URL, strings.Fields(os.Getenv("RLM_HOSTILE_FLAGS"))...)
		pid := s.cmd.Process.Pid

		var killed atomic.Bool
		var polledPeak atomic.Int64
		stopPoll := make(chan struct{})
		var pollDone sync.WaitGroup
		pollDone.Add(1)
		go func() {
			defer pollDone.Done()
			t := time.NewTicker(20 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stopPoll:
					return
				case <-s.done:
					return
				case <-t.C:
				}
				rss, ok := statusField(pid, "VmRSS")
				if ok && rss > polledPeak.Load() {
					polledPeak.Store(rss)
				}
				if ok && rss > rssSafety {
					killed.Store(true)
					_ = s.cmd.Process.Kill()
					return
				}
			}
		}()

		var latencies []time.Duration
		var latMu sync.Mutex
		stopTrivial := make(chan struct{})
		var trivialDone sync.WaitGroup
		trivialDone.Add(1)
		go func() {
			defer trivialDone.Done()
			for {
				select {
				case <-stopTrivial:
					return
				case <-time.After(200 * time.Millisecond):
				}
				start := time.Now()
				status, body := s.tryChat(keyB, "trivial", "")
				if status != 200 || !strings.Contains(body, `"hi"`) {
					continue // the server is down or refusing: counted by the missing samples
				}
				latMu.Lock()
				latencies = append(latencies, time.Since(start))
				latMu.Unlock()
			}
		}()

		b.ResetTimer()
		var wg sync.WaitGroup
		results := map[string]string{}
		var resMu sync.Mutex
		for _, a := range []struct{ name, context string }{{"loop", ""}, {"final", ""}, {"assign", context}, {"batch", ""}} {
			wg.Go(func() {
				start := time.Now()
				status, body := s.tryChat(keyA, a.name, a.context)
				resMu.Lock()
				results[a.name] = statusLine(status, len(body), time.Since(start))
				resMu.Unlock()
			})
		}
		wg.Wait()
		b.StopTimer()
		close(stopTrivial)
		trivialDone.Wait()
		// Let background trace saves land before measuring the disk.
		time.Sleep(2 * time.Second)
		close(stopPoll)
		pollDone.Wait()

		peak, _ := statusField(pid, "VmHWM")
		peak = max(peak, polledPeak.Load())
		data := s.dataBytes(b)
		_, largest := s.largestFile(b)
		requests := 4 + len(latencies)
		b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(float64(data)/float64(requests)/(1<<20), "data-MiB/req")
		b.ReportMetric(float64(largest)/(1<<20), "largest-file-MiB")
		if len(latencies) > 0 {
			slices.Sort(latencies)
			b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "trivial-p50-ms")
			b.ReportMetric(float64(latencies[len(latencies)-1].Microseconds())/1000, "trivial-max-ms")
		}
		b.ReportMetric(float64(len(latencies)), "trivial-ok")
		b.Logf("binary %s: attacks %v; peak RSS %d MiB (target %d MiB)%s; data dir %d bytes for %d requests, largest file %d bytes",
			rlmBinary, results, peak>>20, rssTarget(ctxBytes)>>20, map[bool]string{true: ", KILLED at the safety limit", false: ""}[killed.Load()],
			data, requests, largest)
		s.stop(b)
		up.Close()
	}
}

// tryChat is chat for the benchmark: failures are results, not fatal.
func (s *server) tryChat(key, attack, context string) (int, string) {
	var msgs []map[string]string
	if context != "" {
		msgs = append(msgs, map[string]string{"role": "user", "content": context})
	}
	msgs = append(msgs, map[string]string{"role": "user", "content": attackMarker + attack})
	return postJSON(s.url+"/v1/chat/completions", key, map[string]any{"model": "rlm", "messages": msgs})
}

func statusLine(status, size int, d time.Duration) string {
	if status == 0 {
		return "no response after " + d.Round(time.Millisecond).String()
	}
	return strings.Join([]string{itoa(status), itoa(size) + "B", d.Round(time.Millisecond).String()}, " ")
}

// statusField reads one field of /proc/pid/status in bytes; ok is false
// once the process is gone.
func statusField(pid int, field string) (int64, bool) {
	b, err := os.ReadFile("/proc/" + itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				return 0, false
			}
			var kb int64
			for _, c := range f[0] {
				kb = kb*10 + int64(c-'0')
			}
			return kb << 10, true
		}
	}
	return 0, false
}
