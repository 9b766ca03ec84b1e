package cuda

// blockPool hands out the backend's large device blocks (2 MiB and up, in
// 2 MiB units) from segments the driver allocated, best fit: a request
// takes the smallest free block that holds it, split when larger, and a
// freed block merges with free neighbours of its segment. Memory freed in
// one shape then serves requests of another: the float32 storage a
// training step's activations give back (demote.go) holds the bf16 copies
// its backward pass makes, instead of sitting pooled while the driver is
// asked for more. Exact-size pooling without splitting left, for a 0.6B
// step at T=4096 and B=4, 7.7 GiB held beyond what was in use.
//
// Everything runs on one stream in order, so a block freed by work queued
// before is safe to hand out at once. blockPool does no locking: the
// backend holds its lock.
type blockPool struct {
	grow    func(bytes uint64) (ptr uint64, ok bool) // a new segment from the driver
	release func(ptr uint64)                         // a whole segment back to the driver

	byPtr map[uint64]*block
	free  []*block // free blocks, in the order they became free
	// Free is the bytes of free blocks; Held, of all segments.
	Free, Held uint64
}

// block is part of a segment; prev and next are its neighbours by address
// within the segment (nil at the segment's ends).
type block struct {
	ptr, size  uint64
	prev, next *block
	free       bool
}

func newBlockPool(grow func(uint64) (uint64, bool), release func(uint64)) *blockPool {
	return &blockPool{grow: grow, release: release, byPtr: map[uint64]*block{}}
}

// get returns a block of exactly size bytes (a multiple of 2 MiB), and
// whether it came from free blocks rather than a new segment; ok is false
// when no free block holds it and the driver has no memory for it.
func (p *blockPool) get(size uint64) (ptr uint64, fromFree, ok bool) {
	best := -1
	for i, b := range p.free {
		if b.size >= size && (best < 0 || b.size < p.free[best].size ||
			b.size == p.free[best].size && b.ptr < p.free[best].ptr) {
			best = i
		}
	}
	if best < 0 {
		ptr, ok := p.grow(size)
		if !ok {
			return 0, false, false
		}
		p.byPtr[ptr] = &block{ptr: ptr, size: size}
		p.Held += size
		return ptr, false, true
	}
	b := p.free[best]
	p.unfree(best)
	if b.size > size {
		rest := &block{ptr: b.ptr + size, size: b.size - size, prev: b, next: b.next, free: true}
		if b.next != nil {
			b.next.prev = rest
		}
		b.next, b.size = rest, size
		p.byPtr[rest.ptr] = rest
		p.free = append(p.free, rest)
	}
	p.Free -= size
	return b.ptr, true, true
}

// put frees the block at ptr, merging it with free neighbours.
func (p *blockPool) put(ptr uint64) {
	b := p.byPtr[ptr]
	if b == nil || b.free {
		panic("cuda: freeing a device block that is not in use")
	}
	p.Free += b.size
	b.free = true
	if n := b.next; n != nil && n.free {
		p.unfree(p.indexOf(n))
		p.absorb(b, n)
	}
	if q := b.prev; q != nil && q.free {
		p.unfree(p.indexOf(q))
		p.absorb(q, b)
		b = q
		b.free = true
	}
	p.free = append(p.free, b)
}

// releaseFree gives every segment that is wholly free back to the driver.
func (p *blockPool) releaseFree() {
	kept := p.free[:0]
	for _, b := range p.free {
		if b.prev == nil && b.next == nil {
			p.release(b.ptr)
			delete(p.byPtr, b.ptr)
			p.Free -= b.size
			p.Held -= b.size
			continue
		}
		kept = append(kept, b)
	}
	clear(p.free[len(kept):])
	p.free = kept
}

// absorb merges b, the free block after a, into a.
func (p *blockPool) absorb(a, b *block) {
	a.size += b.size
	a.next = b.next
	if b.next != nil {
		b.next.prev = a
	}
	delete(p.byPtr, b.ptr)
}

// unfree takes free block i off the free list, as in use.
func (p *blockPool) unfree(i int) {
	p.free[i].free = false
	p.free = append(p.free[:i], p.free[i+1:]...)
}

func (p *blockPool) indexOf(b *block) int {
	for i, f := range p.free {
		if f == b {
			return i
		}
	}
	panic("cuda: a free device block missing from the free list")
}
