package rl

import (
	"math"
	"slices"
	"sort"

	"github.com/rlm-project/rlm/recursion/llm"
)

// call is one model call of a rollout as the inference engine ran it.
type call struct {
	Info     llm.CallInfo
	Prompt   []int32
	Tokens   []int32 // sampled, the ending token included
	Logprobs []float64
}

// buildSamples turns a rollout's calls into training samples. The turns of
// one node are merged into one sample while each turn's prompt extends the
// previous prompt and completion token for token (the usual case: the
// transcript only grows); where it does not (the chat template rendered an
// earlier answer differently from the sampled tokens), a new sample starts.
// llm_query calls are one sample each. With rootOnly, only the root node's
// turns are kept.
//
// Samples come in an order that depends only on their contents (by depth, turns
// before llm_query calls, then by tokens), so training is deterministic even though a
// rollout's sub-calls run concurrently.
func buildSamples(calls []call, rootOnly bool) []Sample {
	type group struct {
		depth int
		kind  llm.CallKind
		calls []call
	}
	byNode := map[string]*group{}
	var groups []*group
	for _, c := range calls {
		if rootOnly && (c.Info.Depth > 0 || c.Info.Kind != llm.CallTurn) {
			continue
		}
		if c.Info.Kind == llm.CallTurn {
			if g := byNode[c.Info.NodeID]; g != nil {
				g.calls = append(g.calls, c)
				continue
			}
		}
		g := &group{depth: c.Info.Depth, kind: c.Info.Kind, calls: []call{c}}
		if c.Info.Kind == llm.CallTurn {
			byNode[c.Info.NodeID] = g
		}
		groups = append(groups, g)
	}
	for _, g := range groups {
		sort.SliceStable(g.calls, func(i, j int) bool { return g.calls[i].Info.Turn < g.calls[j].Info.Turn })
	}
	sort.SliceStable(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		if a.kind != b.kind {
			return a.kind == llm.CallTurn // a node's turns before its sub-calls
		}
		if c := slices.Compare(a.calls[0].Prompt, b.calls[0].Prompt); c != 0 {
			return c < 0
		}
		return slices.Compare(a.calls[0].Tokens, b.calls[0].Tokens) < 0
	})
	var out []Sample
	for _, g := range groups {
		var cur *Sample
		for _, c := range g.calls {
			if cur == nil || !extends(c.Prompt, cur.Tokens) {
				if cur != nil {
					out = append(out, *cur)
				}
				cur = &Sample{}
				cur.appendContext(c.Prompt)
			} else {
				cur.appendContext(c.Prompt[len(cur.Tokens):])
			}
			cur.Tokens = append(cur.Tokens, c.Tokens...)
			for _, lp := range c.Logprobs {
				cur.Sampled = append(cur.Sampled, true)
				cur.Logprobs = append(cur.Logprobs, lp)
			}
		}
		if cur != nil && len(cur.Tokens) > 1 {
			out = append(out, *cur)
		}
	}
	return out
}

func (s *Sample) appendContext(ids []int32) {
	s.Tokens = append(s.Tokens, ids...)
	s.Sampled = append(s.Sampled, make([]bool, len(ids))...)
	s.Logprobs = append(s.Logprobs, make([]float64, len(ids))...)
}

// extends reports whether prompt starts with prev.
func extends(prompt, prev []int32) bool {
	return len(prompt) >= len(prev) && slices.Equal(prompt[:len(prev)], prev)
}

// advantages returns each reward minus its group's mean, divided by the
// group's standard deviation when scaleByStd, and whether the group carries
// signal: a group whose rewards are all equal has zero advantages and is
// dropped (DAPO's dynamic sampling filter, without resampling).
func advantages(rewards []float64, scaleByStd bool) ([]float64, bool) {
	if len(rewards) == 0 {
		return nil, false
	}
	var mean float64
	for _, r := range rewards {
		mean += r
	}
	mean /= float64(len(rewards))
	var ss float64
	for _, r := range rewards {
		ss += (r - mean) * (r - mean)
	}
	std := math.Sqrt(ss / float64(len(rewards)))
	if std < 1e-9 {
		return make([]float64, len(rewards)), false
	}
	out := make([]float64, len(rewards))
	for i, r := range rewards {
		out[i] = r - mean
		if scaleByStd {
			out[i] /= std
		}
	}
	return out, true
}
