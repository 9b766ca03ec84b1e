package data

import (
	"context"
	"fmt"
	"math"
)

// Config is the whole data pipeline of the SFT trainer.
type Config struct {
	Filter Filter
	Pack   PackConfig
	// Seed orders the samples before packing (Shuffle) and picks the
	// validation samples; the same seed and file give the same sequences.
	Seed uint64
	// ValFraction of the samples are held out for the validation loss,
	// never trained on. Negative means AutoValFraction.
	ValFraction float64
}

// AutoValFraction is the validation fraction of ValFraction < 0: 5% when
// there are at least AutoValMinSamples samples, else none (a handful of
// samples is better spent on training).
const (
	AutoValFraction   = 0.05
	AutoValMinSamples = 20
)

// Dataset is the packed data of a run.
type Dataset struct {
	Train []Sequence
	Val   []Sequence // held-out samples; empty without a validation split
	// ValIDs are the ids of the held-out samples, in order.
	ValIDs []string
}

// Stats reports each step of Build.
type Stats struct {
	Read       ReadStats
	Pack       PackStats // the training samples
	ValSamples int
	Val        PackStats // the validation samples
}

// valCount is how many of n samples the fraction f holds out: at least one
// when f > 0, and never all of them.
func valCount(n int, f float64) int {
	if f < 0 {
		f = 0
		if n >= AutoValMinSamples {
			f = AutoValFraction
		}
	}
	if f <= 0 || n < 2 {
		return 0
	}
	return min(max(int(math.Round(f*float64(n))), 1), n-1)
}

// Build reads the JSONL file at path, filters, shuffles by cfg.Seed, holds
// out the last cfg.ValFraction of the shuffled samples for validation,
// tokenizes (shortening long samples with Fit unless cfg.Pack.Overflow is
// Drop) and packs each part.
func Build(ctx context.Context, path string, enc ChatEncoder, cfg Config) (Dataset, Stats, error) {
	var st Stats
	var ds Dataset
	samples, rs, err := ReadFile(ctx, path, cfg.Filter)
	st.Read = rs
	if err != nil {
		return ds, st, err
	}
	if len(samples) == 0 {
		return ds, st, fmt.Errorf("build data from %s: no sample passed the filters (%d read)", path, rs.Samples)
	}
	if cfg.ValFraction >= 1 {
		return ds, st, fmt.Errorf("build data from %s: validation fraction %g leaves nothing to train on", path, cfg.ValFraction)
	}
	Shuffle(samples, cfg.Seed)
	nVal := valCount(len(samples), cfg.ValFraction)
	train, val := samples[:len(samples)-nVal], samples[len(samples)-nVal:]
	st.ValSamples = nVal
	for _, s := range val {
		ds.ValIDs = append(ds.ValIDs, s.ID)
	}
	pack := func(samples []Sample) ([]Sequence, PackStats, error) {
		maxLen := 0
		if cfg.Pack.Overflow == Truncate {
			maxLen = cfg.Pack.SeqLen
		}
		examples, fs, err := TokenizeFit(ctx, enc, samples, maxLen)
		if err != nil {
			return nil, PackStats{}, err
		}
		seqs, ps, err := Pack(examples, cfg.Pack)
		ps.FitStats = fs
		return seqs, ps, err
	}
	if ds.Train, st.Pack, err = pack(train); err != nil {
		return ds, st, fmt.Errorf("build data from %s: %w", path, err)
	}
	if len(ds.Train) == 0 {
		return ds, st, fmt.Errorf("build data from %s: no example fits (%d too long, %d with nothing to train)", path, st.Pack.TooLong, st.Pack.NothingToTrain)
	}
	if nVal > 0 {
		if ds.Val, st.Val, err = pack(val); err != nil {
			return ds, st, fmt.Errorf("build data from %s: validation: %w", path, err)
		}
	}
	return ds, st, nil
}
