package inference

import (
	"math"
	"math/rand/v2"

	"github.com/rlm-project/rlm/model/backend"
)

// Sampling controls how the next token is chosen from the logits.
type Sampling struct {
	// Temperature divides the logits; 0 (or anything below 1e-5, as in
	// vLLM) is greedy decoding: argmax, the lowest id on ties.
	Temperature float64
	// TopK keeps the k most likely tokens; 0 keeps all.
	TopK int
	// TopP keeps the smallest set of most likely tokens whose probability
	// adds up to at least TopP (nucleus sampling); 0 or 1 keeps all.
	TopP float64
	// Seed makes sampling reproducible: the same request with the same
	// seed samples the same tokens. Nil draws a random seed.
	Seed *uint64
	// Logprobs asks for the log probability of each sampled token, and
	// TopLogprobs for that many most likely alternatives at each step.
	// Both are of the model's distribution (log-softmax of the raw logits),
	// before temperature, top-k and top-p, as vLLM reports them.
	Logprobs    bool
	TopLogprobs int
	// TemperedLogprobs reports them of the distribution sampled from
	// instead: log-softmax of the logits divided by Temperature (before
	// top-k and top-p). A policy trained on its own samples needs these.
	TemperedLogprobs bool
}

// greedyBelow is the temperature under which sampling is argmax: dividing
// by a tinier one overflows float32 logits.
const greedyBelow = 1e-5

// TokenLogprob is a token and its log probability.
type TokenLogprob struct {
	ID      int32
	Logprob float64
}

// The engine chooses tokens in two parts. sampleParams says what must be
// computed over a sequence's logits row (and takes the random draw of a
// plain sampling step); the backend computes it where the logits are
// (backend.SampleRows on the host, the GPU's own kernel on a GPU) and hands
// back a few numbers per row; choose and logprobs finish on the host. Only
// a nucleus wider than the 64 largest logits needs the whole row.

// nucleusTry is how many of the largest logits are tried first for top-k
// and top-p sampling: the nucleus usually lies within a few dozen tokens.
const nucleusTry = backend.MaxSampleTopK

// truncated reports whether s samples from fewer than all V tokens, and k,
// the most it samples from.
func truncated(s *Sampling, V int) (k int, nucleus, trunc bool) {
	k = V
	if s.TopK > 0 {
		k = min(k, s.TopK)
	}
	nucleus = s.TopP > 0 && s.TopP < 1
	return k, nucleus, k < V || nucleus
}

// sampleParams is what choosing s's next token needs from its logits row.
// A plain sampling step draws its random number here: one draw per token,
// from the sequence's own generator, so a seeded request does not depend
// on what else runs.
func sampleParams(s *Sampling, rng *rand.Rand, V int) backend.SampleParams {
	p := backend.SampleParams{Logprobs: s.Logprobs || s.TopLogprobs > 0, TopK: s.TopLogprobs}
	if s.Temperature < greedyBelow {
		return p
	}
	p.InvTemp = float32(1 / s.Temperature)
	if k, _, trunc := truncated(s, V); trunc {
		p.TopK = max(p.TopK, min(k, nucleusTry))
	} else {
		p.Walk, p.U = true, rng.Float64()
	}
	return p
}

// choose picks the token from the row's SampleResult r: greedy decoding
// and plain sampling are already done (r.ID); top-k and top-p sample from
// the largest logits, widening through row (the whole row, fetched only
// then) when the nucleus is wider than r.Top. It returns the token and its
// logit.
func choose(r backend.SampleResult, s *Sampling, rng *rand.Rand, V int, row func() []float32) (int32, float32) {
	k, nucleus, trunc := truncated(s, V)
	if s.Temperature < greedyBelow || !trunc {
		return r.ID, r.Logit
	}
	inv := float32(1 / s.Temperature)
	m := float32(r.Max * inv)
	var total float64
	if nucleus {
		total = r.SumExpTemp
	}
	try := min(k, nucleusTry)
	for {
		cs := r.Top
		if try > len(cs) {
			cs = backend.TopLogits(row(), try)
		}
		cs = cs[:try]
		ps := make([]float64, len(cs))
		var mass float64
		cut := len(cs)
		for i, c := range cs {
			ps[i] = math.Exp(float64(float32(c.Logit*inv) - m))
			mass += ps[i]
			if nucleus && mass >= s.TopP*total {
				cut = i + 1
				break
			}
		}
		if cut < len(cs) || try == k || !nucleus {
			if cut == len(cs) {
				mass = 0
				for _, p := range ps[:cut] {
					mass += p
				}
			}
			u := rng.Float64() * mass
			for i := range cut {
				u -= ps[i]
				if u <= 0 {
					return cs[i].ID, cs[i].Logit
				}
			}
			return cs[cut-1].ID, cs[cut-1].Logit
		}
		try = min(k, try*8)
	}
}

// logprobs fills t's log probability (of the logit of t.ID) and its top
// alternatives from the row's SampleResult: of the model's distribution, or
// with TemperedLogprobs of the one sampled from.
func logprobs(t *Token, logit float32, r backend.SampleResult, s *Sampling) {
	if !s.Logprobs && s.TopLogprobs == 0 {
		return
	}
	scale, lse := float32(1), 0.0
	if s.TemperedLogprobs && s.Temperature >= greedyBelow && s.Temperature != 1 {
		scale = float32(1 / s.Temperature)
		lse = r.LSETemp(scale)
	} else {
		lse = r.LSE()
	}
	t.Logprob = float64(float32(logit*scale)) - lse
	for _, c := range r.Top[:min(s.TopLogprobs, len(r.Top))] {
		t.Top = append(t.Top, TokenLogprob{ID: c.ID, Logprob: float64(float32(c.Logit*scale)) - lse})
	}
}

// sample picks the next token from a logits row on the host: the whole
// path of the engine for one row.
func sample(row []float32, s *Sampling, rng *rand.Rand) int32 {
	p := []backend.SampleParams{sampleParams(s, rng, len(row))}
	r := make([]backend.SampleResult, 1)
	backend.SampleRows(r, row, len(row), p)
	id, _ := choose(r[0], s, rng, len(row), func() []float32 { return row })
	return id
}
