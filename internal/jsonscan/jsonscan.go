// Package jsonscan walks the elements of a JSON array without decoding
// them, so that a decoder can count them against a cap and refuse the
// array at the first element past it, before anything is built for the
// rest: decoding a body of a million tiny items whole costs far more
// memory than the body.
//
// The input is JSON that encoding/json has already checked (what it hands
// an Unmarshaler, or a json.RawMessage it filled); malformed input gives
// ErrSyntax, never a panic.
package jsonscan

import "errors"

var (
	// ErrNotArray is what Elements returns for a value that is not an array.
	ErrNotArray = errors.New("jsonscan: not an array")
	// ErrSyntax is malformed JSON.
	ErrSyntax = errors.New("jsonscan: malformed JSON")
)

// Elements calls fn with the index and the bytes (a sub-slice of b) of
// each element of the JSON array b, in order, and returns fn's first
// error, which stops the walk.
func Elements(b []byte, fn func(i int, elem []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return ErrNotArray
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for n := 0; ; n++ {
		end, err := skipValue(b, i)
		if err != nil {
			return err
		}
		if err := fn(n, b[i:end]); err != nil {
			return err
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return ErrSyntax
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return nil
		default:
			return ErrSyntax
		}
	}
}

// Count is the number of elements of the JSON array b, stopping at
// limit+1: enough to tell that it is over limit without walking the rest.
func Count(b []byte, limit int) (int, error) {
	n := 0
	err := Elements(b, func(int, []byte) error {
		n++
		if n > limit {
			return errOver
		}
		return nil
	})
	if err == errOver {
		err = nil
	}
	return n, err
}

var errOver = errors.New("over the limit")

// Members is the number of members of the JSON object b, stopping at
// limit+1, as Count does for arrays; a value that is not an object is an
// error.
func Members(b []byte, limit int) (int, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, ErrSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return 0, nil
	}
	for n := 1; ; n++ {
		if n > limit {
			return n, nil
		}
		if i >= len(b) || b[i] != '"' {
			return n, ErrSyntax
		}
		end, err := skipString(b, i)
		if err != nil {
			return n, err
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return n, ErrSyntax
		}
		if i, err = skipValue(b, skipSpace(b, i+1)); err != nil {
			return n, err
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return n, ErrSyntax
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return n, nil
		default:
			return n, ErrSyntax
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the value that starts at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return i, ErrSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '[', '{':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return end, err
				}
				i = end
				continue
			case '[', '{':
				depth++
			case ']', '}':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return i, ErrSyntax
	default: // a number, true, false or null
		j := i
		for j < len(b) && !delimiter(b[j]) {
			j++
		}
		if j == i {
			return i, ErrSyntax
		}
		return j, nil
	}
}

// skipString returns the end of the string literal that starts at b[i].
func skipString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return len(b), ErrSyntax
}

func delimiter(c byte) bool {
	switch c {
	case ',', ']', '}', ':', ' ', '\t', '\n', '\r', '"', '[', '{':
		return true
	}
	return false
}
