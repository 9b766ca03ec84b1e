package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// qwenPattern is the Split pre-tokenizer regex of Qwen2 and Qwen3 (and, with
// the same semantics, cl100k). Go's regexp cannot run it because of the
// lookahead in `\s+(?!\S)`, so scanQwen implements it by hand.
const qwenPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// Character classes of the pattern. The ASCII table keeps the scanner's hot
// path free of Unicode table lookups.
const (
	clsOther = iota // not \s, \p{L} or \p{N}
	clsLetter
	clsNumber
	clsSpace   // \s other than \r and \n
	clsNewline // \r or \n
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = classOfSlow(rune(c))
	}
	return t
}()

// classOfSlow follows the Unicode definitions the Rust tokenizers library
// uses: \s is White_Space, \p{L} any letter, \p{N} any number.
func classOfSlow(r rune) uint8 {
	switch {
	case r == '\r' || r == '\n':
		return clsNewline
	case unicode.Is(unicode.White_Space, r):
		return clsSpace
	case unicode.IsLetter(r):
		return clsLetter
	case unicode.IsNumber(r):
		return clsNumber
	}
	return clsOther
}

// classAt returns the class of the rune starting at s[i] and its width.
func classAt(s string, i int) (uint8, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClass[c], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return classOfSlow(r), n
}

func isSpaceClass(c uint8) bool { return c == clsSpace || c == clsNewline }

// scanQwen returns the end of the pre-token that starts at s[i] (i < len(s)).
// The alternatives are tried in the pattern's order, as a backtracking regex
// engine does; each comment names the alternative.
func scanQwen(s string, i int) int {
	n := len(s)
	c, w := classAt(s, i)

	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if s[i] == '\'' && i+1 < n {
		switch lower(s[i+1]) {
		case 's', 't', 'm', 'd':
			return i + 2
		case 'r', 'v', 'l':
			if i+2 < n {
				a, b := lower(s[i+1]), lower(s[i+2])
				if (a == 'r' || a == 'v') && b == 'e' || a == 'l' && b == 'l' {
					return i + 3
				}
			}
		}
	}

	// [^\r\n\p{L}\p{N}]?\p{L}+
	if c == clsLetter {
		return scanClass(s, i+w, clsLetter)
	}
	if c != clsNewline && c != clsNumber && i+w < n {
		if c2, _ := classAt(s, i+w); c2 == clsLetter {
			return scanClass(s, i+w, clsLetter)
		}
	}

	// \p{N}
	if c == clsNumber {
		return i + w
	}

	// ` ?[^\s\p{L}\p{N}]+[\r\n]*`
	j := i
	if s[i] == ' ' && i+1 < n {
		if c2, _ := classAt(s, i+1); c2 == clsOther {
			j = i + 1
		}
	}
	if c2, _ := classAt(s, j); c2 == clsOther {
		j = scanClass(s, j, clsOther)
		return scanClass(s, j, clsNewline)
	}

	// What is left starts with whitespace.
	end := i
	lastNL := -1
	for end < n {
		c2, w2 := classAt(s, end)
		if !isSpaceClass(c2) {
			break
		}
		if c2 == clsNewline {
			lastNL = end + w2
		}
		end += w2
	}
	// \s*[\r\n]+ : backtracks to the last line break of the run.
	if lastNL >= 0 {
		return lastNL
	}
	// \s+(?!\S) : the whole run at the end of the text, else all but its
	// last character, which then starts the next pre-token.
	if end == n {
		return end
	}
	_, lw := utf8.DecodeLastRuneInString(s[i:end])
	if end-lw > i {
		return end - lw
	}
	// \s+
	return end
}

// scanClass returns the end of the run of class c starting at s[i].
func scanClass(s string, i int, c uint8) int {
	for i < len(s) {
		c2, w := classAt(s, i)
		if c2 != c {
			break
		}
		i += w
	}
	return i
}

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}
