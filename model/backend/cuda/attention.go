//go:build linux && (amd64 || arm64)

package cuda

import (
	"math"

	"github.com/rlm-project/rlm/model/backend"
)

// segBoundsCache keeps the first/last position of every position's segment
// for the segment ids last seen: the model calls attention once per layer
// (and once more per layer backwards) with the same ids.
type segBoundsCache struct {
	ptr       uint64
	n         int
	version   uint64
	alloc     *allocation // keeps the ids' block from being reused while cached
	first     uint64
	last      uint64
	scratch   *allocation
	populated bool
}

// segBounds returns device arrays first and last (B·T ints each); the caller
// holds be.mu.
func (be *Backend) segBounds(seg *ints, B, T int) (first, last uint64) {
	c := &be.segCache
	if c.populated && c.ptr == seg.ptr() && c.n == seg.n && c.alloc == seg.a && c.version == seg.a.version {
		return c.first, c.last
	}
	N := B * T
	if c.scratch == nil || c.scratch.bytes < uint64(8*N) {
		if c.scratch != nil {
			be.free(c.scratch)
		}
		c.scratch = be.alloc(uint64(8 * N))
	}
	c.first, c.last = c.scratch.ptr, c.scratch.ptr+uint64(4*N)
	be.elementwise(be.k.segBounds, N, ptrArg(c.first), ptrArg(c.last), ptrArg(seg.ptr()), i32Arg(B), i32Arg(T))
	c.ptr, c.n, c.alloc, c.version, c.populated = seg.ptr(), seg.n, seg.a, seg.a.version, true
	return c.first, c.last
}

// tensorCoreAttention reports whether attention runs the bf16 tensor-core
// kernels (head sizes 64 and 128, any precision but FP32).
func (be *Backend) tensorCoreAttention(D int) bool {
	return be.opts.Precision != FP32 && (D == 64 || D == 128)
}

func (be *Backend) Attention(out, lse, q, k, v backend.Buffer, seg backend.Ints, sh backend.AttnShape) {
	defer be.enter()()
	defer be.wrote(fb(out), fb(lse))
	be.attentionForward(fb(out).outPtr(), fb(lse).outPtr(), fb(q), fb(k), fb(v), ib(seg), sh)
}

// attentionForward is Attention into device pointers o and l; the caller
// holds be.mu.
func (be *Backend) attentionForward(o, l uint64, q, k, v *buffer, seg *ints, sh backend.AttnShape) {
	first, _ := be.segBounds(seg, sh.B, sh.T)
	scale := float32(1 / math.Sqrt(float64(sh.D)))
	sp := seg.ptr()
	if be.tensorCoreAttention(sh.D) {
		qb, kb, vb := be.bf16Of(q), be.bf16Of(k), be.bf16Of(v)
		be.launch(be.attnKernels(sh.D).fwd, dim3{uint32((sh.T + 127) / 128), uint32(sh.B * sh.H), 1}, dim3{256, 1, 1}, attnFwdSmem(sh.D),
			ptrArg(o), ptrArg(l), ptrArg(qb), ptrArg(kb), ptrArg(vb), ptrArg(sp), ptrArg(first),
			i32Arg(sh.T), i32Arg(sh.H), i32Arg(sh.KV), f32Arg(scale))
		return
	}
	be.checkF32Attention(sh.D)
	qp, kp, vp := q.ptr(), k.ptr(), v.ptr()
	grid, block := rowsLaunch(sh.B * sh.H * sh.T)
	be.launch(be.k.attnFwdF32, grid, block, 0, ptrArg(o), ptrArg(l), ptrArg(qp), ptrArg(kp), ptrArg(vp),
		ptrArg(sp), ptrArg(first), i32Arg(sh.B), i32Arg(sh.T), i32Arg(sh.H), i32Arg(sh.KV), i32Arg(sh.D), f32Arg(scale))
}

func (be *Backend) checkF32Attention(D int) {
	if D > 256 {
		panic(&Error{Op: "attention", Name: "head size over 256 is not supported"})
	}
}

