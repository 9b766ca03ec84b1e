package data

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/rlm-project/rlm/model/tokenizer"
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
	out, _, err := TokenizeFit(ctx, enc, samples, 0)
	return out, err
}

// TokenizeFit is Tokenize with each sample shortened by Fit to at most
// maxLen tokens (0: no limit).
func TokenizeFit(ctx context.Context, enc ChatEncoder, samples []Sample, maxLen int) ([]Example, FitStats, error) {
	out := make([]Example, len(samples))
	fits := make([]FitStats, len(samples))
	errs := make([]error, len(samples))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(samples), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ex, fs, err := Fit(enc, samples[i], maxLen)
				if err != nil {
					errs[i] = fmt.Errorf("tokenize sample %d (id %q): %w", i, samples[i].ID, err)
					continue
				}
				out[i], fits[i] = ex, fs
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
	var st FitStats
	if err != nil {
		return nil, st, fmt.Errorf("tokenize samples: %w", err)
	}
	for i, e := range errs {
		if e != nil {
			return nil, st, e
		}
		st.add(fits[i])
	}
	return out, st, nil
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
	// Truncate shortens the sample from the middle with Fit (Build does it
	// before packing): old REPL outputs first, never the system prompt, the
	// question or a trained turn. Pack drops an example still too long.
	Truncate Overflow = iota
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
	FitStats           // what Fit cut (Build with Overflow Truncate)
	TooLong        int // dropped: longer than SeqLen (after Fit with Truncate)
	NothingToTrain int // dropped: no target with loss
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
			st.TooLong++
			continue
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
