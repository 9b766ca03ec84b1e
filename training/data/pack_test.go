package data

import (
	"slices"
	"testing"
)

// ex builds an example whose ids are base, base+1, ... and whose mask is
// true from index trainFrom on.
func ex(id string, n, base, trainFrom int) Example {
	e := Example{ID: id}
	for i := range n {
		e.IDs = append(e.IDs, base+i)
		e.Mask = append(e.Mask, i >= trainFrom)
	}
	return e
}

func TestPackLayout(t *testing.T) {
	examples := []Example{ex("a", 5, 100, 3), ex("b", 4, 200, 2), ex("c", 6, 300, 1)}
	seqs, st, err := Pack(examples, PackConfig{SeqLen: 10, PadID: -7})
	if err != nil {
		t.Fatal(err)
	}
	// a (5) and b (4) share the first sequence; c (6) does not fit in the
	// 1 token left and opens the second.
	X := IgnoreTarget
	want := []Sequence{
		{
			Input:    []int{100, 101, 102, 103, 104, 200, 201, 202, 203, -7},
			Target:   []int{X, X, 103, 104, X, X, 202, 203, X, X},
			Segment:  []int{1, 1, 1, 1, 1, 2, 2, 2, 2, 0},
			Position: []int{0, 1, 2, 3, 4, 0, 1, 2, 3, 0},
		},
		{
			Input:    []int{300, 301, 302, 303, 304, 305, -7, -7, -7, -7},
			Target:   []int{301, 302, 303, 304, 305, X, X, X, X, X},
			Segment:  []int{1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
			Position: []int{0, 1, 2, 3, 4, 5, 0, 0, 0, 0},
		},
	}
	if len(seqs) != len(want) {
		t.Fatalf("%d sequences, want %d", len(seqs), len(want))
	}
	for i := range want {
		g, w := seqs[i], want[i]
		if !slices.Equal(g.Input, w.Input) || !slices.Equal(g.Target, w.Target) || !slices.Equal(g.Segment, w.Segment) || !slices.Equal(g.Position, w.Position) {
			t.Errorf("sequence %d\n got %+v\nwant %+v", i, g, w)
		}
	}
	wantSt := PackStats{Examples: 3, Sequences: 2, Tokens: 15, TrainedTokens: 2 + 2 + 5, PadTokens: 5}
	if st != wantSt {
		t.Errorf("stats %+v, want %+v", st, wantSt)
	}
}

func TestPackFirstFit(t *testing.T) {
	// The 3-token example goes back into the first sequence's gap.
	examples := []Example{ex("a", 6, 0, 1), ex("b", 6, 10, 1), ex("c", 3, 20, 1)}
	seqs, _, err := Pack(examples, PackConfig{SeqLen: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 2 || seqs[0].Input[6] != 20 || seqs[0].Segment[6] != 2 {
		t.Errorf("c was not placed after a: %+v", seqs)
	}
}

func TestPackOverflow(t *testing.T) {
	long := ex("long", 12, 0, 10)
	untrainedTail := ex("head", 12, 0, 1)
	for i := 4; i < 12; i++ {
		untrainedTail.Mask[i] = false
	}
	tests := []struct {
		name     string
		overflow Overflow
		in       []Example
		wantSeqs int
		want     PackStats
		wantIn   []int
	}{
		{"truncate: an example Fit could not shorten is dropped", Truncate, []Example{long}, 0,
			PackStats{Examples: 1, TooLong: 1}, nil},
		{"drop", Drop, []Example{long, untrainedTail}, 0,
			PackStats{Examples: 2, TooLong: 2}, nil},
		{"nothing to train", Drop, []Example{ex("u", 4, 0, 4)}, 0,
			PackStats{Examples: 1, NothingToTrain: 1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seqs, st, err := Pack(tt.in, PackConfig{SeqLen: 8, Overflow: tt.overflow})
			if err != nil {
				t.Fatal(err)
			}
			if len(seqs) != tt.wantSeqs || st != tt.want {
				t.Fatalf("%d sequences, stats %+v; want %d, %+v", len(seqs), st, tt.wantSeqs, tt.want)
			}
			if tt.wantIn != nil && !slices.Equal(seqs[0].Input, tt.wantIn) {
				t.Errorf("input %v, want %v", seqs[0].Input, tt.wantIn)
			}
		})
	}
}

func TestPackErrors(t *testing.T) {
	if _, _, err := Pack(nil, PackConfig{SeqLen: 1}); err == nil {
		t.Error("SeqLen 1 accepted")
	}
	bad := Example{ID: "x", IDs: []int{1, 2}, Mask: []bool{true}}
	if _, _, err := Pack([]Example{bad}, PackConfig{SeqLen: 8}); err == nil {
		t.Error("mask of the wrong length accepted")
	}
}

// TestPackNoCrossDocumentTargets checks on many random examples that every
// target with loss is the next token of the same document.
func TestPackNoCrossDocumentTargets(t *testing.T) {
	var examples []Example
	for i := range 200 {
		examples = append(examples, ex("r", 2+(i*37)%50, i*1000, (i*13)%5))
	}
	seqs, st, err := Pack(examples, PackConfig{SeqLen: 64, Window: 8})
	if err != nil {
		t.Fatal(err)
	}
	trained := 0
	for _, s := range seqs {
		for i, tg := range s.Target {
			if tg == IgnoreTarget {
				continue
			}
			trained++
			if i+1 >= len(s.Input) || s.Segment[i+1] != s.Segment[i] || s.Segment[i] == 0 || s.Input[i+1] != tg || s.Position[i+1] != s.Position[i]+1 {
				t.Fatalf("target at %d crosses a document or is not the next token", i)
			}
		}
	}
	if trained != st.TrainedTokens {
		t.Errorf("counted %d trained targets, stats say %d", trained, st.TrainedTokens)
	}
}
