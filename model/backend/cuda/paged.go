//go:build linux && (amd64 || arm64)

package cuda

import (
	"math"

	"github.com/rlm-project/rlm/model/backend"
)

// Inference over the paged KV cache runs on the device (kernels/paged.cuh):
// a step uploads its token ids, positions and block table once, and no
// layer moves cache rows or waits for the host.
//
// PagedAttention takes one of two routes per query row. Rows of a prefill
// that starts at position 0 (a new prompt, nothing cached) attend only to
// the step's own keys, so in BF16 mode they go through the tensor-core
// attention of training, with the step's rows packed as segments of one
// sequence; every other row (decode steps, prompts continuing a cached
// prefix) goes through paged_attn, float32 on CUDA cores, which reads the
// cache through the block table and splits long contexts into partitions
// merged by paged_attn_combine.

func (be *Backend) ScatterRows(dst, src backend.Buffer, idx backend.Ints, C int) {
	defer be.enter()()
	defer be.wrote(fb(dst))
	N := ib(idx).n
	if N == 0 {
		return
	}
	be.elementwise(be.k.scatterRows, N*C, ptrArg(fb(dst).ptr()), ptrArg(fb(src).ptr()), ptrArg(ib(idx).ptr()),
		i64Arg(N), i32Arg(C))
}

// hostInts returns the host's copy of x (see allocation.mirror).
func hostInts(x *ints) []int32 { return x.a.mirror[x.off : x.off+x.n] }

// pagedPlan is how PagedAttention runs one set of rows; attention is called
// once per layer with the same seq and pos, so the plan is made once.
type pagedPlan struct {
	seqA, posA       *allocation
	seqV, posV       uint64
	seqOff, posOff   int
	n                int
	sh               backend.PagedShape
	packed           bool        // fresh prefills go through the tensor-core attention
	rest             *allocation // the rows paged_attn computes when packed
	nRest, maxCtx, P int
}

func (be *Backend) planPaged(seq, pos *ints, sh backend.PagedShape) *pagedPlan {
	p := be.paged
	if p != nil && p.seqA == seq.a && p.posA == pos.a && p.seqV == seq.a.version && p.posV == pos.a.version &&
		p.seqOff == seq.off && p.posOff == pos.off && p.n == pos.n && p.sh == sh {
		return p
	}
	if p != nil && p.rest != nil {
		be.free(p.rest)
	}
	sq, ps := hostInts(seq), hostInts(pos)
	N := len(ps)
	p = &pagedPlan{seqA: seq.a, posA: pos.a, seqV: seq.a.version, posV: pos.a.version, seqOff: seq.off,
		posOff: pos.off, n: N, sh: sh}
	// A fresh run is a sequence's rows at positions 0, 1, 2, ... in order.
	fresh := make([]bool, N)
	nFresh := 0
	for i := 0; i < N; {
		j := i + 1
		for j < N && sq[j] == sq[i] {
			j++
		}
		ok := ps[i] == 0
		for k := i + 1; ok && k < j; k++ {
			ok = ps[k] == ps[k-1]+1
		}
		if ok {
			for k := i; k < j; k++ {
				fresh[k] = true
			}
			nFresh += j - i
		}
		i = j
	}
	p.packed = be.tensorCoreAttention(sh.D) && nFresh >= 16
	var rest []int32
	for n := range N {
		if !p.packed || !fresh[n] {
			rest = append(rest, int32(n))
			p.maxCtx = max(p.maxCtx, int(ps[n])+1)
		}
	}
	p.nRest = len(rest)
	if p.packed && len(rest) > 0 {
		p.rest = be.alloc(uint64(4 * len(rest)))
		be.upload(p.rest.ptr, rest)
	}
	// Partitions of P keys: up to 512, fewer when the launch would not
	// fill the GPU (a small batch over long contexts).
	G := sh.H / sh.KV
	p.P = 512
	for p.P > 32 && pagedSmem(G, sh.D, p.P) > 48<<10 {
		p.P /= 2
	}
	parts := func(P int) int { return (p.maxCtx + P - 1) / P }
	for p.P > 64 && p.nRest*sh.KV*parts(p.P) < 2*be.sms {
		p.P /= 2
	}
	be.paged = p
	return p
}

