package cuda_test

import (
	"math/rand/v2"
	"testing"

	"github.com/rlm-project/rlm/training/backend"
	"github.com/rlm-project/rlm/training/backend/cuda"
)

// TestPagedOps compares the inference operations with the CPU backend: K/V
// rows scattered into shuffled cache blocks, then decode rows of three
// sequences and a prefill chunk attending over them.
func TestPagedOps(t *testing.T) {
	be := gpu(t, cuda.FP32)
	cpu := backend.CPU{}
	rng := rand.New(rand.NewPCG(5, 6))
	sh := backend.PagedShape{H: 8, KV: 2, D: 64, BlockSize: 16, MaxBlocks: 4}
	const numBlocks = 16
	rowF := sh.KV * sh.D
	blockTable := []int32{3, 9, 0, 0, 7, 1, 12, 0, 5, 0, 0, 0}
	lens := []int{20, 50, 16}
	var slots, seq, pos []int32
	for s, l := range lens {
		for j := range l {
			slots = append(slots, int32(sh.CacheRow(blockTable, s, j)))
		}
		seq, pos = append(seq, int32(s)), append(pos, int32(l-1))
	}
	for j := 30; j < 50; j++ { // a prefill chunk of sequence 1
		seq, pos = append(seq, 1), append(pos, int32(j))
	}
	kv := randFloats(rng, len(slots)*rowF, 1)
	vv := randFloats(rng, len(slots)*rowF, 1)
	q := randFloats(rng, len(pos)*sh.H*sh.D, 1)
	run := func(b backend.Backend) []float32 {
		kc, vc := b.Alloc(numBlocks*sh.BlockSize*rowF), b.Alloc(numBlocks*sh.BlockSize*rowF)
		idx := upInts(b, slots)
		b.ScatterRows(kc, up(b, kv), idx, rowF)
		b.ScatterRows(vc, up(b, vv), idx, rowF)
		out := b.Alloc(len(q))
		b.PagedAttention(out, up(b, q), kc, vc, upInts(b, blockTable), upInts(b, seq), upInts(b, pos), sh)
		return append(down(b, out), down(b, kc)...)
	}
	if e := relErr(run(cpu), run(be)); e > tolerance[cuda.FP32] {
		t.Fatalf("relative error %.3g", e)
	}
}
