//go:build linux && (amd64 || arm64)

package cuda

// bf16 operands. In BF16 mode the matrix products and attention read bf16
// copies of their float32 inputs. A copy is kept, keyed by its source view
// and the source allocation's write version, for as long as the source is
// unchanged: a weight matrix is converted once per optimizer step instead of
// once per product (the tied LM head is used by three products in each of
// the loss's chunks), an activation once instead of once per consumer.
//
// Every operation that writes into an allocation bumps its version (see
// wrote), so a copy is never used after its source changed.

type convKey struct {
	a       *allocation
	off, n  int
	version uint64
}

type convCache struct {
	copies map[convKey]*allocation
	order  []convKey // insertion order, for eviction
	bytes  uint64
	limit  uint64
}

// wrote marks the allocations behind views as changed; every operation
// defers it for its outputs, so it runs after the work is queued.
func (be *Backend) wrote(bufs ...*buffer) {
	for _, b := range bufs {
		b.a.version++
	}
}

// bf16Of returns a device pointer to a bf16 copy of b, converting it unless
// an up-to-date copy is cached. The caller holds be.mu.
func (be *Backend) bf16Of(b *buffer) uint64 {
	if b.demoted() {
		return b.a.user.half.ptr
	}
	c := &be.conv
	key := convKey{b.a, b.off, b.n, b.a.version}
	if dst, ok := c.copies[key]; ok {
		return dst.ptr
	}
	dst := be.alloc(uint64(2 * b.n))
	be.convert(dst.ptr, b.ptr(), b.n)
	if c.copies == nil {
		c.copies = map[convKey]*allocation{}
	}
	c.copies[key] = dst
	c.order = append(c.order, key)
	c.bytes += dst.bytes
	for c.bytes > c.limit && len(c.order) > 1 {
		old := c.order[0]
		c.order = c.order[1:]
		if a, ok := c.copies[old]; ok {
			c.bytes -= a.bytes
			delete(c.copies, old)
			be.free(a)
		}
	}
	// Copies of older versions of the same view can never be used again.
	for i := 0; i < len(c.order)-1; i++ {
		k := c.order[i]
		if k.a == key.a && k.version != key.version {
			if a, ok := c.copies[k]; ok {
				c.bytes -= a.bytes
				delete(c.copies, k)
				be.free(a)
			}
			c.order = append(c.order[:i], c.order[i+1:]...)
			i--
		}
	}
	return dst.ptr
}

// dropConversions empties the cache (when memory runs out).
func (be *Backend) dropConversions() {
	for _, a := range be.conv.copies {
		be.free(a)
	}
	be.conv.copies, be.conv.order, be.conv.bytes = nil, nil, 0
}

// convert writes n bf16s at dst from n float32s at src: four at a time when
// both are aligned for it.
func (be *Backend) convert(dst, src uint64, n int) {
	n4 := 0
	if src%16 == 0 && dst%8 == 0 {
		n4 = n / 4
		if n4 > 0 {
			be.elementwise(be.k.toBF16x4, n4, ptrArg(dst), ptrArg(src), i64Arg(n4))
		}
	}
	if rest := n - 4*n4; rest > 0 {
		be.elementwise(be.k.toBF16, rest, ptrArg(dst+uint64(8*n4)), ptrArg(src+uint64(16*n4)), i64Arg(rest))
	}
}