func (be *Backend) AttentionBackward(dq, dk, dv, dout, out, lse, q, k, v backend.Buffer, seg backend.Ints, sh backend.AttnShape) {
	defer be.enter()()
	defer be.wrote(fb(dq), fb(dk), fb(dv))
	first, last := be.segBounds(ib(seg), sh.B, sh.T)
	scale := float32(1 / math.Sqrt(float64(sh.D)))
	rows := sh.B * sh.H * sh.T
	di := be.scratchBuf("attn.di", uint64(4*rows))
	grid, block := rowsLaunch(rows)
	be.launch(be.k.attnBwdDi, grid, block, 0, ptrArg(di), ptrArg(fb(dout).ptr()), ptrArg(fb(out).ptr()),
		i32Arg(sh.B), i32Arg(sh.T), i32Arg(sh.H), i32Arg(sh.D))
	dqp, dkp, dvp, dop, lp := fb(dq).ptr(), fb(dk).ptr(), fb(dv).ptr(), fb(dout).ptr(), fb(lse).ptr()
	sp := ib(seg).ptr()
	if be.tensorCoreAttention(sh.D) {
		qb, kb, vb, dob := be.bf16Of(fb(q)), be.bf16Of(fb(k)), be.bf16Of(fb(v)), be.bf16Of(fb(dout))
		ak := be.attnKernels(sh.D)
		if be.fusedAttnBackward {
			be.launch(ak.fused, dim3{uint32((sh.T + 63) / 64), uint32(sh.B * sh.KV), 1}, dim3{128, 1, 1},
				attnFusedSmem(sh.D), ptrArg(dkp), ptrArg(dvp), ptrArg(dqp), ptrArg(di), ptrArg(dob), ptrArg(lp),
				ptrArg(qb), ptrArg(kb), ptrArg(vb), ptrArg(sp), ptrArg(last), i32Arg(sh.T), i32Arg(sh.H),
				i32Arg(sh.KV), f32Arg(scale))
			return
		}
		be.launch(ak.dq, dim3{uint32((sh.T + 63) / 64), uint32(sh.B * sh.H), 1}, dim3{128, 1, 1}, attnDqSmem(sh.D),
			ptrArg(dqp), ptrArg(di), ptrArg(dob), ptrArg(lp), ptrArg(qb), ptrArg(kb), ptrArg(vb), ptrArg(sp),
			ptrArg(first), i32Arg(sh.T), i32Arg(sh.H), i32Arg(sh.KV), f32Arg(scale))
		be.launch(ak.dkdv, dim3{uint32((sh.T + 63) / 64), uint32(sh.B * sh.KV), 1}, dim3{128, 1, 1}, attnDkdvSmem(sh.D),
			ptrArg(dkp), ptrArg(dvp), ptrArg(di), ptrArg(dob), ptrArg(lp), ptrArg(qb), ptrArg(kb), ptrArg(vb),
			ptrArg(sp), ptrArg(last), i32Arg(sh.T), i32Arg(sh.H), i32Arg(sh.KV), f32Arg(scale))
		return
	}
	be.checkF32Attention(sh.D)
	qp, kp, vp := fb(q).ptr(), fb(k).ptr(), fb(v).ptr()
	be.launch(be.k.attnBwdDqF32, grid, block, 0, ptrArg(dqp), ptrArg(di), ptrArg(dop), ptrArg(lp), ptrArg(qp),
		ptrArg(kp), ptrArg(vp), ptrArg(sp), ptrArg(first), i32Arg(sh.B), i32Arg(sh.T), i32Arg(sh.H), i32Arg(sh.KV),
		i32Arg(sh.D), f32Arg(scale))
	kgrid, kblock := rowsLaunch(sh.B * sh.KV * sh.T)
	be.launch(be.k.attnBwdDkdvF32, kgrid, kblock, 0, ptrArg(dkp), ptrArg(dvp), ptrArg(di), ptrArg(dop), ptrArg(lp),
		ptrArg(qp), ptrArg(kp), ptrArg(vp), ptrArg(sp), ptrArg(last), i32Arg(sh.B), i32Arg(sh.T), i32Arg(sh.H),
		i32Arg(sh.KV), i32Arg(sh.D), f32Arg(scale))
}
