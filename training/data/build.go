package data

import (
	"context"
	"fmt"
)

// Config is the whole data pipeline of the SFT trainer.
type Config struct {
	Filter Filter
	Pack   PackConfig
	// Seed orders the samples before packing (Shuffle); the same seed and
	// file give the same sequences.
	Seed uint64
}

// Stats reports each step of Build.
type Stats struct {
	Read ReadStats
	Pack PackStats
}

// Build reads the JSONL file at path, filters, shuffles by cfg.Seed,
// tokenizes (shortening long samples with Fit unless cfg.Pack.Overflow is
// Drop) and packs it.
func Build(ctx context.Context, path string, enc ChatEncoder, cfg Config) ([]Sequence, Stats, error) {
	var st Stats
	samples, rs, err := ReadFile(ctx, path, cfg.Filter)
	st.Read = rs
	if err != nil {
		return nil, st, err
	}
	if len(samples) == 0 {
		return nil, st, fmt.Errorf("build data from %s: no sample passed the filters (%d read)", path, rs.Samples)
	}
	Shuffle(samples, cfg.Seed)
	maxLen := 0
	if cfg.Pack.Overflow == Truncate {
		maxLen = cfg.Pack.SeqLen
	}
	examples, fs, err := TokenizeFit(ctx, enc, samples, maxLen)
	if err != nil {
		return nil, st, fmt.Errorf("build data from %s: %w", path, err)
	}
	seqs, ps, err := Pack(examples, cfg.Pack)
	ps.FitStats = fs
	st.Pack = ps
	if err != nil {
		return nil, st, fmt.Errorf("build data from %s: %w", path, err)
	}
	if len(seqs) == 0 {
		return nil, st, fmt.Errorf("build data from %s: no example fits (%d too long, %d with nothing to train)", path, ps.TooLong, ps.NothingToTrain)
	}
	return seqs, st, nil
}
