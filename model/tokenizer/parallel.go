package tokenizer

import (
	"sync"
)

// minChunk is the smallest piece of text worth a goroutine of its own.
const minChunk = 256 << 10

// chunks cuts s into pieces that encode independently to the same ids as the
// whole: each cut is at a point where the pre-tokenizer always ends a
// pre-token, NFC cannot compose across, and no added token can straddle.
// Chunks are at least minSize bytes. It returns nil when s is small or
// cannot be cut.
func (t *Tokenizer) chunks(s string, workers, minSize int) []string {
	if !t.splittable || workers < 2 || len(s) < 2*minSize {
		return nil
	}
	size := max(minSize, len(s)/(4*workers))
	var out []string
	start := 0
	for start+size < len(s) {
		cut := safeCut(s, start+size)
		if cut < 0 {
			break
		}
		out = append(out, s[start:cut])
		start = cut
	}
	return append(out, s[start:])
}

// safeCut returns the first safe cut at or after i, or -1. Safe cuts are:
//   - after '\n' before a printable non-space ASCII byte: no alternative of the
//     pattern continues a pre-token past a line break into a non-space;
//   - before ' ' that follows a non-space byte and precedes an ASCII letter:
//     " word" always starts a pre-token there.
//
// Both characters at the cut are ASCII starters, so NFC cannot compose across.
func safeCut(s string, i int) int {
	for ; i+1 < len(s); i++ {
		c, next := s[i], s[i+1]
		if c == '\n' && '!' <= next && next <= '~' {
			return i + 1
		}
		if i > 0 && next == ' ' && i+2 < len(s) && isASCIILetter(s[i+2]) && c != ' ' && c != '\n' && c != '\r' && c != '\t' && c < 0x80 {
			return i + 1
		}
	}
	return -1
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// encodeParallel encodes the chunks on up to workers goroutines and joins
// the results in order.
func (t *Tokenizer) encodeParallel(chunks []string, special bool, workers int) []int {
	parts := make([][]int, len(chunks))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(chunks)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := t.getEncoder()
			defer t.pool.Put(e)
			for i := range next {
				parts[i] = e.encodeSerial(make([]int, 0, len(chunks[i])/3+1), chunks[i], special)
			}
		}()
	}
	for i := range chunks {
		next <- i
	}
	close(next)
	wg.Wait()
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]int, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
