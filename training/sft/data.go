package sft

import (
	"fmt"

	"github.com/rlm-project/rlm/training/data"
)

// FromPacked converts the packed sequences of training/data into trainer
// rows. Positions without a target (data.IgnoreTarget) are not trained; their
// target is set to the pad input so every id stays inside the vocabulary.
func FromPacked(seqs []data.Sequence, vocabSize int) ([]Sequence, error) {
	out := make([]Sequence, len(seqs))
	for i, s := range seqs {
		T := len(s.Input)
		if len(s.Target) != T || len(s.Segment) != T || len(s.Position) != T {
			return nil, fmt.Errorf("sft: packed sequence %d has ragged fields", i)
		}
		r := Sequence{IDs: make([]int32, T), Targets: make([]int32, T), Train: make([]bool, T), Pos: make([]int32, T), Seg: make([]int32, T)}
		for j := range T {
			if s.Input[j] < 0 || s.Input[j] >= vocabSize || s.Target[j] >= vocabSize {
				return nil, fmt.Errorf("sft: packed sequence %d: token id outside the model's vocabulary of %d (is the tokenizer the model's?)", i, vocabSize)
			}
			r.IDs[j] = int32(s.Input[j])
			r.Targets[j] = r.IDs[j]
			if s.Target[j] != data.IgnoreTarget {
				r.Targets[j], r.Train[j] = int32(s.Target[j]), true
			}
			r.Pos[j], r.Seg[j] = int32(s.Position[j]), int32(s.Segment[j])
		}
		out[i] = r
	}
	return out, nil
}