func pagedSmem(G, D, P int) int { return 4 * (G*D + G*P + 2*G) }

func (be *Backend) PagedAttention(out, q, kCache, vCache backend.Buffer, blockTable, seq, pos backend.Ints, sh backend.PagedShape) {
	defer be.enter()()
	defer be.wrote(fb(out))
	N := ib(pos).n
	if N == 0 {
		return
	}
	be.checkF32Attention(sh.D)
	plan := be.planPaged(ib(seq), ib(pos), sh)
	btp, sqp, psp := ib(blockTable).ptr(), ib(seq).ptr(), ib(pos).ptr()
	var rows uint64 // all N rows
	if plan.packed {
		C := sh.KV * sh.D
		kg, vg := be.scratchView("paged.k", N*C), be.scratchView("paged.v", N*C)
		for _, g := range []struct{ dst, cache *buffer }{{kg, fb(kCache)}, {vg, fb(vCache)}} {
			be.elementwise(be.k.gatherPagedRows, N*C, ptrArg(g.dst.ptr()), ptrArg(g.cache.ptr()), ptrArg(btp),
				ptrArg(sqp), ptrArg(psp), i64Arg(N), i32Arg(C), i32Arg(sh.BlockSize), i32Arg(sh.MaxBlocks))
			be.wrote(g.dst)
		}
		lse := be.scratchBuf("paged.lse", uint64(4*N*sh.H))
		be.attentionForward(fb(out).ptr(), lse, fb(q), kg, vg, ib(seq),
			backend.AttnShape{B: 1, T: N, H: sh.H, KV: sh.KV, D: sh.D})
		if plan.nRest == 0 {
			return
		}
		rows = plan.rest.ptr
	}
	G := sh.H / sh.KV
	nparts := (plan.maxCtx + plan.P - 1) / plan.P
	var partML, partO uint64
	if nparts > 1 {
		partML = be.scratchBuf("paged.ml", uint64(4*2*plan.nRest*sh.H*nparts))
		partO = be.scratchBuf("paged.o", uint64(4*plan.nRest*sh.H*nparts*sh.D))
	}
	threads := be.k.pagedAttn.threads(min(512, max(128, G*sh.D+31)))
	scale := float32(1 / math.Sqrt(float64(sh.D)))
	be.launch(be.k.pagedAttn, dim3{uint32(plan.nRest), uint32(sh.KV), uint32(nparts)}, dim3{uint32(threads), 1, 1},
		pagedSmem(G, sh.D, plan.P), ptrArg(fb(out).ptr()), ptrArg(partML), ptrArg(partO), ptrArg(fb(q).ptr()),
		ptrArg(fb(kCache).ptr()), ptrArg(fb(vCache).ptr()), ptrArg(btp), ptrArg(sqp), ptrArg(psp), ptrArg(rows),
		i32Arg(sh.H), i32Arg(sh.KV), i32Arg(sh.D), i32Arg(sh.BlockSize), i32Arg(sh.MaxBlocks), i32Arg(plan.P),
		i32Arg(nparts), f32Arg(scale))
	if nparts > 1 {
		be.launch(be.k.pagedAttnCombine, dim3{uint32(plan.nRest), uint32(sh.H), 1}, dim3{uint32(min(256, (sh.D+31)/32*32)), 1, 1},
			0, ptrArg(fb(out).ptr()), ptrArg(partML), ptrArg(partO), ptrArg(psp), ptrArg(rows), i32Arg(sh.H),
			i32Arg(sh.D), i32Arg(plan.P), i32Arg(nparts))
	}
}

// scratchView is scratchBuf as a float buffer, for the operations that take
// buffers (the bf16 copies are keyed by buffer); the caller holds be.mu.
func (be *Backend) scratchView(name string, n int) *buffer {
	be.scratchBuf(name, uint64(4*n))
	return &buffer{a: be.scratch[name], n: n}
}

// upload copies host ints to device memory; the caller holds be.mu.
func (be *Backend) upload(dst uint64, src []int32) {
	if len(src) > 0 {
		be.drv.check(be.drv.cuMemcpyHtoD(dst, unsafeInts(src), uint64(4*len(src))), "upload %d ints", len(src))
	}
}
