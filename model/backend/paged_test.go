package backend

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestScatterRowsInvertsEmbedding(t *testing.T) {
	const C = 3
	src := []float64{1, 2, 3, 4, 5, 6}
	dst := make([]float64, 5*C)
	idx := []int32{4, 1}
	ScatterRows(dst, src, idx, C)
	back := make([]float64, len(src))
	Embedding(back, dst, idx, C)
	for i := range src {
		if back[i] != src[i] {
			t.Fatalf("gather after scatter: %v, want %v", back, src)
		}
	}
	for _, r := range []int{0, 2, 3} {
		for c := range C {
			if dst[r*C+c] != 0 {
				t.Fatalf("row %d written: %v", r, dst)
			}
		}
	}
}

// pagedCase is a paged KV cache holding sequences of the given lengths in
// shuffled blocks, with the contiguous K and V of each sequence kept aside.
type pagedCase struct {
	sh         PagedShape
	kc, vc     []float64
	blockTable []int32
	k, v       [][]float64 // per sequence, len×KV×D
}

func newPagedCase(rng *rand.Rand, lens []int, sh PagedShape) pagedCase {
	KVD := sh.KV * sh.D
	total := 0
	for _, l := range lens {
		sh.MaxBlocks = max(sh.MaxBlocks, (l+sh.BlockSize-1)/sh.BlockSize)
		total += (l + sh.BlockSize - 1) / sh.BlockSize
	}
	numBlocks := total + 3 // a few blocks nobody uses
	perm := rng.Perm(numBlocks)
	c := pagedCase{sh: sh, blockTable: make([]int32, len(lens)*sh.MaxBlocks)}
	c.kc = randVec(rng, numBlocks*sh.BlockSize*KVD, 1) // garbage where unused
	c.vc = randVec(rng, numBlocks*sh.BlockSize*KVD, 1)
	next := 0
	for s, l := range lens {
		for b := range (l + sh.BlockSize - 1) / sh.BlockSize {
			c.blockTable[s*sh.MaxBlocks+b] = int32(perm[next])
			next++
		}
		k, v := randVec(rng, l*KVD, 1), randVec(rng, l*KVD, 1)
		rows := make([]int32, l)
		for j := range l {
			rows[j] = int32(sh.CacheRow(c.blockTable, s, j))
		}
		ScatterRows(c.kc, k, rows, KVD)
		ScatterRows(c.vc, v, rows, KVD)
		c.k, c.v = append(c.k, k), append(c.v, v)
	}
	return c
}

// TestPagedAttentionMatchesAttention checks the paged kernel against the
// training Attention on the same sequence laid out contiguously: every
// position of every sequence, queried in one mixed call, must get the row
// Attention computes for it.
func TestPagedAttentionMatchesAttention(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	sh := PagedShape{H: 4, KV: 2, D: 6, BlockSize: 4}
	lens := []int{9, 1, 16, 5}
	c := newPagedCase(rng, lens, sh)
	sh = c.sh
	HD := sh.H * sh.D
	var seq, pos []int32
	var q []float64
	var want []float64
	for s, l := range lens {
		qs := randVec(rng, l*HD, 1)
		out, lse := make([]float64, l*HD), make([]float64, sh.H*l)
		Attention(out, lse, qs, c.k[s], c.v[s], make([]int32, l), AttnShape{B: 1, T: l, H: sh.H, KV: sh.KV, D: sh.D})
		for j := range l {
			seq, pos = append(seq, int32(s)), append(pos, int32(j))
		}
		q, want = append(q, qs...), append(want, out...)
	}
	got := make([]float64, len(want))
	PagedAttention(got, q, c.kc, c.vc, c.blockTable, seq, pos, sh)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("element %d: paged %g, contiguous %g", i, got[i], want[i])
		}
	}
}

// TestPagedAttentionF32MatchesReference runs the CPU kernel on a mix of
// decode rows (one per sequence), a prefill chunk that continues a cached
// prefix, and a chunk longer than one attention tile.
func TestPagedAttentionF32MatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, tc := range []struct {
		name string
		sh   PagedShape
		lens []int
		rows func(lens []int) (seq, pos []int32)
	}{
		{"decode", PagedShape{H: 8, KV: 2, D: 16, BlockSize: 16}, []int{1, 17, 40, 33},
			func(lens []int) (seq, pos []int32) {
				for s, l := range lens {
					seq, pos = append(seq, int32(s)), append(pos, int32(l-1))
				}
				return
			}},
		{"prefill after prefix", PagedShape{H: 4, KV: 4, D: 8, BlockSize: 4}, []int{23, 7},
			func(lens []int) (seq, pos []int32) {
				for j := 10; j < 23; j++ { // positions 0..9 were cached earlier
					seq, pos = append(seq, 0), append(pos, int32(j))
				}
				return append(seq, 1), append(pos, 6)
			}},
		{"long chunk", PagedShape{H: 2, KV: 1, D: 16, BlockSize: 16}, []int{300},
			func(lens []int) (seq, pos []int32) {
				for j := range 300 {
					seq, pos = append(seq, 0), append(pos, int32(j))
				}
				return
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newPagedCase(rng, tc.lens, tc.sh)
			sh := c.sh
			seq, pos := tc.rows(tc.lens)
			q := randVec(rng, len(pos)*sh.H*sh.D, 1)
			want := make([]float64, len(q))
			PagedAttention(want, q, c.kc, c.vc, c.blockTable, seq, pos, sh)
			got := make([]float32, len(q))
			CPU{}.PagedAttention(F32(got), F32(to32(q)), F32(to32(c.kc)), F32(to32(c.vc)),
				I32(c.blockTable), I32(seq), I32(pos), sh)
			var num, den float64
			for i := range want {
				d := float64(got[i]) - want[i]
				num += d * d
				den += want[i] * want[i]
			}
			if rel := math.Sqrt(num / den); rel > 1e-6 {
				t.Fatalf("relative error %.3g", rel)
			}
		})
	}
}

func to32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}
