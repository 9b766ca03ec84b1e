package cuda_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rlm-project/rlm/model/backend"
	"github.com/rlm-project/rlm/model/backend/cuda"
)

// pagedCase is a set of sequences in a shuffled block cache and the query
// rows of one step over them.
type pagedCase struct {
	name       string
	sh         backend.PagedShape
	numBlocks  int
	blockTable []int32
	lens       []int    // cached tokens of each sequence
	runs       [][3]int // query rows: sequence, first position, count
	prec       cuda.Precision
}

// TestPagedOps compares the inference operations with the CPU backend: K/V
// rows scattered into shuffled cache blocks, then query rows attending over
// them: decode rows, prefill chunks continuing a cached prefix, fresh
// prefills (the tensor-core route in BF16), long contexts split into
// partitions, and GQA groups of 1 to 8.
func TestPagedOps(t *testing.T) {
	cases := []pagedCase{
		{name: "decode+chunk", sh: backend.PagedShape{H: 8, KV: 2, D: 64, BlockSize: 16, MaxBlocks: 4}, numBlocks: 16,
			blockTable: []int32{3, 9, 0, 0, 7, 1, 12, 0, 5, 0, 0, 0}, lens: []int{20, 50, 16},
			runs: [][3]int{{0, 19, 1}, {1, 30, 20}, {2, 15, 1}}, prec: cuda.FP32},
		{name: "long-context-partitions", sh: backend.PagedShape{H: 4, KV: 4, D: 128, BlockSize: 16, MaxBlocks: 120},
			numBlocks: 240, lens: []int{1900, 700}, runs: [][3]int{{0, 1899, 1}, {1, 699, 1}}, prec: cuda.FP32},
		{name: "gqa8-d32", sh: backend.PagedShape{H: 16, KV: 2, D: 32, BlockSize: 8, MaxBlocks: 40}, numBlocks: 90,
			lens: []int{300, 33}, runs: [][3]int{{0, 299, 1}, {1, 0, 33}}, prec: cuda.FP32},
		{name: "fresh-prefill-bf16", sh: backend.PagedShape{H: 8, KV: 4, D: 128, BlockSize: 16, MaxBlocks: 8},
			numBlocks: 40, lens: []int{100, 40, 77}, runs: [][3]int{{0, 0, 100}, {1, 39, 1}, {2, 60, 17}}, prec: cuda.BF16},
		{name: "fresh-prefill-fp32", sh: backend.PagedShape{H: 8, KV: 4, D: 64, BlockSize: 16, MaxBlocks: 8},
			numBlocks: 40, lens: []int{100, 40}, runs: [][3]int{{0, 0, 100}, {1, 39, 1}}, prec: cuda.FP32},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			be := gpu(t, c.prec)
			rng := rand.New(rand.NewPCG(5, 6))
			if c.blockTable == nil {
				c.blockTable = shuffledBlocks(rng, c.numBlocks, c.sh.MaxBlocks, len(c.lens))
			}
			wantOut, wantK := runPaged(backend.CPU{}, c, 5)
			gotOut, gotK := runPaged(be, c, 5)
			tol := map[cuda.Precision]float64{cuda.FP32: 1e-5, cuda.BF16: 2e-2}[c.prec]
			if e := relErr(wantK, gotK); e != 0 {
				t.Errorf("K cache after the scatter: relative error %.3g", e)
			}
			if e := relErr(wantOut, gotOut); e > tol {
				t.Fatalf("attention: relative error %.3g > %.3g", e, tol)
			} else {
				t.Logf("attention: relative error %.2g", e)
			}
		})
	}
}

// shuffledBlocks gives each of S sequences maxBlocks distinct blocks in a
// random order of the cache.
func shuffledBlocks(rng *rand.Rand, numBlocks, maxBlocks, S int) []int32 {
	perm := rng.Perm(numBlocks)
	bt := make([]int32, S*maxBlocks)
	for i := range bt {
		bt[i] = int32(perm[i%len(perm)])
	}
	return bt
}

