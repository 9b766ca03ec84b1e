package model

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// fullLogits returns the logits of every position of one sequence from the
// training Forward.
func fullLogits(t *testing.T, m *Model, ids []int32) [][]float32 {
	t.Helper()
	T := len(ids)
	b := &Batch{B: 1, T: T, IDs: ids, Pos: make([]int32, T), Seg: make([]int32, T)}
	for i := range b.Pos {
		b.Pos[i] = int32(i)
	}
	flat := logitsOf(t, m, b)
	V := m.Cfg.VocabSize
	out := make([][]float32, T)
	for i := range out {
		out[i] = flat[i*V : (i+1)*V]
	}
	return out
}

func relL2(want, got []float32) float64 {
	var num, den float64
	for i := range want {
		d := float64(got[i]) - float64(want[i])
		num += d * d
		den += float64(want[i]) * float64(want[i])
	}
	return math.Sqrt(num / den)
}

// stepper feeds sequences to ForwardStep through a cache whose blocks are
// handed out in a shuffled order, so no sequence is contiguous.
type stepper struct {
	t      *testing.T
	m      *Model
	kv     *KVCache
	free   []int32
	blocks [][]int32 // per sequence
	lens   []int
}

const testBlocks, testMaxBlocks = 64, 16 // room for 150 tokens in blocks of 16

func newStepper(t *testing.T, m *Model, nseq, blockSize int) *stepper {
	kv, err := m.NewKVCache(testBlocks, blockSize)
	if err != nil {
		t.Fatal(err)
	}
	s := &stepper{t: t, m: m, kv: kv, blocks: make([][]int32, nseq), lens: make([]int, nseq)}
	for _, b := range rand.New(rand.NewPCG(7, 7)).Perm(testBlocks) {
		s.free = append(s.free, int32(b))
	}
	return s
}

// step appends toks[i] to sequence seqs[i] for each i, and returns the
// logits after the last new token of each sequence in seqs, in order of
// first appearance.
func (s *stepper) step(seqs []int, toks [][]int32) [][]float32 {
	st := &Step{MaxBlocks: testMaxBlocks, BlockTable: make([]int32, len(s.blocks)*testMaxBlocks)}
	for i, q := range seqs {
		for _, tok := range toks[i] {
			p := s.lens[q]
			if p%s.kv.BlockSize == 0 {
				s.blocks[q] = append(s.blocks[q], s.free[0])
				s.free = s.free[1:]
			}
			blk := s.blocks[q][p/s.kv.BlockSize]
			st.IDs = append(st.IDs, tok)
			st.Pos = append(st.Pos, int32(p))
			st.Seq = append(st.Seq, int32(q))
			st.Slots = append(st.Slots, blk*int32(s.kv.BlockSize)+int32(p%s.kv.BlockSize))
			s.lens[q]++
		}
		st.Logits = append(st.Logits, int32(len(st.IDs)-1))
	}
	for q, bl := range s.blocks {
		copy(st.BlockTable[q*testMaxBlocks:], bl)
	}
	V := s.m.Cfg.VocabSize
	flat := make([]float32, len(st.Logits)*V)
	if err := s.m.ForwardStep(context.Background(), s.kv, st, flat); err != nil {
		s.t.Fatal(err)
	}
	out := make([][]float32, len(st.Logits))
	for i := range out {
		out[i] = flat[i*V : (i+1)*V]
	}
	return out
}

