package inference

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
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

// logSumExp of a logits row, accumulated in float64.
func logSumExp(row []float32) float64 {
	m := float32(math.Inf(-1))
	for _, x := range row {
		m = max(m, x)
	}
	var s float64
	for _, x := range row {
		s += math.Exp(float64(x - m))
	}
	return float64(m) + math.Log(s)
}

func argmax(row []float32) int32 {
	best := 0
	for i, x := range row {
		if x > row[best] {
			best = i
		}
	}
	return int32(best)
}

// cand is a candidate token and its (scaled) logit.
type cand struct {
	id int32
	z  float32
}

// minHeap keeps the k largest candidates seen, smallest on top.
type minHeap []cand

func (h minHeap) Len() int { return len(h) }
func (h minHeap) Less(i, j int) bool {
	return h[i].z < h[j].z || h[i].z == h[j].z && h[i].id > h[j].id
}
func (h minHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)   { *h = append(*h, x.(cand)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// topK returns the k largest logits, largest first (lowest id first on
// ties), in O(V log k).
func topK(row []float32, k int) []cand {
	k = min(k, len(row))
	if k <= 0 {
		return nil
	}
	h := make(minHeap, 0, k)
	for i, x := range row {
		c := cand{int32(i), x}
		if len(h) < k {
			heap.Push(&h, c)
		} else if c.z > h[0].z {
			h[0] = c
			heap.Fix(&h, 0)
		}
	}
	slices.SortFunc(h, func(a, b cand) int {
		if a.z != b.z {
			if a.z > b.z {
				return -1
			}
			return 1
		}
		return int(a.id - b.id)
	})
	return h
}

// sample picks the next token from a logits row. rng is the sequence's own
// generator, so a seeded request does not depend on what else runs.
func sample(row []float32, s *Sampling, rng *rand.Rand) int32 {
	if s.Temperature < greedyBelow {
		return argmax(row)
	}
	inv := float32(1 / s.Temperature)
	k := len(row)
	if s.TopK > 0 {
		k = min(k, s.TopK)
	}
	nucleus := s.TopP > 0 && s.TopP < 1
	if k == len(row) && !nucleus {
		// Plain sampling over the whole vocabulary: no sort needed.
		m := row[argmax(row)] * inv
		var total float64
		for _, x := range row {
			total += math.Exp(float64(x*inv - m))
		}
		u := rng.Float64() * total
		for i, x := range row {
			u -= math.Exp(float64(x*inv - m))
			if u <= 0 {
				return int32(i)
			}
		}
		return int32(len(row) - 1)
	}
	// The nucleus usually lies within a few dozen tokens: try the top 64,
	// and widen only when their mass falls short of top_p.
	var total float64
	m := row[argmax(row)] * inv
	if nucleus {
		for _, x := range row {
			total += math.Exp(float64(x*inv - m))
		}
	}
	try := min(k, 64)
	for {
		cs := topK(row, try)
		ps := make([]float64, len(cs))
		var mass float64
		cut := len(cs)
		for i, c := range cs {
			ps[i] = math.Exp(float64(c.z*inv - m))
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
					return cs[i].id
				}
			}
			return cs[cut-1].id
		}
		try = min(k, try*8)
	}
}