// runPaged scatters the cached tokens' K and V, runs PagedAttention for the
// query rows and returns the output and the K cache.
func runPaged(b backend.Backend, c pagedCase, seed uint64) (out, kCache []float32) {
	rng := rand.New(rand.NewPCG(seed, 7))
	sh := c.sh
	rowF := sh.KV * sh.D
	var slots, seq, pos []int32
	for s, l := range c.lens {
		for j := range l {
			slots = append(slots, int32(sh.CacheRow(c.blockTable, s, j)))
		}
	}
	for _, r := range c.runs {
		for j := r[1]; j < r[1]+r[2]; j++ {
			seq, pos = append(seq, int32(r[0])), append(pos, int32(j))
		}
	}
	kv := randFloats(rng, len(slots)*rowF, 1)
	vv := randFloats(rng, len(slots)*rowF, 1)
	q := randFloats(rng, len(pos)*sh.H*sh.D, 1)
	kc, vc := b.Alloc(c.numBlocks*sh.BlockSize*rowF), b.Alloc(c.numBlocks*sh.BlockSize*rowF)
	idx := upInts(b, slots)
	b.ScatterRows(kc, up(b, kv), idx, rowF)
	b.ScatterRows(vc, up(b, vv), idx, rowF)
	o := b.Alloc(len(q))
	b.PagedAttention(o, up(b, q), kc, vc, upInts(b, c.blockTable), upInts(b, seq), upInts(b, pos), sh)
	return down(b, o), down(b, kc)
}

// TestSampleRows compares the device's choice of tokens with the reference
// of backend.SampleRows: greedy rows with tied maxima, draws at many
// temperatures and points of the distribution (the two sides must pick the
// same id), top-K lists with ties, and the sums behind the logprobs.
func TestSampleRows(t *testing.T) {
	be := gpu(t, cuda.FP32)
	for _, V := range []int{7, 2048, 151936} {
		t.Run(fmt.Sprint("V=", V), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(V), 3))
			const rows = 24
			logits := randFloats(rng, rows*V, 3)
			// Ties: row 1's maximum twice, row 2 all equal, row 3 with -Inf.
			logits[1*V+V/2], logits[1*V+V/3] = 50, 50
			for i := range V {
				logits[2*V+i] = 0.25
			}
			logits[3*V] = float32(math.Inf(-1))
			params := make([]backend.SampleParams, rows)
			for r := range params {
				p := backend.SampleParams{TopK: []int{0, 1, 5, 20, 64}[r%5], Logprobs: r%2 == 0}
				if r >= 4 {
					p.InvTemp = float32(1 / []float64{0.3, 0.7, 1, 1.5}[r%4])
					p.Walk = r%3 != 0
					p.U = rng.Float64()
				}
				if r == 5 {
					p.U = 0.999999999
				}
				params[r] = p
			}
			want := make([]backend.SampleResult, rows)
			backend.SampleRows(want, logits, V, params)
			got := make([]backend.SampleResult, rows)
			be.SampleRows(got, up(be, logits), V, params)
			for r := range rows {
				w, g := want[r], got[r]
				if g.ID != w.ID || g.Logit != w.Logit || g.Max != w.Max {
					t.Errorf("row %d (%+v): id %d logit %g max %g, reference %d %g %g", r, params[r], g.ID, g.Logit, g.Max, w.ID, w.Logit, w.Max)
				}
				if params[r].Logprobs && math.Abs(g.SumExp-w.SumExp) > 1e-12*w.SumExp {
					t.Errorf("row %d: Σexp %.17g, reference %.17g", r, g.SumExp, w.SumExp)
				}
				if params[r].InvTemp > 0 && math.Abs(g.SumExpTemp-w.SumExpTemp) > 1e-12*w.SumExpTemp {
					t.Errorf("row %d: Σexp tempered %.17g, reference %.17g", r, g.SumExpTemp, w.SumExpTemp)
				}
				if fmt.Sprint(g.Top) != fmt.Sprint(w.Top) {
					t.Errorf("row %d: top %v, reference %v", r, g.Top, w.Top)
				}
			}
		})
	}
}
