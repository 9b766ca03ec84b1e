package data

import (
	"fmt"
	"slices"

	"github.com/rlm-project/rlm/model/tokenizer"
)

// OutputCutMarker replaces the content of a feedback turn (REPL output) that
// Fit dropped.
const OutputCutMarker = "[old REPL output cut to fit the sequence length]"

// elisionMarker stands in for the middle of a message Fit shortened.
func elisionMarker(runes int) string {
	return fmt.Sprintf("\n[... %d chars cut ...]\n", runes)
}

// FitStats counts what Fit cut.
type FitStats struct {
	Truncated      int // samples shortened
	OutputsCut     int // feedback turns (REPL outputs) replaced by OutputCutMarker
	MessagesElided int // messages shortened in the middle
	TokensCut      int
}

func (s *FitStats) add(o FitStats) {
	s.Truncated += o.Truncated
	s.OutputsCut += o.OutputsCut
	s.MessagesElided += o.MessagesElided
	s.TokensCut += o.TokensCut
}

// Fit tokenizes s and, when it is longer than maxLen tokens (0: no limit),
// shortens it from the middle so the parts that matter survive: the system
// prompt, the question (the first user message) and every trained assistant
// turn are never dropped. First the feedback turns (user and tool messages
// between the question and the last trained turn, the REPL outputs) are
// replaced by OutputCutMarker, oldest first; if that is not enough, the
// middle of the longest untrained message is replaced by a marker saying how
// much was cut (the smallest cut that fits, found by bisection), then the
// next longest. The sample is re-encoded after every cut, so the
// loss mask always comes from the encoder and stays aligned with the ids.
// When even that does not fit (the trained turns alone are too long), Fit
// returns the whole sample, reporting no cut, and the caller drops it.
func Fit(enc ChatEncoder, s Sample, maxLen int) (Example, FitStats, error) {
	encode := func(msgs []Message) (Example, error) {
		ids, mask, err := enc.EncodeChat(Sample{Messages: msgs}.ChatMessages())
		return Example{ID: s.ID, IDs: ids, Mask: mask}, err
	}
	ex, err := encode(s.Messages)
	if err != nil || maxLen <= 0 || len(ex.IDs) <= maxLen {
		return ex, FitStats{}, err
	}
	full := len(ex.IDs)
	st := FitStats{Truncated: 1}
	msgs := slices.Clone(s.Messages)
	question := slices.IndexFunc(msgs, func(m Message) bool { return m.Role == tokenizer.RoleUser })
	lastTrained := -1
	for i, m := range msgs {
		if m.Trained() {
			lastTrained = i
		}
	}
	if question >= 0 {
		for i := question + 1; i < lastTrained && len(ex.IDs) > maxLen; i++ {
			if r := msgs[i].Role; r != tokenizer.RoleUser && r != tokenizer.RoleTool {
				continue
			}
			msgs[i].Content = OutputCutMarker
			st.OutputsCut++
			if ex, err = encode(msgs); err != nil {
				return ex, st, err
			}
		}
	}
	// Elide the middle of the longest untrained message. The cut is sized
	// from the sample's characters per token and grown until it fits.
	orig := make([][]rune, len(msgs))
	cut := make([]int, len(msgs))
	for i, m := range msgs {
		orig[i] = []rune(m.Content)
	}
	// A message shorter than the marker and a little more is not worth
	// cutting: the marker would make it longer.
	worth := len(elisionMarker(len(orig)*1000)) + 16
	for len(ex.IDs) > maxLen {
		best := -1
		for i, m := range msgs {
			if m.Trained() || m.Content == OutputCutMarker || len(orig[i])-cut[i] < worth {
				continue
			}
			if best < 0 || len(orig[i])-cut[i] > len(orig[best])-cut[best] {
				best = i
			}
		}
		if best < 0 {
			break // only trained turns are left to cut
		}
		if cut[best] == 0 {
			st.MessagesElided++
		}
		// The smallest cut of this message that fits, by bisection; the
		// whole message when even that is not enough.
		r := orig[best]
		elide := func(n int) (Example, error) {
			head := (len(r) - n) / 2
			msgs[best].Content = string(r[:head]) + elisionMarker(n) + string(r[head+n:])
			return encode(msgs)
		}
		if ex, err = elide(len(r)); err != nil {
			return ex, st, err
		}
		if len(ex.IDs) > maxLen {
			cut[best] = len(r)
			continue
		}
		lo, hi := cut[best], len(r) // elide(lo) is too long, elide(hi) fits
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if ex, err = elide(mid); err != nil {
				return ex, st, err
			}
			if len(ex.IDs) > maxLen {
				lo = mid
			} else {
				hi = mid
			}
		}
		cut[best] = hi
		if ex, err = elide(hi); err != nil {
			return ex, st, err
		}
	}
	if len(ex.IDs) > maxLen {
		// It cannot fit: return the sample as it was, for Pack to drop
		// and count as too long.
		ex, err = encode(s.Messages)
		return ex, FitStats{}, err
	}
	st.TokensCut = full - len(ex.IDs)
	return ex, st, nil
}
