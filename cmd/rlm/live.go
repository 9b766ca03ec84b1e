package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/rlm-project/rlm/internal/clip"
	"github.com/rlm-project/rlm/recursion"
)

// verboseObserver prints a run's events as they happen: each node, turn,
// model call (its reply clipped), cell (its output clipped) and sub-call,
// one line or an indented block each. It is `rlm query --verbose`.
type verboseObserver struct {
	mu sync.Mutex
	w  io.Writer
}

// clipNote is s trimmed, cut to at most n bytes at a rune boundary with a
// note of its whole length in bytes: the unit of the cut, so that the two
// numbers compare.
func clipNote(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return clip.Head(s, n) + fmt.Sprintf("… (%d bytes)", len(s))
}

// indentLines indents every line of s by four spaces.
func indentLines(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// Observe implements recursion.Observer.
func (v *verboseObserver) Observe(ev recursion.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	p := fmt.Sprintf("[%s]", ev.NodeID)
	switch ev.Kind {
	case recursion.EventNodeStart:
		fmt.Fprintf(v.w, "%s node start (depth %d, parent %q)\n", p, ev.Depth, ev.ParentID)
	case recursion.EventTurnStart:
		fmt.Fprintf(v.w, "%s turn %d\n", p, ev.Turn)
	case recursion.EventModelCall:
		m := ev.Model
		fmt.Fprintf(v.w, "%s model %s: %d+%d tokens in %s\n", p, m.Model, m.Usage.PromptTokens, m.Usage.CompletionTokens, m.Latency.Round(time.Millisecond))
		if m.Err != "" {
			fmt.Fprintf(v.w, "%s model error: %s\n", p, m.Err)
		}
		fmt.Fprintln(v.w, indentLines(clipNote(m.Response, 2000)))
	case recursion.EventCellStart:
		fmt.Fprintf(v.w, "%s cell %d.%d running\n", p, ev.Turn, ev.Cell)
	case recursion.EventCellEnd:
		c := ev.CellRun
		fmt.Fprintf(v.w, "%s cell %d.%d done in %s\n", p, ev.Turn, ev.Cell, c.Duration.Round(time.Millisecond))
		if c.Output != "" {
			fmt.Fprintln(v.w, indentLines(clipNote(c.Output, 1000)))
		}
		if c.Error != "" {
			fmt.Fprintf(v.w, "%s cell error: %s\n", p, clipNote(c.Error, 500))
		}
	case recursion.EventSubCallStart:
		s := ev.SubCall
		fmt.Fprintf(v.w, "%s %s_query %s start: %q\n", p, s.Kind, s.ID, clipNote(s.Prompt, 120))
	case recursion.EventSubCallEnd:
		s := ev.SubCall
		status := "ok"
		if s.Err != "" {
			status = "error: " + s.Err
		}
		fmt.Fprintf(v.w, "%s %s_query %s %s in %s: %q\n", p, s.Kind, s.ID, status, s.Duration.Round(time.Millisecond), clipNote(s.Response, 200))
	case recursion.EventNodeEnd:
		e := ev.End
		fmt.Fprintf(v.w, "%s node end: %s after %d turns, %d tokens\n", p, e.StopReason, e.Iterations, e.TreeUsage.TotalTokens)
	}
}

// progressObserver prints one line per turn of the root, so that a long
// run shows that it is alive: `rlm query` without --verbose.
type progressObserver struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	subs  int
}

// Observe implements recursion.Observer.
func (p *progressObserver) Observe(ev recursion.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case ev.Kind == recursion.EventSubCallEnd:
		p.subs++
	case ev.Kind == recursion.EventTurnStart && ev.NodeID == "0":
		fmt.Fprintf(p.w, "rlm: turn %d (%d sub-calls so far, %s)\n", ev.Turn, p.subs, time.Since(p.start).Round(time.Second))
	}
}

// newVerboseObserver returns a verboseObserver that writes to w.
func newVerboseObserver(w io.Writer) *verboseObserver { return &verboseObserver{w: w} }

// newProgressObserver returns a progressObserver that writes to w, timing
// from now.
func newProgressObserver(w io.Writer) *progressObserver {
	return &progressObserver{w: w, start: time.Now()}
}
