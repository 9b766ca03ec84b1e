package inference

import (
	"container/list"
	"encoding/binary"
	"hash/maphash"
	"slices"
)

// blockPool hands out the KV cache's blocks and remembers which full blocks
// hold which token prefix, so a later sequence with the same prefix reuses
// them instead of recomputing (prefix caching).
//
// A block is identified by a chain hash: the hash of its parent's chain
// hash and its own tokens, so equal hashes mean equal whole prefixes (a
// lookup also compares the block's tokens and parent hash, so only a
// 64-bit collision on both could mislead it). Only full blocks are
// registered; the partial last block of a sequence is private to it and is
// never written by anyone else.
//
// Each block is in exactly one state: held (refs > 0, by one or more
// sequences), cached (refs == 0, registered, on the LRU list, reusable
// until evicted), or free (refs == 0, unregistered). allocate takes a free
// block first and evicts the least recently released cached block second.
// The pool is not safe for concurrent use; the engine's lock guards it.
type blockPool struct {
	size   int // tokens per block
	blocks []blockInfo
	free   []int32
	lru    *list.List // of int32 block ids, least recently released first
	byHash map[uint64]int32
	seed   maphash.Seed

	hits, evictions int64
}

type blockInfo struct {
	refs       int
	registered bool
	hash       uint64 // chain hash, when registered
	parent     uint64 // chain hash of the block before, when registered
	tokens     []int32
	lru        *list.Element // when cached
}

func newBlockPool(numBlocks, size int) *blockPool {
	p := &blockPool{size: size, blocks: make([]blockInfo, numBlocks), lru: list.New(),
		byHash: map[uint64]int32{}, seed: maphash.MakeSeed()}
	for b := numBlocks - 1; b >= 0; b-- {
		p.free = append(p.free, int32(b))
	}
	return p
}

// available is how many blocks allocate can still hand out.
func (p *blockPool) available() int { return len(p.free) + p.lru.Len() }

// chainHash is the hash of a block given its parent's chain hash.
func (p *blockPool) chainHash(parent uint64, tokens []int32) uint64 {
	var h maphash.Hash
	h.SetSeed(p.seed)
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], parent)
	h.Write(b[:])
	for _, t := range tokens {
		binary.LittleEndian.PutUint32(b[:4], uint32(t))
		h.Write(b[:4])
	}
	return h.Sum64()
}

// allocate returns a block for the caller to hold, or false when every
// block is held.
func (p *blockPool) allocate() (int32, bool) {
	var b int32
	switch {
	case len(p.free) > 0:
		b = p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
	case p.lru.Len() > 0:
		b = p.lru.Remove(p.lru.Front()).(int32)
		p.unregister(b)
		p.evictions++
	default:
		return 0, false
	}
	p.blocks[b].refs = 1
	return b, true
}

func (p *blockPool) unregister(b int32) {
	bi := &p.blocks[b]
	if bi.registered && p.byHash[bi.hash] == b {
		delete(p.byHash, bi.hash)
	}
	bi.registered, bi.tokens, bi.lru = false, nil, nil
}

// release drops one hold on each block, last block first, so that a
// sequence's tail is evicted before its head (a head is what later
// requests share).
func (p *blockPool) release(blocks []int32) {
	for _, b := range slices.Backward(blocks) {
		bi := &p.blocks[b]
		bi.refs--
		if bi.refs > 0 {
			continue
		}
		if bi.registered {
			bi.lru = p.lru.PushBack(b)
		} else {
			p.free = append(p.free, b)
		}
	}
}

// register records that full block b holds tokens after the prefix whose
// chain hash is parent, and returns the block's chain hash. If another
// block already holds that prefix, b stays private.
func (p *blockPool) register(b int32, parent uint64, tokens []int32) uint64 {
	h := p.chainHash(parent, tokens)
	if _, dup := p.byHash[h]; dup {
		return h
	}
	bi := &p.blocks[b]
	bi.registered, bi.hash, bi.parent, bi.tokens = true, h, parent, slices.Clone(tokens)
	p.byHash[h] = b
	return h
}

// match finds the longest run of registered blocks holding tokens' prefix,
// at most maxBlocks of them, takes a hold on each and returns them with
// their chain hashes.
func (p *blockPool) match(tokens []int32, maxBlocks int) (blocks []int32, hashes []uint64) {
	var parent uint64
	for i := 0; i < maxBlocks; i++ {
		chunk := tokens[i*p.size : (i+1)*p.size]
		h := p.chainHash(parent, chunk)
		b, ok := p.byHash[h]
		if !ok {
			break
		}
		bi := &p.blocks[b]
		if bi.parent != parent || !slices.Equal(bi.tokens, chunk) {
			break
		}
		if bi.refs == 0 {
			p.lru.Remove(bi.lru)
			bi.lru = nil
		}
		bi.refs++
		blocks, hashes = append(blocks, b), append(hashes, h)
		parent = h
	}
	p.hits += int64(len(blocks))
	return blocks, hashes
}

// forget drops every registered prefix: after the model's weights change,
// the K and V in cached blocks belong to the old weights. Cached blocks
// become free; the caller makes sure no block is held.
func (p *blockPool) forget() {
	for p.lru.Len() > 0 {
		b := p.lru.Remove(p.lru.Front()).(int32)
		p.unregister(b)
		p.free = append(p.free, b)
	}
	clear(p.byHash)
}
