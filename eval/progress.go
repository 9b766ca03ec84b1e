package eval

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress draws a one-line progress bar, redrawn on every finished run and
// once a second so that elapsed time moves during long runs.
type progress struct {
	w                     io.Writer
	total, resumed        int
	mu                    sync.Mutex
	done, failed, skipped int
	scoreSum              float64
	start                 time.Time
	stop                  chan struct{}
	stopped               sync.WaitGroup
}

func newProgress(w io.Writer, total, resumed int) *progress {
	p := &progress{w: w, total: total, resumed: resumed, start: time.Now(), stop: make(chan struct{})}
	if w == nil {
		return p
	}
	p.draw()
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.draw()
			case <-p.stop:
				return
			}
		}
	}()
	return p
}

func (p *progress) add(r Result) {
	p.mu.Lock()
	p.done++
	switch {
	case r.Error != "":
		p.failed++
	case r.Skipped != "":
		p.skipped++
	default:
		p.scoreSum += r.Score
	}
	p.mu.Unlock()
	p.draw()
}

func (p *progress) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

func (p *progress) draw() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	const width = 30
	fill := width
	if p.total > 0 {
		fill = width * p.done / p.total
	}
	el := time.Since(p.start).Round(time.Second)
	eta := "?"
	if p.done > 0 && p.done < p.total {
		eta = (el * time.Duration(p.total-p.done) / time.Duration(p.done)).Round(time.Second).String()
	} else if p.done == p.total {
		eta = "0s"
	}
	mean := 0.0
	if n := p.done - p.failed - p.skipped; n > 0 {
		mean = p.scoreSum / float64(n)
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d runs  score %.2f  failed %d  skipped %d  resumed %d  elapsed %s  eta %s ",
		strings.Repeat("#", fill), strings.Repeat(".", width-fill), p.done, p.total, mean,
		p.failed, p.skipped, p.resumed, el, eta)
}

func (p *progress) finish() {
	if p.w == nil {
		return
	}
	close(p.stop)
	p.stopped.Wait()
	p.draw()
	fmt.Fprintln(p.w)
}
