// Package clip cuts text to a byte budget without splitting a UTF-8
// sequence: the one place where the tree's error messages, previews,
// partial answers and trace fields are shortened. Callers add their own
// note of what was cut, since what a reader needs to know differs (an
// error's size, a trace field's, an ellipsis on one line).
package clip

import "unicode/utf8"

// Head is the longest prefix of s of at most n bytes that ends at a rune
// boundary: s itself when it fits, "" when n <= 0.
func Head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Tail is the longest suffix of s of at most n bytes that starts at a rune
// boundary.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// Ellipsis is s cut to at most n bytes with "…" marking the cut (the mark
// included in n when n leaves room for it).
func Ellipsis(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	return Head(s, n-len(mark)) + mark
}
