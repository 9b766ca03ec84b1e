package inference

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBlockPoolPrefixAndLRU(t *testing.T) {
	p := newBlockPool(4, 2)
	seqA := []int32{1, 2, 3, 4, 5}
	// Sequence A fills two blocks and registers them.
	a0, _ := p.allocate()
	a1, _ := p.allocate()
	h0 := p.register(a0, 0, seqA[0:2])
	p.register(a1, h0, seqA[2:4])
	// While A holds them, B with the same prefix shares them.
	got, _ := p.match([]int32{1, 2, 3, 4, 9}, 2)
	if !slices.Equal(got, []int32{a0, a1}) || p.blocks[a0].refs != 2 {
		t.Fatalf("match = %v refs %d, want both of A's blocks shared", got, p.blocks[a0].refs)
	}
	// Same second block tokens after another first block: no match past it.
	if got, _ := p.match([]int32{7, 7, 3, 4}, 2); len(got) != 0 {
		t.Fatalf("matched %v across a different prefix", got)
	}
	p.release([]int32{a0, a1})
	p.release([]int32{a0, a1})
	if p.available() != 4 || p.lru.Len() != 2 {
		t.Fatalf("after release: available %d, cached %d", p.available(), p.lru.Len())
	}
	// Two free blocks go first, then the cached tail (released first), then the head.
	var order []int32
	for range 3 {
		b, ok := p.allocate()
		if !ok {
			t.Fatal("allocate failed with blocks available")
		}
		order = append(order, b)
	}
	if order[2] != a1 || p.evictions != 1 {
		t.Fatalf("allocation order %v, want A's tail %d evicted first", order, a1)
	}
	if got, _ := p.match(seqA, 2); !slices.Equal(got, []int32{a0}) {
		t.Fatalf("after evicting the tail, match = %v, want the head %d", got, a0)
	}
	if _, ok := p.allocate(); ok {
		t.Fatal("allocated with every block held")
	}
}

func TestSampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	row := []float32{0.5, 2.0, 1.0, -1.0, 2.0}
	if got := sample(row, &Sampling{}, rng); got != 1 {
		t.Errorf("greedy picked %d, want the first of the tied maxima, 1", got)
	}
	for _, s := range []Sampling{{Temperature: 1, TopK: 1}, {Temperature: 5, TopP: 0.01}} {
		for range 20 {
			if got := sample(row, &s, rng); got != 1 {
				t.Fatalf("%+v picked %d, want only 1", s, got)
			}
		}
	}
	// Frequencies follow softmax(row/T) restricted to top-k and top-p.
	check := func(s Sampling, want []float64) {
		counts := make([]float64, len(row))
		const n = 200000
		for range n {
			counts[sample(row, &s, rng)]++
		}
		for i := range want {
			if math.Abs(counts[i]/n-want[i]) > 0.005 {
				t.Errorf("%+v: token %d drawn %.4f of the time, want %.4f", s, i, counts[i]/n, want[i])
			}
		}
	}
	soft := func(ids []int, T float64) []float64 {
		out := make([]float64, len(row))
		var z float64
		for _, i := range ids {
			z += math.Exp(float64(row[i]) / T)
		}
		for _, i := range ids {
			out[i] = math.Exp(float64(row[i])/T) / z
		}
		return out
	}
	check(Sampling{Temperature: 0.7}, soft([]int{0, 1, 2, 3, 4}, 0.7))
	check(Sampling{Temperature: 1, TopK: 3}, soft([]int{1, 2, 4}, 1))
	// top_p 0.8 at T=1: 1 and 4 hold 0.38 each (0.76), so 2 joins them.
	check(Sampling{Temperature: 1, TopP: 0.8}, soft([]int{1, 2, 4}, 1))
}
