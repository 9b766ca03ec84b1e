package rl

import (
	"math"
	"slices"
	"testing"

	"github.com/rlm-project/rlm/recursion/llm"
)

func TestAdvantages(t *testing.T) {
	tests := []struct {
		name    string
		rewards []float64
		std     bool
		want    []float64
		keep    bool
	}{
		{"mean only", []float64{1, 0, 0, 1}, false, []float64{0.5, -0.5, -0.5, 0.5}, true},
		{"std scaled", []float64{1, 0, 0, 1}, true, []float64{1, -1, -1, 1}, true},
		{"uneven", []float64{1, 0, 0, 0}, false, []float64{0.75, -0.25, -0.25, -0.25}, true},
		{"all equal dropped", []float64{0.5, 0.5, 0.5}, true, []float64{0, 0, 0}, false},
		{"empty", nil, false, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, keep := advantages(tt.rewards, tt.std)
			if keep != tt.keep || len(got) != len(tt.want) {
				t.Fatalf("got %v %v, want %v %v", got, keep, tt.want, tt.keep)
			}
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-12 {
					t.Errorf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func turn(node string, depth, n int, prompt, toks []int32) call {
	lps := make([]float64, len(toks))
	for i := range lps {
		lps[i] = -float64(toks[i]) / 10
	}
	return call{Info: llm.CallInfo{NodeID: node, Depth: depth, Turn: n, Kind: llm.CallTurn}, Prompt: prompt, Tokens: toks, Logprobs: lps}
}

func TestBuildSamples(t *testing.T) {
	root1 := turn("r", 0, 1, []int32{1, 2, 3}, []int32{4, 5})
	root2 := turn("r", 0, 2, []int32{1, 2, 3, 4, 5, 6, 7}, []int32{8})        // extends turn 1
	root3 := turn("r", 0, 3, []int32{1, 2, 3, 4, 9, 6, 7, 8, 6}, []int32{10}) // re-rendered: does not
	child := turn("c", 1, 1, []int32{1, 11}, []int32{12})
	sub := call{Info: llm.CallInfo{NodeID: "r", Turn: 2, Kind: llm.CallLLMQuery}, Prompt: []int32{13}, Tokens: []int32{14}, Logprobs: []float64{-0.5}}
	// Out of order, as concurrent calls arrive.
	calls := []call{sub, root3, child, root2, root1}

	got := buildSamples(calls, false)
	if len(got) != 4 {
		t.Fatalf("%d samples: %+v", len(got), got)
	}
	merged := got[0]
	if !slices.Equal(merged.Tokens, []int32{1, 2, 3, 4, 5, 6, 7, 8}) ||
		!slices.Equal(merged.Sampled, []bool{false, false, false, true, true, false, false, true}) ||
		merged.Logprobs[3] != -0.4 || merged.Logprobs[7] != -0.8 || merged.Logprobs[5] != 0 {
		t.Errorf("merged turns 1-2: %+v", merged)
	}
	if !slices.Equal(got[1].Tokens, []int32{1, 2, 3, 4, 9, 6, 7, 8, 6, 10}) || slices.Index(got[1].Sampled, true) != 9 {
		t.Errorf("turn 3 on its own: %+v", got[1])
	}
	if !slices.Equal(got[2].Tokens, []int32{13, 14}) || !slices.Equal(got[3].Tokens, []int32{1, 11, 12}) {
		t.Errorf("sub-call then child: %+v %+v", got[2], got[3])
	}
	if again := buildSamples([]call{root1, child, root2, sub, root3}, false); len(again) != len(got) || !slices.Equal(again[3].Tokens, got[3].Tokens) {
		t.Errorf("order depends on arrival: %+v", again)
	}
	if rootOnly := buildSamples(calls, true); len(rootOnly) != 2 {
		t.Errorf("root only: %d samples", len(rootOnly))
	}
}

func TestPack(t *testing.T) {
	s := func(n int) Sample {
		x := Sample{Tokens: make([]int32, n), Sampled: make([]bool, n), Logprobs: make([]float64, n), Advantage: float64(n)}
		for i := range x.Tokens {
			x.Tokens[i] = int32(i)
			x.Sampled[i] = i == n-1
			x.Logprobs[i] = -1
		}
		return x
	}
	rows, err := pack([]Sample{s(5), s(4), s(7)}, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].samples != 2 || rows[1].samples != 1 {
		t.Fatalf("rows %d", len(rows))
	}
	r := rows[0]
	// Sample 1 takes positions 0-3, sample 2 positions 4-6, padding 7.
	if !slices.Equal(r.batch.Pos, []int32{0, 1, 2, 3, 0, 1, 2, 0}) || !slices.Equal(r.batch.Seg, []int32{1, 1, 1, 1, 2, 2, 2, 3}) ||
		!slices.Equal(r.loss, []bool{false, false, false, true, false, false, true, false}) || r.adv[3] != 5 || r.adv[6] != 4 {
		t.Errorf("row 0: pos %v seg %v loss %v adv %v", r.batch.Pos, r.batch.Seg, r.loss, r.adv)
	}
	if _, err := pack([]Sample{s(10)}, 8); err == nil {
		t.Error("a sample longer than a row was packed")
	}
}
