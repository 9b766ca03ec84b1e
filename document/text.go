package document

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"unicode/utf8"
)

// TextChecker checks, as the bytes stream by, that a file is UTF-8 text:
// valid UTF-8 without NUL bytes. It holds at most 3 bytes of a character
// cut between two writes. Write fails with an *Error at the first bad byte.
type TextChecker struct {
	pending []byte // the start of a character cut by the previous Write
	offset  int64  // bytes seen before pending
	err     error
}

// Write checks p; it fails, and keeps failing, once the text is not UTF-8.
func (c *TextChecker) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n := len(p)
	if len(c.pending) > 0 {
		// Complete the cut character from p's first bytes.
		need := min(utf8.UTFMax-len(c.pending), len(p))
		buf := append(c.pending[:len(c.pending):len(c.pending)], p[:need]...)
		if !utf8.FullRune(buf) {
			c.pending = buf
			return n, nil
		}
		r, size := utf8.DecodeRune(buf)
		if r == utf8.RuneError && size <= 1 {
			return 0, c.fail(c.offset, "is not UTF-8 text")
		}
		used := size - len(c.pending)
		c.offset += int64(size)
		c.pending = nil
		p = p[used:]
	}
	// Fast path: the complete characters of p hold no NUL and are valid
	// UTF-8 (both checks run at memory speed); the slow loop below finds
	// where the first bad byte is, or where a cut character starts.
	if end := completeRunes(p); bytes.IndexByte(p[:end], 0) < 0 && utf8.Valid(p[:end]) {
		if end < len(p) {
			c.pending = append([]byte(nil), p[end:]...)
		}
		c.offset += int64(end)
		return n, nil
	}
	for i := 0; i < len(p); {
		b := p[i]
		if b == 0 {
			return 0, c.fail(c.offset+int64(i), "contains NUL bytes, so it is binary data, not text")
		}
		if b < utf8.RuneSelf {
			i++
			continue
		}
		if !utf8.FullRune(p[i:]) {
			c.pending = append([]byte(nil), p[i:]...)
			c.offset += int64(i)
			return n, nil
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size <= 1 {
			return 0, c.fail(c.offset+int64(i), "is not UTF-8 text")
		}
		i += size
	}
	c.offset += int64(len(p))
	return n, nil
}

// completeRunes is the length of p without a trailing character that p
// cuts short (the start of a multi-byte sequence missing its last bytes).
func completeRunes(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				return i
			}
			break
		}
	}
	return len(p)
}

// Close reports a character cut off by the end of the file.
func (c *TextChecker) Close() error {
	if c.err == nil && len(c.pending) > 0 {
		return c.fail(c.offset, "is not UTF-8 text: it ends inside a character")
	}
	return c.err
}

func (c *TextChecker) fail(at int64, what string) error {
	c.err = &Error{Kind: Unsupported, Msg: fmt.Sprintf("the file %s (at byte %d); rlm reads UTF-8 text, HTML and PDF files", what, at)}
	return c.err
}

// checkText reads r to its end through a TextChecker, and reports whether
// it held nothing but white space.
func checkText(ctx context.Context, r io.Reader) (blank bool, err error) {
	var c TextChecker
	blank = true
	buf := make([]byte, 256<<10)
	for {
		if ctx.Err() != nil {
			return false, timeoutError(ctx)
		}
		n, err := r.Read(buf)
		if _, werr := c.Write(buf[:n]); werr != nil {
			return false, werr
		}
		blank = blank && len(bytes.TrimSpace(buf[:n])) == 0
		if err == io.EOF {
			return blank, c.Close()
		}
		if err != nil {
			return false, fmt.Errorf("read document: %w", err)
		}
	}
}
