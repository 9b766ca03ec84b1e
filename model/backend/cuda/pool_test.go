package cuda

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// TestBlockPool hands out and frees blocks at random from a pool over a
// fake driver and checks, after every operation, that no two blocks in use
// overlap, each lies within one segment, and the pool's byte counts add
// up; when everything is freed, every segment has merged back into one
// free block and goes back to the driver.
func TestBlockPool(t *testing.T) {
	const unit = 2 << 20
	segments := map[uint64]uint64{} // base → size, as the fake driver gave them
	next := uint64(1 << 40)
	limit := uint64(64 * unit) // the fake device's memory
	var held uint64
	p := newBlockPool(func(size uint64) (uint64, bool) {
		if held+size > limit {
			return 0, false
		}
		ptr := next
		next += size + unit // gaps: segments are never adjacent
		segments[ptr], held = size, held+size
		return ptr, true
	}, func(ptr uint64) {
		size, ok := segments[ptr]
		if !ok {
			t.Fatalf("released %#x, which is no segment", ptr)
		}
		delete(segments, ptr)
		held -= size
	})
	rng := rand.New(rand.NewPCG(1, 2))
	inUse := map[uint64]uint64{}
	check := func(op string) {
		t.Helper()
		type span struct{ lo, hi uint64 }
		var spans []span
		var used uint64
		for ptr, size := range inUse {
			spans = append(spans, span{ptr, ptr + size})
			used += size
			ok := false
			for base, ss := range segments {
				ok = ok || ptr >= base && ptr+size <= base+ss
			}
			if !ok {
				t.Fatalf("after %s: block %#x+%d lies in no segment", op, ptr, size)
			}
		}
		sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
		for i := 1; i < len(spans); i++ {
			if spans[i].lo < spans[i-1].hi {
				t.Fatalf("after %s: blocks overlap: %v and %v", op, spans[i-1], spans[i])
			}
		}
		// The free list is exactly the blocks marked free, and no two
		// free blocks are neighbours (they would have merged).
		listed := map[*block]bool{}
		for _, b := range p.free {
			if !b.free || listed[b] {
				t.Fatalf("after %s: free list holds %#x (marked free: %v, twice: %v)", op, b.ptr, b.free, listed[b])
			}
			listed[b] = true
			if b.next != nil && b.next.free {
				t.Fatalf("after %s: free neighbours %#x and %#x not merged", op, b.ptr, b.next.ptr)
			}
		}
		for _, b := range p.byPtr {
			if b.free != listed[b] {
				t.Fatalf("after %s: block %#x marked free %v, on the free list %v", op, b.ptr, b.free, listed[b])
			}
		}
		if p.Held != held || p.Held != used+p.Free {
			t.Fatalf("after %s: pool holds %d with %d free, the driver gave %d, %d in use", op, p.Held, p.Free, held, used)
		}
	}
	var live []uint64
	for i := range 5000 {
		if len(live) > 0 && rng.IntN(2) == 0 {
			k := rng.IntN(len(live))
			ptr := live[k]
			live = append(live[:k], live[k+1:]...)
			delete(inUse, ptr)
			p.put(ptr)
			check("put")
		} else {
			size := uint64(1+rng.IntN(12)) * unit
			ptr, _, ok := p.get(size)
			if !ok {
				p.releaseFree()
				check("releaseFree")
				if ptr, _, ok = p.get(size); !ok {
					continue // full even so
				}
			}
			inUse[ptr] = size
			live = append(live, ptr)
			check("get")
		}
		if i%500 == 0 {
			p.releaseFree()
			check("releaseFree")
		}
	}
	for _, ptr := range live {
		delete(inUse, ptr)
		p.put(ptr)
	}
	check("freeing everything")
	p.releaseFree()
	if len(segments) != 0 || p.Held != 0 || p.Free != 0 || len(p.byPtr) != 0 || len(p.free) != 0 {
		t.Errorf("after freeing everything and releasing: %d segments left, pool holds %d (%d free), %d blocks known, %d free",
			len(segments), p.Held, p.Free, len(p.byPtr), len(p.free))
	}
}

// TestBlockPoolSplitsAndMerges: a freed block serves smaller requests, and
// blocks freed in any order merge back into their segment.
func TestBlockPoolSplitsAndMerges(t *testing.T) {
	const unit = 2 << 20
	grown := 0
	p := newBlockPool(func(uint64) (uint64, bool) { grown++; return uint64(grown) << 40, true }, func(uint64) {})
	big, _, _ := p.get(6 * unit)
	p.put(big)
	a, fromFreeA, _ := p.get(2 * unit)
	b, fromFreeB, _ := p.get(3 * unit)
	c, fromFreeC, _ := p.get(unit)
	if grown != 1 || !fromFreeA || !fromFreeB || !fromFreeC || a != big || b != big+2*unit || c != big+5*unit {
		t.Fatalf("6 units freed, then 2+3+1: %d segments grown, blocks at +%d, +%d, +%d units", grown,
			(a-big)/unit, (b-big)/unit, (c-big)/unit)
	}
	for _, ptr := range []uint64{b, a, c} {
		p.put(ptr)
	}
	if len(p.free) != 1 || p.free[0].size != 6*unit || p.free[0].prev != nil || p.free[0].next != nil {
		t.Fatalf("the three freed did not merge back into one block of 6 units: %d free blocks", len(p.free))
	}
}
