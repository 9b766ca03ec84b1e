//go:build linux

package repl

import (
	"context"
	"testing"
	"time"
)

// BenchmarkConfinement measures what the OS-level confinement costs: the
// cold start of a worker (process start, confinement, interpreter, session
// init) and the latency of an empty cell, confined and not, alternating in
// the same run. It reports both in milliseconds and their ratio
// (x-unconfined). Run it with a bounded count:
//
//	go test ./repl -run '^$' -bench Confinement -benchtime 20x
func BenchmarkConfinement(b *testing.B) {
	ctx := context.Background()
	pools := map[bool]*Pool{}
	for _, confined := range []bool{false, true} {
		p, err := NewPool(PoolConfig{Size: -1, unconfined: !confined})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		pools[confined] = p
	}
	b.Run("start", func(b *testing.B) {
		var total [2]time.Duration
		for i := 0; i < b.N; i++ {
			for _, confined := range []bool{i%2 == 0, i%2 != 0} {
				start := time.Now()
				s, err := pools[confined].NewSession(ctx, SessionConfig{})
				if err != nil {
					b.Fatal(err)
				}
				total[b2i(confined)] += time.Since(start)
				s.Close()
			}
		}
		report(b, total)
	})
	b.Run("empty-cell", func(b *testing.B) {
		sessions := map[bool]*Session{}
		for confined, p := range pools {
			s, err := p.NewSession(ctx, SessionConfig{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			run(b, s, `_ = 0`) // the first cell compiles more
			sessions[confined] = s
		}
		var total [2]time.Duration
		for i := 0; i < b.N; i++ {
			for _, confined := range []bool{i%2 == 0, i%2 != 0} {
				start := time.Now()
				r, err := sessions[confined].Run(ctx, `_ = 0`)
				if err != nil || r.Error != "" {
					b.Fatalf("cell: %v %s", err, r.Error)
				}
				total[b2i(confined)] += time.Since(start)
			}
		}
		report(b, total)
	})
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// report gives the mean of each mode and their ratio.
func report(b *testing.B, total [2]time.Duration) {
	un, con := total[0]/time.Duration(b.N), total[1]/time.Duration(b.N)
	b.ReportMetric(float64(un)/1e6, "unconfined-ms")
	b.ReportMetric(float64(con)/1e6, "confined-ms")
	b.ReportMetric(float64(con)/float64(un), "x-unconfined")
}
