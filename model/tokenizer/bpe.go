package tokenizer

import "container/heap"

// merge is the result of merging a pair of tokens: the pair's rank (lower
// merges first) and the id of the merged token.
type merge struct {
	rank int32
	id   int32
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// symbol is one token of a word being merged, in a doubly linked list so that
// a merge is O(1) and positions stay stable for the heap.
type symbol struct {
	id         int32
	prev, next int32 // indexes into the word, -1 at the ends
	size       int32 // 0 once merged into its left neighbour
}

// candidate is a possible merge of symbols[pos] with its right neighbour,
// valid while both still hold the ids it was made from.
type candidate struct {
	rank        int32
	pos         int32
	left, right int32
	id          int32
}

type candidateHeap []candidate

func (h candidateHeap) Len() int { return len(h) }
func (h candidateHeap) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].pos < h[j].pos // leftmost first among equal ranks, as HF does
}
func (h candidateHeap) Swap(i, j int)     { h[i], h[j] = h[j], h[i] }
func (h *candidateHeap) Push(x any)       { *h = append(*h, x.(candidate)) }
func (h *candidateHeap) Pop() any         { old := *h; x := old[len(old)-1]; *h = old[:len(old)-1]; return x }
func (h *candidateHeap) reset()           { *h = (*h)[:0] }
func (h *candidateHeap) push(c candidate) { heap.Push(h, c) }

// smallWord is the length up to which a plain quadratic scan for the best
// pair beats the heap; most pre-tokens are a few bytes long.
const smallWord = 16

// bpe merges the bytes of one pre-token and appends the resulting ids to dst.
func (e *encoder) bpe(dst []int, word string) []int {
	t := e.t
	if len(word) == 1 {
		return append(dst, int(t.byteID[word[0]]))
	}
	ids := e.ids[:0]
	for i := 0; i < len(word); i++ {
		ids = append(ids, t.byteID[word[i]])
	}
	if len(ids) <= smallWord {
		ids = t.mergeSmall(ids)
	} else {
		ids = e.mergeLarge(ids)
	}
	for _, id := range ids {
		dst = append(dst, int(id))
	}
	e.ids = ids
	return dst
}

// mergeSmall repeatedly merges the lowest-ranked adjacent pair in place.
func (t *Tokenizer) mergeSmall(ids []int32) []int32 {
	for len(ids) > 1 {
		best := merge{rank: -1}
		at := -1
		for i := 0; i+1 < len(ids); i++ {
			m, ok := t.merges[pairKey(ids[i], ids[i+1])]
			if ok && (at < 0 || m.rank < best.rank) {
				best, at = m, i
			}
		}
		if at < 0 {
			break
		}
		ids[at] = best.id
		ids = append(ids[:at+1], ids[at+2:]...)
	}
	return ids
}

// mergeLarge is the O(n log n) form for long pre-tokens (long runs of
// letters or symbols), where the quadratic scan would dominate.
func (e *encoder) mergeLarge(ids []int32) []int32 {
	t := e.t
	syms := e.syms[:0]
	for i, id := range ids {
		syms = append(syms, symbol{id: id, prev: int32(i - 1), next: int32(i + 1), size: 1})
	}
	syms[len(syms)-1].next = -1
	h := &e.heap
	h.reset()
	for i := 0; i+1 < len(syms); i++ {
		if m, ok := t.merges[pairKey(syms[i].id, syms[i+1].id)]; ok {
			*h = append(*h, candidate{rank: m.rank, pos: int32(i), left: syms[i].id, right: syms[i+1].id, id: m.id})
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		c := heap.Pop(h).(candidate)
		s := &syms[c.pos]
		if s.size == 0 || s.id != c.left || s.next < 0 || syms[s.next].id != c.right || syms[s.next].size == 0 {
			continue // stale: one side was merged since this was pushed
		}
		r := &syms[s.next]
		s.id = c.id
		s.size += r.size
		r.size = 0
		s.next = r.next
		if s.next >= 0 {
			syms[s.next].prev = c.pos
		}
		if s.prev >= 0 {
			p := &syms[s.prev]
			if m, ok := t.merges[pairKey(p.id, s.id)]; ok {
				h.push(candidate{rank: m.rank, pos: s.prev, left: p.id, right: s.id, id: m.id})
			}
		}
		if s.next >= 0 {
			n := &syms[s.next]
			if m, ok := t.merges[pairKey(s.id, n.id)]; ok {
				h.push(candidate{rank: m.rank, pos: c.pos, left: s.id, right: n.id, id: m.id})
			}
		}
	}
	ids = ids[:0]
	for i := int32(0); i >= 0; i = syms[i].next {
		ids = append(ids, syms[i].id)
	}
	e.syms = syms
	return ids
}
