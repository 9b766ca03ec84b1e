package data

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/rlm-project/rlm/training/tokenizer"
)

// ChatEncoder turns chat messages into token ids and a loss mask;
// *tokenizer.Tokenizer is one.
type ChatEncoder interface {
	EncodeChat(msgs []tokenizer.Message) (ids []int, mask []bool, err error)
}

// Example is a tokenized sample: Mask[i] is true for the tokens the loss is
// computed on (the trained assistant turns).
type Example struct {
	ID   string
	IDs  []int
	Mask []bool
}

// Tokenize encodes samples in parallel, keeping their order.
func Tokenize(ctx context.Context, enc ChatEncoder, samples []Sample) ([]Example, error) {
	out := make([]Example, len(samples))
	errs := make([]error, len(samples))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(samples), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ids, mask, err := enc.EncodeChat(samples[i].ChatMessages())
				if err != nil {
					errs[i] = fmt.Errorf("tokenize sample %d (id %q): %w", i, samples[i].ID, err)
					continue
				}
				out[i] = Example{ID: samples[i].ID, IDs: ids, Mask: mask}
			}
		}()
	}
	var err error
feed:
	for i := range samples {
		select {
		case next <- i:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err != nil {
		return nil, fmt.Errorf("tokenize samples: %w", err)
	}
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	return out, nil
}

// Shuffle permutes xs in place, the same way for the same seed on every
// machine (PCG and Fisher-Yates).
func Shuffle[T any](xs []T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	for i := len(xs) - 1; i > 0; i-- {
		j := int(r.Uint64N(uint64(i + 1)))
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// Overflow says what Pack does with an example longer than the sequence.
type Overflow int

const (
	// TruncateLeft keeps the last SeqLen tokens: the final (trained) turn
	// survives and the oldest context is cut.
	TruncateLeft Overflow = iota
	// Drop discards the example.
	Drop
)

// IgnoreTarget marks a target position that has no loss.
const IgnoreTarget = -1

// PackConfig configures Pack.
type PackConfig struct {
	SeqLen   int      // tokens per sequence; required
	PadID    int      // input id of padding (Qwen3: <|endoftext|>, 151643)
	Overflow Overflow // examples longer than SeqLen
	// Window is how many of the most recent unfilled sequences an example
	// may be placed in (first fit); 0 means 64. Larger packs tighter and
	// packs slower.
	Window int
}

// Sequence is one packed training sequence of SeqLen tokens. Documents
// (examples) are laid out back to back, then padding. A token at i may
// attend to a token at j only if j <= i and Segment[i] == Segment[j] != 0,
// so packed examples never see each other; Position restarts at 0 for each
// document, for RoPE.
type Sequence struct {
	Input    []int // token ids, PadID after the last document
	Target   []int // next-token label of each position, IgnoreTarget where there is no loss
	Segment  []int // 1-based document number within the sequence; 0 on padding
	Position []int // position within the document
}

// PackStats counts what Pack did.
type PackStats struct {
	Examples       int // examples in
	Sequences      int
	Truncated      int // cut from the left to fit
	TooLong        int // dropped by Overflow Drop
	NothingToTrain int // dropped: no target with loss (after truncation)
	Tokens         int // non-padding input tokens
	TrainedTokens  int // targets with loss
	PadTokens      int
}

// Pack lays examples into sequences of cfg.SeqLen tokens, in order, each
// into the first of the last cfg.Window unfilled sequences where it fits.
// The target of token j of an example is token j+1 when the mask marks it
// trained, so the loss covers exactly the generated tokens and never crosses
// from one example into the next.
func Pack(examples []Example, cfg PackConfig) ([]Sequence, PackStats, error) {
	st := PackStats{Examples: len(examples)}
	if cfg.SeqLen < 2 {
		return nil, st, fmt.Errorf("pack: sequence length %d, want at least 2", cfg.SeqLen)
	}
	window := cfg.Window
	if window <= 0 {
		window = 64
	}
	var seqs []Sequence
	used := []int{} // tokens used in each sequence
	var open []int  // sequences with room, oldest first
	for i, ex := range examples {
		if len(ex.IDs) != len(ex.Mask) {
			return nil, st, fmt.Errorf("pack: example %d (id %q) has %d ids and %d mask entries", i, ex.ID, len(ex.IDs), len(ex.Mask))
		}
		ids, mask := ex.IDs, ex.Mask
		if len(ids) > cfg.SeqLen {
			if cfg.Overflow == Drop {
				st.TooLong++
				continue
			}
			ids, mask = ids[len(ids)-cfg.SeqLen:], mask[len(mask)-cfg.SeqLen:]
			st.Truncated++
		}
		trained := 0
		for _, m := range mask[1:] {
			if m {
				trained++
			}
		}
		if trained == 0 {
			st.NothingToTrain++
			continue
		}
		slot := -1
		for k := max(0, len(open)-window); k < len(open); k++ {
			if cfg.SeqLen-used[open[k]] >= len(ids) {
				slot = k
				break
			}
		}
		var s int
		if slot < 0 {
			s = len(seqs)
			seqs = append(seqs, newSequence(cfg.SeqLen, cfg.PadID))
			used = append(used, 0)
			open = append(open, s)
			slot = len(open) - 1
		} else {
			s = open[slot]
		}
		seq := &seqs[s]
		at := used[s]
		doc := seq.Segment[max(at-1, 0)] + 1
		for j, id := range ids {
			seq.Input[at+j] = id
			seq.Segment[at+j] = doc
			seq.Position[at+j] = j
			if j+1 < len(ids) && mask[j+1] {
				seq.Target[at+j] = ids[j+1]
			}
		}
		used[s] += len(ids)
		st.Tokens += len(ids)
		st.TrainedTokens += trained
		if used[s] == cfg.SeqLen {
			open = append(open[:slot], open[slot+1:]...)
		}
	}
	st.Sequences = len(seqs)
	st.PadTokens = len(seqs)*cfg.SeqLen - st.Tokens
	return seqs, st, nil
}

func newSequence(n, pad int) Sequence {
	s := Sequence{
		Input:    make([]int, n),
		Target:   make([]int, n),
		Segment:  make([]int, n),
		Position: make([]int, n),
	}
	for i := range n {
		s.Input[i] = pad
		s.Target[i] = IgnoreTarget
	}
	return s
}
