//go:build linux && (amd64 || arm64)

package cuda

import "github.com/rlm-project/rlm/model/backend"

// Buffers kept only in bf16. In BF16 mode every matrix product and the
// attention kernels read bf16 copies of their float32 operands (see
// convert.go). Many of a training step's activations are read by nothing
// else between the forward pass that writes them and the backward pass
// that reads them again: the normed inputs of the projections, q, k and v,
// the MLP's hidden state. Keeping their float32 storage as well as the
// copy the products read costs three times the memory of the copy alone.
//
// KeepForProducts gives such a buffer's float32 block back and keeps its
// bf16 copy in its place (the buffer is demoted). Products read the copy as
// before, so nothing they compute changes. A download reads the copy,
// widened. Any other use of the buffer (a kernel that reads or writes it
// as float32, the next forward pass overwriting it) first restores
// float32 storage, widened exactly from the copy.

// KeepForProducts implements backend.ProductOperands: in BF16 mode each
// buffer that is a whole Alloc is demoted to its bf16 copy; in the other
// modes, whose products read float32, it does nothing.
func (be *Backend) KeepForProducts(bufs ...backend.Buffer) {
	if be.opts.Precision != BF16 {
		return
	}
	defer be.enter()()
	for _, x := range bufs {
		b := fb(x)
		a := b.a
		if a.user == nil || a.ptr == 0 || b.off != 0 || b.n != a.user.n {
			continue
		}
		half := be.takeConversion(b)
		be.free(a)
		a.ptr, a.user.ptr, a.user.half = 0, 0, half
	}
}

// demoted reports whether b is a whole demoted buffer, whose bf16 copy a
// product can read directly.
func (b *buffer) demoted() bool {
	return b.a.ptr == 0 && b.off == 0 && b.n == b.a.user.n
}

// takeConversion returns a bf16 copy of the whole buffer b that the cache
// no longer owns: the cached one, moved out, or a new one. Cached copies of
// other views of b's block go, since the block is about to. The caller
// holds be.mu.
func (be *Backend) takeConversion(b *buffer) *allocation {
	c := &be.conv
	want := convKey{b.a, b.off, b.n, b.a.version}
	var half *allocation
	for i := 0; i < len(c.order); i++ {
		k := c.order[i]
		if k.a != b.a {
			continue
		}
		if a, ok := c.copies[k]; ok {
			c.bytes -= a.bytes
			delete(c.copies, k)
			if k == want {
				half = a
			} else {
				be.free(a)
			}
		}
		c.order = append(c.order[:i], c.order[i+1:]...)
		i--
	}
	if half == nil {
		half = be.alloc(uint64(2 * b.n))
		be.convert(half.ptr, b.ptr(), b.n)
	}
	return half
}

// restore gives a demoted allocation float32 storage again, widened from
// its bf16 copy when widen is set (an operation that overwrites the whole
// buffer needs nothing in it), and the copy goes back to the pool. The
// caller holds be.mu.
func (be *Backend) restore(a *allocation, widen bool) {
	u := a.user
	blk := be.alloc(u.bytes)
	if widen {
		be.elementwise(be.k.fromBF16, u.n, ptrArg(blk.ptr), ptrArg(u.half.ptr), i64Arg(u.n))
	}
	be.free(u.half)
	a.ptr, u.ptr, u.half = blk.ptr, blk.ptr, nil
}