// TestStepMatchesForward: a prefill chunk, then one token at a time, gives
// at every position the logits of one full forward of the whole sequence.
func TestStepMatchesForward(t *testing.T) {
	for _, tc := range []struct {
		tied      bool
		n         int // 150: past one attention tile of the training forward
		blockSize int
	}{{false, 29, 4}, {true, 29, 4}, {false, 150, 16}} {
		tied := tc.tied
		cfg := tinyConfig(tied)
		m := newRandomModel(t, cfg, 17)
		rng := rand.New(rand.NewPCG(8, 8))
		ids := make([]int32, tc.n)
		for i := range ids {
			ids[i] = int32(rng.IntN(cfg.VocabSize))
		}
		want := fullLogits(t, m, ids)
		s := newStepper(t, m, 1, tc.blockSize)
		var worst float64
		check := func(pos int, got []float32) {
			e := relL2(want[pos], got)
			worst = max(worst, e)
			if e > 1e-5 {
				t.Errorf("tied=%v position %d: relative error %.3g", tied, pos, e)
			}
		}
		// Prefill 6 tokens (crossing a block edge), then a chunk of 5, then decode.
		check(5, s.step([]int{0}, [][]int32{ids[:6]})[0])
		check(10, s.step([]int{0}, [][]int32{ids[6:11]})[0])
		for p := 11; p < len(ids); p++ {
			check(p, s.step([]int{0}, [][]int32{ids[p : p+1]})[0])
		}
		t.Logf("tied=%v: worst relative error %.2g over %d positions", tied, worst, len(ids)-9)
	}
}

// TestStepBatchedEqualsAlone: sequences of different lengths decoded in one
// step (with a prefill of another sequence in the same step) get the
// logits each gets alone.
func TestStepBatchedEqualsAlone(t *testing.T) {
	cfg := tinyConfig(false)
	m := newRandomModel(t, cfg, 19)
	rng := rand.New(rand.NewPCG(9, 9))
	seqs := make([][]int32, 3)
	for i, n := range []int{13, 4, 9} {
		for range n {
			seqs[i] = append(seqs[i], int32(rng.IntN(cfg.VocabSize)))
		}
	}
	alone := make([][]float32, 3)
	for i, ids := range seqs {
		alone[i] = fullLogits(t, m, ids)[len(ids)-1]
	}
	s := newStepper(t, m, 3, 4)
	// Sequences 0 and 1 are cached up to their last token; 2 is new.
	s.step([]int{0}, [][]int32{seqs[0][:12]})
	s.step([]int{1}, [][]int32{seqs[1][:3]})
	got := s.step([]int{0, 2, 1}, [][]int32{seqs[0][12:], seqs[2], seqs[1][3:]})
	for i, q := range []int{0, 2, 1} {
		if e := relL2(alone[q], got[i]); e > 1e-5 {
			t.Errorf("sequence %d in a batch: relative error %.3g against alone", q, e)
		}
	}
}

func TestStepBadInput(t *testing.T) {
	cfg := tinyConfig(false)
	m := newRandomModel(t, cfg, 1)
	kv, err := m.NewKVCache(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	ok := func() *Step {
		return &Step{IDs: []int32{1, 2}, Pos: []int32{0, 1}, Seq: []int32{0, 0}, Slots: []int32{12, 13},
			BlockTable: []int32{3, 0}, MaxBlocks: 2, Logits: []int32{1}}
	}
	logits := make([]float32, cfg.VocabSize)
	if err := m.ForwardStep(context.Background(), kv, ok(), logits); err != nil {
		t.Fatalf("valid step refused: %v", err)
	}
	for name, edit := range map[string]func(s *Step){
		"id outside vocabulary":   func(s *Step) { s.IDs[0] = 99 },
		"slot not in its block":   func(s *Step) { s.Slots[1] = 2 },
		"block outside cache":     func(s *Step) { s.BlockTable[0] = 4 },
		"position past table":     func(s *Step) { s.Pos[1] = 8 },
		"sequence without row":    func(s *Step) { s.Seq[0] = 1 },
		"logits of no token":      func(s *Step) { s.Logits[0] = 2 },
		"lengths differ":          func(s *Step) { s.Pos = s.Pos[:1] },
		"table not whole rows":    func(s *Step) { s.BlockTable = s.BlockTable[:1] },
		"negative position":       func(s *Step) { s.Pos[0] = -1 },
		"negative logits row":     func(s *Step) { s.Logits[0] = -1 },
		"negative sequence":       func(s *Step) { s.Seq[0] = -1 },
		"empty step":              func(s *Step) { *s = Step{MaxBlocks: 1} },
		"negative block in cache": func(s *Step) { s.BlockTable[1] = -1 },
	} {
		s := ok()
		edit(s)
		if err := m.ForwardStep(context.Background(), kv, s, logits); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
