package eval

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress draws a one-line progress bar, redrawn on every finished run and
// once a second so that elapsed time moves during long runs. The bar and the
// scores cover the whole evaluation, runs resumed from an earlier invocation
// included; the time estimate comes from this invocation's runs alone.
type progress struct {
	w       io.Writer
	modes   []string
	todo    int // runs this invocation has to do
	resumed int // runs already done by an earlier invocation
	mu      sync.Mutex
	done    int                   // runs this invocation finished
	failed  int                   // this invocation's failures (resumed runs never failed: failures are retried)
	skipped int                   // resumed ones included
	scores  map[string]*modeScore // by mode, resumed runs included
	start   time.Time
	stop    chan struct{}
	stopped sync.WaitGroup
}

type modeScore struct {
	sum float64
	n   int
}

func newProgress(w io.Writer, modes []string, todo int, resumed []Result) *progress {
	p := &progress{w: w, modes: modes, todo: todo, resumed: len(resumed), scores: map[string]*modeScore{},
		start: time.Now(), stop: make(chan struct{})}
	for _, r := range resumed {
		if r.Skipped != "" {
			p.skipped++
		}
		p.score(r)
	}
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

// score adds r to its mode's running score; p.mu must be held (or p not
// yet shared).
func (p *progress) score(r Result) {
	if r.Error != "" || r.Skipped != "" {
		return
	}
	s := p.scores[r.Mode]
	if s == nil {
		s = &modeScore{}
		p.scores[r.Mode] = s
	}
	s.sum += r.Score
	s.n++
}

func (p *progress) add(r Result) {
	p.mu.Lock()
	p.done++
	switch {
	case r.Error != "":
		p.failed++
	case r.Skipped != "":
		p.skipped++
	}
	p.score(r)
	p.mu.Unlock()
	p.draw()
}

func (p *progress) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// line is the bar's text, for example
//
//	[##########....................] 34/96 runs (24 resumed)  rlm 0.83 (n=20)  direct 0.50 (n=10)  failed 2  skipped 4  elapsed 1m2s  eta 2m54s
func (p *progress) line() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	const width = 30
	total, done := p.resumed+p.todo, p.resumed+p.done
	fill := width
	if total > 0 {
		fill = width * done / total
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%s%s] %d/%d runs", strings.Repeat("#", fill), strings.Repeat(".", width-fill), done, total)
	if p.resumed > 0 {
		fmt.Fprintf(&b, " (%d resumed)", p.resumed)
	}
	for _, mode := range p.modes {
		if s := p.scores[mode]; s != nil {
			fmt.Fprintf(&b, "  %s %.2f (n=%d)", mode, s.sum/float64(s.n), s.n)
		} else {
			fmt.Fprintf(&b, "  %s -", mode)
		}
	}
	el := time.Since(p.start).Round(time.Second)
	eta := "?"
	switch {
	case p.done == p.todo:
		eta = "0s"
	case p.done > 0:
		eta = (el * time.Duration(p.todo-p.done) / time.Duration(p.done)).Round(time.Second).String()
	}
	fmt.Fprintf(&b, "  failed %d  skipped %d  elapsed %s  eta %s ", p.failed, p.skipped, el, eta)
	return b.String()
}

func (p *progress) draw() {
	if p.w == nil {
		return
	}
	fmt.Fprint(p.w, "\r"+p.line())
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
