package main

import (
	"strings"
	"testing"

	"github.com/rlm-project/rlm/recursion"
)

// TestLiveObservers: the verbose observer writes every kind of event it
// knows, clipping long text at a rune boundary and saying how long it was;
// the progress observer writes one line per root turn and counts sub-calls.
func TestLiveObservers(t *testing.T) {
	var v, p strings.Builder
	verbose, progress := newVerboseObserver(&v), newProgressObserver(&p)
	long := strings.Repeat("é", 1500) // 3000 bytes
	for _, ev := range []recursion.Event{
		{Kind: recursion.EventNodeStart, NodeID: "0"},
		{Kind: recursion.EventTurnStart, NodeID: "0", Turn: 1},
		{Kind: recursion.EventModelCall, NodeID: "0", Model: &recursion.ModelCallEvent{Model: "m", Response: long}},
		{Kind: recursion.EventCellEnd, NodeID: "0", Turn: 1, Cell: 1, CellRun: &recursion.CellEvent{Output: "hello", Error: "boom"}},
		{Kind: recursion.EventSubCallEnd, NodeID: "0", SubCall: &recursion.SubCallEvent{Kind: "llm", ID: "0.1", Response: "ok"}},
		{Kind: recursion.EventTurnStart, NodeID: "0.1", Turn: 1},
		{Kind: recursion.EventTurnStart, NodeID: "0", Turn: 2},
	} {
		verbose.Observe(ev)
		progress.Observe(ev)
	}
	out := v.String()
	for _, want := range []string{"[0] node start", "[0] turn 1", "[0] model m:", "… (3000 bytes)", "    hello", "[0] cell error: boom", "[0] llm_query 0.1 ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("verbose output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, strings.Repeat("é", 1000)+"…") {
		t.Errorf("the model's reply is not cut at 2000 bytes on a rune boundary:\n%.200s", out)
	}
	if got := p.String(); strings.Count(got, "\n") != 2 || !strings.Contains(got, "rlm: turn 2 (1 sub-calls so far") {
		t.Errorf("progress: %q", got)
	}
}
